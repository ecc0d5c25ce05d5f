"""The perceptron family's and Pocket's API: scikit-learn's shapes, the names, when
hyper-parameters are read, and NormalizedPerceptron's CSR path against its dense one.

scikit-learn's common sparse checks are skipped for NormalizedPerceptron
(tests/test_sklearn_checks.py), so its CSR path is checked here: bit for bit the
dense run, and a NaN/inf in the CSR data is refused without a trace in the state.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import ALL_LEARNERS, ONLINE_LEARNERS, assert_same_state, snapshot
from sklearn.exceptions import ConvergenceWarning

import olbook

PERCEPTRONS = ONLINE_LEARNERS  # the perceptron family of conftest
LEARNERS = ALL_LEARNERS  # and the Pocket


def _noisy(n=60, d=8, seed=0, density=0.4):
    """Real-valued sparse-ish examples, labels of a noisy linear rule (never separable)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (rng.random((n, d)) < density)
    X[:, 0] += 0.5  # no all-zero row: the normalized perceptron refuses one
    y = np.where(X @ rng.standard_normal(d) + 0.3 * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y)


def _bits(value):
    return value.tobytes() if isinstance(value, np.ndarray) else value


def assert_same_bits(a: dict, b: dict) -> None:
    """Two snapshots (conftest.snapshot) equal to the last bit, arrays by their bytes."""
    assert set(a) == set(b), set(a) ^ set(b)
    for key in a:
        old, new = a[key], b[key]
        if isinstance(old, tuple):
            assert old[0] == new[0], key
            for u, v in zip(old[1:], new[1:], strict=True):
                assert u.dtype == v.dtype and u.tobytes() == v.tobytes(), key
        elif isinstance(old, np.ndarray):
            assert old.dtype == new.dtype and old.shape == new.shape, key
            assert old.tobytes() == new.tobytes(), key
        else:
            assert type(old) is type(new) and old == new, key


# ------------------------------------------------------------------------- shapes
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_coef_and_intercept_have_sklearns_binary_shapes(cls, fit_intercept):
    X, y = _noisy()
    kw = {"random_state": 0, "max_updates": 30} if cls is olbook.Pocket else {}
    est = _fit(cls(fit_intercept=fit_intercept, **kw), X, y)
    names = ["coef_", "intercept_"]
    if hasattr(est, "last_coef_"):
        names += ["last_coef_", "last_intercept_"]
    for name in names:
        value = getattr(est, name)
        want = (1, X.shape[1]) if name.endswith("coef_") else (1,)
        assert isinstance(value, np.ndarray) and value.dtype == np.float64, name
        assert value.shape == want, name
        if not fit_intercept and name.endswith("intercept_"):
            assert value[0] == 0.0, name
    if cls is not olbook.VotedPerceptron:  # the vote is not sign(w . x + b)
        raw = X @ est.coef_[0] + est.intercept_[0]
        assert np.array_equal(est.predict(X), np.where(raw > 0, 1, -1))
    assert est.predict(X).dtype == np.int64


def test_coef_rows_are_the_running_weights_not_aliases():
    """_epoch rebinds: an array handed out before a pass is not changed by the pass."""
    X, y = _noisy()
    for cls in PERCEPTRONS:
        est = cls().partial_fit(X[:10], y[:10])
        coef, intercept = est.coef_, est.intercept_
        kept = coef.copy(), intercept.copy()
        est.partial_fit(X[10:], y[10:])
        assert est.n_updates_ > 0
        assert np.array_equal(coef, kept[0]) and np.array_equal(intercept, kept[1])


# ------------------------------------------------------------------- Pocket's names
def test_pocket_names():
    est = olbook.Pocket()
    assert sorted(est.get_params()) == ["fit_intercept", "max_updates", "random_state"]
    with pytest.raises(TypeError):
        olbook.Pocket(max_iter=10)  # the old name: a cap on updates, not on passes
    X, y = _noisy()
    est = olbook.Pocket(max_updates=25, random_state=1).fit(X, y)
    assert not hasattr(est, "n_iter_")  # n_iter_ counts passes in the online learners
    assert est.n_updates_ == 25 == est.errors_.size - 1
    # The names Pocket shares with the online learners mean the same there.
    online = _fit(olbook.Perceptron(max_iter=3), X, y)
    shared = {k for k in vars(est) if k.endswith("_")} & set(vars(online))
    assert shared == {
        "coef_",
        "intercept_",
        "n_updates_",
        "n_features_in_",
        "classes_",
    }


# ------------------------------------------------------- hyper-parameters are read late
@pytest.mark.parametrize("cls", PERCEPTRONS, ids=lambda c: c.__name__)
def test_hyperparameters_are_read_when_learning_starts(cls):
    X, y = _noisy()
    est = cls(max_iter=0, fit_intercept="yes")  # stored as given, as scikit-learn does
    assert est.max_iter == 0 and est.fit_intercept == "yes"
    before = snapshot(est)
    with pytest.raises(ValueError, match="max_iter|fit_intercept"):
        est.fit(X, y)
    assert_same_state(before, est)
    est.max_iter, est.fit_intercept = 4, True  # set after __init__: used by fit
    _fit(est, X, y)
    assert est.n_iter_ == 4 and est.intercept_[0] != 0.0
    # Validation writes no state, and a rejected value leaves the learner as it was.
    before = snapshot(est)
    est._validate_params()
    assert_same_state(before, est)
    est.max_iter = 1.5
    before = snapshot(est)
    for call in (est.fit, est.partial_fit):
        with pytest.raises(ValueError, match="max_iter"):
            call(X, y)
        assert_same_state(before, est)


def test_pocket_hyperparameters_are_read_when_learning_starts():
    X, y = _noisy()
    est = olbook.Pocket(max_updates=-1)
    with pytest.raises(ValueError, match="max_updates"):
        est.fit(X, y)
    assert vars(est) == {
        "max_updates": -1,
        "fit_intercept": False,
        "random_state": None,
    }
    est.max_updates, est.random_state = 7, 3
    est.fit(X, y)
    assert est.n_updates_ == 7
    est.fit_intercept = 2
    before = snapshot(est)
    with pytest.raises(ValueError, match="fit_intercept"):
        est.fit(X, y)
    assert_same_state(before, est)


# ------------------------------------------------------ NormalizedPerceptron on CSR
def _unsorted(M):
    """The same CSR matrix with each row's entries stored in reverse order."""
    M = M.copy()
    for i in range(M.shape[0]):
        lo, hi = M.indptr[i], M.indptr[i + 1]
        M.indices[lo:hi] = M.indices[lo:hi][::-1].copy()
        M.data[lo:hi] = M.data[lo:hi][::-1].copy()
    M.has_sorted_indices = False
    return M


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_normalized_perceptron_csr_is_the_dense_run_bit_for_bit(seed, fit_intercept):
    X, y = _noisy(seed=seed)
    X_test = _noisy(n=25, seed=seed + 10)[0]
    M = sp.csr_matrix(X)
    assert M.nnz < X.size  # really sparse, and the scores are not on a grid
    for make_sparse in (
        lambda A: sp.csr_matrix(A),
        lambda A: _unsorted(sp.csr_matrix(A)),
    ):
        dense = _fit(olbook.NormalizedPerceptron(fit_intercept, max_iter=5), X, y)
        csr = _fit(
            olbook.NormalizedPerceptron(fit_intercept, max_iter=5), make_sparse(X), y
        )
        assert dense.n_updates_ > 0 and not dense.converged_
        assert_same_bits(snapshot(dense), snapshot(csr))
        for est in (dense, csr):  # either model scores dense and CSR input alike
            scores = est.decision_function(X_test)
            assert scores.tobytes() == dense.decision_function(X_test).tobytes()
            sparse_scores = est.decision_function(make_sparse(X_test))
            assert sparse_scores.tobytes() == scores.tobytes()
            assert np.array_equal(est.predict(make_sparse(X_test)), est.predict(X_test))
        # partial_fit over chunks, dense against CSR, chunk by chunk
        a = olbook.NormalizedPerceptron(fit_intercept)
        b = olbook.NormalizedPerceptron(fit_intercept)
        for lo, hi in [(0, 1), (1, 8), (8, 30), (30, 60)]:
            a.partial_fit(X[lo:hi], y[lo:hi])
            b.partial_fit(make_sparse(X[lo:hi]), y[lo:hi])
            assert_same_bits(snapshot(a), snapshot(b))
        assert a.n_updates_ > 0


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_normalized_perceptron_refuses_nonfinite_csr_and_keeps_its_state(
    fit_intercept, bad
):
    X, y = _noisy()
    est = olbook.NormalizedPerceptron(fit_intercept).partial_fit(sp.csr_matrix(X), y)
    M = sp.csr_matrix(X[:20])
    M.data[M.indptr[7] + 1] = bad  # row 7: rows 0-6 would have been learned first
    before = snapshot(est)
    for call in (est.partial_fit, est.fit):
        with pytest.raises(ValueError, match=r"NaN|inf"):
            call(M, y[:20])
        assert_same_state(before, est)
    fresh = olbook.NormalizedPerceptron(fit_intercept)
    with pytest.raises(ValueError, match=r"NaN|inf"):
        fresh.fit(M, y[:20])
    assert vars(fresh) == {"fit_intercept": fit_intercept, "max_iter": 1, "trace": True}
    with pytest.raises(ValueError, match=r"NaN|inf"):
        est.decision_function(M)
