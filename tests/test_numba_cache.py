"""olbook's compiled code is cached where it can be written, and never stale.

See :mod:`olbook._numba_cache`. Each test runs olbook from a copy of its
sources in a fresh process, so the cache it writes is the test's own.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "olbook"

RUN = r"""
import json, olbook
from olbook import _perceptron_loops as loops
X, y, _ = olbook.data.make_separable(40, 3, margin=0.1, random_state=0)
olbook.Perceptron().fit(X, y)
d = loops.perceptron_epoch
print(json.dumps({"hits": sum(d.stats.cache_hits.values()),
                  "misses": sum(d.stats.cache_misses.values())}))
"""


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    shutil.copytree(
        PACKAGE, root / "olbook", ignore=shutil.ignore_patterns("__pycache__")
    )
    return root


def _run(root: Path, env: dict) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", RUN],
        env={**os.environ, "PYTHONPATH": str(root), **env},
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_change_to_any_module_recompiles_its_dependents(tmp_path):
    root = _copy(tmp_path)
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = _run(root, env)
    assert first == {"hits": 0, "misses": 1}
    assert _run(root, env) == {"hits": 1, "misses": 0}
    # perceptron_epoch lives in _perceptron_loops.py; change only _rowops.py, whose
    # row_score it inlines: numba's own key (the file of the function) would not see it.
    rowops = root / "olbook" / "_rowops.py"
    rowops.write_text(rowops.read_text() + "\n# changed\n")
    assert _run(root, env) == {"hits": 0, "misses": 1}
    assert list((tmp_path / "cache" / "olbook").glob("_perceptron_loops.*.nbi"))


#: Every folder Python's tempfile may fall back to (it also tries the working directory).
TEMP_FOLDERS = [
    d
    for d in {tempfile.gettempdir(), "/tmp", "/var/tmp", "/usr/tmp"}
    if os.path.isdir(d)
]


def _read_only_run(root: Path, locked: Path) -> dict:
    """Run with the sources, home and cache read-only (as root, the temporary folder too)."""
    env = {"HOME": str(locked), "XDG_CACHE_HOME": str(locked), "TMPDIR": str(locked)}
    env["NUMBA_CACHE_DIR"] = ""
    if os.getuid() != 0:
        for p in [locked, root, *root.rglob("*")]:
            p.chmod(0o555 if p.is_dir() else 0o444)
        return _run(root, env)
    # root writes through permissions: read-only bind mounts in a mount namespace
    mounts = " && ".join(
        f"mount --bind {d} {d} && mount -o remount,bind,ro {d}"
        for d in (root, locked, *TEMP_FOLDERS)
    )
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(
            "needs a mount namespace (unshare -m) to make files read-only for root"
        )
    script = f"{mounts} && exec {sys.executable} -c {shlex.quote(RUN)}"
    out = subprocess.run(
        ["unshare", "-m", "sh", "-c", script],
        env={**os.environ, "PYTHONPATH": str(root), **env},
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_nowhere_writable_compiles_in_memory(tmp_path):
    """A read-only package, home, cache and temporary folder: olbook still imports and
    learns, uncached (numba alone raises "no locator available" on import)."""
    root = _copy(tmp_path)
    # sources of their own, so that no cache written by another run can serve them
    validation = root / "olbook" / "_validation.py"
    validation.write_text(validation.read_text() + f"\n# {tmp_path}\n")
    locked = tmp_path / "locked"
    locked.mkdir()
    assert _read_only_run(root, locked)["hits"] == 0
    assert not list(root.rglob("*.nbi")) and not list(locked.rglob("*"))
