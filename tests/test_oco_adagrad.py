"""Tests of olbook.oco.adagrad: AdaGrad, diagonal and full-matrix (book section 8.3)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import scipy.linalg

from olbook.oco import Ball, Box
from olbook.oco.adagrad import AdaGrad
from olbook.ogd import OGD


def diagonal_reference(x0, G, eta, delta, low=-np.inf, high=np.inf):
    """Duchi, Hazan and Singer's diagonal rule in plain numpy, round by round:
    s_t = sqrt(sum_{s<=t} g_s^2), H_t = delta + s_t, x <- clip(x - eta g / H_t)."""
    x = np.array(x0, dtype=float)
    sq = np.zeros_like(x)
    points = []
    for g in G:
        points.append(x.copy())
        sq = sq + g * g
        h = delta + np.sqrt(sq)
        step = np.divide(eta * g, h, out=np.zeros_like(g), where=h > 0)
        x = np.clip(x - step, low, high)
    return np.array(points), x


@pytest.mark.parametrize("eta,delta", [(0.37, 0.0), (2.5, 0.1)])
@pytest.mark.parametrize("bounded", [False, True])
def test_diagonal_against_reference(eta, delta, bounded):
    rng = np.random.default_rng(3)
    T, d = 60, 4
    G = rng.standard_normal((T, d)) * (rng.random((T, d)) < 0.4)  # sparse
    kw = {"feasible_set": Box(-0.4, 0.7)} if bounded else {}
    lo, hi = (-0.4, 0.7) if bounded else (-np.inf, np.inf)
    x0 = np.array([0.1, -0.2, 0.0, 0.5])
    learner = AdaGrad(x0, eta=eta, delta=delta, **kw)
    tr = learner.run(G)
    P, x = diagonal_reference(x0, G, eta, delta, lo, hi)
    assert np.array_equal(tr.points, P) and np.array_equal(learner.x_, x)
    assert np.allclose(learner.sum_sq_gradients_, (G * G).sum(axis=0), rtol=1e-14)
    assert np.allclose(tr.loss, (P * G).sum(axis=1), rtol=1e-12, atol=1e-14)


def test_one_coordinate_is_scalar_adagrad():
    """Diagonal AdaGrad is d independent one-dimensional AdaGrads, bit for bit."""
    rng = np.random.default_rng(4)
    G = rng.standard_normal((50, 5)) * (rng.random((50, 5)) < 0.3)
    x0 = rng.uniform(-0.5, 0.5, 5)
    full = AdaGrad(x0, eta=0.8, delta=0.05, feasible_set=Box(-1, 1)).run(G)
    for i in range(5):
        one = AdaGrad(x0[i : i + 1], eta=0.8, delta=0.05, feasible_set=Box(-1, 1))
        assert np.array_equal(one.run(G[:, i : i + 1]).points[:, 0], full.points[:, i])


def test_constant_gradient_size_is_ogd_anytime():
    """If |g_{t,i}| = c at every round, s_{t,i} = c sqrt(t): AdaGrad (delta = 0) plays
    the points of OGD with eta_t = (eta / c) / sqrt(t), i.e. OGD's 'anytime' step with
    D / G = eta / c (equal up to rounding: sqrt(c^2 t) against c sqrt(t))."""
    rng = np.random.default_rng(5)
    c, eta, T = 0.75, 0.6, 200
    G = c * rng.choice([-1.0, 1.0], size=(T, 3))
    a = AdaGrad(np.zeros(3), eta=eta, feasible_set=Box(-1, 1)).run(G)
    from olbook.ogd import project_box

    o = OGD(
        np.zeros(3), "anytime", diameter=eta, lipschitz=c, projection=project_box(-1, 1)
    ).run(G)
    assert np.allclose(a.points, o.points, rtol=0, atol=1e-12)
    assert np.abs(a.points).max() > 0.1  # the runs move


def full_reference(x0, G, eta, delta):
    x = np.array(x0, dtype=float)
    S = np.zeros((x.size, x.size))
    points = []
    for g in G:
        points.append(x.copy())
        S = S + np.outer(g, g)
        H = delta * np.eye(x.size) + np.real(scipy.linalg.sqrtm(S))
        x = x - eta * np.linalg.solve(H, g)
    return np.array(points)


@pytest.mark.filterwarnings("ignore::scipy.linalg.LinAlgWarning")  # rank < d early
def test_full_matrix_against_reference():
    rng = np.random.default_rng(6)
    G = rng.standard_normal((30, 3))
    a = AdaGrad([0.2, 0.0, -0.1], eta=0.45, delta=0.3, diagonal=False).run(G)
    assert np.allclose(
        a.points, full_reference([0.2, 0.0, -0.1], G, 0.45, 0.3), atol=1e-9
    )


def test_full_matrix_with_axis_gradients_is_diagonal():
    """Gradients along the axes: G_t is diagonal and so is H_t; both versions agree."""
    rng = np.random.default_rng(7)
    T, d = 40, 3
    G = np.zeros((T, d))
    G[np.arange(T), rng.integers(0, d, T)] = rng.standard_normal(T)
    full = AdaGrad(np.zeros(d), eta=0.9, diagonal=False).run(G)
    diag = AdaGrad(np.zeros(d), eta=0.9).run(G)
    assert np.allclose(full.points, diag.points, atol=1e-12)
    # a rank-deficient G_t (delta = 0): the pseudo-inverse never moves off the span
    one = AdaGrad(np.zeros(2), eta=1.0, diagonal=False).run(np.array([[1.0, 0.0]] * 3))
    assert np.allclose(one.points[:, 1], 0.0)


@pytest.mark.parametrize("seed", range(5))
def test_regret_bound_holds(seed):
    rng = np.random.default_rng(seed)
    T, d = 300, 6
    G = rng.standard_normal((T, d)) * (rng.random((T, d)) < 0.2)
    G[:, 0] = 1.0  # one coordinate pushed one way: regret against the corner
    learner = AdaGrad(
        np.zeros(d),
        eta=math.sqrt(2),  # D_inf / sqrt(2), D_inf = 2
        feasible_set=Box(-1, 1),
    )
    tr = learner.run(G)
    bound = learner.regret_bound()
    corners = np.where(G.sum(axis=0) > 0, -1.0, 1.0)  # the best point of the box
    for u in (corners, np.zeros(d), rng.uniform(-1, 1, d)):
        assert tr.linearized_regret(u)[-1] <= bound + 1e-9


def test_blocks_and_pickle():
    rng = np.random.default_rng(8)
    G = rng.standard_normal((20, 3))
    a = AdaGrad(np.zeros(3), eta=0.3, feasible_set=Box(-2, 2))
    a.run(G[:7])
    b = pickle.loads(pickle.dumps(a))
    for r in range(7, 20):
        a.update(G[r])
    b.run(G[7:], reset=False)
    one = AdaGrad(np.zeros(3), eta=0.3, feasible_set=Box(-2, 2)).run(G)
    assert np.array_equal(a.trace_.points, one.points)
    assert np.array_equal(b.trace_.points, one.points)
    assert np.array_equal(a.trace_.cumulative_loss, one.cumulative_loss)


def test_bad_input_and_parameters():
    a = AdaGrad(np.zeros(3), eta=0.5)
    a.update([1.0, 0.0, 0.0])
    before = (a.x_.copy(), a.sum_sq_gradients_.copy(), a.n_rounds_)
    for bad in ([np.nan, 0, 0], [1.0, 2.0], [[1.0, 2.0, 3.0]]):
        with pytest.raises(ValueError):
            a.update(bad)
    assert np.array_equal(a.x_, before[0]) and a.n_rounds_ == before[2]
    assert np.array_equal(a.sum_sq_gradients_, before[1])
    for kw, match in [
        ({"eta": 0.0}, "eta"),
        ({"eta": "anytime"}, "eta"),
        ({"delta": -1.0}, "delta"),
        ({"diagonal": 1}, "diagonal"),
        ({"feasible_set": Ball(1.0)}, "feasible_set"),
        ({"feasible_set": Box(-1, 1), "diagonal": False}, "feasible_set"),
        ({"feasible_set": Box(0.5, 1)}, "x0"),
    ]:
        g = AdaGrad(np.zeros(3), **kw)
        with pytest.raises(ValueError, match=match):
            g.reset()
    g = AdaGrad(np.zeros(3)).reset()
    g.eta = 2.0
    with pytest.raises(ValueError, match="eta"):
        g.update(np.ones(3))
    with pytest.raises(ValueError, match="box"):
        AdaGrad(np.zeros(3)).regret_bound()


def test_zero_gradients_do_not_move():
    a = AdaGrad(np.array([0.25, -0.5]), eta=1.0)
    with np.errstate(all="raise"):
        a.update(np.zeros(2))
        a.update(np.array([0.0, 3.0]))
    assert np.array_equal(a.x_, [0.25, -1.5])
