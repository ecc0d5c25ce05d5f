"""Sparse input: one pass over a synthetic text-like CSR stream, olbook against SGDClassifier on the same matrix.

The stream: 200,000 rows, 10**6 features, about 100 non-zeros per row (column
indices drawn with a log-uniform law of their rank, as the words of a text; tf-idf-like positive
values), labels from a sparse linear rule with 5 % flipped. Every learner makes one
pass in order over the same ``scipy.sparse.csr_matrix``; olbook's loops cost
O(nnz) per pass and give the bits of the dense path (``tests/test_sparse.py``).

    .venv/bin/python benchmarks/sparse.py [--n 200000] [--d 1000000] [--nnz 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import scipy.sparse as sp
from _results import save
from _timing import best_of
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.linear_model import SGDClassifier

import olbook


def text_like(
    n: int, d: int, nnz: int, seed: int = 0
) -> tuple[sp.csr_matrix, np.ndarray]:
    """A CSR matrix with ~nnz non-zeros per row (fewer after summing repeated words), and +-1 labels."""
    rng = np.random.default_rng(seed)
    # P(rank >= r) ~ 1 - log r / log d
    ranks = np.floor(d ** rng.random(n * nnz)).astype(np.int64) - 1
    perm = rng.permutation(d)
    cols = perm[ranks]  # frequent "words" spread over the columns
    data = rng.exponential(1.0, size=n * nnz)
    indptr = np.arange(0, n * nnz + 1, nnz)
    X = sp.csr_matrix((data, cols, indptr), shape=(n, d))
    X.sum_duplicates()
    u = np.zeros(d)
    hot = perm[:5000]  # the rule reads the 5,000 most frequent words
    u[hot] = rng.standard_normal(5000)
    s = X @ u
    y = np.where(s > np.median(s), 1.0, -1.0)
    y[rng.random(n) < 0.05] *= -1
    return X, y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--d", type=int, default=1_000_000)
    parser.add_argument("--nnz", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    X, y = text_like(args.n, args.d, args.nnz)
    print(
        f"data: CSR {X.shape[0]} x {X.shape[1]}, {X.nnz / X.shape[0]:.1f} stored entries per row "
        f"({(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 1e6:.0f} MB)"
    )
    print(
        "timings taken while other processes may run: compare the ratios, not the times"
    )

    def sgd(**kw):
        def fit():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                return SGDClassifier(
                    penalty=None,
                    fit_intercept=False,
                    shuffle=False,
                    max_iter=1,
                    tol=None,
                    **kw,
                ).fit(X, y)

        return fit

    def sk_perceptron():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return SkPerceptron(
                shuffle=False,
                max_iter=1,
                tol=None,
                eta0=1.0,
                alpha=0.0,
                fit_intercept=False,
            ).fit(X, y)

    cases = [
        (
            "Perceptron",
            olbook.Perceptron,
            "sklearn Perceptron(shuffle=False, max_iter=1, tol=None)",
            sk_perceptron,
        ),
        (
            "AveragedPerceptron",
            olbook.AveragedPerceptron,
            "SGDClassifier(loss='perceptron', average=True, eta0=1)",
            sgd(loss="perceptron", learning_rate="constant", eta0=1.0, average=True),
        ),
        (
            "PassiveAggressive(PA-I)",
            lambda: olbook.PassiveAggressive("PA-I"),
            "SGDClassifier(loss='hinge', learning_rate='pa1', eta0=1)",
            sgd(loss="hinge", learning_rate="pa1", eta0=1.0),
        ),
        (
            "OGDClassifier(hinge)",
            lambda: olbook.OGDClassifier(eta=0.1),
            "SGDClassifier(loss='hinge', learning_rate='invscaling', eta0=0.1, power_t=0.5)",
            sgd(loss="hinge", learning_rate="invscaling", eta0=0.1, power_t=0.5),
        ),
        (
            "AROW(diagonal=True)",
            lambda: olbook.AROW(diagonal=True),
            "none: SGDClassifier(loss='hinge', pa1)",
            sgd(loss="hinge", learning_rate="pa1", eta0=1.0),
        ),
    ]
    rows = []
    for name, make, peer, theirs in cases:
        make().fit(X[:10], y[:10])  # compile first
        ours, t_ol = best_of(lambda make=make: make().fit(X, y), args.repeat)
        ref, t_sk = best_of(theirs, args.repeat)
        rel = float(np.max(np.abs(ours.coef_ - ref.coef_)) / np.max(np.abs(ref.coef_)))
        same = (
            ""
            if name.startswith("AROW")
            else f"; largest relative difference of the weights {rel:.1e}"
        )
        print(
            f"{name:26s} {t_ol * 1e3:8.1f} ms   {peer}: {t_sk * 1e3:8.1f} ms   "
            f"olbook is {t_sk / t_ol:4.1f}x faster{same}"
        )
        rows.append(
            {
                "case": f"{name}.fit, CSR {args.n} x {args.d}, {args.nnz} nnz/row",
                "seconds": round(t_ol, 5),
                "peer": peer,
                "reference_s": round(t_sk, 5),
                "ratio": round(t_sk / t_ol, 3),
                "target_kind": "speed-up (no target)",
            }
        )
    save(
        "sparse",
        rows,
        notes=f"best of {args.repeat}; measured with other processes running, ratios are taken "
        "within one run",
    )


if __name__ == "__main__":
    main()
