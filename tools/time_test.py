"""How long `make test` takes on a fresh clone, step by step (issue 26: at most 10 min, pip included).

Usage: .venv/bin/python tools/time_test.py [--target 600]      (also run by `make bench`, last)
       .venv/bin/python tools/time_test.py --log LOG --total-s SECONDS [--commit HASH]

The first form clones the repository's last commit (``git clone``: what is not committed is
not measured) into a new temporary folder, runs ``make test`` there exactly as the README
says, with its output in ``make-test.log`` in that folder, and times the whole run with
``time.perf_counter``: the virtual environment and pip, the system packages when missing,
and every step. The second form reads the log of a run made by hand (for instance
``git clone -q . /tmp/fresh && cd /tmp/fresh && make test > log 2>&1``) and takes its
total from ``--total-s``.

Each step of ``make test`` prints its wall time when it ends (``test-nbval: 458 s``, see
the Makefile), and the set-up prints ``venv: 95 s``; the steps run two at a time, so
their times add up to more than the total. The rows go to
``benchmarks/results/suite.json`` (through benchmarks/_results.py's ``save``), which the
appendix page "How fast is olbook?" reads: one row per step (``case`` the step,
``seconds``), and the row ``make test, fresh clone`` with ``seconds`` (the total),
``target_s``, ``met``, ``passed`` (make test's exit status was 0) and ``commit``. A run
that fails is recorded as failed (``met`` is then false) and the script exits with
status 1. Times taken while other work runs on the machine are longer.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEP = re.compile(r"^(venv|test-[\w-]+): (\d+) s$", re.M)
PASSED = "make test after the set-up"


def _save_function():
    """benchmarks/_results.py's ``save``, imported by path (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "_results", ROOT / "benchmarks" / "_results.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.save


def step_times(log: str) -> dict[str, int]:
    """The wall time of every step that printed one, in the order the steps ended."""
    return {name: int(seconds) for name, seconds in STEP.findall(log)}


def run_fresh() -> tuple[str, float, bool, str]:
    """Clone HEAD into a temporary folder and run `make test` there: log, seconds, passed, commit."""
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    folder = Path(tempfile.mkdtemp(prefix="olbook-time-test-"))
    clone = folder / "clone"
    t0 = time.perf_counter()
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    log_path = clone / "make-test.log"
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    with log_path.open("w") as log:
        status = subprocess.run(
            ["make", "test"], cwd=clone, stdout=log, stderr=subprocess.STDOUT, env=env
        ).returncode
    seconds = time.perf_counter() - t0
    print(
        f"make test in {clone}: exit status {status}, {seconds:.0f} s; log {log_path}"
    )
    return log_path.read_text(errors="replace"), seconds, status == 0, commit


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", type=float, default=600.0, help="seconds")
    parser.add_argument("--log", type=Path, help="the log of a run made by hand")
    parser.add_argument("--total-s", type=float, help="that run's total (with --log)")
    parser.add_argument("--commit", default="", help="that run's commit (with --log)")
    args = parser.parse_args()
    if args.log is not None:
        if args.total_s is None:
            parser.error("--log needs --total-s, the run's total in seconds")
        log, seconds, commit = (
            args.log.read_text(errors="replace"),
            args.total_s,
            args.commit,
        )
        passed = PASSED in log
    else:
        log, seconds, passed, commit = run_fresh()
    steps = step_times(log)
    rows = [{"case": name, "seconds": value} for name, value in steps.items()]
    rows.append(
        {
            "case": "make test, fresh clone",
            "seconds": round(seconds, 1),
            "target_s": args.target,
            "met": passed and seconds <= args.target,
            "passed": passed,
            "commit": commit,
        }
    )
    for row in rows:
        print(row)
    _save_function()(
        "suite",
        rows,
        notes=(
            "make test on a fresh clone (git clone of the commit given), as the README says: "
            "the venv and pip, then every step; seconds are wall times, each step's printed "
            "by the Makefile when it ends (the steps run two at a time, so they add up to "
            "more than the total); the total includes the clone, the venv and pip. Target "
            "(issue 26): the total at most target_s on 2 cores."
        ),
    )
    return 0 if passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
