"""Sparse input: the learners that take ``scipy.sparse`` give, on a CSR matrix, the bits they give on
its dense copy (coef_, intercept_, trace_, scores), in O(nnz); the others refuse it with a ValueError."""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

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

SPARSE_LEARNERS = {
    "perceptron": lambda: Perceptron(),
    "perceptron-b-3": lambda: Perceptron(fit_intercept=True, max_iter=3),
    "normalized": lambda: NormalizedPerceptron(max_iter=2),
    "normalized-b": lambda: NormalizedPerceptron(fit_intercept=True),
    "averaged": lambda: AveragedPerceptron(max_iter=2),
    "averaged-b": lambda: AveragedPerceptron(fit_intercept=True),
    "voted-b": lambda: VotedPerceptron(fit_intercept=True, max_iter=2),
    "pa": lambda: PassiveAggressive("PA"),
    "pa1-b": lambda: PassiveAggressive("PA-I", C=0.3, fit_intercept=True, max_iter=2),
    "pa2": lambda: PassiveAggressive("PA-II", C=2.0),
    "ogd-hinge": lambda: OGDClassifier(max_iter=2),
    "ogd-logistic": lambda: OGDClassifier(
        loss="logistic", schedule="constant", eta=0.1
    ),
    "arow-diag": lambda: AROW(r=0.5, diagonal=True),
    "arow-diag-b": lambda: AROW(diagonal=True, fit_intercept=True, max_iter=2),
    "narow-diag": lambda: NAROW(b=2.0, diagonal=True),
    "nherd-diag": lambda: NormalHerd(C=0.5, diagonal=True),
    "cw-diag": lambda: ConfidenceWeighted(diagonal=True),
    "scw1-diag": lambda: SCW("SCW-I", diagonal=True),
    "scw2-diag-b": lambda: SCW("SCW-II", C=0.5, diagonal=True, fit_intercept=True),
}

DENSE_ONLY = {
    "romma": lambda: ROMMA(),
    "alma": lambda: ALMA(),
    "sop": lambda: SecondOrderPerceptron(),
    "iellip": lambda: IELLIP(),
    "arow-full": lambda: AROW(),
    "scw-full": lambda: SCW("SCW-II"),
}


def _sparse_data(n=300, d=40, density=0.15, seed=0, empty_row=True):
    """Rows with ~density non-zeros of very different magnitudes (the order of additions matters)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * 10.0 ** rng.integers(-3, 4, size=(n, d))
    X[rng.random((n, d)) > density] = 0.0
    if empty_row:
        X[5] = (
            0.0  # an empty row (the normalized perceptron refuses it: it has no direction)
        )
    else:
        X[:, 0] += 1.0  # no empty row
    X[:, 3] = 0.0  # an empty column
    u = rng.standard_normal(d)
    y = np.where(X @ u + 0.1 * rng.standard_normal(n) > 0, 1.0, -1.0)
    y[0], y[1] = 1.0, -1.0
    return X, y


def _state(clf) -> dict:
    out = {
        "coef": clf.coef_,
        "intercept": np.asarray(clf.intercept_),
        "mistakes": clf.trace_.mistakes,
        "updates": clf.trace_.updates,
    }
    for name in ("covariance_", "vectors_", "counts_", "last_coef_", "t_"):
        if hasattr(clf, name):
            out[name] = np.asarray(getattr(clf, name))
    return out


def _fit(make, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", olbook.ConvergenceWarning)
        return make().fit(X, y)


@pytest.mark.parametrize("name", list(SPARSE_LEARNERS))
def test_csr_gives_the_bits_of_the_dense_path(name):
    X, y = _sparse_data(seed=len(name), empty_row="normalized" not in name)
    dense = _fit(SPARSE_LEARNERS[name], X, y)
    sparse = _fit(SPARSE_LEARNERS[name], sp.csr_matrix(X), y)
    a, b = _state(dense), _state(sparse)
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert dense.n_updates_ > 0
    Xt, _ = _sparse_data(n=50, seed=99, empty_row="normalized" not in name)
    for model in (dense, sparse):  # both models score dense and CSR test data alike
        s_dense, s_csr = (
            model.decision_function(Xt),
            model.decision_function(sp.csr_matrix(Xt)),
        )
        assert np.array_equal(s_dense, s_csr)
        assert np.array_equal(model.predict(Xt), model.predict(sp.csr_matrix(Xt)))
    assert np.array_equal(dense.decision_function(Xt), sparse.decision_function(Xt))


@pytest.mark.parametrize("name", ["perceptron", "pa1-b", "ogd-hinge", "scw1-diag"])
def test_partial_fit_on_csr_chunks_and_other_sparse_formats(name):
    X, y = _sparse_data(seed=3)
    ref = _fit(SPARSE_LEARNERS[name], X, y)
    for fmt in ("csc", "coo", "lil"):
        other = _fit(SPARSE_LEARNERS[name], sp.csr_matrix(X).asformat(fmt), y)
        assert np.array_equal(other.coef_, ref.coef_), fmt
    if ref.max_iter == 1:
        clf = SPARSE_LEARNERS[name]()
        for lo, hi in [(0, 7), (7, 150), (150, 300)]:
            clf.partial_fit(sp.csr_matrix(X[lo:hi]), y[lo:hi])
        assert np.array_equal(clf.coef_, ref.coef_)
        assert np.array_equal(clf.trace_.updates, ref.trace_.updates)


def test_non_canonical_csr_is_summed_and_sorted_first():
    X, y = _sparse_data(seed=4)
    ref = Perceptron().fit(X, y)
    C = sp.csr_matrix(X)
    # the same matrix with every row's entries reversed and each value split in two duplicates
    data, indices, indptr = [], [], [0]
    for i in range(C.shape[0]):
        lo, hi = C.indptr[i], C.indptr[i + 1]
        for p in range(hi - 1, lo - 1, -1):
            indices += [C.indices[p]] * 2
            data += [C.data[p] * 0.5, C.data[p] * 0.5]  # exact halves
        indptr.append(len(data))
    M = sp.csr_matrix(
        (np.array(data), np.array(indices), np.array(indptr)), shape=C.shape
    )
    assert not M.has_canonical_format
    clf = Perceptron().fit(M, y)
    assert np.array_equal(clf.coef_, ref.coef_)


@pytest.mark.parametrize("name", list(DENSE_ONLY))
def test_dense_only_learners_refuse_sparse_and_keep_their_state(name):
    X, y = _sparse_data(seed=5)
    clf = DENSE_ONLY[name]().fit(X, y)
    before = clf.coef_.copy()
    with pytest.raises(ValueError, match="scipy.sparse.*dense arrays only"):
        clf.partial_fit(sp.csr_matrix(X), y)
    with pytest.raises(ValueError, match="scipy.sparse"):
        clf.decision_function(sp.csr_matrix(X))
    with pytest.raises(ValueError, match="scipy.sparse"):
        DENSE_ONLY[name]().fit(sp.csr_matrix(X), y)
    assert np.array_equal(clf.coef_, before) and clf.trace_.n_rounds == X.shape[0]


def test_full_covariance_refuses_sparse_but_its_diagonal_variant_takes_it():
    X, y = _sparse_data(seed=6)
    with pytest.raises(ValueError, match="AROW takes dense arrays only"):
        AROW().fit(sp.csr_matrix(X), y)
    assert AROW(diagonal=True).fit(sp.csr_matrix(X), y).n_updates_ > 0


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_sparse_values_are_refused_and_state_kept(bad):
    X, y = _sparse_data(seed=7, empty_row=False)
    for make in (
        SPARSE_LEARNERS["pa1-b"],
        SPARSE_LEARNERS["ogd-hinge"],
        SPARSE_LEARNERS["arow-diag"],
        SPARSE_LEARNERS["perceptron"],
        SPARSE_LEARNERS["normalized"],
    ):
        clf = make().partial_fit(sp.csr_matrix(X[:100]), y[:100])
        before = (clf.coef_.copy(), clf.trace_.n_rounds)
        Z = sp.csr_matrix(X[100:]).copy()
        Z.data[len(Z.data) // 2] = bad
        with pytest.raises(ValueError, match="non-finite"):
            clf.partial_fit(Z, y[100:])
        assert np.array_equal(clf.coef_, before[0]) and clf.trace_.n_rounds == before[1]


def test_a_million_features_cost_memory_in_nnz_not_in_n_times_d():
    """1000 rows of 10**6 features: dense they would take 8 GB; the pass allocates O(n + d)."""
    rng = np.random.default_rng(8)
    n, d, k = 1000, 10**6, 20
    indices = np.sort(rng.choice(d, size=(n, k), replace=True), axis=1)
    X = sp.csr_matrix(
        (rng.standard_normal(n * k), indices.ravel(), np.arange(0, n * k + 1, k)),
        shape=(n, d),
    )
    X.sum_duplicates()
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    for make in (
        Perceptron,
        lambda: PassiveAggressive("PA-I"),
        OGDClassifier,
        lambda: AROW(diagonal=True),
    ):
        make().fit(X[:10], y[:10])  # compile first
        tracemalloc.start()
        clf = make().fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert clf.coef_.shape == (1, d)
        # a few vectors of length d (AROW: mean and factor), not n * d
        assert peak < 20 * 8 * d + 100 * n
