"""Fit time and memory of olbook.SVM against scikit-learn's SVC (libsvm) on RBF problems.

Two problems, each at 2,000, 10,000 and 20,000 examples (``--quick``: 1,000 and 2,000):
``make_moons(n, noise=0.2)`` with ``gamma=1, C=1`` and ``olbook.data.make_spirals(n,
noise=0.05)`` with ``gamma=40, C=10``, the Gaussian kernel ``exp(-gamma ||x - y||^2)``
(SVC's ``rbf``). Both solvers run with the same kernel, C and stopping tolerance
(``tol``, the KKT gap of Fan, Chen and Lin in both; default 1e-6, olbook's) and their
default kernel caches (200 MB) and shrinking. For each case the script prints

* the best-of-``--repeat`` wall time of each fit (run alternately) and SVC / olbook,
  the speed-up (target: >= 1);
* the peak memory of the olbook fit alone, in a fresh subprocess: the peak resident set
  (``ru_maxrss``) minus the resident set before the fit, and tracemalloc's peak of the
  NumPy allocations (target: <= 1 GB at 20,000 examples);
* the agreement of the two solutions: training accuracy of each, support vectors found
  by one and not the other, the relative difference of the dual objectives
  D(alpha) = sum(alpha) - alpha'Q alpha / 2 (both computed with olbook's Gram matrix
  on the support vectors), and the largest difference of decision values on the
  training points relative to the largest |decision value|. (libsvm keeps its kernel
  columns in single precision, so agreement is at about 1e-6 relative.)

Timings taken while other programs use the CPU are noisy; the ratio of two fits run
alternately in one process is the robust number (raise ``--repeat`` if a small case
looks slow). Results go to ``benchmarks/results/svm.json`` (``svm_quick.json`` with
``--quick``).

    .venv/bin/python benchmarks/svm.py [--quick] [--repeat 3] [--tol 1e-6]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
from _results import save
from _timing import best_of
from sklearn.datasets import make_moons
from sklearn.svm import SVC

import olbook
from olbook import kernels
from olbook.data import make_spirals

#: The problems: name -> (gamma, C).
PROBLEMS = {"moons": (1.0, 1.0), "spirals": (40.0, 10.0)}


def problem(name: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The data of a problem, labels in {-1, +1}."""
    if name == "moons":
        X, y = make_moons(n, noise=0.2, random_state=0)
        return X, 2.0 * y - 1.0
    return make_spirals(n, noise=0.05, random_state=0)


def peak_memory(name: str, n: int, tol: float) -> dict:
    """Run one olbook fit in a fresh interpreter; its peak memory in MB (see the module docstring)."""
    code = f"""
import json, resource, tracemalloc
import numpy as np
import olbook
from olbook import kernels
from svm import PROBLEMS, problem
gamma, C = PROBLEMS[{name!r}]
Xw, yw = problem({name!r}, 50)
olbook.SVM(kernels.gaussian(gamma), C=C).fit(Xw, yw)  # load the compiled code first
X, y = problem({name!r}, {n})
with open("/proc/self/statm") as f:
    before = int(f.read().split()[1]) * resource.getpagesize()
tracemalloc.start()
olbook.SVM(kernels.gaussian(gamma), C=C, tol={tol!r}).fit(X, y)
traced = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({{"rss_peak_mb": peak / 2**20, "rss_fit_mb": (peak - before) / 2**20,
                  "traced_peak_mb": traced / 2**20}}))
"""
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def dual_objective(
    kernel, X: np.ndarray, support: np.ndarray, coef: np.ndarray
) -> float:
    """D(alpha) = sum(alpha) - 1/2 sum_st c_s c_t K_st with c = alpha * y, over the support vectors."""
    K = kernels.gram(kernel, X[support])
    return float(np.sum(np.abs(coef)) - 0.5 * coef @ K @ coef)


def run(name: str, n: int, repeat: int, tol: float) -> dict:
    gamma, C = PROBLEMS[name]
    X, y = problem(name, n)
    k = kernels.gaussian(gamma)
    t_ol, t_sk = float("inf"), float("inf")
    for _ in range(repeat):  # alternately, so that both see the same load
        ours, t = best_of(lambda: olbook.SVM(k, C=C, tol=tol).fit(X, y), 1)
        t_ol = min(t_ol, t)
        sk, t = best_of(
            lambda: SVC(kernel="rbf", gamma=gamma, C=C, tol=tol).fit(X, y), 1
        )
        t_sk = min(t_sk, t)
    f, g = ours.decision_function(X), sk.decision_function(X)
    d_ours = dual_objective(k, X, ours.support_, ours.dual_coef_[0])
    d_sk = dual_objective(k, X, sk.support_, sk.dual_coef_[0])
    only = len(set(ours.support_.tolist()) ^ set(sk.support_.tolist()))
    mem = peak_memory(name, n, tol)
    row = {
        "case": f"{name}, n={n}",
        "problem": name,
        "n": n,
        "gamma": gamma,
        "C": C,
        "tol": tol,
        "olbook_s": t_ol,
        "sklearn_s": t_sk,
        "ratio": t_sk / t_ol,
        "target": 1.0,
        "olbook_iter": ours.n_iter_,
        "sklearn_iter": int(sk.n_iter_[0]),
        "olbook_n_sv": int(ours.support_.size),
        "sklearn_n_sv": int(sk.support_.size),
        "sv_in_one_only": only,
        "olbook_accuracy": float(ours.score(X, y)),
        "sklearn_accuracy": float(sk.score(X, y)),
        "dual_rel_diff": abs(d_ours - d_sk) / abs(d_sk),
        "decision_rel_diff": float(np.max(np.abs(f - g)) / np.max(np.abs(g))),
        **mem,
    }
    print(
        f"{row['case']:22s} olbook {t_ol * 1e3:8.1f} ms  SVC {t_sk * 1e3:8.1f} ms  SVC/olbook {row['ratio']:5.2f}x"
        f"  | iterations {ours.n_iter_}/{row['sklearn_iter']}, SVs {row['olbook_n_sv']}/{row['sklearn_n_sv']}"
        f" ({only} in one only), accuracy {row['olbook_accuracy']:.4f}/{row['sklearn_accuracy']:.4f},"
        f" dual rel. diff {row['dual_rel_diff']:.1e}, decision rel. diff {row['decision_rel_diff']:.1e}"
        f"  | fit memory {mem['rss_fit_mb']:.0f} MB (peak RSS {mem['rss_peak_mb']:.0f} MB,"
        f" NumPy {mem['traced_peak_mb']:.0f} MB)",
        flush=True,
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="1,000 and 2,000 examples only"
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tol", type=float, default=1e-6)
    args = parser.parse_args()
    sizes = (1000, 2000) if args.quick else (2000, 10000, 20000)

    Xw, yw = problem("moons", 50)
    olbook.SVM(kernels.gaussian(1.0), C=1.0).fit(Xw, yw)  # compile / load numba's cache
    rows = [run(name, n, args.repeat, args.tol) for n in sizes for name in PROBLEMS]
    worst = min(rows, key=lambda r: r["ratio"])
    print(
        f"slowest case relative to SVC: {worst['case']}, SVC/olbook = {worst['ratio']:.2f}x (target >= 1); "
        f"largest fit memory {max(r['rss_fit_mb'] for r in rows):.0f} MB (target <= 1024 MB at 20,000)"
    )
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    save(
        "svm_quick" if args.quick else "svm",
        rows,
        notes=(
            f"olbook.SVM vs sklearn.svm.SVC, Gaussian kernel, same C and tol={args.tol:g}, default cache (200 MB) "
            f"and shrinking; best of {args.repeat} alternating wall-time runs (noisy on a shared machine: read the "
            f"ratio). Memory of the olbook fit measured in a fresh subprocess. This process peaked at {maxrss:.0f} MB."
        ),
    )


if __name__ == "__main__":
    main()
