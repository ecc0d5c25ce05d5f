"""ROMMA, ALMA and OGD classifiers: closed forms against their per-round problems, bounds, bad input."""

import math
import warnings

import numpy as np
import pytest
from conftest import started_at
from scipy.optimize import minimize

import olbook
from olbook._validation import ConvergenceWarning
from olbook.first_order import ALMA, ROMMA, OGDClassifier


def _romma_qp(w, x, y):
    """The shortest v with v.w >= |w|^2 and y v.x >= 1, numerically."""
    cons = [
        {"type": "ineq", "fun": lambda v: v @ w - w @ w},
        {"type": "ineq", "fun": lambda v: y * (v @ x) - 1.0},
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = minimize(
            lambda v: 0.5 * v @ v,
            w.copy(),
            constraints=cons,
            method="trust-constr",
            options={"gtol": 1e-12, "xtol": 1e-14, "maxiter": 5000},
        )
    return res.x


@pytest.mark.parametrize("seed", range(8))
def test_romma_update_is_the_shortest_feasible_vector(seed):
    rng = np.random.default_rng(seed)
    w, x = rng.standard_normal(3), rng.standard_normal(3)
    # a mistake, or a small margin
    y = -np.sign(w @ x) if seed % 2 == 0 else np.sign(w @ x)
    if seed % 2 == 1:
        x = x * 0.5 / abs(w @ x)  # 0 < y w.x = 0.5 < 1: aggressive ROMMA updates
    clf = started_at(ROMMA(aggressive=seed % 2 == 1), w)  # one round from w
    clf.partial_fit(x[None, :], [y])
    want = _romma_qp(w, x, y)
    assert np.allclose(clf.coef_[0], want, atol=1e-6), (clf.coef_[0], want)


def test_romma_first_update_is_the_shortest_vector():
    # From w = 0 the only constraint is y v.x >= 1: v = y x/|x|^2 (LIBOL's ROMMA.m takes y x).
    x = np.array([[3.0, -4.0]])
    clf = ROMMA().partial_fit(x, [-1])
    assert np.allclose(clf.coef_[0], -x[0] / 25.0, rtol=1e-15)


def test_romma_mistake_bound_on_separable_data():
    for seed in range(5):
        X, y, u = olbook.data.make_separable(
            400, 5, margin=1.0, radius=10.0, random_state=seed
        )
        clf = ROMMA().fit(X, y)
        assert clf.mistakes_ <= (olbook.radius(X) / olbook.margin(X, y, u)) ** 2


def test_alma_keeps_the_unit_ball_and_separates():
    X, y, u = olbook.data.make_separable(500, 4, margin=0.1, random_state=0)
    clf = ALMA(alpha=0.5, max_iter=50).fit(X, y)
    assert np.sqrt(clf.coef_[0] @ clf.coef_[0]) <= 1 + 1e-12
    assert clf.converged_ and np.all(clf.predict(X) == y)
    assert clf.k_ == clf.n_updates_ + 1


def test_ogd_hinge_follows_its_definition():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((50, 3))
    y = np.where(rng.random(50) < 0.5, 1.0, -1.0)
    clf = OGDClassifier(loss="hinge", eta=0.3, schedule="inv_sqrt").fit(X, y)
    w = np.zeros(3)
    for t in range(50):  # the definition, step by step
        if y[t] * (w @ X[t]) < 1:
            w = w + 0.3 / math.sqrt(t + 1) * y[t] * X[t]
    assert np.allclose(clf.coef_[0], w, rtol=1e-12, atol=1e-14)
    logi = OGDClassifier(loss="logistic", eta=0.3, schedule="constant").fit(X, y)
    w = np.zeros(3)
    for t in range(50):
        w = w + 0.3 * y[t] * X[t] / (1 + math.exp(y[t] * (w @ X[t])))
    assert (
        np.allclose(logi.coef_[0], w, rtol=1e-12, atol=1e-14) and logi.n_updates_ == 50
    )


@pytest.mark.parametrize(
    "make",
    [
        ROMMA,
        lambda: ROMMA(aggressive=True),
        ALMA,
        OGDClassifier,
        lambda: OGDClassifier(loss="logistic"),
    ],
)
def test_zero_huge_and_non_finite_input(make):
    X = np.array([[0.0, 0.0], [1e150, -1e150], [1e-150, 1e-150]])
    clf = make().fit(X, [1, -1, 1])
    assert np.all(np.isfinite(clf.coef_[0]))
    before = clf.coef_.copy()
    with pytest.raises(ValueError, match="non-finite"):
        clf.partial_fit([[np.inf, 0.0]], [1])
    assert np.array_equal(clf.coef_, before)


def test_bad_parameters():
    for bad in [
        ALMA(alpha=0.0),
        ALMA(alpha=1.5),
        ALMA(B=-1.0),
        ALMA(p=3),
        OGDClassifier(loss="squared"),
        OGDClassifier(eta=0.0),
        OGDClassifier(schedule="log"),
        ROMMA(aggressive=1),
    ]:
        with pytest.raises(ValueError):
            bad.fit(np.eye(2), [1, -1])


# --------------------------------------------------------------------------- intercept
_FIRST_ORDER = [
    lambda **kw: ROMMA(**kw),
    lambda **kw: ROMMA(aggressive=True, **kw),
    lambda **kw: ALMA(alpha=0.7, B=2.0, eta=0.9, **kw),
    lambda **kw: OGDClassifier(loss="hinge", eta=0.4, **kw),
    lambda **kw: OGDClassifier(loss="logistic", eta=0.4, schedule="constant", **kw),
]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("make", _FIRST_ORDER)
def test_fit_intercept_is_the_rule_on_a_constant_feature(make):
    """fit_intercept=True is the learner run on X with a column of ones: same mistakes, same
    weights, the last weight being intercept_; shapes are scikit-learn's (1, d) and (1,)."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((60, 3)) + 2.0
    y = np.where(X[:, 0] - X[:, 1] + 0.5 > 0, 1, -1)
    ours = make(fit_intercept=True, max_iter=3).fit(X, y)
    ref = make(max_iter=3).fit(np.column_stack([X, np.ones(len(X))]), y)
    assert ours.coef_.shape == (1, 3) and ours.intercept_.shape == (1,)
    assert np.array_equal(ours.trace_.mistakes, ref.trace_.mistakes)
    assert np.array_equal(ours.coef_[0], ref.coef_[0, :3])
    assert ours.intercept_[0] == ref.coef_[0, 3]
    plain = make(max_iter=3).fit(X, y)
    assert plain.intercept_.shape == (1,) and plain.intercept_[0] == 0.0
    with pytest.raises(ValueError, match="fit_intercept changed"):
        ours.set_params(fit_intercept=False).partial_fit(X, y)


def test_ogd_logistic_warning_does_not_claim_non_separable_data():
    """The logistic loss updates every round and the hinge loss below margin 1, so
    max_iter reached says nothing about separability; ROMMA (mistakes only) keeps the
    hint."""
    X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    y = np.array([1, 1, -1, -1])
    with pytest.warns(ConvergenceWarning) as rec:
        OGDClassifier(loss="logistic", max_iter=3).fit(X, y)
    assert "separable" not in str(rec[0].message)
    with pytest.warns(ConvergenceWarning) as rec:
        OGDClassifier(loss="hinge", eta=1e-3, schedule="constant", max_iter=2).fit(X, y)
    assert "separable" not in str(rec[0].message)
    Xn = np.vstack([X, [[1.0, 1.0]], [[1.0, 1.0]]])  # one point with both labels
    with pytest.warns(ConvergenceWarning, match="linearly separable"):
        ROMMA(max_iter=3).fit(Xn, np.r_[y, 1, -1])
