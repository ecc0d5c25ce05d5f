"""One pass of the perceptron over 200,000 x 100 dense float64 data, same order for all.

Prints olbook's time and its ratio to scikit-learn's Perceptron and to a plain
numpy loop, all measured in this one run (best of --repeat runs each; the slow
numpy loop once). Also checks that the three give the same weights.
olbook adds the terms of every score strictly left to right (no ``fastmath``), so
that its outputs are the same on every CPU and bitwise equal to scikit-learn's;
the compiled loop then cannot use vector instructions for the sum. The target
is olbook at least 3x faster than scikit-learn.

    .venv/bin/python benchmarks/perceptron.py [--n 200000] [--d 100] [--repeat 5]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from _timing import best_of
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron

import olbook


def numpy_perceptron(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The textbook loop in plain numpy: one np.dot per example."""
    w = np.zeros(X.shape[1])
    for i in range(X.shape[0]):
        if y[i] * np.dot(w, X[i]) <= 0.0:
            w += y[i] * X[i]
    return w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    X = rng.standard_normal((args.n, args.d))
    y = np.where(X @ rng.standard_normal(args.d) + 0.3 * rng.standard_normal(args.n) > 0, 1.0, -1.0)

    olbook.Perceptron().fit(X[:10], y[:10])  # compile (or load numba's cache) before timing

    def run_olbook():
        return olbook.Perceptron(max_iter=1).fit(X, y)

    def run_sklearn():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return SkPerceptron(shuffle=False, max_iter=1, tol=None, eta0=1.0, alpha=0.0,
                                fit_intercept=False).fit(X, y)

    ours, theirs, plain = run_olbook(), run_sklearn(), numpy_perceptron(X, y)
    _, t_ol = best_of(run_olbook, args.repeat)
    _, t_sk = best_of(run_sklearn, args.repeat)
    _, t_np = best_of(lambda: numpy_perceptron(X, y), 1)

    print(f"data: {args.n} x {args.d} float64, one pass, same order; {ours.n_updates_} updates")
    print(f"identical to scikit-learn: {np.array_equal(ours.coef_, theirs.coef_[0])}; "
          f"same as the numpy loop: {np.allclose(ours.coef_, plain)}")
    print(f"olbook.Perceptron       {t_ol * 1e3:9.1f} ms")
    print(f"sklearn Perceptron      {t_sk * 1e3:9.1f} ms   olbook is {t_sk / t_ol:5.1f}x faster")
    print(f"plain numpy loop        {t_np * 1e3:9.1f} ms   olbook is {t_np / t_ol:5.1f}x faster")
    print(f"target >= 3x faster than scikit-learn: {'met' if t_sk / t_ol >= 3 else 'NOT met'}")


if __name__ == "__main__":
    main()
