"""Execution time of every notebook of the book, with a warm and with an empty numba cache.

Usage: .venv/bin/python tools/time_notebooks.py [--target 180] [--cold-target 240]
       [--notebook-target 30] [--warm-only]                     (also run by `make bench`)

Each notebook listed in _toc.yml, in the book's order, is executed with nbclient in a fresh
``python3`` kernel, one after another, from its own folder (as `jupyter execute` does); the
time counted for a notebook runs from before its kernel starts to after its last cell (the
kernel is then killed, which takes a tenth of a second), so kernel start-up and imports are
included. Nothing is written back to the notebooks.

Every notebook runs twice, one run right after the other: *cold*, its kernel started with
``NUMBA_CACHE_DIR`` set to a new empty folder (what a reader meets on Colab or Binder: every
compiled loop of olbook the notebook uses is compiled), then *warm*, with the folder the
cold run filled (the compiled code is loaded from numba's cache). ``--warm-only`` skips
the cold runs (and then uses numba's usual cache, as before).

The seconds of every notebook and the totals go to benchmarks/results/notebooks.json (with
the machine's description, through benchmarks/_results.py's ``save``), which the appendix
page "How fast is olbook?" reads. Each notebook's row: ``notebook``, ``seconds`` (warm),
``error``, ``cold_s``, ``cold_error``, ``target_each_s`` and ``met_each`` (both runs
within it). The row ``notebook == "total"``: ``seconds`` (warm total), ``target_s``,
``met`` (the warm total within ``target_s``, no notebook failed), ``error``, and
``cold_s``, ``cold_target_s``, ``cold_met`` (the cold total within it, no failure),
``target_each_s``, ``over_each_warm`` and ``over_each_cold`` (how many notebooks take
longer than ``target_each_s``), ``slowest_cold`` (the slowest notebook, cold). A
notebook that raises is timed up to its error, recorded with the error, and the script
goes on, then exits with status 1. Times taken while other work runs on the machine
are noisy.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import nbformat
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent


def _save_function():
    """benchmarks/_results.py's ``save``, imported by path (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "_results", ROOT / "benchmarks" / "_results.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.save


def toc_notebooks() -> list[Path]:
    """The notebooks of _toc.yml, in the book's order (markdown pages are skipped)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files: list[str] = []

    def walk(entries):
        for e in entries or []:
            if "file" in e:
                files.append(e["file"])
            walk(e.get("sections"))
            walk(e.get("chapters"))

    files.append(toc["root"])
    walk(toc.get("chapters"))
    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    return [ROOT / f"{f}.ipynb" for f in files if (ROOT / f"{f}.ipynb").exists()]


def time_notebook(
    path: Path, timeout: int = 600, cache_dir: str | None = None
) -> tuple[float, str | None]:
    """Seconds to execute ``path`` in a fresh kernel, start-up and shut-down included, and the
    error that stopped it (None when every cell ran). With ``cache_dir``, the kernel runs
    with ``NUMBA_CACHE_DIR=cache_dir``."""
    nb = nbformat.read(path, as_version=4)
    # shutdown_kernel="immediate": the kernel is killed after the last cell instead of being asked to
    # exit, which takes seconds (the book's time is its start-up and its cells, not its shut-down)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        shutdown_kernel="immediate",
        resources={"metadata": {"path": str(path.parent)}},
    )
    saved = os.environ.get("NUMBA_CACHE_DIR")
    if cache_dir is not None:  # the kernel inherits this process's environment
        os.environ["NUMBA_CACHE_DIR"] = cache_dir
    start = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError as exc:
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # the traceback's colours
        lines = [line for line in text.splitlines() if line.strip()]
        return time.perf_counter() - start, lines[-1][
            :200
        ] if lines else "CellExecutionError"
    finally:
        if saved is None:
            os.environ.pop("NUMBA_CACHE_DIR", None)
        else:
            os.environ["NUMBA_CACHE_DIR"] = saved
    return time.perf_counter() - start, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--target", type=float, default=180.0, help="seconds for the whole book, warm"
    )
    parser.add_argument(
        "--cold-target",
        type=float,
        default=240.0,
        help="seconds for the whole book, each notebook with an empty numba cache",
    )
    parser.add_argument(
        "--notebook-target",
        type=float,
        default=30.0,
        help="seconds for each notebook, warm and cold",
    )
    parser.add_argument(
        "--warm-only", action="store_true", help="skip the runs with an empty cache"
    )
    args = parser.parse_args()
    each = args.notebook_target
    rows, failed, failed_cold = [], [], []
    total = cold_total = 0.0
    notebooks = toc_notebooks()
    scratch = Path(tempfile.mkdtemp(prefix="olbook-notebooks-"))
    try:
        for k, path in enumerate(notebooks):
            name = str(path.relative_to(ROOT))
            cache = None
            cold, cold_error = None, None
            if not args.warm_only:
                cache = str(scratch / f"numba-{k}")  # new and empty
                cold, cold_error = time_notebook(path, cache_dir=cache)
                cold_total += cold
                if cold_error:
                    failed_cold.append(name)
            seconds, error = time_notebook(path, cache_dir=cache)
            if cache is not None:
                shutil.rmtree(cache, ignore_errors=True)
            total += seconds
            print(
                f"{name:62s} {seconds:6.1f} s"
                + ("" if cold is None else f"  cold {cold:6.1f} s")
                + (f"   FAILED: {error}" if error else "")
                + (f"   FAILED cold: {cold_error}" if cold_error else "")
            )
            rows.append(
                {
                    "notebook": name,
                    "seconds": round(seconds, 2),
                    "error": error,
                    "cold_s": None if cold is None else round(cold, 2),
                    "cold_error": cold_error,
                    "target_each_s": each,
                    "met_each": max(seconds, cold or 0.0) <= each
                    and not error
                    and not cold_error,
                }
            )
            if error:
                failed.append(name)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    met = total <= args.target and not failed
    book = rows[:]
    slowest = max(book, key=lambda r: r["cold_s"] or 0.0) if book else None
    cold_met = (
        None if args.warm_only else cold_total <= args.cold_target and not failed_cold
    )
    rows.append(
        {
            "notebook": "total",
            "seconds": round(total, 2),
            "target_s": args.target,
            "met": met,
            "error": f"{len(failed)} notebook(s) failed: the total is incomplete"
            if failed
            else None,
            "cold_s": None if args.warm_only else round(cold_total, 2),
            "cold_target_s": args.cold_target,
            "cold_met": cold_met,
            "cold_error": f"{len(failed_cold)} notebook(s) failed with an empty cache"
            if failed_cold
            else None,
            "target_each_s": each,
            "over_each_warm": sum(r["seconds"] > each for r in book),
            "over_each_cold": None
            if args.warm_only
            else sum(r["cold_s"] > each for r in book),
            "slowest_cold": None
            if args.warm_only or slowest is None
            else f"{slowest['notebook']} ({slowest['cold_s']:.1f} s)",
        }
    )
    print(
        f"{len(notebooks)} notebooks, total {total:.1f} s: target <= {args.target:.0f} s "
        f"{'met' if met else 'NOT met'}"
        + (
            f"; {len(failed)} FAILED (stopped at the error): {', '.join(failed)}"
            if failed
            else ""
        )
    )
    if not args.warm_only:
        print(
            f"with an empty numba cache: total {cold_total:.1f} s: target <= "
            f"{args.cold_target:.0f} s {'met' if cold_met else 'NOT met'}; "
            f"{rows[-1]['over_each_cold']} notebook(s) over {each:g} s "
            f"(warm: {rows[-1]['over_each_warm']}); slowest {rows[-1]['slowest_cold']}"
        )
    _save_function()(
        "notebooks",
        rows,
        notes="nbclient, a fresh python3 kernel per notebook, one after another; "
        "kernel start-up and imports included; "
        + (
            "numba's usual cache (warm)"
            if args.warm_only
            else "cold: NUMBA_CACHE_DIR a new empty folder per notebook, then warm: "
            "the same notebook again with the folder its cold run filled"
        ),
    )
    if failed or failed_cold:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
