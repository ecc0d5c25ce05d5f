"""nbval over the book: a kernel that dies while it starts is started again.

nbval starts one Jupyter kernel per notebook and sends the kernel's stderr to
/dev/null. A kernel can die before it answers its first request for reasons that
have nothing to do with the notebook: jupyter_client chooses the kernel's five
ports by binding to port 0 and closing the socket, and the kernel binds them a
moment later, so another process on the same loopback (the other nbval worker's
kernel, or a Dask cluster that a chapter 9 notebook starts) can take one of them
first. nbval then reports every cell of the notebook as an error ("Kernel died
before replying to kernel_info") without running any of them.

This plugin starts such a kernel again, up to ``ATTEMPTS`` times, and prints the
dead kernel's stderr (kept in a temporary file) each time, so that a kernel that
cannot start at all still fails, with its reason. A kernel that started is never
restarted: a notebook that kills its kernel fails as before.
"""

from __future__ import annotations

import sys
import tempfile

import nbval.kernel

ATTEMPTS = 3

_start_new_kernel = nbval.kernel.start_new_kernel


def _start_new_kernel_again(startup_timeout=60, kernel_name="python", **kwargs):
    for attempt in range(1, ATTEMPTS + 1):
        err = tempfile.TemporaryFile()
        kwargs["stderr"] = err
        try:
            return _start_new_kernel(
                startup_timeout=startup_timeout, kernel_name=kernel_name, **kwargs
            )
        except RuntimeError as exc:
            err.seek(0)
            tail = err.read()[-2000:].decode(errors="replace")
            err.close()
            print(
                f"\nnbval: kernel {kernel_name!r} failed to start "
                f"(attempt {attempt} of {ATTEMPTS}): {exc}\n"
                f"its stderr:\n{tail or '(empty)'}",
                file=sys.stderr,
            )
            if attempt == ATTEMPTS:
                raise
    raise AssertionError("unreachable")


nbval.kernel.start_new_kernel = _start_new_kernel_again
