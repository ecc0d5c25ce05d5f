"""Tests of olbook.oco: sets, regularizers, losses, FTL, FTRL and OMD (book chapter 8).

The equivalences of section 8.2 (entropic OMD on the simplex is Hedge; Euclidean
OMD with the ball projection is OGD; lazy and greedy coincide for the Euclidean
map on R^d), every rule against a plain-numpy reference at non-default steps,
the projections against scipy's SLSQP and brute force, and the regret bounds.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from scipy.optimize import minimize

from olbook import OGD, Hedge
from olbook.oco import (
    FTL,
    FTRL,
    OMD,
    Ball,
    Box,
    Entropic,
    Euclidean,
    HingeLoss,
    LinearLoss,
    LogisticLoss,
    PNorm,
    Simplex,
    SquaredLoss,
    gradient_feedback,
)
from olbook.ogd import project_ball

RNG = np.random.default_rng(2008)


# ------------------------------------------------------------------ reference rules
def ref_simplex(y):
    """Projection onto the simplex by bisection on the threshold tau (plain numpy)."""
    lo, hi = y.min() - 1.0, y.max()
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.maximum(y - mid, 0).sum() > 1.0:
            lo = mid
        else:
            hi = mid
    return np.maximum(y - 0.5 * (lo + hi), 0)


def ref_proj(K, y):
    if K is None:
        return y
    if isinstance(K, Ball):
        n = np.sqrt(np.sum(y**2))
        return y if n <= K.radius else y * K.radius / n
    if isinstance(K, Box):
        return np.minimum(np.maximum(y, K.low), K.high)
    return ref_simplex(y)


def pgrad(x, p):
    n = np.sum(np.abs(x) ** p) ** (1 / p)
    return (
        np.zeros_like(x) if n == 0 else np.sign(x) * np.abs(x) ** (p - 1) * n ** (2 - p)
    )


def ref_omd(reg, eta, K, G):
    d = G.shape[1]
    if isinstance(reg, Entropic):
        x = np.full(d, 1.0 / d)
    else:
        x = ref_proj(K, np.zeros(d))
    out = []
    for g in G:
        out.append(x.copy())
        if isinstance(reg, Euclidean):
            x = ref_proj(K, x - eta * g)
        elif isinstance(reg, Entropic):
            w = x * np.exp(-eta * g)
            x = w / w.sum()
        else:
            q = reg.p / (reg.p - 1)
            x = pgrad(pgrad(x, reg.p) - eta * g, q)
            n = np.sum(np.abs(x) ** reg.p) ** (1 / reg.p)
            if K is not None and n > K.radius:
                x = x * K.radius / n
    return np.array(out)


def ref_ftrl(reg, eta, K, G):
    d = G.shape[1]
    theta = np.zeros(d)
    out = []
    for g in list(G) + [None]:
        if isinstance(reg, Euclidean):
            x = ref_proj(K, -eta * theta)
        elif isinstance(reg, Entropic):
            w = np.exp(-eta * (theta - theta.min()))
            x = w / w.sum()
        elif reg is None:  # FTL
            if isinstance(K, Ball):
                n = np.sqrt(np.sum(theta**2))
                x = np.zeros(d) if n == 0 else -K.radius * theta / n
            elif isinstance(K, Box):
                x = np.where(theta > 0, K.low, np.where(theta < 0, K.high, 0.0))
                x = np.where(theta == 0, 0.5 * (K.low + K.high), x)
            else:
                m = theta == theta.min()
                x = m / m.sum()
        else:
            q = reg.p / (reg.p - 1)
            x = pgrad(-eta * theta, q)
            n = np.sum(np.abs(x) ** reg.p) ** (1 / reg.p)
            if K is not None and n > K.radius:
                x = x * K.radius / n
        if g is None:
            break
        out.append(x.copy())
        theta = theta + g
    return np.array(out)


PAIRS = [
    (Euclidean(), None),
    (Euclidean(), Ball(0.7)),
    (Euclidean(), Box(-0.2, 0.4)),
    (Euclidean(), Simplex()),
    (Entropic(), Simplex()),
    (PNorm(1.5), None),
    (PNorm(1.25), Ball(0.8, p=1.25)),
]
IDS = [f"{r!r}-{k!r}" for r, k in PAIRS]


@pytest.mark.parametrize(("reg", "K"), PAIRS, ids=IDS)
def test_omd_against_reference_rule(reg, K):
    G = RNG.standard_normal((60, 5))
    got = OMD(reg, 0.37, K, dim=5).run(G).points
    assert np.max(np.abs(got - ref_omd(reg, 0.37, K, G))) < 1e-12


@pytest.mark.parametrize(("reg", "K"), PAIRS, ids=IDS)
def test_ftrl_against_reference_rule(reg, K):
    G = RNG.standard_normal((60, 5))
    learner = FTRL(reg, 0.29, K, dim=5)
    got = learner.run(G).points
    assert np.max(np.abs(got - ref_ftrl(reg, 0.29, K, G))) < 1e-12
    assert np.array_equal(learner.gradient_sum_, np.cumsum(G, axis=0)[-1])


@pytest.mark.parametrize("K", [Ball(1.5), Box(-1.0, 2.0), Simplex()], ids=repr)
def test_ftl_against_reference_rule(K):
    G = np.round(RNG.standard_normal((40, 4)) * 4) / 4  # dyadic: ties happen
    G[0] = 0.0
    got = FTL(K, dim=4).run(G).points
    assert np.max(np.abs(got - ref_ftrl(None, 1.0, K, G))) < 1e-12


# ------------------------------------------------------------------ the equivalences
@pytest.mark.parametrize("eta", [0.3, 0.125, 2.0])
def test_entropic_omd_on_the_simplex_is_hedge(eta):
    L = RNG.random((500, 7))
    if eta == 0.125:  # dyadic losses and step: every exponent is exact
        L = (L < 0.5).astype(float)
    omd = OMD(Entropic(), eta, Simplex(), dim=7)
    hedge = Hedge(7, eta=eta)
    worst = 0.0
    for row in L:
        worst = max(worst, float(np.max(np.abs(omd.predict() - hedge.predict()))))
        lo, lh = omd.update(row), hedge.update(row)
        assert abs(lo - lh) < 1e-12
    assert worst < 1e-12
    trace = OMD(Entropic(), eta, Simplex(), dim=7).run(L)
    assert np.max(np.abs(trace.cumulative_loss - hedge.trace_.cumulative_loss)) < 1e-9


@pytest.mark.parametrize("radius", [0.5, 3.0])
def test_euclidean_omd_with_the_ball_is_ogd_bit_for_bit(radius):
    G = RNG.standard_normal((400, 6))
    omd = OMD(Euclidean(), 0.21, Ball(radius), dim=6).run(G)
    ogd = OGD(np.zeros(6), eta=0.21, projection=project_ball(radius)).run(G)
    assert np.array_equal(omd.points, ogd.points)
    assert np.array_equal(omd.cumulative_loss, ogd.cumulative_loss)
    free = OMD(Euclidean(), 0.21, dim=6).run(G)
    assert np.array_equal(free.points, OGD(np.zeros(6), eta=0.21).run(G).points)


def test_lazy_and_greedy_coincide_for_the_euclidean_map_on_rd():
    G = RNG.standard_normal((1000, 5))
    lazy = FTRL(Euclidean(), 0.05, dim=5).run(G).points
    greedy = OMD(Euclidean(), 0.05, dim=5).run(G).points
    assert np.max(np.abs(lazy - greedy)) < 1e-12
    Gd = np.round(G * 8) / 8  # dyadic gradients and step: the same bits
    assert np.array_equal(
        FTRL(Euclidean(), 0.25, dim=5).run(Gd).points,
        OMD(Euclidean(), 0.25, dim=5).run(Gd).points,
    )
    # and the entropic map on the simplex, the p-norm map on R^d
    for reg, K in ((Entropic(), Simplex()), (PNorm(1.5), None)):
        a = FTRL(reg, 0.05, K, dim=5).run(G).points
        b = OMD(reg, 0.05, K, dim=5).run(G).points
        assert np.max(np.abs(a - b)) < 1e-10


def test_lazy_and_greedy_differ_once_the_ball_projection_is_active():
    G = np.tile([[1.0, 0.0], [0.0, 1.0]], (10, 1))
    lazy = FTRL(Euclidean(), 0.5, Ball(1.0), dim=2).run(G).points
    greedy = OMD(Euclidean(), 0.5, Ball(1.0), dim=2).run(G).points
    active = np.flatnonzero(np.sum(-0.5 * np.cumsum(G, axis=0) ** 2, axis=1) < -1)
    first = active[0] + 1  # the first point computed from a projection
    assert np.array_equal(lazy[:first], greedy[:first])
    assert np.max(np.abs(lazy - greedy)) > 0.01


# ------------------------------------------------------------------ projections
def slsqp(K, y):
    d = y.size
    cons, bounds = [], None
    if isinstance(K, Simplex):
        cons = [{"type": "eq", "fun": lambda x: x.sum() - 1.0}]
        bounds = [(0, None)] * d
    elif isinstance(K, Ball):
        cons = [{"type": "ineq", "fun": lambda x: K.radius**2 - x @ x}]
    else:
        bounds = [(K.low, K.high)] * d
    res = minimize(
        lambda x: 0.5 * np.sum((x - y) ** 2),
        np.full(d, 1.0 / d) if isinstance(K, Simplex) else np.zeros(d),
        jac=lambda x: x - y,
        bounds=bounds,
        constraints=cons,
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 500},
    )
    return res.x


@pytest.mark.parametrize("K", [Simplex(), Ball(1.3), Box(-0.5, 0.25)], ids=repr)
def test_projection_against_slsqp(K):
    for _ in range(40):
        y = RNG.standard_normal(6) * RNG.choice([0.1, 1.0, 5.0])
        x = K.project(y)
        assert np.max(np.abs(x - slsqp(K, y))) < 1e-6
        assert K.contains(x)
        # the projection is closer than random points of K (brute force)
        for _ in range(20):
            z = K.project(RNG.standard_normal(6) * 3)
            assert np.sum((x - y) ** 2) <= np.sum((z - y) ** 2) + 1e-12


def test_simplex_projection_kkt_exact():
    """KKT: x = max(y - tau, 0) with sum x = 1, tau from the support."""
    for _ in range(200):
        y = RNG.standard_normal(RNG.integers(1, 12)) * 3
        x = Simplex().project(y)
        assert abs(math.fsum(x) - 1.0) < 1e-12 and (x >= 0).all()
        sup = x > 0
        tau = np.mean(y[sup] - x[sup])
        assert np.allclose(y[sup] - x[sup], tau, atol=1e-12)
        assert (y[~sup] <= tau + 1e-12).all()
        assert np.allclose(x, ref_simplex(y), atol=1e-12)


@pytest.mark.parametrize("d", [1, 2, 7, 40])
def test_omd_simplex_projection_kept_in_order_has_the_bits_of_a_full_sort(d):
    """OMD's loop sorts y by insertion from the last round's order: the points
    equal, bit for bit, a loop that projects each round with a full sort
    (ties and repeated values included)."""
    from olbook.oco.sets import project_into

    rng = np.random.default_rng(d)
    F = rng.standard_normal((300, d))
    F[::7] = np.round(F[::7])  # repeated values: ties in the sort
    F[50:60] *= 40.0  # large steps: the order changes much
    omd = OMD(Euclidean(), 0.37, Simplex(), dim=d)
    X = omd.run(F).points
    x = Simplex().project(np.zeros(d))
    for t in range(F.shape[0]):
        assert np.array_equal(X[t], x), t
        y = x - 0.37 * F[t]
        out = np.empty(d)
        project_into(y, 3, 0.0, 0.0, 2.0, out)
        x = out


@pytest.mark.parametrize(
    "feasible_set", [None, Ball(1.0), Ball(2.0, p=1.5), Box(-0.5, 1.0), Simplex()]
)
def test_project_ordered_into_has_the_bits_of_project_into(feasible_set):
    """The projection shared by FTRL's and OMD's loops (the simplex sorted from the
    last call's order) gives project_into's bits on every set, call after call."""
    from olbook.oco.sets import project_into, project_ordered_into, set_code

    code = set_code(feasible_set)
    rng = np.random.default_rng(7)
    d = 9
    order, u = np.arange(d), np.empty(d)
    for t in range(200):
        y = rng.standard_normal(d) * (40.0 if t % 17 == 0 else 1.0)
        y[::4] = np.round(y[::4])  # ties in the sort
        a, b = np.empty(d), np.empty(d)
        project_into(y, *code, a)
        project_ordered_into(y, *code, order, u, b)
        assert np.array_equal(a, b), t
        assert sorted(order) == list(range(d))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 8, 13, 100, 1001])
def test_sort_into_has_the_bits_of_np_sort(n):
    """The heapsort of the simplex projection returns np.sort's array, bit for bit
    where the order is fixed (repeated values, infinities, NaN last)."""
    from olbook.oco.sets import sort_into

    rng = np.random.default_rng(n)
    for trial in range(20):
        y = rng.standard_normal(n)
        y[::3] = np.round(y[::3])  # ties
        if n and trial % 4 == 0:
            y[rng.integers(n)] = np.inf
            y[rng.integers(n)] = np.nan
            y[rng.integers(n)] = -np.inf
        u = np.empty(n)
        sort_into(y, u)
        assert np.array_equal(u, np.sort(y), equal_nan=True)


def test_sets_diameter_and_errors():
    assert Ball(2.0).diameter(5) == 4.0
    assert Box(-1.0, 1.0).diameter(4) == 4.0
    assert Simplex().diameter(3) == math.sqrt(2)
    assert Ball(1.0, p=1.5).diameter(16) == 2.0  # a vertex: the 2-norm <= the p-norm
    assert math.isclose(Ball(1.0, p=4.0).diameter(16), 4.0)  # 2 * 16^(1/4)
    for bad in (lambda: Ball(0.0), lambda: Ball(1.0, p=1.0), lambda: Box(1.0, 1.0)):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(ValueError, match="no closed"):
        Ball(1.0, p=1.5).project([1.0, 2.0])
    with pytest.raises(ValueError):
        Simplex().project([np.nan, 1.0])


# ------------------------------------------------------------------ regularizers
@pytest.mark.parametrize(
    "reg", [Euclidean(), Entropic(), PNorm(1.5), PNorm(1.1), PNorm(2.0)], ids=repr
)
def test_regularizer_maps_and_strong_convexity(reg):
    for _ in range(200):
        if isinstance(reg, Entropic):
            x, y = (Simplex().project(RNG.standard_normal(5)) for _ in range(2))
            x, y = (0.9 * v + 0.02 for v in (x, y))  # inside the simplex
        else:
            x, y = RNG.standard_normal(5), RNG.standard_normal(5)
        # the inverse map undoes the map
        back = reg.grad_conjugate(reg.grad(x))
        assert np.allclose(back, x, atol=1e-12)
        # B(x, y) >= lambda/2 ||x - y||^2, and B(x, x) = 0
        b = reg.bregman(x, y)
        assert b >= reg.strong_convexity / 2 * reg.norm(x - y) ** 2 - 1e-12
        assert abs(reg.bregman(x, x)) < 1e-12
        # the gradient: a finite difference of the value
        e = np.zeros(5)
        e[2] = 1e-6
        fd = (reg.value(x + e) - reg.value(x - e)) / 2e-6
        assert abs(fd - reg.grad(x)[2]) < 1e-5
    # Hoelder: g . x <= ||x|| ||g||_*
    g = RNG.standard_normal(5)
    assert g @ x <= reg.norm(x) * reg.dual_norm(g) + 1e-12


def test_pnorm_modulus_is_p_minus_1_and_not_more():
    """At x = (1, 1), y = x + t (1, -1): B(y, x) / (||y - x||_p^2 / 2) -> p - 1 as t -> 0.

    So the modulus p - 1 of the book cannot be raised (a claimed modulus 1 fails)."""
    for p in (1.2, 1.5, 1.9):
        reg = PNorm(p)
        t = 1e-3
        x, y = np.array([1.0, 1.0]), np.array([1.0 + t, 1.0 - t])
        ratio = reg.bregman(y, x) / (0.5 * reg.norm(y - x) ** 2)
        assert p - 1 <= ratio < (p - 1) * 1.001


def test_regularizer_errors():
    for bad in (1.0, 2.5, 0.0, "x"):
        with pytest.raises(ValueError, match="p"):
            PNorm(bad)
    with pytest.raises(ValueError):
        Entropic().value([-0.1, 1.1])


# ------------------------------------------------------------------ losses
@pytest.mark.parametrize(
    "loss", [LinearLoss(), HingeLoss(), LogisticLoss(), SquaredLoss()], ids=repr
)
def test_loss_gradients(loss):
    for _ in range(50):
        w, x = RNG.standard_normal(4), RNG.standard_normal(4)
        y = RNG.choice([-1.0, 1.0])
        g = loss.gradient(w, x, y)
        for j in range(4):
            e = np.zeros(4)
            e[j] = 1e-6
            fd = (loss.value(w + e, x, y) - loss.value(w - e, x, y)) / 2e-6
            if not isinstance(loss, HingeLoss) or abs(y * (w @ x) - 1) > 1e-3:
                assert abs(fd - g[j]) < 1e-5
        # convexity: f(u) >= f(w) + g . (u - w)
        u = RNG.standard_normal(4)
        assert loss.value(u, x, y) >= loss.value(w, x, y) + g @ (u - w) - 1e-12
    assert LogisticLoss().value(np.array([1e3]), np.array([1.0]), -1.0) == 1e3


def test_gradient_feedback_runs_a_game():
    X = RNG.standard_normal((30, 3))
    y = np.sign(X[:, 0])
    omd = OMD(Euclidean(), 0.1, Ball(2.0), dim=3)
    tr = omd.run(gradient_feedback(LogisticLoss(), X, y), 30)
    w = np.zeros(3)
    for t in range(30):
        assert np.allclose(tr.points[t], w, atol=1e-12)
        w = Ball(2.0).project(w - 0.1 * LogisticLoss().gradient(w, X[t], y[t]))


# ------------------------------------------------------------------ regret bounds
def test_ftrl_bound_is_met_exactly_by_a_constant_gradient():
    """Euclidean FTRL on R: g_t = 1 for T rounds, u = -eta T: regret = bound."""
    for eta, T in ((0.1, 50), (0.5, 7)):
        f = FTRL(Euclidean(), eta, dim=1)
        G = np.ones((T, 1))
        tr = f.run(G)
        u = np.array([-eta * T])
        regret = tr.linearized_regret(u)[-1]
        assert math.isclose(regret, f.regret_bound(u, G), rel_tol=1e-12)
        assert math.isclose(regret, eta * T * (T + 1) / 2, rel_tol=1e-12)


@pytest.mark.parametrize(("reg", "K"), PAIRS, ids=IDS)
@pytest.mark.parametrize("cls", [FTRL, OMD])
def test_regret_below_the_bound_on_random_games(cls, reg, K):
    for seed in range(3):
        rng = np.random.default_rng(seed)
        G = rng.standard_normal((100, 5)) + rng.standard_normal(5)
        learner = cls(reg, 0.2, K, dim=5)
        tr = learner.run(G)
        for _ in range(20):
            u = rng.standard_normal(5) * 2
            u = (
                Simplex().project(u)
                if isinstance(K, Simplex)
                else u
                if K is None
                else Ball(K.radius).project(u)
                if isinstance(K, Ball) and K.p == 2
                else np.clip(u, K.low, K.high)
                if isinstance(K, Box)
                else u * min(1.0, K.radius / PNorm(K.p).norm(u))
            )
            assert tr.linearized_regret(u)[-1] <= learner.regret_bound(u, G) + 1e-9


def test_ftl_two_point_game_has_regret_t_minus_half():
    for T in (1, 2, 3, 10, 101):
        G = np.array([[0.5]] + [[(-1.0) ** t] for t in range(1, T)])
        tr = FTL(Box(-1.0, 1.0), dim=1).run(G)
        best = min(tr.linearized_regret([u])[-1] for u in (-1.0, 1.0))
        assert tr.cumulative_loss[-1] == T - 1
        assert max(tr.linearized_regret([u])[-1] for u in (-1.0, 1.0)) == T - 0.5
        assert best <= T - 0.5
    with pytest.raises(ValueError, match="no regret bound"):
        FTL(Box(-1.0, 1.0), dim=1).regret_bound([0.0], [[1.0]])


# ------------------------------------------------------------------ protocol
def test_unsupported_pairs_and_bad_input():
    with pytest.raises(ValueError, match="no closed"):
        OMD(Entropic(), 0.1, Ball(1.0), dim=3).reset()
    with pytest.raises(ValueError, match="no closed"):
        FTRL(PNorm(1.5), 0.1, Ball(1.0), dim=3).reset()
    with pytest.raises(ValueError, match="bounded"):
        FTL(None, dim=3).reset()
    with pytest.raises(ValueError, match="mirror_map"):
        OMD("euclidean", 0.1, dim=3).reset()
    with pytest.raises(ValueError, match="feasible_set"):
        FTRL(Euclidean(), 0.1, "ball", dim=3).reset()
    omd = OMD(Entropic(), 0.1, Simplex(), dim=3)
    omd.run(RNG.random((5, 3)))
    before = (omd.x_.copy(), omd._log_weights.copy(), omd.n_rounds_)
    for bad in ([1.0, np.nan, 0.0], [1.0, 2.0], [[1.0, 2.0, 3.0]]):
        with pytest.raises(ValueError):
            omd.update(bad)
    assert np.array_equal(omd.x_, before[0]) and omd.n_rounds_ == before[2]
    assert np.array_equal(omd._log_weights, before[1])
    omd.eta = 0.2
    with pytest.raises(ValueError, match="changed during the game"):
        omd.update([0.0, 0.0, 1.0])
    omd.reset()
    assert omd.n_rounds_ == 0 and np.array_equal(omd.x_, np.full(3, 1 / 3))


@pytest.mark.parametrize(("reg", "K"), PAIRS, ids=IDS)
def test_extreme_gradients_stay_finite_or_refuse(reg, K):
    for scale in (1e150, 1e-150):
        for cls in (FTRL, OMD):
            learner = cls(reg, 0.5, K, dim=3)
            try:
                learner.update(np.array([scale, -scale, 0.5 * scale]))
            except ValueError as exc:
                assert "too large" in str(exc) and learner.n_rounds_ == 0
                continue
            assert np.isfinite(learner.predict()).all()


def test_blocks_equal_one_run_and_pickle():
    G = RNG.standard_normal((50, 4))
    for make in (
        lambda: OMD(PNorm(1.5), 0.3, dim=4),
        lambda: FTRL(Entropic(), 0.3, Simplex(), dim=4),
        lambda: FTL(Ball(1.0), dim=4),
    ):
        a, b = make(), make()
        a.run(G)
        b.run(G[:20])
        c = pickle.loads(pickle.dumps(b))
        b.run(G[20:], reset=False)
        c.run(G[20:], reset=False)
        for f in ("points", "loss", "cumulative_loss"):
            assert np.array_equal(getattr(a.trace_, f), getattr(b.trace_, f))
            assert np.array_equal(getattr(b.trace_, f), getattr(c.trace_, f))
