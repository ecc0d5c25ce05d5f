"""Execution time of every notebook of the book, from scratch: the issue's target is <= 180 s in all.

Usage: .venv/bin/python tools/time_notebooks.py [--target 180]     (also run by `make bench`)

Each notebook listed in _toc.yml, in the book's order, is executed with nbclient in a fresh
``python3`` kernel, one after another, from its own folder (as `jupyter execute` does); the
time counted for a notebook runs from before its kernel starts to after its last cell (the
kernel is then killed, which takes a tenth of a second), so kernel start-up and imports are
included. Nothing is written back to the notebooks. The
seconds of every notebook and the total go to benchmarks/results/notebooks.json (with the
machine's description, through benchmarks/_results.py's ``save``), which the appendix page
"How fast is olbook?" reads; the total is printed against the target. A notebook that
raises is timed up to its error, recorded with the error, and the script goes on, then
exits with status 1. Times taken while other work runs on the machine are noisy.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
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


def time_notebook(path: Path, timeout: int = 600) -> tuple[float, str | None]:
    """Seconds to execute ``path`` in a fresh kernel, start-up and shut-down included, and the
    error that stopped it (None when every cell ran)."""
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
    start = time.perf_counter()
    try:
        client.execute()
    except CellExecutionError as exc:
        text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))  # the traceback's colours
        lines = [line for line in text.splitlines() if line.strip()]
        return time.perf_counter() - start, lines[-1][
            :200
        ] if lines else "CellExecutionError"
    return time.perf_counter() - start, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--target", type=float, default=180.0, help="seconds for the whole book"
    )
    args = parser.parse_args()
    rows, total, failed = [], 0.0, []
    notebooks = toc_notebooks()
    for path in notebooks:
        seconds, error = time_notebook(path)
        total += seconds
        name = str(path.relative_to(ROOT))
        print(f"{name:66s} {seconds:6.1f} s" + (f"   FAILED: {error}" if error else ""))
        rows.append({"notebook": name, "seconds": round(seconds, 2), "error": error})
        if error:
            failed.append(name)
    met = total <= args.target and not failed
    rows.append(
        {
            "notebook": "total",
            "seconds": round(total, 2),
            "target_s": args.target,
            "met": met,
            "error": f"{len(failed)} notebook(s) failed: the total is incomplete"
            if failed
            else None,
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
    _save_function()(
        "notebooks",
        rows,
        notes="nbclient, a fresh python3 kernel per notebook, one after another; "
        "kernel start-up and imports included",
    )
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
