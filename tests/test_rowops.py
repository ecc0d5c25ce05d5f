"""Fixed-order arithmetic: olbook's scores are the blocked sums of ``olbook._rowops`` (8 partial sums
over strided positions, combined in a fixed tree), dense and sparse alike, and its results are the
same under another BLAS kernel and numba's generic CPU (the second setting of ``make test``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import olbook
from olbook._rowops import (
    LANES,
    blocked_sum_reference,
    csr_row_dots,
    csr_row_score,
    csr_row_score_sqnorm,
    csr_row_sqnorm,
    csr_row_sqnorms,
    dot,
    row_dots,
    row_score,
    row_sqnorms,
    rowwise_dots,
)


def _blocked(a, b) -> float:
    """The specification, written out here independently of olbook: term j to partial sum j mod 8."""
    s = [0.0] * 8
    for j, (p, q) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        # Python floats: one IEEE rounding per operation, in this order
        s[j % 8] += p * q
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))


def _left_to_right(a, b) -> float:
    s = 0.0
    for p, q in zip(a.tolist(), b.tolist(), strict=True):
        s += p * q
    return s


@pytest.mark.parametrize("d", [1, 3, 7, 8, 9, 15, 16, 17, 64, 101])
def test_row_score_is_the_blocked_sum(d):
    rng = np.random.default_rng(d)
    # rounding matters here
    X = rng.standard_normal((25, d)) * 10.0 ** rng.integers(-8, 8, size=(25, d))
    w = rng.standard_normal(d)
    dots, sq = row_dots(X, w), row_sqnorms(X)
    for i in range(X.shape[0]):
        f, nonfinite = row_score(w, X, i)
        assert (
            f
            == _blocked(w, X[i])
            == dots[i]
            == blocked_sum_reference(w, X[i])
            == dot(w, X[i])
        )
        assert nonfinite == 0.0
        assert sq[i] == _blocked(X[i], X[i])


def test_the_blocked_order_is_not_left_to_right_on_rounding_data():
    """The test above could not tell the two orders apart if they always agreed: they do not."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((200, 101)) * 10.0 ** rng.integers(-8, 8, size=(200, 101))
    w = rng.standard_normal(101)
    differ = sum(row_dots(X, w)[i] != _left_to_right(w, X[i]) for i in range(200))
    assert differ > 0 and LANES == 8


def test_the_orders_agree_on_dyadic_data():
    """On exact products (small integers, olbook.data's grids) every order gives the same sum,
    which is why olbook's perceptron still equals scikit-learn's there."""
    rng = np.random.default_rng(6)
    X = rng.integers(-50, 51, size=(100, 37)).astype(float) / 64.0
    w = rng.integers(-1000, 1001, size=37).astype(float)
    assert [float(v) for v in row_dots(X, w)] == [_left_to_right(w, x) for x in X]


@pytest.mark.parametrize("m", [1, 3, 17, 100])
def test_rowwise_dots_are_the_blocked_sums(m):
    rng = np.random.default_rng(m)
    A = rng.standard_normal((30, m)) * 10.0 ** rng.integers(-8, 8, size=(30, m))
    B = rng.standard_normal((30, m))
    out = rowwise_dots(A, B)
    assert [float(v) for v in out] == [_blocked(A[t], B[t]) for t in range(30)]


@pytest.mark.parametrize("d", [1, 9, 40, 101])
def test_sparse_rows_give_the_bits_of_the_dense_rows(d):
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(d)
    X = rng.standard_normal((60, d)) * 10.0 ** rng.integers(-8, 8, size=(60, d))
    X[rng.random((60, d)) < 0.6] = 0.0
    w = rng.standard_normal(d)
    assert np.array_equal(csr_row_dots(sp.csr_matrix(X), w), row_dots(X, w))


def _csr_with(X, index_dtype, tail: int = 0):
    """``X`` as CSR with indices of ``index_dtype``; ``tail`` unused entries (junk) after the last."""
    sp = pytest.importorskip("scipy.sparse")
    A = sp.csr_matrix(X)
    indices = np.concatenate([A.indices, np.full(tail, 2**30 if tail else 0)]).astype(
        index_dtype
    )
    data = np.concatenate([A.data, np.full(tail, np.nan)])
    return data, indices, A.indptr.astype(index_dtype)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_sparse_rows_with_either_index_type_and_junk_after_the_last_entry(index_dtype):
    # The CSR loops read the indices as unsigned and prefetch weights up to 64
    # entries ahead: neither changes a bit, whatever lies past the last entry.
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(7)
    X = rng.standard_normal((80, 300)) * 10.0 ** rng.integers(-8, 8, size=(80, 300))
    X[rng.random((80, 300)) < 0.9] = 0.0
    w = rng.standard_normal(300)
    data, indices, indptr = _csr_with(X, index_dtype, tail=100)
    assert len(data) > indptr[-1] + 64
    A = sp.csr_matrix((data, indices, indptr), shape=X.shape)
    assert np.array_equal(csr_row_dots(A, w), row_dots(X, w))
    assert np.array_equal(csr_row_sqnorms(A), row_sqnorms(X))


def test_the_fused_score_and_norm_are_the_bits_of_the_two_functions():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((60, 90)) * 10.0 ** rng.integers(-8, 8, size=(60, 90))
    X[rng.random((60, 90)) < 0.7] = 0.0
    X[4, 7] = np.nan
    w = rng.standard_normal(90)
    data, indices, indptr = _csr_with(X, np.int32)
    acc, sq_acc = np.empty(LANES), np.empty(LANES)
    for i in range(60):
        a, b = indptr[i], indptr[i + 1]
        f, xx, bad = csr_row_score_sqnorm(w, data, indices, a, b, acc, sq_acc)
        f0, bad0 = csr_row_score(w, data, indices, a, b, acc)
        assert (bad != 0.0) == (bad0 != 0.0) == (i == 4)
        if i != 4:
            assert f == f0 and xx == csr_row_sqnorm(data, indices, a, b, acc)
            assert xx == row_sqnorms(X[i : i + 1])[0]


def test_csr_row_score_flags_non_finite_entries_as_the_dense_rows():
    X = np.array(
        [[1.0, 2.0, 0.0], [np.nan, 0.0, 1.0], [0.0, np.inf, 1.0], [0.0, 0.0, 0.0]]
    )
    data, indices, indptr = _csr_with(X, np.int32)
    acc = np.empty(LANES)
    for w in (np.ones(3), np.zeros(3)):  # 0 * inf is NaN: the score is not finite
        flags = [
            csr_row_score(w, data, indices, indptr[i], indptr[i + 1], acc)[1]
            for i in range(4)
        ]
        dense = [row_score(w, X, i)[1] for i in range(4)]
        assert [f != 0.0 for f in flags] == [f != 0.0 for f in dense]
        assert [f != 0.0 for f in flags] == [False, True, True, False]


@pytest.mark.parametrize(
    "make",
    [
        lambda: olbook.Perceptron(fit_intercept=True),
        lambda: olbook.AveragedPerceptron(max_iter=2),
        lambda: olbook.PassiveAggressive("PA-I", C=0.5),
        lambda: olbook.OGDClassifier(schedule="inv_sqrt", max_iter=2),
        lambda: olbook.MulticlassPerceptron(sharing="proportional"),
        lambda: olbook.MulticlassPA("PA-II"),
        lambda: olbook.MulticlassROMMA(aggressive=True),
        lambda: olbook.MulticlassOGD(),
    ],
)
def test_learners_on_csr_with_int64_indices_give_the_dense_bits(make):
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(3)
    X = rng.standard_normal((200, 150)) * 10.0 ** rng.integers(-3, 3, size=(200, 150))
    X[rng.random((200, 150)) < 0.8] = 0.0
    y = np.where(X @ rng.standard_normal(150) > 0, 1, -1)
    multiclass = "Multiclass" in type(make()).__name__
    if multiclass:
        y = np.where(X[:, 0] > 0.5, 2, y)
    A = sp.csr_matrix(X)
    A.indices, A.indptr = A.indices.astype(np.int64), A.indptr.astype(np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", olbook.ConvergenceWarning)
        dense, sparse = make().fit(X, y), make().fit(A, y)
    assert sparse.n_updates_ > 0
    assert np.array_equal(dense.coef_, sparse.coef_)
    assert np.array_equal(dense.trace_.updates, sparse.trace_.updates)
    assert np.array_equal(dense.trace_.mistakes, sparse.trace_.mistakes)


def test_row_score_flags_non_finite_rows():
    X = np.array([[1.0, 2.0], [np.nan, 0.0], [np.inf, 1.0], [-np.inf, 0.0]])
    flags = [row_score(np.ones(2), X, i)[1] for i in range(4)]
    assert flags[0] == 0.0 and all(np.isnan(flags[1:]))


def test_decision_function_uses_the_fixed_order():
    X, y = olbook.data.load_binary("breast_cancer", standardize=True)
    clf = olbook.Perceptron(max_iter=1).fit(X, y)  # one pass: no ConvergenceWarning
    expected = np.array([_blocked(clf.coef_[0], x) for x in X]) + clf.intercept_[0]
    assert np.array_equal(clf.decision_function(X), expected)


_SCRIPT = textwrap.dedent(
    """
    import json, numpy as np, olbook
    X, y, u = olbook.data.make_shell(300, 40, margin=0.06, random_state=3)
    order = olbook.data.greedy_adversarial_order(X, y, u)
    Xr, yr = olbook.data.load_binary("breast_cancer", standardize=True)
    norm = olbook.NormalizedPerceptron(max_iter=5).fit(Xr, yr)
    avg = olbook.AveragedPerceptron(max_iter=5, fit_intercept=True).fit(Xr, yr)
    voted = olbook.VotedPerceptron(max_iter=2).fit(Xr, yr)
    import scipy.sparse as sp
    Xs = Xr.copy()
    Xs[np.abs(Xs) < 0.8] = 0.0
    pa = olbook.PassiveAggressive("PA-II", max_iter=3).fit(sp.csr_matrix(Xs), yr)
    arow = olbook.AROW(max_iter=2).fit(Xr, yr)
    scw = olbook.SCW("SCW-II", diagonal=True).fit(sp.csr_matrix(Xs), yr)
    print(json.dumps({
        "pa": pa.coef_.tobytes().hex(), "arow": [arow.coef_.tobytes().hex(), arow.covariance_.tobytes().hex()],
        "scw": [scw.coef_.tobytes().hex(), scw.covariance_.tobytes().hex()],
        "X": X.tobytes().hex(), "order": order.tolist(),
        "norm": [norm.coef_.tobytes().hex(), norm.trace_.updates.tolist(), norm.decision_function(Xr).tobytes().hex()],
        "avg": [avg.coef_.tobytes().hex(), avg.intercept_.tolist(), avg.decision_function(Xr).tobytes().hex()],
        "voted": voted.decision_function(Xr).tobytes().hex(),
        "margin": olbook.margin(Xr, yr, avg.coef_[0], avg.intercept_[0]), "radius": olbook.radius(Xr),
    }))
    """
)


def _run(env_extra: dict[str, str]) -> dict:
    env = {**os.environ, **env_extra}
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def test_same_bits_under_another_blas_kernel_and_generic_cpu():
    native = _run({})
    other = _run({"OPENBLAS_CORETYPE": "Prescott", "NUMBA_CPU_NAME": "generic"})
    assert len(native["order"]) > 100
    for key in native:
        assert native[key] == other[key], f"{key} differs between the two CPU settings"
