"""Fit time of olbook.SVM against scikit-learn's SVC on 2,000-example RBF problems.

Two problems: ``make_moons(2000, noise=0.2)`` and two noisy intertwined spirals
(1,000 points each), both with the Gaussian kernel ``exp(-gamma ||x - y||^2)``
(SVC's ``rbf`` with the same ``gamma``) and a soft margin ``C``. For each it
prints the best-of-``--repeat`` fit times of

* olbook.SVM (tol 1e-6; split into the Gram matrix and the SMO iterations),
* SVC with the same stopping tolerance (``tol=1e-6``; libsvm's gap is the same
  quantity), and SVC with its default ``tol=1e-3``,

and the largest difference of decision values between olbook and each SVC, on
the training points and on a 100 x 100 grid, relative to the largest absolute
decision value. (libsvm stores the kernel matrix in single precision, so even
at a tight tolerance SVC agrees with the exact optimum only to about 1e-6
relative.) SVC is faster: libsvm shrinks the working set and caches kernel
rows, while olbook precomputes the whole Gram matrix and scans every example
at each iteration, which keeps the solver short and readable.

    .venv/bin/python benchmarks/svm.py [--n 2000] [--repeat 5]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import best_of
from sklearn.datasets import make_moons
from sklearn.svm import SVC

import olbook
from olbook import kernels
from olbook._smo import smo


def spirals(n: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two intertwined spirals of n/2 points each, Gaussian noise of std ``noise``."""
    rng = np.random.default_rng(seed)
    m = n // 2
    t = np.sqrt(rng.uniform(0.0, 1.0, m)) * 3.0 * np.pi
    arm = np.column_stack([t * np.cos(t), t * np.sin(t)]) / (3.0 * np.pi)
    X = np.vstack([arm, -arm]) + noise * rng.standard_normal((2 * m, 2))
    y = np.r_[np.ones(m), -np.ones(m)]
    return X, y


def rel_diff(f: np.ndarray, g: np.ndarray) -> float:
    return float(np.max(np.abs(f - g)) / np.max(np.abs(g)))


def run(name: str, X: np.ndarray, y: np.ndarray, gamma: float, C: float, repeat: int) -> None:
    k = kernels.gaussian(gamma)
    ours, t_ol = best_of(lambda: olbook.SVM(k, C=C).fit(X, y), repeat)
    K, t_gram = best_of(lambda: kernels.gram(k, X), repeat)

    def solve_only():
        alpha, G = np.zeros(X.shape[0]), -np.ones(X.shape[0])
        return smo(K, y, C, 1e-6, 10**7, alpha, G)

    _, t_smo = best_of(solve_only, repeat)
    sk6, t_sk6 = best_of(lambda: SVC(kernel="rbf", gamma=gamma, C=C, tol=1e-6).fit(X, y), repeat)
    sk3, t_sk3 = best_of(lambda: SVC(kernel="rbf", gamma=gamma, C=C).fit(X, y), repeat)
    lo, hi = X.min(axis=0) - 0.5, X.max(axis=0) + 0.5
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], 100), np.linspace(lo[1], hi[1], 100))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    print(f"{name}: n={X.shape[0]}, gamma={gamma}, C={C}")
    print(
        f"  olbook.SVM      fit {t_ol * 1e3:8.1f} ms  (Gram {t_gram * 1e3:.1f} ms + SMO {t_smo * 1e3:.1f} ms), "
        f"{ours.n_iter_} iterations, {ours.support_.size} support vectors"
    )
    for label, t, sk in (("SVC tol=1e-6", t_sk6, sk6), ("SVC tol=1e-3", t_sk3, sk3)):
        d_train = rel_diff(ours.decision_function(X), sk.decision_function(X))
        d_grid = rel_diff(ours.decision_function(grid), sk.decision_function(grid))
        print(
            f"  {label:14s}  fit {t * 1e3:8.1f} ms  (olbook/SVC = {t_ol / t:.1f}x), {int(sk.n_iter_[0])} iterations, "
            f"{int(sk.n_support_.sum())} SVs; max rel. diff. of decision values: "
            f"train {d_train:.1e}, grid {d_grid:.1e}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    Xw, yw = make_moons(20, noise=0.2, random_state=0)
    olbook.SVM(kernels.gaussian(1.0), C=1.0).fit(Xw, 2.0 * yw - 1.0)  # compile / load numba's cache

    X, y = make_moons(args.n, noise=0.2, random_state=0)
    run("make_moons(noise=0.2)", X, 2.0 * y - 1.0, gamma=1.0, C=1.0, repeat=args.repeat)
    Xs, ys = spirals(args.n, noise=0.05, seed=0)
    run("two noisy spirals (noise=0.05)", Xs, ys, gamma=10.0, C=10.0, repeat=args.repeat)


if __name__ == "__main__":
    main()
