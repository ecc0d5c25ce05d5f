"""Streams larger than memory: ``partial_fit`` over consecutive chunks gives exactly the state of one
``fit`` pass over the whole stream (coef_, intercept_, trace_ and every other state), for every online
linear learner, dense and sparse.

One exception, documented: the averaged perceptron's *mean* ``coef_`` is a sum of the pass sums
divided once, and the pass sums of two chunks are not added in the order of the sum of one pass, so
on data whose sums round it agrees to about 1e-15 relative; on olbook.data's dyadic grids every sum is
exact and it agrees to the bit. Its running state (``last_coef_``) and trace are always exact.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file

import olbook
from olbook import (
    ALMA,
    AROW,
    IELLIP,
    NAROW,
    ROMMA,
    SCW,
    AveragedPerceptron,
    ConfidenceWeighted,
    NormalHerd,
    NormalizedPerceptron,
    OGDClassifier,
    PassiveAggressive,
    Perceptron,
    SecondOrderPerceptron,
    VotedPerceptron,
)

LEARNERS = {
    "perceptron": lambda: Perceptron(fit_intercept=True),
    "normalized": lambda: NormalizedPerceptron(fit_intercept=True),
    "voted": lambda: VotedPerceptron(fit_intercept=True),
    "pa": lambda: PassiveAggressive("PA", fit_intercept=True),
    "pa1": lambda: PassiveAggressive("PA-I", C=0.5),
    "pa2": lambda: PassiveAggressive("PA-II", C=0.5, fit_intercept=True),
    "romma": lambda: ROMMA(),
    "aromma": lambda: ROMMA(aggressive=True),
    "alma": lambda: ALMA(alpha=0.5),
    "ogd": lambda: OGDClassifier(),
    "ogd-logistic": lambda: OGDClassifier(loss="logistic"),
    "sop": lambda: SecondOrderPerceptron(),
    "iellip": lambda: IELLIP(),
    "arow": lambda: AROW(fit_intercept=True),
    "narow": lambda: NAROW(b=2.0),
    "nherd": lambda: NormalHerd(),
    "cw": lambda: ConfidenceWeighted(),
    "scw1": lambda: SCW("SCW-I"),
    "scw2": lambda: SCW("SCW-II", fit_intercept=True),
    "arow-diag": lambda: AROW(diagonal=True, fit_intercept=True),
    "cw-diag": lambda: ConfidenceWeighted(diagonal=True),
    "scw2-diag": lambda: SCW("SCW-II", diagonal=True),
}

SPARSE = [
    "perceptron",
    "normalized",
    "voted",
    "pa",
    "pa1",
    "pa2",
    "ogd",
    "ogd-logistic",
    "arow-diag",
    "cw-diag",
    "scw2-diag",
]

#: chunk boundaries: a chunk of one example, uneven sizes, the last one short
CUTS = [0, 1, 40, 41, 170, 333, 400]

STATE = (
    "coef_",
    "intercept_",
    "covariance_",
    "last_coef_",
    "last_intercept_",
    "vectors_",
    "intercepts_",
    "counts_",
    "k_",
    "t_",
    "c_",
    "mistakes_",
    "n_updates_",
)


def _data(n=400, d=12, seed=0):
    rng = np.random.default_rng(seed)
    # sums that round
    X = rng.standard_normal((n, d)) * 10.0 ** rng.integers(-2, 3, size=(n, d))
    y = np.where(
        X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0
    )
    return X, y


def _assert_same_state(a, b, exclude=()):
    compared = 0
    for name in STATE:
        if hasattr(a, name) and name not in exclude:
            assert np.array_equal(
                np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
            ), name
            compared += 1
    assert np.array_equal(a.trace_.mistakes, b.trace_.mistakes)
    assert np.array_equal(a.trace_.updates, b.trace_.updates)
    assert compared >= 4


def _chunks(X, y, cuts=CUTS):
    for lo, hi in zip(cuts[:-1], cuts[1:], strict=True):
        yield X[lo:hi], y[lo:hi]


@pytest.mark.parametrize("name", list(LEARNERS))
def test_partial_fit_over_chunks_is_one_fit_pass(name):
    X, y = _data(seed=len(name))
    one = LEARNERS[name]().fit(X, y)
    chunked = LEARNERS[name]()
    for Xc, yc in _chunks(X, y):
        chunked.partial_fit(Xc, yc)
    assert one.n_updates_ > 0
    _assert_same_state(one, chunked)
    Xt, _ = _data(n=60, seed=99)
    assert np.array_equal(one.decision_function(Xt), chunked.decision_function(Xt))
    assert chunked.trace_.n_rounds == X.shape[0] and chunked.n_iter_ == len(CUTS) - 1


@pytest.mark.parametrize("name", SPARSE)
def test_sparse_chunks_are_one_dense_fit_pass(name):
    X, y = _data(seed=7)
    X[np.random.default_rng(1).random(X.shape) < 0.7] = 0.0
    X[:, 0] += 1.0  # no empty row (the normalized perceptron cannot scale one)
    one = LEARNERS[name]().fit(X, y)
    chunked = LEARNERS[name]()
    for Xc, yc in _chunks(sp.csr_matrix(X), y):
        chunked.partial_fit(Xc, yc)
    _assert_same_state(one, chunked)


def test_averaged_perceptron_chunks():
    # dyadic data: every sum is exact, so the mean is exact too
    X, y = olbook.data.make_noisy(400, 6, margin=0.1, flip=0.1, random_state=2)[:2]
    one = AveragedPerceptron(fit_intercept=True).fit(X, y)
    chunked = AveragedPerceptron(fit_intercept=True)
    for Xc, yc in _chunks(X, y):
        chunked.partial_fit(Xc, yc)
    _assert_same_state(one, chunked)
    # data whose sums round: the running state and trace exactly, the mean to rounding
    X, y = _data(seed=3)
    one = AveragedPerceptron().fit(X, y)
    chunked = AveragedPerceptron()
    for Xc, yc in _chunks(X, y):
        chunked.partial_fit(Xc, yc)
    _assert_same_state(one, chunked, exclude=("coef_", "intercept_"))
    assert np.allclose(one.coef_, chunked.coef_, rtol=1e-13, atol=0)


def _svmlight_chunks(path, n_features, chunk_bytes):
    """The book's reader: the lines that start in [offset, offset + chunk_bytes), chunk by chunk.

    scikit-learn's ``offset`` skips to the next line start; a chunk shorter than a line would
    read that line twice, so ``chunk_bytes`` must exceed the longest line.
    """
    size = os.path.getsize(path)
    for offset in range(0, size, chunk_bytes):
        X, y = load_svmlight_file(
            path, n_features=n_features, offset=offset, length=chunk_bytes
        )
        if X.shape[0]:
            yield X, y


@pytest.mark.parametrize("chunk_bytes", [777, 5000, 10**6])
def test_chunks_read_from_an_svmlight_file_are_one_pass(tmp_path, chunk_bytes):
    """The recipe of the book's section on large data (olc-sec-large-data): a file read by byte ranges."""
    X, y = _data(n=300, d=20, seed=11)
    X[np.random.default_rng(2).random(X.shape) < 0.6] = 0.0
    path = str(tmp_path / "stream.svm")
    dump_svmlight_file(X, y, path)
    Xf, yf = load_svmlight_file(path, n_features=20)
    one = PassiveAggressive("PA-I").fit(Xf, yf)
    clf = PassiveAggressive("PA-I")
    seen = 0
    for Xc, yc in _svmlight_chunks(path, 20, chunk_bytes):
        clf.partial_fit(Xc, yc)
        seen += Xc.shape[0]
    assert seen == 300 and np.array_equal(clf.trace_.updates, one.trace_.updates)
    assert np.array_equal(clf.coef_, one.coef_)
    assert clf.n_iter_ > 1 or chunk_bytes == 10**6
