"""Tests of olbook.oco.ons: the online Newton step (book section oco-sec-ons)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize

from olbook.oco import Ball, Box, Simplex, norm_projections, ons
from olbook.oco.norm_projections import project_in_norm
from olbook.oco.ons import ONS, theorem_bound, theorem_parameters


def reference_projection(y, A, feasible_set):
    """The projection in the norm of A by SciPy's SLSQP (tight tolerance)."""
    if feasible_set is None:
        return y.copy()
    d = y.size
    if isinstance(feasible_set, Simplex):
        cons = [{"type": "eq", "fun": lambda z: z.sum() - 1.0}]
        bounds, z0 = [(0.0, None)] * d, np.full(d, 1.0 / d)
    else:
        R = feasible_set.radius
        cons = [{"type": "ineq", "fun": lambda z: R * R - z @ z}]
        bounds, z0 = None, np.zeros(d)
    res = scipy.optimize.minimize(
        lambda z: (z - y) @ A @ (z - y),
        z0,
        jac=lambda z: 2 * A @ (z - y),
        bounds=bounds,
        constraints=cons,
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 500},
    )
    return res.x


def reference_ons(x0, G, gamma, a, feasible_set):
    """Hazan, Agarwal and Kale's rule in plain numpy, round by round:
    A_t = a I + sum g g', y = x_t - A_t^{-1} g_t / gamma, x_{t+1} = Pi^{A_t}_K(y)."""
    x = np.array(x0, dtype=float)
    A = a * np.eye(x.size)
    points = []
    for g in G:
        points.append(x.copy())
        A = A + np.outer(g, g)
        y = x - np.linalg.solve(A, g) / gamma
        x = reference_projection(y, A, feasible_set)
    return np.array(points), x, A


@pytest.mark.parametrize(
    "feasible_set,x0,tol",
    [
        (None, [0.3, -0.2, 0.1], 1e-10),
        (Simplex(), [0.2, 0.3, 0.5], 1e-6),
        (Ball(0.8), [0.1, 0.0, -0.3], 1e-6),
    ],
)
def test_against_reference(feasible_set, x0, tol):
    rng = np.random.default_rng(1)
    G = rng.standard_normal((40, 3)) * np.array([1.0, 0.3, 2.0])
    gamma, a = 0.37, 2.5  # not the defaults
    learner = ONS(x0, gamma=gamma, a=a, feasible_set=feasible_set)
    tr = learner.run(G)
    P, x, A = reference_ons(x0, G, gamma, a, feasible_set)
    assert np.allclose(tr.points, P, atol=tol, rtol=0)
    assert np.allclose(learner.x_, x, atol=tol, rtol=0)
    assert np.allclose(learner.matrix_, A, rtol=1e-14, atol=0)
    assert np.allclose(learner.inverse_matrix_, np.linalg.inv(A), rtol=1e-10, atol=0)
    T = learner.inverse_factor_  # A^{-1} = T'T, T lower triangular
    assert np.array_equal(T, np.tril(T)) and np.allclose(T.T @ T, np.linalg.inv(A))
    _, logdet = np.linalg.slogdet(A)
    assert math.isclose(learner.log_det_ratio_, logdet - 3 * math.log(a), rel_tol=1e-10)
    assert np.allclose(tr.loss, (tr.points * G).sum(axis=1), rtol=1e-12, atol=1e-14)
    # the projections are active on these streams (the sets constrain the run)
    if feasible_set is not None:
        free = ONS(x0, gamma=gamma, a=a).run(G).points
        assert np.abs(free - P).max() > 0.1


def kkt_simplex(z, y, A):
    """Largest violations of the KKT conditions of the simplex projection."""
    g = A @ (z - y)
    support = z > 1e-12
    lam = g[support].mean()
    return (
        max(-z.min(), abs(z.sum() - 1.0)),
        np.abs(g[support] - lam).max(),  # stationarity on the support
        max(0.0, -(g - lam).min()),  # multipliers of the zero coordinates >= 0
    )


def random_pd(rng, d):
    B = rng.standard_normal((d, d)) * rng.uniform(0.1, 3.0, d)
    return B @ B.T + 0.05 * np.eye(d)


def test_simplex_projection_kkt():
    rng = np.random.default_rng(2)
    for _ in range(500):
        d = int(rng.integers(2, 9))
        A, y = random_pd(rng, d), 2.0 * rng.standard_normal(d)
        start = rng.dirichlet(np.ones(d)) * (rng.random(d) < 0.7)
        start = start / start.sum() if start.sum() > 0 else np.full(d, 1.0 / d)
        z = project_in_norm(y, A, Simplex(), start=start)
        feas, stat, dual = kkt_simplex(z, y, A)
        scale = np.abs(A).max() * (1 + np.abs(y).max())
        assert feas <= 1e-13 and stat <= 1e-11 * scale and dual <= 1e-11 * scale
    # A = I: the Euclidean projection of olbook.oco.Simplex
    y = rng.standard_normal(6)
    assert np.allclose(project_in_norm(y, np.eye(6), Simplex()), Simplex().project(y))


def test_ball_projection_kkt():
    rng = np.random.default_rng(3)
    for _ in range(300):
        d = int(rng.integers(2, 9))
        A, y = random_pd(rng, d), 3.0 * rng.standard_normal(d)
        z = project_in_norm(y, A, Ball(1.5))
        g = A @ (z - y)
        if np.linalg.norm(y) <= 1.5:
            assert np.array_equal(z, y)
            continue
        lam = -(g @ z) / (z @ z)  # A (z - y) = -lambda z, lambda >= 0, ||z|| = R
        assert lam >= 0.0 and abs(np.linalg.norm(z) - 1.5) <= 1e-14
        assert np.abs(g + lam * z).max() <= 1e-9 * np.abs(A @ y).max()
    y = rng.standard_normal(4) * 5
    assert np.allclose(project_in_norm(y, np.eye(4), Ball(1.0)), Ball(1.0).project(y))


def test_projection_is_not_euclidean():
    """With A far from I the A-norm projection differs from the Euclidean one, and
    it is closer in the A-norm (so the tests above do not pass for A = I only)."""
    A = np.array([[10.0, 3.0], [3.0, 1.0]])
    y = np.array([1.4, 0.9])
    z = project_in_norm(y, A, Simplex())
    e = Simplex().project(y)
    assert np.abs(z - e).max() > 0.05
    assert (z - y) @ A @ (z - y) < (e - y) @ A @ (e - y)


def test_theorem_parameters_and_bound():
    gamma, a = theorem_parameters(1.0, 2.0, 0.5)  # 4 G D = 4 > 1/alpha... min(1/4, 1)
    assert gamma == 0.125 and a == 1.0 / (0.125**2 * 4.0)
    gamma, _ = theorem_parameters(0.05, 1.0, 1.0)  # alpha the smaller
    assert gamma == 0.025
    B = theorem_bound(1.0, 2.0, 0.5, 3, 1000)
    assert math.isclose(B, (3 * math.log1p(1000 * (0.5 * 0.125 * 2) ** 2 / 3) + 1) * 4)
    # at most 4 (1/alpha + G D)(d ln T + 1), the corollary of the theorem
    for alpha, D, G, d, T in [(1, 1.4, 3, 2, 10), (0.1, 2, 1, 5, 10**6)]:
        assert theorem_bound(alpha, D, G, d, T) <= 4 * (1 / alpha + G * D) * (
            d * math.log(T) + 1
        )


def test_surrogate_regret_within_bound_and_identity_on_Rd():
    """On R^d the proof's one-round inequality is an equality; summed, the surrogate
    regret plus (gamma/2) ||x_{T+1} - u||^2_{A_T} equals the sum of the Newton terms
    plus (gamma a / 2) ||x_1 - u||^2."""
    rng = np.random.default_rng(4)
    G = rng.standard_normal((200, 4))
    gamma, a = 0.3, 0.7
    learner = ONS(np.zeros(4), gamma=gamma, a=a)
    tr = learner.run(G)
    u = rng.standard_normal(4)
    z = ((tr.points - u) * G).sum(axis=1)
    surrogate = math.fsum(z - 0.5 * gamma * z * z)
    A = a * np.eye(4)
    newton = []
    for g in G:
        A = A + np.outer(g, g)
        newton.append(g @ np.linalg.solve(A, g))
    end = learner.x_ - u
    lhs = surrogate + 0.5 * gamma * end @ learner.matrix_ @ end
    rhs = math.fsum(newton) / (2 * gamma) + 0.5 * gamma * a * (u @ u)
    assert math.isclose(lhs, rhs, rel_tol=1e-9)
    assert surrogate <= learner.regret_bound(u)
    assert math.fsum(newton) <= learner.log_det_ratio_


def test_determinism_blocks_and_pickle():
    rng = np.random.default_rng(5)
    G = rng.standard_normal((30, 3))
    one = ONS(np.full(3, 1 / 3), gamma=0.4, a=1.5, feasible_set=Simplex()).run(G)
    again = ONS(np.full(3, 1 / 3), gamma=0.4, a=1.5, feasible_set=Simplex()).run(G)
    assert np.array_equal(one.points, again.points)
    b = ONS(np.full(3, 1 / 3), gamma=0.4, a=1.5, feasible_set=Simplex())
    b.run(G[:11])
    c = pickle.loads(pickle.dumps(b))
    for r in range(11, 30):
        b.update(G[r])
    c.run(G[11:], reset=False)
    for learner in (b, c):
        assert np.array_equal(learner.trace_.points, one.points)
        assert np.array_equal(learner.trace_.cumulative_loss, one.cumulative_loss)


def test_bad_input_and_parameters():
    learner = ONS(np.zeros(3), gamma=0.5)
    learner.update([1.0, 0.0, 0.0])
    before = {
        k: (v.copy() if isinstance(v, np.ndarray) else v)
        for k, v in learner.__dict__.items()
        if k.endswith("_")
    }
    for bad in ([np.nan, 0, 0], [1.0, 2.0], [[1.0, 2.0, 3.0]], "x"):
        with pytest.raises(ValueError, match="gradient"):
            learner.update(bad)
    with pytest.raises(ValueError, match="gradient"):
        learner.run(np.array([[1.0, 0.0, 0.0], [np.inf, 0.0, 0.0]]), reset=False)
    with pytest.raises(ValueError, match="too large"):
        learner.update([1e200, 1e200, 1e200])
    for k, v in before.items():
        now = getattr(learner, k)
        assert np.array_equal(now, v) if isinstance(v, np.ndarray) else now == v
    assert learner.n_rounds_ == 1
    for kw, match in [
        ({"gamma": 0.0}, "gamma"),
        ({"gamma": -1.0}, "gamma"),
        ({"a": 0.0}, "a \\(the initial"),
        ({"a": float("nan")}, "a \\(the initial"),
        ({"feasible_set": Box(0, 1)}, "feasible_set"),
        ({"feasible_set": Ball(1.0, p=3.0)}, "feasible_set"),
    ]:
        game = ONS(np.zeros(3), **kw)  # __init__ stores, learning checks
        with pytest.raises(ValueError, match=match):
            game.reset()
    with pytest.raises(ValueError, match="simplex"):
        ONS([0.5, 0.6], feasible_set=Simplex()).reset()
    with pytest.raises(ValueError, match="simplex"):
        project_in_norm([1.0, 2.0], np.eye(2), Simplex(), start=[-0.5, 1.5])
    with pytest.raises(ValueError, match="matrix"):
        project_in_norm([1.0, 2.0], np.eye(3), Simplex())
    with pytest.raises(ValueError, match="symmetric"):
        project_in_norm([1.0, 2.0], [[1.0, 0.5], [0.0, 1.0]], Ball(1.0))
    with pytest.raises(ValueError, match="positive definite"):
        project_in_norm([1.0, 2.0], [[1.0, 2.0], [2.0, 1.0]], Simplex())
    with pytest.raises(ValueError, match="ball"):
        ONS([2.0, 0.0], feasible_set=Ball(1.0)).reset()
    game = ONS(np.zeros(2)).reset()
    game.gamma = 2.0
    with pytest.raises(ValueError, match="changed during the game"):
        game.update([1.0, 1.0])


def test_inverse_factor_stays_accurate_over_many_rounds():
    """Carlson's square-root updates of A^{-1} = U U': after 20,000 rounds with
    a = 1e-3 and a direction with tiny gradients (condition number of A above 2e7),
    U U' A is still I to 1e-12, U U' is exactly symmetric and positive definite, and
    it agrees with SciPy's Cholesky inverse of A to 1e-13 relative to its size."""
    rng = np.random.default_rng(6)
    G = rng.standard_normal((20_000, 4)) * np.array([1.0, 1.0, 0.1, 1e-5])
    learner = ONS(np.zeros(4), gamma=1.0, a=1e-3)
    learner.run(G)
    A, inv = learner.matrix_, learner.inverse_matrix_
    assert np.linalg.cond(A) > 2e7
    assert np.abs(inv @ A - np.eye(4)).max() < 1e-12  # measured 3.0e-14
    assert np.array_equal(inv, inv.T)
    assert np.linalg.eigvalsh(inv).min() > 0
    ref = scipy.linalg.cho_solve(scipy.linalg.cho_factor(A), np.eye(4))
    assert np.abs(inv - ref).max() <= 1e-13 * np.abs(ref).max()  # measured 9.8e-15
    T = learner.inverse_factor_
    assert np.array_equal(T, np.tril(T)) and (np.diag(T) > 0).all()


def test_inverse_factor_matches_sherman_morrison_round_by_round():
    """The factor after each round is the Sherman-Morrison inverse of a plain-numpy
    reference (1/c = 1: a planted 1/c = 0.5 fails at the first round), and the
    step is A_t^{-1} g_t = K / (1 + v)."""
    rng = np.random.default_rng(7)
    G = rng.standard_normal((25, 3)) * np.array([2.0, 0.5, 1.0])
    a = 0.8
    learner = ONS(np.zeros(3), gamma=0.6, a=a)
    Ainv = np.eye(3) / a
    for g in G:
        x = learner.predict()
        learner.update(g)
        K = Ainv @ g
        Ainv = Ainv - np.outer(K, K) / (1.0 + g @ K)
        assert np.allclose(learner.inverse_matrix_, Ainv, rtol=1e-12, atol=1e-15)
        step = x - learner.x_  # on R^d: (1/gamma) A_t^{-1} g
        assert np.allclose(step, Ainv @ g / 0.6, rtol=1e-12, atol=1e-15)


def test_projections_live_in_their_module():
    """olbook.oco.ons re-exports the A-norm projection of norm_projections."""
    assert ons.project_in_norm is norm_projections.project_in_norm
    assert "project_in_norm" in ons.__all__
