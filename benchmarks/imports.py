"""Warm import time of olbook: ``import olbook`` (target <= 0.5 s), a first learner, a first fit.

Each case runs in a fresh interpreter (``sys.executable -c ...``), which times its own
statements with ``time.perf_counter`` (interpreter start-up excluded, printed apart);
one untimed run first warms the file cache, the ``.pyc`` files and numba's on-disk
cache, then the best of ``--repeat`` runs is kept. Cases:

* ``import olbook``: lazy (PEP 562), it loads none of scikit-learn, SciPy, numba;
* ``import olbook; olbook.Perceptron``: the first learner pulls in scikit-learn
  (``BaseEstimator``), numba and olbook's compiled row sums;
* ``... Perceptron().fit(X, y)`` on 100 x 5: the first fit, compiled code loaded from
  numba's cache (``cache=True`` on every compiled function);
* for scale: ``import numpy``, ``import numba``, ``import sklearn.base``.

    .venv/bin/python benchmarks/imports.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import subprocess
import sys

from _results import save

TARGET_S = 0.5

_TIMED = """
import time
t0 = time.perf_counter()
{setup}
t1 = time.perf_counter()
print(t1 - t0)
"""

CASES = [
    ("python -c pass (interpreter start-up, wall time)", None, None),
    ("import numpy", "import numpy", None),
    ("import numba", "import numba", None),
    ("import sklearn.base", "import sklearn.base", None),
    ("import olbook", "import olbook", TARGET_S),
    ("import olbook; olbook.Perceptron", "import olbook; olbook.Perceptron", None),
    (
        "import olbook; Perceptron().fit(100 x 5) (warm numba cache)",
        "import numpy as np; import olbook\n"
        "X = np.random.default_rng(0).standard_normal((100, 5)); y = np.where(X[:, 0] > 0, 1, -1)\n"
        "olbook.Perceptron().fit(X, y)",
        None,
    ),
]


def run_once(statements: str | None) -> float:
    """Seconds taken by ``statements`` in a fresh interpreter (or its whole wall time when None)."""
    import time

    if statements is None:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        return time.perf_counter() - t0
    out = subprocess.run(
        [sys.executable, "-c", _TIMED.format(setup=statements)],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows = []
    for case, statements, target in CASES:
        run_once(statements)  # warm: file cache, .pyc, numba's cache
        best = min(run_once(statements) for _ in range(args.repeat))
        row = {
            "case": case,
            "seconds": round(best, 4),
            "target_s": target,
            "met": None if target is None else best <= target,
        }
        rows.append(row)
        verdict = (
            ""
            if target is None
            else f"   target <= {target} s: {'met' if row['met'] else 'NOT met'}"
        )
        print(f"{case:62s} {best:7.3f} s{verdict}")
    save(
        "imports",
        rows,
        notes=f"fresh interpreter per run, best of {args.repeat} after one warm-up run; "
        "interpreter start-up excluded except in the first row",
    )


if __name__ == "__main__":
    main()
