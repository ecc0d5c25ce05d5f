"""Tests of olbook.oco.coin_betting: the KT bettor for OCO on R^d (book section 8.4)."""

from __future__ import annotations

import functools
import math
import pickle

import numpy as np
import pytest

from olbook.oco.coin_betting import CoinBetting, kt_regret_bound


def kt_reference(x0, G, eps, L):
    """Orabona and Pál's KT bettor in plain Python, round by round: c_t = -g_t / L,
    w_t = (sum_{s<t} c_s / t) Wealth_{t-1} / L, Wealth_t = Wealth_{t-1} - g_t . w_t."""
    x0 = np.asarray(x0, dtype=float)
    wealth, csum, points, wealths = eps, np.zeros_like(x0), [], []
    for t, g in enumerate(G, start=1):
        w = csum * (wealth / (t * L))
        points.append(x0 + w)
        wealth -= math.fsum(g * w)
        wealths.append(wealth)
        csum = csum - g / L
    return np.array(points), np.array(wealths)


@pytest.mark.parametrize("eps,L", [(0.3, 1.0), (2.5, 4.0)])
def test_against_reference(eps, L):
    rng = np.random.default_rng(1)
    T, d = 200, 5
    G = rng.standard_normal((T, d)) + [2.0, -1.0, 0.0, 0.0, 0.5]  # a drift
    G *= (L * rng.random(T) / np.sqrt((G * G).sum(axis=1)))[:, None]
    x0 = np.array([0.5, -1.0, 0.0, 2.0, 0.25])
    cb = CoinBetting(x0, initial_wealth=eps, lipschitz=L)
    tr = cb.run(G)
    P, W = kt_reference(x0, G, eps, L)
    assert np.allclose(tr.points, P, rtol=1e-10, atol=1e-12)
    assert math.isclose(cb.wealth_, W[-1], rel_tol=1e-10)
    assert np.abs(P - x0).max() > 3.0  # the bets grow


def test_one_dimension_bitwise():
    rng = np.random.default_rng(2)
    G = rng.uniform(-1, 1, (100, 1))
    tr = CoinBetting([0.0], initial_wealth=0.7).run(G)
    P, W = kt_reference([0.0], G, 0.7, 1.0)
    assert np.array_equal(tr.points, P)


def test_wealth_identity_exact():
    """Wealth_T = epsilon - sum_t g_t . w_t, subtracted in round order, bit for bit."""
    rng = np.random.default_rng(3)
    G = rng.uniform(-0.5, 0.5, (300, 4))
    cb = CoinBetting(np.zeros(4), initial_wealth=1.5)
    tr = cb.run(G)
    from olbook import rowwise_dots

    bets = rowwise_dots(np.ascontiguousarray(tr.points), G)  # x0 = 0: w_t = x_t
    assert bets.tolist() == tr.loss.tolist()
    wealth = functools.reduce(lambda a, b: a - b, bets.tolist(), 1.5)
    assert cb.wealth_ == wealth
    assert cb.wealth_ > 0


def kt_potential(x, T, eps):
    return math.exp(
        math.log(eps)
        + T * math.log(2)
        + math.lgamma((T + 1) / 2 + x / 2)
        + math.lgamma((T + 1) / 2 - x / 2)
        - math.log(math.pi)
        - math.lgamma(T + 1)
    )


@pytest.mark.parametrize("seed", range(4))
def test_wealth_is_the_kt_potential_on_sign_coins(seed):
    """On coins +-1 the KT wealth depends only on the sum of the coins:
    eps 2^T Gamma((T+1)/2 + x/2) Gamma((T+1)/2 - x/2) / (pi T!)."""
    rng = np.random.default_rng(seed)
    T = 80
    G = rng.choice([-1.0, 1.0], size=(T, 1), p=[0.7, 0.3])
    cb = CoinBetting([0.0], initial_wealth=0.4)
    cb.run(G)
    assert math.isclose(cb.wealth_, kt_potential(-G.sum(), T, 0.4), rel_tol=1e-10)
    # and at least it on coins in [-1, 1] (Orabona and Pál 2016)
    C = rng.uniform(-1, 1, (T, 1))
    cb.run(C)
    assert cb.wealth_ >= kt_potential(-C.sum(), T, 0.4) * (1 - 1e-10)


@pytest.mark.parametrize("seed", range(5))
def test_regret_bound_holds(seed):
    rng = np.random.default_rng(seed)
    T, d = 400, 3
    G = rng.standard_normal((T, d)) + [0.8, -0.3, 0.0]
    G /= np.maximum(1.0, np.sqrt((G * G).sum(axis=1)))[:, None]
    G *= 2.0
    cb = CoinBetting(np.ones(d), initial_wealth=0.5, lipschitz=2.0)
    tr = cb.run(G)
    for scale in (0.0, 0.1, 1.0, 10.0, 1000.0):
        u = np.ones(d) + scale * rng.standard_normal(d)
        R = tr.linearized_regret(u)[-1]
        assert R <= cb.regret_bound(u) + 1e-9
    assert tr.linearized_regret(np.ones(d))[-1] <= 0.5  # at most epsilon at x0


def test_axis_gradients_equal_one_dimension():
    rng = np.random.default_rng(4)
    g = rng.uniform(-1, 1, 50)
    G = np.zeros((50, 3))
    G[:, 1] = g
    a = CoinBetting(np.zeros(3)).run(G)
    b = CoinBetting([0.0]).run(g[:, None])
    assert np.array_equal(a.points[:, 1], b.points[:, 0])
    assert not a.points[:, [0, 2]].any()


def test_bound_function():
    assert math.isclose(
        kt_regret_bound(2.0, 100, 0.5, 3.0),
        0.5 * (1 - 1 / (math.e * math.sqrt(math.pi * 100)))
        + 6.0 * math.sqrt(100 * math.log(1 + 24 * 100**2 * 9 * 4 / 0.25)),
    )


def test_blocks_pickle_and_bad_input():
    rng = np.random.default_rng(5)
    G = rng.uniform(-0.5, 0.5, (30, 2))
    a = CoinBetting(np.zeros(2))
    a.run(G[:10])
    b = pickle.loads(pickle.dumps(a))
    for r in range(10, 30):
        a.update(G[r])
    b.run(G[10:], reset=False)
    one = CoinBetting(np.zeros(2))
    one.run(G)
    for x in (a, b):
        assert np.array_equal(x.trace_.points, one.trace_.points)
        assert x.wealth_ == one.wealth_ and np.array_equal(x.x_, one.x_)
    before = (a.x_.copy(), a.wealth_, a.n_rounds_)
    for bad, match in [
        ([0.8, 0.8], "norm"),
        ([np.nan, 0.0], "non-finite"),
        ([1.0], "shape"),
    ]:
        with pytest.raises(ValueError, match=match):
            a.update(bad)
    with pytest.raises(ValueError, match="norm"):
        a.run(np.array([[0.1, 0.1], [2.0, 0.0]]), reset=False)
    assert np.array_equal(a.x_, before[0]) and (a.wealth_, a.n_rounds_) == before[1:]
    a.update([0.6, 0.8])  # norm 1 is allowed
    for kw, match in [
        ({"initial_wealth": 0.0}, "initial_wealth"),
        ({"lipschitz": -1.0}, "lipschitz"),
        ({"x0": [np.inf]}, "x0"),
    ]:
        with pytest.raises(ValueError, match=match):
            CoinBetting(**({"x0": [0.0]} | kw)).reset()
    c = CoinBetting([0.0]).reset()
    c.lipschitz = 3.0
    with pytest.raises(ValueError, match="lipschitz"):
        c.update([0.5])
