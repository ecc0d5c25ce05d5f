"""Tests of olbook.SVM: agreement with scikit-learn's SVC and with a SciPy QP, the KKT
conditions, the hard margin on non-separable data, validation and unchanged state."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import assert_same_state, snapshot, xor_data
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.datasets import make_moons
from sklearn.exceptions import NotFittedError
from sklearn.svm import SVC

import olbook
from olbook import kernels
from olbook import svm as svm_module

#: SVC emulates the hard margin with this C (checked: larger than every alpha).
BIG_C = 1e6


def separable(seed, n=40, d=2, gap=0.3):
    """Random points with labels by a random hyperplane, those within ``gap`` of it removed."""
    rng = np.random.default_rng(seed)
    u = rng.normal(size=d)
    u /= np.linalg.norm(u)
    X = rng.normal(size=(4 * n, d))
    s = X @ u + 0.2
    keep = np.abs(s) > gap
    X, s = X[keep][:n], s[keep][:n]
    y = np.where(s > 0, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    X[:2] = [u * 2.0, -u * 2.0]  # both classes present
    return X, y


def noisy(seed, n=60, d=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def assert_same_decisions(ours, X, sk, rtol=1e-4):
    f = ours.decision_function(X)
    g = sk.decision_function(X)
    scale = np.max(np.abs(g))
    assert np.max(np.abs(f - g)) <= rtol * scale, (np.max(np.abs(f - g)), scale)
    return f


def sk_svc(kernel, C, **kw):
    """The SVC with the same kernel: rbf/linear/poly where SVC has it, else precomputed."""
    if kernel == kernels.linear:
        return SVC(kernel="linear", C=C, tol=1e-8, **kw)
    if isinstance(kernel, type(kernels.gaussian(1.0))):
        return SVC(kernel="rbf", gamma=kernel.gamma, C=C, tol=1e-8, **kw)
    if isinstance(kernel, type(kernels.polynomial(2, 1.0))):
        return SVC(
            kernel="poly",
            degree=kernel.degree,
            coef0=kernel.coef0,
            gamma=1.0,
            C=C,
            tol=1e-8,
            **kw,
        )
    raise AssertionError(kernel)


# --- agreement with SVC -----------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize(
    "kernel",
    [kernels.linear, kernels.gaussian(0.5), kernels.polynomial(3, 1.0)],
    ids=repr,
)
def test_soft_margin_matches_svc(seed, C, kernel):
    X, y = noisy(seed)
    ours = olbook.SVM(kernel, C=C, tol=1e-8).fit(X, y)
    sk = sk_svc(kernel, C).fit(X, y)
    assert_same_decisions(ours, X, sk)
    Xt = np.random.default_rng(100 + seed).normal(size=(50, 2))
    assert_same_decisions(ours, Xt, sk)
    assert (
        np.array_equal(ours.predict(Xt), sk.predict(Xt))
        or np.min(np.abs(sk.decision_function(Xt))) < 1e-4
    )
    assert ours.intercept_.shape == sk.intercept_.shape == (1,)
    assert ours.intercept_[0] == pytest.approx(
        float(sk.intercept_[0]), abs=1e-4 * max(1.0, abs(sk.intercept_[0]))
    )


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_hard_margin_matches_svc_linear_and_rbf(seed):
    X, y = separable(seed)
    for kernel in (kernels.linear, kernels.gaussian(0.5)):
        ours = olbook.SVM(kernel, tol=1e-8).fit(X, y)
        # so SVC's large C is the hard margin
        assert np.max(np.abs(ours.dual_coef_)) < BIG_C / 10
        sk = sk_svc(kernel, BIG_C).fit(X, y)
        assert_same_decisions(ours, X, sk)
        assert set(ours.support_) == set(sk.support_)
        if kernel == kernels.linear:
            continue  # with more than d + 1 support vectors the multipliers need not be unique
        # The Gaussian Gram matrix is positive definite: the multipliers are unique. libsvm keeps
        # Q in single precision (its Qfloat), so SVC's are accurate to about 1e-5 relative only ...
        ours_by = dict(zip(ours.support_, ours.dual_coef_[0], strict=True))
        for i, c in zip(sk.support_, sk.dual_coef_[0], strict=True):
            assert ours_by[i] == pytest.approx(c, rel=1e-4, abs=1e-8)
        # ... while olbook's solve the KKT system on the support vectors (all on the margin):
        # [K_SS 1; 1' 0] [c; b] = [y_S; 0].
        S = ours.support_
        A = np.block(
            [
                [kernel(X[S]), np.ones((S.size, 1))],
                [np.ones((1, S.size)), np.zeros((1, 1))],
            ]
        )
        sol = np.linalg.solve(A, np.r_[y[S], 0.0])
        np.testing.assert_allclose(ours.dual_coef_[0], sol[:-1], rtol=1e-6, atol=1e-9)
        assert ours.intercept_[0] == pytest.approx(sol[-1], rel=1e-6, abs=1e-9)


def test_laplacian_matches_svc_precomputed():
    X, y = noisy(7)
    k = kernels.laplacian(0.8)
    ours = olbook.SVM(k, C=2.0, tol=1e-8).fit(X, y)
    sk = SVC(kernel="precomputed", C=2.0, tol=1e-8).fit(kernels.gram(k, X), y)
    Xt = np.random.default_rng(5).normal(size=(30, 2))
    f = ours.decision_function(Xt)
    g = sk.decision_function(kernels.gram(k, Xt, X))
    assert np.max(np.abs(f - g)) <= 1e-4 * np.max(np.abs(g))


@settings(max_examples=15)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(4, 60),
    C=st.sampled_from([0.05, 0.5, 5.0, 50.0]),
    gamma=st.sampled_from([0.1, 1.0, 5.0]),
)
def test_random_problems_match_svc(seed, n, C, gamma):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    ours = olbook.SVM(kernels.gaussian(gamma), C=C, tol=1e-8).fit(X, y)
    sk = SVC(kernel="rbf", gamma=gamma, C=C, tol=1e-8).fit(X, y)
    a = np.abs(ours.dual_coef_[0])
    if np.any((a > 1e-9 * C) & (a < C * (1 - 1e-9))):
        assert_same_decisions(ours, X, sk)
        return
    # No free multiplier: the KKT conditions fix b only to an interval, and the two solvers may
    # take different points of it (libsvm's midpoint of its own bounded set). The sum
    # sum_i alpha_i y_i k(x_i, x) must still agree.
    f = ours.decision_function(X) - ours.intercept_[0]
    g = sk.decision_function(X) - sk.intercept_[0]
    assert np.max(np.abs(f - g)) <= 1e-4 * max(np.max(np.abs(g)), 1e-12)


# --- hard margin: the QP optimum, the margin, KKT -----------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_hard_margin_equals_scipy_qp(seed):
    X, y = separable(seed, n=30, d=3)
    ours = olbook.SVM().fit(X, y)

    def objective(v):
        return 0.5 * v[:-1] @ v[:-1]

    cons = {
        "type": "ineq",
        "fun": lambda v: y * (X @ v[:-1] + v[-1]) - 1.0,
        "jac": lambda v: y[:, None] * np.hstack([X, np.ones((X.shape[0], 1))]),
    }
    res = minimize(
        objective,
        np.zeros(X.shape[1] + 1),
        jac=lambda v: np.r_[v[:-1], 0.0],
        constraints=[cons],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert res.success
    w, b = res.x[:-1], res.x[-1]
    np.testing.assert_allclose(ours.coef_[0], w, rtol=1e-5, atol=1e-6)
    assert ours.intercept_[0] == pytest.approx(b, rel=1e-5, abs=1e-6)
    assert ours.margin_ == pytest.approx(1.0 / np.linalg.norm(w), rel=1e-5)
    assert ours.margin_ == pytest.approx(
        olbook.margin(X, y, ours.coef_[0], ours.intercept_[0]), rel=1e-6
    )


@pytest.mark.parametrize(
    "kernel",
    [kernels.linear, kernels.gaussian(1.0), kernels.polynomial(2, 1.0)],
    ids=repr,
)
@pytest.mark.parametrize("C", [None, 0.5, 5.0])
def test_kkt_conditions(kernel, C):
    X, y = separable(11) if C is None else noisy(11)
    m = olbook.SVM(kernel, C=C).fit(X, y)
    alpha = np.zeros(X.shape[0])
    alpha[m.support_] = m.dual_coef_[0] * y[m.support_]
    Cv = np.inf if C is None else C
    assert np.all(alpha >= 0) and np.all(alpha <= Cv)
    assert np.all(alpha[m.support_] > 0)
    scale = np.max(alpha)
    assert abs(np.sum(alpha * y)) <= 1e-10 * max(1.0, np.sum(alpha))  # feasibility
    yf = y * m.decision_function(X)
    eps = 1e-5
    assert np.all(yf[alpha == 0] >= 1 - eps)  # outside the margin
    free = (alpha > 0) & (alpha < Cv)
    assert np.all(np.abs(yf[free] - 1) <= eps)  # on the margin
    assert np.all(yf[alpha == Cv] <= 1 + eps)  # inside or misclassified
    assert m.kkt_gap_ < m.tol
    # ||w||^2 from the dual; for the hard margin it equals sum(alpha) (complementary slackness)
    K = kernels.gram(kernel, X)
    w2 = alpha @ (y[:, None] * y[None, :] * K) @ alpha
    assert m.margin_ == pytest.approx(1 / np.sqrt(w2), rel=1e-8)
    if C is None:
        assert np.sum(alpha) == pytest.approx(w2, rel=1e-5)
        assert np.min(yf) == pytest.approx(1.0, abs=eps)
    assert scale > 0


def test_attributes_linear_and_rbf():
    X, y = separable(3)
    m = olbook.SVM().fit(X, y)
    assert m.support_.dtype.kind == "i" and np.all(np.diff(m.support_) > 0)
    assert m.dual_coef_.shape == (1, m.support_.size)
    assert np.array_equal(m.support_vectors_, X[m.support_])
    np.testing.assert_allclose(m.coef_[0], m.dual_coef_[0] @ X[m.support_], rtol=1e-12)
    # scikit-learn SVC's shapes: coef_ (1, n_features), intercept_ (1,)
    assert m.coef_.shape == (1, 2) and m.intercept_.shape == (1,) and m.n_iter_ >= 1
    np.testing.assert_allclose(
        m.decision_function(X), X @ m.coef_[0] + m.intercept_[0], rtol=1e-10, atol=1e-10
    )
    assert m.score(X, y) == 1.0 and np.array_equal(m.predict(X), y)
    r = olbook.SVM(kernels.gaussian(1.0)).fit(X, y)
    with pytest.raises(AttributeError, match="linear kernel"):
        r.coef_  # noqa: B018
    assert not hasattr(r, "coef_")
    with pytest.raises(NotFittedError):
        olbook.SVM().decision_function(X)


def test_decision_function_in_chunks(monkeypatch):
    X, y = noisy(2)
    m = olbook.SVM(kernels.gaussian(1.0), C=1.0).fit(X, y)
    Xt = np.random.default_rng(3).normal(size=(23, 2))
    whole = m.decision_function(Xt)
    monkeypatch.setattr(svm_module, "_CHUNK", 5)
    assert np.array_equal(m.decision_function(Xt), whole)
    direct = (
        kernels.gaussian(1.0)(Xt, m.support_vectors_) @ m.dual_coef_[0]
        + m.intercept_[0]
    )
    np.testing.assert_allclose(whole, direct, rtol=1e-10, atol=1e-12)


def test_moons_two_thousand():
    X, y = make_moons(2000, noise=0.2, random_state=0)
    y = 2.0 * y - 1.0
    m = olbook.SVM(kernels.gaussian(1.0), C=1.0).fit(X, y)
    sk = SVC(kernel="rbf", gamma=1.0, C=1.0, tol=1e-6).fit(X, y)
    assert_same_decisions(m, X, sk)


# --- the hard margin on data it cannot separate -------------------------------------------
def test_hard_margin_non_separable_raises():
    X, y = xor_data()
    with pytest.raises(ValueError, match="not separable"):
        olbook.SVM().fit(X, y)
    # XOR is separable by the degree-2 polynomial kernel (the feature x1 x2) and the Gaussian one.
    assert olbook.SVM(kernels.polynomial(2, 1.0)).fit(X, y).score(X, y) == 1.0
    assert olbook.SVM(kernels.gaussian(1.0)).fit(X, y).score(X, y) == 1.0
    # The same point with both labels: no kernel separates it.
    Xd = np.vstack([X, X[:1]])
    yd = np.r_[y, -y[:1]]
    for k in (
        kernels.gaussian(1.0),
        kernels.laplacian(1.0),
        kernels.polynomial(3, 1.0),
    ):
        with pytest.raises(ValueError, match="not separable"):
            olbook.SVM(k).fit(Xd, yd)
        olbook.SVM(k, C=1.0).fit(Xd, yd)  # the soft margin is fine


def test_separable_in_feature_space_lp_path():
    X, y = xor_data()
    K = kernels.linear(X)  # singular: the LP decides
    assert not svm_module.separable_in_feature_space(K, y)
    K2 = kernels.polynomial(2, 0.0)(X)  # singular as well, and separable through x1 x2
    assert svm_module.separable_in_feature_space(K2, y)


def test_max_iter_warns_or_raises():
    X, y = noisy(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = olbook.SVM(kernels.gaussian(1.0), C=1.0, max_iter=2).fit(X, y)
    assert any("max_iter=2" in str(w.message) for w in caught)
    assert m.n_iter_ == 2
    Xs, ys = separable(1)
    before = snapshot(m)
    with pytest.raises(ValueError, match="max_iter"):
        m.set_params(C=None).fit(Xs, ys)
    m.set_params(C=1.0)
    assert_same_state(before, m)


# --- validation, state, sklearn conventions -------------------------------------------------
@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"C": 0.0}, "C must"),
        ({"C": -1.0}, "C must"),
        ({"C": np.inf}, "C must"),
        ({"C": np.nan}, "C must"),
        ({"C": "1"}, "C must"),
        ({"tol": 0.0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"fit_intercept": 1}, "fit_intercept"),
        ({"kernel": "rbf"}, "kernel must be a callable"),
        ({"cache_size": 0.0}, "cache_size"),
        ({"cache_size": -5}, "cache_size"),
        ({"cache_size": np.nan}, "cache_size"),
        ({"shrinking": 1}, "shrinking"),
    ],
)
def test_invalid_parameters_leave_state_unchanged(params, match):
    X, y = noisy(0)
    m = olbook.SVM(kernels.gaussian(1.0), C=1.0).fit(X, y)
    before = snapshot(m)
    m.set_params(**params)
    with pytest.raises(ValueError, match=match):
        m.fit(X, y)
    m.set_params(
        kernel=kernels.gaussian(1.0),
        C=1.0,
        tol=1e-6,
        max_iter=None,
        fit_intercept=True,
        cache_size=200.0,
        shrinking=True,
    )
    assert_same_state(before, m)


def test_invalid_data_leaves_state_unchanged():
    X, y = separable(0)
    m = olbook.SVM().fit(X, y)
    before = snapshot(m)
    bad = X.copy()
    bad[3, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        m.fit(bad, y)
    bad[3, 0] = np.inf
    with pytest.raises(ValueError, match="non-finite"):
        m.fit(bad, y)
    with pytest.raises(ValueError, match="Only binary classification"):
        m.fit(X, np.where(np.arange(len(y)) % 3 == 0, 2.0, y))  # three labels
    with pytest.raises(ValueError, match="both classes"):
        m.fit(X, np.ones_like(y))
    with pytest.raises(ValueError, match="not separable"):
        m.fit(*xor_data())
    with pytest.raises(ValueError, match="non-symmetric"):
        m.set_params(kernel=lambda A, B: A @ B.T + np.arange(B.shape[0])).fit(X, y)
    m.set_params(kernel=kernels.linear)
    assert_same_state(before, m)
    with pytest.raises(ValueError, match="features"):
        m.decision_function(X[:, :1])
    with pytest.raises(ValueError, match="non-finite"):
        m.predict(bad)


def test_sklearn_conventions():
    m = olbook.SVM(kernels.gaussian(0.5), C=2.0)
    assert m.get_params() == {
        "kernel": kernels.gaussian(0.5),
        "C": 2.0,
        "tol": 1e-6,
        "fit_intercept": True,
        "max_iter": None,
        "cache_size": 200.0,
        "shrinking": True,
    }
    c = clone(m)
    assert c.kernel == m.kernel and c.C == 2.0
    assert clone(olbook.SVM()).kernel is kernels.linear
    assert "gaussian(gamma=0.5)" in repr(m)
    X, y = noisy(4)
    assert np.array_equal(
        clone(m).fit(X, y).decision_function(X), m.fit(X, y).decision_function(X)
    )
    # a custom callable kernel works too
    k = olbook.SVM(lambda A, B: kernels.gaussian(0.5)(A, B), C=2.0).fit(X, y)
    np.testing.assert_allclose(
        k.decision_function(X), m.decision_function(X), rtol=1e-12, atol=1e-12
    )


# --- no intercept: the program min ||w||^2 s.t. y_i w.x_i >= 1 -----------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hard_margin_through_origin_equals_scipy_qp(seed):
    X, y = separable(seed, n=30, d=3, gap=0.3)
    assert olbook.is_linearly_separable(X, y, fit_intercept=False)
    ours = olbook.SVM(fit_intercept=False).fit(X, y)
    assert ours.intercept_.shape == (1,) and ours.intercept_[0] == 0.0
    res = minimize(
        lambda w: 0.5 * w @ w,
        np.zeros(3),
        jac=lambda w: w,
        method="SLSQP",
        constraints=[
            {
                "type": "ineq",
                "fun": lambda w: y * (X @ w) - 1.0,
                "jac": lambda w: y[:, None] * X,
            }
        ],
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert res.success
    np.testing.assert_allclose(ours.coef_[0], res.x, rtol=1e-5, atol=1e-6)
    assert ours.margin_ == pytest.approx(olbook.margin(X, y, ours.coef_[0]), rel=1e-6)
    assert ours.margin_ == pytest.approx(1 / np.linalg.norm(res.x), rel=1e-5)


@pytest.mark.parametrize(
    "kernel",
    [kernels.linear, kernels.gaussian(1.0), kernels.polynomial(2, 1.0)],
    ids=repr,
)
@pytest.mark.parametrize("C", [None, 0.5, 5.0])
def test_no_intercept_matches_bounded_dual_and_kkt(kernel, C):
    X, y = noisy(5, n=40)
    if C is None:
        X, y = separable(5, n=30)
        X = X + np.array([0.3, -0.2])
        assert svm_module.separable_in_feature_space(
            kernels.gram(kernel, X), y, fit_intercept=False
        )
    m = olbook.SVM(kernel, C=C, fit_intercept=False, tol=1e-9).fit(X, y)
    alpha = np.zeros(X.shape[0])
    alpha[m.support_] = m.dual_coef_[0] * y[m.support_]
    Q = y[:, None] * y[None, :] * kernels.gram(kernel, X)
    Cv = np.inf if C is None else C
    res = minimize(
        lambda a: 0.5 * a @ Q @ a - a.sum(),
        np.zeros(X.shape[0]),
        jac=lambda a: Q @ a - 1.0,
        method="L-BFGS-B",
        bounds=[(0.0, None if C is None else C)] * X.shape[0],
        options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 10000},
    )
    ours_obj = 0.5 * alpha @ Q @ alpha - alpha.sum()
    # at least as good as L-BFGS-B
    assert ours_obj <= res.fun + 1e-7 * max(1.0, abs(res.fun))
    assert ours_obj == pytest.approx(res.fun, rel=1e-5)
    yf = y * m.decision_function(X)
    assert np.all(yf[alpha == 0] >= 1 - 1e-6)
    free = (alpha > 0) & (alpha < Cv)
    assert np.all(np.abs(yf[free] - 1) <= 1e-6)
    assert np.all(yf[alpha == Cv] <= 1 + 1e-6)
    assert m.kkt_gap_ < 1e-9


def test_no_intercept_non_separable_and_one_class():
    X = np.array([[1.0], [2.0]])
    y = np.array([1.0, -1.0])
    assert olbook.SVM().fit(X, y).score(X, y) == 1.0  # with an intercept: fine
    with pytest.raises(ValueError, match="through the origin"):
        olbook.SVM(fit_intercept=False).fit(X, y)
    # one class is fine without intercept
    m = olbook.SVM(fit_intercept=False).fit(X, np.ones(2))
    assert m.coef_[0, 0] == pytest.approx(1.0) and m.margin_ == pytest.approx(1.0)
    with pytest.raises(ValueError, match="both"):
        olbook.SVM().fit(X, np.ones(2))


@settings(max_examples=12)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(6, 40), d=st.integers(2, 4))
def test_random_hard_margin_equals_scipy_qp(seed, n, d):
    X, y = separable(seed, n=n, d=d, gap=0.2)
    ours = olbook.SVM().fit(X, y)
    A = y[:, None] * np.hstack([X, np.ones((X.shape[0], 1))])
    res = minimize(
        lambda v: 0.5 * v[:-1] @ v[:-1],
        np.zeros(d + 1),
        jac=lambda v: np.r_[v[:-1], 0.0],
        constraints=[
            {"type": "ineq", "fun": lambda v: A @ v - 1.0, "jac": lambda v: A}
        ],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert res.success
    assert ours.margin_ == pytest.approx(1.0 / np.linalg.norm(res.x[:-1]), rel=1e-5)
    np.testing.assert_allclose(
        np.r_[ours.coef_[0], ours.intercept_],
        res.x,
        rtol=1e-4,
        atol=1e-5 * np.abs(res.x).max(),
    )


# --- kernel columns on demand, the cache, shrinking ----------------------------------------------
def _spirals(n, seed=0):
    return olbook.data.make_spirals(n, noise=0.05, random_state=seed)


def test_cache_size_changes_nothing_but_the_time():
    """Every column comes out with the same bits, cached or not: the fit does not depend on the cache."""
    X, y = _spirals(800)
    k = kernels.gaussian(40.0)
    big = olbook.SVM(k, C=10.0).fit(X, y)
    tiny = olbook.SVM(k, C=10.0, cache_size=1e-6).fit(X, y)  # two columns
    assert big.n_iter_ == tiny.n_iter_ and big.n_iter_ > 2 * 800  # shrinking ran
    assert np.array_equal(big.dual_coef_, tiny.dual_coef_) and np.array_equal(
        big.intercept_, tiny.intercept_
    )
    assert np.array_equal(big.support_, tiny.support_) and big.margin_ == tiny.margin_


@pytest.mark.parametrize(
    ("kernel", "C"),
    [
        (kernels.gaussian(40.0), 10.0),
        (kernels.gaussian(5.0), 0.3),
        (kernels.polynomial(3, 1.0), 1.0),
    ],
    ids=repr,
)
def test_shrinking_reaches_the_same_optimum(kernel, C):
    X, y = _spirals(1500, seed=1)
    on = olbook.SVM(kernel, C=C, tol=1e-8).fit(X, y)
    off = olbook.SVM(kernel, C=C, tol=1e-8, shrinking=False).fit(X, y)
    assert on.kkt_gap_ < 1e-8 and off.kkt_gap_ < 1e-8
    f_on, f_off = on.decision_function(X), off.decision_function(X)
    assert np.max(np.abs(f_on - f_off)) <= 1e-6 * np.max(np.abs(f_off))
    assert on.margin_ == pytest.approx(off.margin_, rel=1e-7)
    # the KKT conditions over every example, set aside or not (checked from the decision values)
    alpha = np.zeros(len(y))
    alpha[on.support_] = on.dual_coef_[0] * y[on.support_]
    yf = y * f_on
    assert np.all(yf[alpha == 0] >= 1 - 1e-6) and np.all(yf[alpha == C] <= 1 + 1e-6)
    free = (alpha > 0) & (alpha < C)
    assert np.all(np.abs(yf[free] - 1) <= 1e-6)


def _gap_from_decisions(m, X, y, C):
    """m - M of Fan et al. from the decision values: -y_t G_t = y_t - (f(x_t) - b)."""
    alpha = np.zeros(len(y))
    alpha[m.support_] = m.dual_coef_[0] * y[m.support_]
    v = y - (m.decision_function(X) - m.intercept_[0])
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y < 0) & (alpha < C)) | ((y > 0) & (alpha > 0))
    return np.max(v[up]) - np.min(v[low]), alpha


def test_stopped_while_shrunk_reports_the_gap_over_every_example():
    X, y = _spirals(1000, seed=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # shrunk at 200 and 400
        m = olbook.SVM(kernels.gaussian(40.0), C=10.0, max_iter=450).fit(X, y)
    assert m.n_iter_ == 450 and any("max_iter=450" in str(w.message) for w in caught)
    gap, alpha = _gap_from_decisions(m, X, y, 10.0)
    assert m.kkt_gap_ == pytest.approx(gap, abs=1e-9)
    # the intercept uses the rebuilt gradient of every example (libsvm's rule)
    free = (alpha > 0) & (alpha < 10.0)
    if np.any(free):
        b = np.mean(y[free] - (m.decision_function(X[free]) - m.intercept_[0]))
        assert m.intercept_[0] == pytest.approx(b, abs=1e-9)


def test_margin_from_the_gradient_equals_the_double_sum():
    X, y = _spirals(600, seed=3)
    m = olbook.SVM(kernels.gaussian(10.0), C=5.0).fit(X, y)
    c = m.dual_coef_[0]
    w2 = c @ kernels.gram(m.kernel, m.support_vectors_) @ c
    assert m.margin_ == pytest.approx(1.0 / np.sqrt(w2), rel=1e-10)


def test_overflowing_kernel_is_rejected_and_state_kept():
    X, y = separable(0)
    m = olbook.SVM(C=1.0).fit(X, y)
    before = snapshot(m)
    with pytest.raises(ValueError, match="non-finite values"):
        m.fit(X * 1e160, y)
    assert_same_state(before, m)


def test_custom_callable_kernel_uses_the_whole_gram_matrix():
    X, y = _spirals(400, seed=4)
    seen = []

    def k(A, B):
        seen.append((A.shape[0], B.shape[0]))
        return kernels.gaussian(3.0)(A, B)

    ours = olbook.SVM(k, C=1.0, tol=1e-9).fit(X, y)
    assert seen[0] == (400, 400)
    builtin = olbook.SVM(kernels.gaussian(3.0), C=1.0, tol=1e-9).fit(X, y)
    f, g = ours.decision_function(X), builtin.decision_function(X)
    assert np.max(np.abs(f - g)) <= 1e-7 * np.max(np.abs(g))


@pytest.mark.parametrize(
    "kernel",
    [kernels.linear, kernels.gaussian(40.0), kernels.polynomial(2, 1.0)],
    ids=repr,
)
@pytest.mark.parametrize("max_iter", [None, 450])
def test_fit_gives_the_norm_intercept_and_gap_of_smo(kernel, max_iter):
    """smo, given the kernel as kernel_args, stopped or not while shrunk: the fit's
    margin, intercept and gap are the bits of weight_sqnorm, intercept_from_gradient
    and (when stopped) kkt_gap on smo's final alpha and G."""
    from olbook import _kernel_cache, _smo

    X, y = _spirals(1000, seed=2)
    y = np.where(y > 0, 1.0, -1.0)
    cache = _kernel_cache.make_cache(kernel.spec(), X, 1.0)
    n = X.shape[0]
    alpha, G = np.zeros(n), -np.ones(n)
    cap = 10**7 if max_iter is None else max_iter
    args = _kernel_cache.kernel_args(cache)
    n_iter, gap = _smo.smo(cache, y, 10.0, 1e-6, cap, alpha, G, True, *args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = olbook.SVM(kernel, C=10.0, tol=1e-6, cache_size=1.0, max_iter=max_iter)
        m.fit(X, y)
    assert m.n_iter_ == n_iter
    w2 = _smo.weight_sqnorm(alpha, G)
    assert np.float64(m.margin_).tobytes() == np.float64(1.0 / np.sqrt(w2)).tobytes()
    b_alone = _smo.intercept_from_gradient(alpha, y, G, 10.0)
    assert m.intercept_.tobytes() == np.array([b_alone]).tobytes()
    assert np.float64(m.kkt_gap_).tobytes() == np.float64(gap).tobytes()
    if max_iter is not None:
        assert n_iter == max_iter
        assert (
            np.float64(gap).tobytes()
            == np.float64(_smo.kkt_gap(y, 10.0, alpha, G)).tobytes()
        )


def test_kernel_args_select_the_compiled_arithmetic():
    from olbook import _kernel_cache

    X = np.random.default_rng(0).normal(size=(5, 2))
    args = {
        repr(k): _kernel_cache.kernel_args(_kernel_cache.make_cache(k.spec(), X, 1.0))
        for k in (kernels.linear, kernels.polynomial(3, 0.5), kernels.gaussian(2.0),
                  kernels.laplacian(1.5))
    }  # fmt: skip
    assert args == {
        "linear": (None, None, None),
        "polynomial(degree=3, coef0=0.5)": ((3.0, 0.5), None, None),
        "gaussian(gamma=2.0)": (None, 2.0, None),
        "laplacian(gamma=1.5)": (None, 1.5, True),
    }
    pre = _kernel_cache.precomputed_cache(np.eye(3))
    assert _kernel_cache.kernel_args(pre) == (None, None, None)
