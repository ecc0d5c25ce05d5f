"""Tests of olbook.ogd: projected online gradient descent (book chapter 5)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olbook.ogd import (
    OGD,
    project_ball,
    project_box,
    projected_step,
    strongly_convex_step,
)


def test_projections():
    p = project_ball(2.0)
    assert np.allclose(p(np.array([3.0, 4.0])), [1.2, 1.6])
    assert np.array_equal(p(np.array([1.0, 1.0])), [1.0, 1.0])
    assert np.array_equal(
        project_box(-1, 1)(np.array([-3.0, 0.5, 2.0])), [-1.0, 0.5, 1.0]
    )
    with pytest.raises(ValueError, match="radius"):
        project_ball(0)
    with pytest.raises(ValueError, match="low < high"):
        project_box(1, 1)


def test_step_and_trace():
    o = OGD([0.0, 0.0], eta=0.5)
    assert o.update([2.0, -2.0]) == 0.0  # the linear loss g . x_1 at x_1 = 0
    assert np.array_equal(o.predict(), [-1.0, 1.0])
    assert o.update([1.0, 3.0]) == 2.0  # g . x_2 = -1 + 3
    tr = o.run(lambda t, x: np.ones(2), 3)
    assert np.array_equal(tr.points, [[0, 0], [-0.5, -0.5], [-1, -1]])
    assert np.array_equal(tr.gradients, np.ones((3, 2)))
    assert np.array_equal(tr.loss, [0.0, -1.0, -2.0])
    assert np.array_equal(tr.cumulative_loss, [0.0, -1.0, -3.0])
    assert (
        o.trace_ is not tr
        and np.array_equal(o.trace_.points, tr.points)
        and o.n_rounds_ == 3
    )
    same = OGD([0.0, 0.0], eta=0.5).run(np.ones((3, 2)))  # gradients given as an array
    for f in ("loss", "cumulative_loss", "points", "gradients"):
        assert np.array_equal(getattr(same, f), getattr(tr, f))
    assert same.regret is None and same.best_loss is None  # experts' fields


@pytest.mark.parametrize("eta", [0.3, "anytime", "tuned"])
@pytest.mark.parametrize("where", ["ball", "box", "none"])
def test_state_against_reference_rule(eta, where):
    """Every point against x_{t+1} = Proj(x_t - eta_t g_t) written in plain numpy, at
    non-default steps and radii; the linear losses g_t . x_t against numpy's."""
    rng = np.random.default_rng(12)
    T, d, D, G = 40, 3, 1.2, 2.5
    grads = rng.standard_normal((T, d))
    proj = {
        "ball": lambda x: x * min(1.0, 0.6 / np.sqrt(x @ x)) if x @ x > 0 else x,
        "box": lambda x: np.clip(x, -0.3, 0.5),
        "none": lambda x: x,
    }[where]
    projection = {"ball": project_ball(0.6), "box": project_box(-0.3, 0.5)}.get(where)
    o = OGD(
        np.full(d, 0.1),
        eta=eta,
        diameter=D,
        lipschitz=G,
        horizon=T if eta == "tuned" else None,
        projection=projection,
    )
    x = np.full(d, 0.1)
    for t in range(1, T + 1):
        step = {"anytime": D / (G * math.sqrt(t)), "tuned": D / (G * math.sqrt(T))}
        assert np.allclose(o.predict(), x, rtol=1e-12, atol=1e-15)
        assert o.update(grads[t - 1]) == pytest.approx(grads[t - 1] @ x, abs=1e-12)
        x = proj(x - step.get(eta, eta) * grads[t - 1])
    assert np.allclose(o.x_, x, rtol=1e-12, atol=1e-15)


def run_regret(o, losses, grads, T, comparators):
    X = o.run(lambda t, x: grads(t, x), T).points
    learner = sum(losses(t, X[t]) for t in range(T))
    return learner - min(sum(losses(t, c) for t in range(T)) for c in comparators)


@settings(max_examples=40)
@given(
    st.integers(1, 300),
    st.integers(0, 2**32 - 1),
    st.sampled_from(["tuned", "anytime"]),
    st.sampled_from(["quadratic", "absolute"]),
)
def test_ogd_regret_below_zinkevich_bound(T, seed, eta, kind):
    """1-D on K = [-1, 1] (D = 2): quadratic (x - z_t)^2/4 (G = 1) and |x - z_t| (G = 1)."""
    rng = np.random.default_rng(seed)
    z = rng.choice([-1.0, 1.0], size=T) * rng.random(T) ** 0.3
    if kind == "quadratic":

        def loss(t, x):
            return (x[0] - z[t]) ** 2 / 4

        def grad(t, x):
            return np.array([(x[0] - z[t]) / 2])
    else:

        def loss(t, x):
            return abs(x[0] - z[t])

        def grad(t, x):
            return np.array([np.sign(x[0] - z[t])])

    o = OGD(
        [rng.uniform(-1, 1)],
        eta=eta,
        diameter=2.0,
        lipschitz=1.0,
        horizon=T if eta == "tuned" else None,
        projection=project_box(-1.0, 1.0),
    )
    comps = [np.array([c]) for c in np.concatenate([np.linspace(-1, 1, 201), z])]
    assert run_regret(o, loss, grad, T, comps) <= o.regret_bound(T) + 1e-9


def test_bound_values():
    o = OGD([0.0], eta="tuned", diameter=2.0, lipschitz=3.0, horizon=100)
    assert o.regret_bound(100) == pytest.approx(2 * 3 * 10)
    o = OGD([0.0], eta="anytime", diameter=2.0, lipschitz=3.0)
    assert o.regret_bound(100) == pytest.approx(1.5 * 6 * 10 - 3)
    o = OGD([0.0], eta=0.1, diameter=2.0, lipschitz=3.0)
    assert o.regret_bound(100) == pytest.approx(4 / 0.2 + 0.1 * 9 * 100 / 2)


def test_validation_and_unchanged_state():
    for bad in [0, -1, float("nan"), "big", True]:
        with pytest.raises(ValueError, match="eta"):
            OGD([0.0], eta=bad).reset()
    with pytest.raises(ValueError, match="diameter"):
        OGD([0.0], eta="anytime").predict()
    with pytest.raises(ValueError, match="horizon"):
        OGD([0.0], eta="tuned", diameter=1.0, lipschitz=1.0).update([1.0])
    with pytest.raises(ValueError, match="x0"):
        OGD([[0.0]], eta=0.1).run(np.ones((2, 1)))
    with pytest.raises(ValueError, match="x0"):
        OGD(["a"], eta=0.1).reset()
    with pytest.raises(ValueError, match="projection"):
        OGD([0.0], eta=0.1, projection=3).reset()
    o = OGD([0.0, 1.0], eta=0.1)
    o.update([1.0, 1.0])
    before = (o.x_.copy(), o.n_rounds_)
    with pytest.raises(ValueError, match="shape"):
        o.update([1.0])
    with pytest.raises(ValueError, match="1 NaN and 0 inf"):
        o.update([np.nan, 1.0])
    bad = OGD([0.0], eta=0.1, projection=lambda x: np.array([np.nan]))
    with pytest.raises(ValueError, match="projection returned"):
        bad.update([1.0])
    assert bad.n_rounds_ == 0
    assert np.array_equal(o.x_, before[0]) and o.n_rounds_ == before[1]
    with pytest.raises(ValueError, match="n_rounds"):
        o.run(lambda t, x: x, 0)
    with pytest.raises(ValueError, match="n_rounds"):
        o.run(lambda t, x: x)
    with pytest.raises(ValueError, match=r"shape \(n_rounds, 2\)"):
        o.run(np.ones((3, 1)))
    assert np.array_equal(o.x_, before[0]) and o.n_rounds_ == before[1]


def test_large_gradients_finite():
    o = OGD(
        [0.0, 0.0],
        eta="anytime",
        diameter=2.0,
        lipschitz=1e6,
        projection=project_ball(1.0),
    )
    X = o.run(lambda t, x: 1e6 * np.array([1.0, -1.0]) * (-1) ** t, 10_000).points
    assert np.all(np.isfinite(X)) and np.all(np.sqrt((X**2).sum(axis=1)) <= 1 + 1e-12)
    assert math.isfinite(o.regret_bound(10_000))


def test_projected_step():
    x, g = np.array([0.5, 0.0]), np.array([-2.0, 1.0])
    assert np.array_equal(projected_step(x, g, 0.25), [1.0, -0.25])
    assert np.array_equal(
        projected_step(x, g, 0.25, project_box(-0.1, 0.8)), [0.8, -0.1]
    )
    with pytest.raises(ValueError, match="projection returned"):
        projected_step(x, g, 0.25, lambda y: y[:1])


# ----------------------------------------------------- strongly convex losses (8.5)
def reference_strongly_convex(x0, lam, z, proj, offset=0):
    """x_{t+1} = Proj(x_t - g_t / (lam (t + offset))) in plain numpy, on the losses
    (lam/2)||x - z_t||^2 + |x|_1 / 4 (gradient lam (x - z_t) + sign(x)/4);
    offset=1 is an off-by-one in t."""
    x, points = np.array(x0, dtype=float), []
    for t in range(1, len(z) + 1):
        points.append(x.copy())
        g = lam * (x - z[t - 1]) + np.sign(x) / 4
        x = proj(x - g / (lam * (t + offset)))
    return np.array(points), x


@pytest.mark.parametrize("where", ["ball", "box", "none"])
def test_strongly_convex_step_against_reference(where):
    """Every point of eta="strongly_convex" at lambda = 0.37 against the rule written
    in plain numpy; an off-by-one in t (1/(lambda (t + 1))) is caught."""
    rng = np.random.default_rng(85)
    T, d, lam = 60, 3, 0.37
    z = rng.standard_normal((T, d)) * 2
    proj = {
        "ball": lambda x: x * min(1.0, 1.5 / np.sqrt(x @ x)) if x @ x > 0 else x,
        "box": lambda x: np.clip(x, -0.8, 1.1),
        "none": lambda x: x,
    }[where]
    projection = {"ball": project_ball(1.5), "box": project_box(-0.8, 1.1)}.get(where)
    x0 = np.array([0.3, -0.2, 0.1])
    o = OGD(x0, eta="strongly_convex", strong_convexity=lam, projection=projection)
    trace = o.run(lambda t, x: lam * (x - z[t]) + np.sign(x) / 4, T)
    assert [o.eta_at(t) for t in (1, 2, 7)] == [1 / lam, 1 / (2 * lam), 1 / (7 * lam)]
    points, last = reference_strongly_convex(x0, lam, z, proj)
    assert np.allclose(trace.points, points, rtol=1e-12, atol=1e-15)
    assert np.allclose(o.x_, last, rtol=1e-12, atol=1e-15)
    planted, _ = reference_strongly_convex(x0, lam, z, proj, offset=1)
    assert not np.allclose(trace.points, planted, rtol=1e-6, atol=1e-9)


def test_strongly_convex_step_function():
    assert strongly_convex_step(0.25, 2) == 2.0
    assert strongly_convex_step(3, np.int64(5)) == 1 / 15
    bad = [(0.0, 1), (-1.0, 1), (math.nan, 1), (math.inf, 1), (True, 1), ("1", 1)]
    for lam, t in bad:
        with pytest.raises(ValueError, match="strong_convexity must be a finite"):
            strongly_convex_step(lam, t)
    for t in (0, -3, 1.5, 2.0, True, "2"):
        with pytest.raises(ValueError, match="round\\) must be an integer >= 1"):
            strongly_convex_step(1.0, t)


def test_strongly_convex_validation_and_unchanged_state():
    with pytest.raises(ValueError, match="needs strong_convexity"):
        OGD([0.0], eta="strongly_convex").reset()
    for bad in [0, 0.0, -0.5, math.nan, math.inf, -math.inf, "1", True]:
        with pytest.raises(ValueError, match="strong_convexity"):
            OGD([0.0], eta="strongly_convex", strong_convexity=bad).reset()
        with pytest.raises(ValueError, match="strong_convexity"):
            OGD([0.0], eta="strongly_convex", strong_convexity=bad).update([1.0])
    with pytest.raises(ValueError, match="only used with eta='strongly_convex'"):
        OGD([0.0], eta=0.1, strong_convexity=1.0).reset()
    with pytest.raises(ValueError, match="only used with eta='strongly_convex'"):
        OGD([0.0], eta="anytime", diameter=1, lipschitz=1, strong_convexity=1).reset()
    o = OGD([0.0, 1.0], eta="strongly_convex", strong_convexity=2.0)
    o.update([1.0, -1.0])
    assert np.array_equal(o.x_, [-0.5, 1.5])  # step 1/(2 * 1)
    before = (o.x_.copy(), o.n_rounds_)
    o.strong_convexity = -1.0  # a change during a game is refused
    with pytest.raises(ValueError, match="strong_convexity"):
        o.update([1.0, 1.0])
    assert np.array_equal(o.x_, before[0]) and o.n_rounds_ == before[1]
    o.strong_convexity = 2.0
    with pytest.raises(ValueError, match="needs lipschitz"):
        o.regret_bound(10)  # no diameter needed, but G is
    o = OGD([0.0], eta="strongly_convex", strong_convexity=2.0, lipschitz=3.0)
    for bad in (0, -1, 2.5, 10.0, True, "10"):
        with pytest.raises(ValueError, match="n_rounds must be an integer >= 1"):
            o.regret_bound(bad)
    assert o.regret_bound(np.int64(10)) == o.regret_bound(10)
    o.update([1.0])  # a rejected call leaves the game as it was
    before = (o.x_.copy(), o.n_rounds_, o.cumulative_loss_)
    with pytest.raises(ValueError, match="n_rounds"):
        o.regret_bound(0)
    assert np.array_equal(o.x_, before[0]) and (o.n_rounds_, o.cumulative_loss_) == (
        before[1],
        before[2],
    )


def test_strongly_convex_bound_value_and_tight_game():
    """The bound (G^2/(2 lambda))(1 + ln T); on the adaptive game whose gradients all
    have norm G (z_t = x_t - (G/lambda) s_t), the regret is (G^2/(2 lambda)) H_T."""
    lam, G = 0.5, 0.75
    o = OGD([0.0], eta="strongly_convex", strong_convexity=lam, lipschitz=G)
    assert o.regret_bound(1) == pytest.approx(G * G / (2 * lam))
    assert o.regret_bound(1000) == pytest.approx(
        G * G / (2 * lam) * (1 + math.log(1000))
    )
    T = 500
    zs = []

    def adversary(t, x):
        s = 1.0 if x[0] <= 0 else -1.0
        zs.append(x[0] - G / lam * s)
        return np.array([G * s])

    X = o.run(adversary, T).points[:, 0]
    z = np.array(zs)
    u = z.mean()
    regret = lam / 2 * (np.sum((X - z) ** 2) - np.sum((u - z) ** 2))
    H_T = math.fsum(1 / t for t in range(1, T + 1))
    assert regret == pytest.approx(G * G / (2 * lam) * H_T, rel=1e-10)
    assert 0.9 * o.regret_bound(T) < regret <= o.regret_bound(T)
