"""Tests of olbook.ogd: projected online gradient descent (book chapter 5)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olbook.ogd import OGD, project_ball, project_box, projected_step


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
