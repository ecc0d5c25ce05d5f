"""Speed of the online linear classifiers of chapter 6, each against its reference.

* PA-I, one pass over 200,000 x 100: olbook.PassiveAggressive against scikit-learn's
  SGDClassifier(learning_rate="pa1") (the same weights, bit for bit), and river's
  PAClassifier when river is installed (it is not a dependency);
* AROW, CW and SCW-I with a full covariance, one pass over 20,000 x 100: olbook
  against the same update written as a plain numpy loop (one rank-one update of
  Sigma per round), whose weights it must match.

Best of --repeat runs (numba compiled or loaded from its cache first); the numpy
loops once. Ratios are printed beside the targets (>= 3x in both cases).

    .venv/bin/python benchmarks/linear.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import warnings

import numpy as np
from _timing import best_of
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier

import olbook
from olbook.second_order import coefficients


def numpy_gaussian(X, y, rule, a, b):
    """The Gaussian learners' update with numpy: mu += alpha y Sigma x, Sigma -= beta Sigma x x' Sigma."""
    d = X.shape[1]
    mu, S = np.zeros(d), np.eye(d)
    for x, t in zip(X, y, strict=True):
        Sx = S @ x
        alpha, beta = coefficients(rule, t * (mu @ x), x @ Sx, a, b)
        if alpha or beta:
            mu += alpha * t * Sx
            S -= beta * np.outer(Sx, Sx)
    return mu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)

    X = rng.standard_normal((200_000, 100))
    y = np.where(X @ rng.standard_normal(100) + 0.5 * rng.standard_normal(200_000) > 0, 1.0, -1.0)
    olbook.PassiveAggressive().fit(X[:10], y[:10])

    def ours():
        return olbook.PassiveAggressive(variant="PA-I", C=1.0).fit(X, y)

    def sk():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return SGDClassifier(loss="hinge", learning_rate="pa1", eta0=1.0, penalty=None,
                                 fit_intercept=False, shuffle=False, max_iter=1, tol=None).fit(X, y)

    a, t_ol = best_of(ours, args.repeat)
    b, t_sk = best_of(sk, args.repeat)
    print(f"PA-I, one pass over {X.shape[0]} x {X.shape[1]}: olbook {t_ol * 1e3:.1f} ms, "
          f"SGDClassifier(pa1) {t_sk * 1e3:.1f} ms: olbook is {t_sk / t_ol:.1f}x faster "
          f"(target 3x: {'met' if t_sk / t_ol >= 3 else 'NOT met'}); "
          f"same weights: {np.array_equal(a.coef_, b.coef_.ravel())}")
    if importlib.util.find_spec("river") is None:
        print("river is not installed: its PAClassifier is not measured")
    else:  # pragma: no cover - optional
        from river import linear_model

        m = min(X.shape[0], 20_000)
        rows = [dict(enumerate(r)) for r in X[:m]]

        def riv():
            model = linear_model.PAClassifier(C=1.0, mode=1)
            for r, t in zip(rows, y[:m], strict=True):
                model.learn_one(r, t > 0)
            return model

        _, t_rv = best_of(riv, 1)
        _, t_small = best_of(lambda: olbook.PassiveAggressive(variant="PA-I").fit(X[:m], y[:m]), args.repeat)
        print(f"river PAClassifier on {m} rows: {t_rv * 1e3:.1f} ms; olbook is {t_rv / t_small:.0f}x faster")

    X2 = rng.standard_normal((20_000, 100))
    y2 = np.where(X2 @ rng.standard_normal(100) + 0.5 * rng.standard_normal(20_000) > 0, 1.0, -1.0)
    phi = 1.2815515655446004  # Phi^-1(0.9)
    for name, make, rule, p, q in [
        ("AROW(r=1)", lambda: olbook.AROW(r=1.0), 0, 1.0, 0.0),
        ("ConfidenceWeighted(eta=0.9)", lambda: olbook.ConfidenceWeighted(eta=0.9), 3, phi, 0.0),
        ("SCW(I, C=1, eta=0.9)", lambda: olbook.SCW("I", C=1.0, eta=0.9), 4, phi, 1.0),
    ]:
        make().fit(X2[:10], y2[:10])
        fitted, t_ol = best_of(lambda make=make: make().fit(X2, y2), args.repeat)
        ref, t_np = best_of(lambda rule=rule, p=p, q=q: numpy_gaussian(X2, y2, rule, p, q), 1)
        close = np.allclose(fitted.coef_, ref, rtol=1e-6, atol=1e-9)
        print(f"{name}, full covariance, {X2.shape[0]} x {X2.shape[1]}: olbook {t_ol * 1e3:.0f} ms, "
              f"numpy loop {t_np * 1e3:.0f} ms: {t_np / t_ol:.1f}x faster "
              f"(target 3x: {'met' if t_np / t_ol >= 3 else 'NOT met'}); same weights: {close}")


if __name__ == "__main__":
    main()
