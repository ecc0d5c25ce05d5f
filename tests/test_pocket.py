"""The pocket algorithm: against a plain reference loop, and its invariants."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import xor_data

import olbook
from olbook.data import make_noisy, make_separable


def _errors(X, y, w, b):
    return int(np.sum(np.where(X @ w + b > 0, 1.0, -1.0) != y))


def reference_pocket(X, y, *, max_updates, fit_intercept, seed):
    """Pocket as in olbook's docstring, in plain numpy, with the same random draws."""
    draws = np.random.default_rng(seed).random(max_updates)
    n, d = X.shape
    w, b = np.zeros(d), 0.0
    best, best_w, best_b = n + 1, w.copy(), b
    errors, pocket_errors = [], []
    t = 0
    while True:
        f = X @ w + (b if fit_intercept else 0.0)
        err = int(np.sum(np.where(f > 0, 1.0, -1.0) != y))
        errors.append(err)
        if err < best:
            best, best_w, best_b = err, w.copy(), b
        pocket_errors.append(best)
        violators = np.flatnonzero(y * f <= 0)
        if violators.size == 0 or t == max_updates:
            break
        k = violators[min(int(draws[t] * violators.size), violators.size - 1)]
        w = w + y[k] * X[k]
        if fit_intercept:
            b += y[k]
        t += 1
    return best_w, best_b, np.array(errors), np.array(pocket_errors), t, w, b


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_pocket_matches_reference(fit_intercept, seed):
    X, y, _, _ = make_noisy(40, 3, margin=0.1, flip=0.15, random_state=seed)
    T = 150
    pw, pb, errors, pocket_errors, t, w, b = reference_pocket(
        X, y, max_updates=T, fit_intercept=fit_intercept, seed=seed
    )
    est = olbook.Pocket(
        max_updates=T, fit_intercept=fit_intercept, random_state=seed
    ).fit(X, y)
    assert np.array_equal(est.errors_, errors)
    assert np.array_equal(est.pocket_errors_, pocket_errors)
    assert est.n_updates_ == t
    assert np.allclose(est.coef_[0], pw, rtol=1e-12, atol=1e-12)
    assert np.isclose(est.intercept_[0], pb)
    assert np.allclose(est.last_coef_[0], w, rtol=1e-12, atol=1e-12)
    assert np.isclose(est.last_intercept_[0], b)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_pocket_invariants(fit_intercept, seed):
    X, y, _, _ = make_noisy(60, 4, margin=0.05, flip=0.2, random_state=seed)
    T = 200
    est = olbook.Pocket(
        max_updates=T, fit_intercept=fit_intercept, random_state=seed
    ).fit(X, y)
    pe = est.pocket_errors_
    assert np.all(np.diff(pe) <= 0), "pocket errors never increase"
    assert est.errors_.shape == pe.shape == (est.n_updates_ + 1,)
    assert est.n_updates_ <= T
    assert pe[-1] == est.errors_.min()
    assert np.array_equal(pe, np.minimum.accumulate(est.errors_))
    assert _errors(X, y, est.coef_[0], est.intercept_[0]) == pe[-1]
    assert np.sum(est.predict(X) != y) == pe[-1]
    assert _errors(X, y, est.last_coef_[0], est.last_intercept_[0]) == est.errors_[-1]
    # w_0 = 0 predicts -1 everywhere (a tie is -1): it errs on every positive label.
    assert est.errors_[0] == np.sum(y > 0)
    if not fit_intercept:
        assert est.intercept_[0] == 0.0 and est.last_intercept_[0] == 0.0
    # Not separable here, so the loop only stops at max_updates.
    assert not olbook.is_linearly_separable(X, y, fit_intercept=fit_intercept)
    assert est.n_updates_ == T


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_pocket_separates_separable_data(fit_intercept, seed):
    X, y, _ = make_separable(50, 3, margin=0.1, random_state=seed)
    est = olbook.Pocket(
        max_updates=10_000, fit_intercept=fit_intercept, random_state=seed
    ).fit(X, y)
    assert est.pocket_errors_[-1] == 0 and est.errors_[-1] == 0
    assert est.n_updates_ < 10_000
    assert np.array_equal(est.predict(X), y)
    assert np.array_equal(est.coef_[0], est.last_coef_[0])
    # The loop stopped because no PLA-mistake (y f <= 0) was left.
    assert np.all(y * est.decision_function(X) > 0)


def test_pocket_deterministic_for_fixed_seed():
    X, y, _, _ = make_noisy(50, 3, margin=0.1, flip=0.2, random_state=3)
    a = olbook.Pocket(max_updates=100, random_state=42).fit(X, y)
    b = olbook.Pocket(max_updates=100, random_state=42).fit(X, y)
    assert np.array_equal(a.coef_[0], b.coef_[0])
    assert np.array_equal(a.errors_, b.errors_)
    c = olbook.Pocket(max_updates=100, random_state=np.random.default_rng(42)).fit(X, y)
    assert np.array_equal(a.errors_, c.errors_)
    runs = {
        tuple(olbook.Pocket(max_updates=100, random_state=s).fit(X, y).errors_)
        for s in range(6)
    }
    assert len(runs) > 1, "the seed matters"


def test_pocket_max_updates_zero():
    X, y, _, _ = make_noisy(30, 2, margin=0.1, flip=0.2, random_state=0)
    est = olbook.Pocket(max_updates=0, fit_intercept=True).fit(X, y)
    assert np.array_equal(est.coef_[0], np.zeros(2)) and est.intercept_[0] == 0.0
    assert est.n_updates_ == 0
    assert est.errors_.tolist() == [int(np.sum(y > 0))]
    assert np.array_equal(est.predict(X), -np.ones(30))


def test_pocket_by_hand_xor():
    # XOR with w=0: every label -1 is right and every +1 wrong: 2 errors.
    # Any w errs on (1,1) or (-1,-1) (both +1, opposite scores, at most one > 0),
    # and w=(1,1) errs only there ((1,-1), (-1,1) score 0 -> -1, correct): the optimum is 1.
    X, y = xor_data()
    assert _errors(X, y, np.array([1.0, 1.0]), 0.0) == 1
    est = olbook.Pocket(max_updates=50, random_state=0).fit(X, y)
    assert est.errors_[0] == 2
    assert est.pocket_errors_[-1] == 1
    assert est.n_updates_ == 50


def test_pocket_is_not_online():
    assert not hasattr(olbook.Pocket(), "partial_fit")
