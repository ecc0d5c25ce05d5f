"""Chapter 5's bounds (experts and OGD) as properties: hypothesis plays adaptive adversaries.

Bounds, as the book states them:

* Halving (``regret-thm-halving``): if some expert makes no mistake, at most
  ``floor(log2 m)`` mistakes on every sequence (a tie counts as a mistake).
* Weighted Majority (``regret-thm-wm``): ``M <= (L* ln(1/beta) + ln m)/ln(2/(1+beta))``.
* Hedge, losses in [0, 1] (``regret-thm-hedge``): with a constant rate eta,
  ``sum_t p_t.l_t - L*_T <= ln m/eta + eta T/8``; anytime rate ``eta_t = sqrt(8 ln m/t)``
  (``regret-thm-anytime``): ``R(T) <= ln m/eta_T + (1/8) sum_{t<=T} eta_t
  <= 3 sqrt(T ln m/8) - sqrt(ln m/8)`` for every T; doubling trick
  (``regret-thm-doubling``): ``R(T) <= sum_{k: 2^k <= T} sqrt(2^k ln m/2)``;
  small-loss (``regret-thm-small-loss``): ``sum_t p_t.l_t <= (eta L* + ln m)/(1 - e^-eta)``,
  and its corollary (``regret-cor-small-loss``): with ``L* <= Lt`` and
  ``eta = ln(1 + sqrt(2 ln m/Lt))``, regret ``<= sqrt(2 Lt ln m) + ln m`` (m >= 2).
* OGD (``regret-thm-ogd``): K closed convex with diameter D, subgradients of norm <= G,
  a constant step eta: ``R(T) <= D^2/(2 eta) + eta G^2 T/2`` against every u in K; with
  ``eta_t = D/(G sqrt t)`` (``regret-thm-ogd-anytime``):
  ``R(T) <= D^2/(2 eta_T) + (G^2/2) sum_t eta_t <= (3/2) D G sqrt T - D G/2``.

The adversaries are those of the book's checks, with their parameters drawn by
hypothesis (where to switch, how long, which rule at each round) and mixed with
arbitrary rounds; ``target`` steers towards regret/bound close to 1. Each test's
docstring names the mutation of its bound that the search catches (checked by
``test_properties_mutations.py``).

Tolerances: the learners' losses are sums of at most a few hundred terms in [0, 1]
(relative rounding below 1e-13 of the sum), so a bound is compared with an absolute
slack of 1e-9 times the number of rounds (1e-9 per round: far above the rounding, far
below every mutation, which moves the bound by at least 0.1 per 100 rounds).

Examples per property: the profile's (100 in "ci", 1000 in "thorough", tests/conftest.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, target
from hypothesis import strategies as st

from olbook.experts import Halving, Hedge, WeightedMajority
from olbook.ogd import OGD, project_ball, project_box

TOL = 1e-9  # per round, see the module docstring


# ------------------------------------------------------------------ the bounds, as the book states them


def halving_bound(m: int) -> float:
    return math.floor(math.log2(m))


def wm_bound(L_star: float, m: int, beta: float) -> float:
    return (L_star * math.log(1 / beta) + math.log(m)) / math.log(2 / (1 + beta))


def hedge_fixed_bound(m: int, eta: float, T: int) -> float:
    return math.log(m) / eta + eta * T / 8


def hedge_anytime_bound(m: int, T: int) -> float:
    """ln m/eta_T + (1/8) sum_{t <= T} eta_t, the first (sharpest) form of the theorem."""
    eta = [math.sqrt(8 * math.log(m) / t) for t in range(1, T + 1)]
    return math.log(m) / eta[-1] + math.fsum(eta) / 8


def hedge_doubling_bound(m: int, T: int) -> float:
    return math.fsum(
        math.sqrt(2**k * math.log(m) / 2) for k in range(T.bit_length()) if 2**k <= T
    )


def hedge_small_loss_bound(L_star: float, m: int, eta: float) -> float:
    return (eta * L_star + math.log(m)) / (1 - math.exp(-eta))


def hedge_corollary_bound(L_tilde: float, m: int) -> float:
    return math.sqrt(2 * L_tilde * math.log(m)) + math.log(m)


def ogd_fixed_bound(D: float, G: float, eta: float, T: int) -> float:
    return D * D / (2 * eta) + eta * G * G * T / 2


def ogd_anytime_bound(D: float, G: float, T: int) -> float:
    """D^2/(2 eta_T) + (G^2/2) sum_t eta_t with eta_t = D/(G sqrt t), the first form."""
    etas = [D / (G * math.sqrt(t)) for t in range(1, T + 1)]
    return D * D / (2 * etas[-1]) + G * G / 2 * math.fsum(etas)


def warm_up():
    """Compile the learners' numba loops, so that no example pays for it."""
    Halving(2).update([1.0, 0.0])
    WeightedMajority(2).update([1.0, 0.0])
    for eta in (0.5, "anytime", "doubling"):
        Hedge(2, eta=eta).update([1.0, 0.0])


@pytest.fixture(autouse=True, scope="module")
def _compiled():
    warm_up()


# ------------------------------------------------------------------ Halving and Weighted Majority


@given(m=st.integers(1, 70), data=st.data())
def test_halving_at_most_floor_log2_m(m, data):
    """Halving makes at most floor(log2 m) mistakes against an adaptive adversary that keeps
    one expert perfect and, round by round, makes wrong the larger half of the consistent
    experts (a forced mistake), the smaller half, or an arbitrary subset.

    Catches: floor(ln m) in place of floor(log2 m) (the larger-half adversary forces
    floor(log2 m), e.g. 1 > floor(ln 2) = 0 at m = 2), and floor(log2 m) - 1.
    """
    perfect = data.draw(st.integers(0, m - 1), label="perfect expert")
    h = Halving(m)
    for _ in range(data.draw(st.integers(1, 3 * m.bit_length() + 2), label="rounds")):
        alive = [i for i in h.consistent_ if i != perfect]
        rule = data.draw(st.sampled_from(["larger half", "smaller half", "subset"]))
        if rule == "subset":
            wrong = [i for i in alive if data.draw(st.booleans())]
        else:
            size = len(h.consistent_)
            k = (size + 1) // 2 if rule == "larger half" else size // 2
            wrong = alive[:k]
        losses = np.zeros(m)
        losses[wrong] = 1.0
        h.update(losses)
    target(float(h.mistakes_), label="mistakes")
    assert h.mistakes_ <= halving_bound(m)


@st.composite
def wm_games(draw):
    """(m, beta, rules): rules[t] is "follow" (the side WM follows is wrong: a forced mistake),
    or a fixed 0/1 loss vector."""
    m = draw(st.integers(1, 8))
    # dyadic: exact weights
    beta = draw(st.sampled_from([0.5, 0.25, 0.75, 0.125, 0.875]))
    T = draw(st.integers(1, 80))
    row = st.lists(st.integers(0, 1), min_size=m, max_size=m)
    rules = draw(st.lists(st.one_of(st.just("follow"), row), min_size=T, max_size=T))
    return m, beta, rules


@given(game=wm_games(), data=st.data())
def test_weighted_majority_mistake_bound(game, data):
    """M <= (L* ln(1/beta) + ln m)/ln(2/(1+beta)) against an adversary that, on its "follow"
    rounds, splits the experts into two advice groups and declares wrong the heavier one (so
    WM errs), and otherwise plays arbitrary 0/1 rows.

    Rounding: with a dyadic beta every weight is a power of beta, exact; a comparison that
    rounding decides differently from exact arithmetic is a near-tie, where the proof's step
    loses a relative 1e-16 of the weight: the count stays below the bound plus 1e-9.

    Catches: Hedge's denominator 1 - beta in place of ln(2/(1+beta)) (the factor 2 that only a
    randomized learner avoids: with two experts that always disagree WM errs every round
    while L* is about T/2).
    """
    m, beta, rules = game
    wm = WeightedMajority(m, beta)
    for rule in rules:
        if rule == "follow":
            side = np.array(
                data.draw(st.lists(st.booleans(), min_size=m, max_size=m)), dtype=bool
            )
            w = wm.weights_
            heavier = side if w[side].sum() >= w[~side].sum() else ~side
            losses = heavier.astype(float)
        else:
            losses = np.array(rule, dtype=float)
        wm.update(losses)
    L_star = float(wm.expert_loss_.min())
    bound = wm_bound(L_star, m, beta)
    target(wm.mistakes_ / max(bound, 1.0), label="mistakes / bound")
    assert wm.mistakes_ <= bound + 1e-9


# ------------------------------------------------------------------ Hedge


@st.composite
def hedge_adversaries(draw, schedule):
    """An adaptive adversary in the book's two phases, per epoch of the schedule (the whole
    run for a fixed or anytime rate): give loss 1 to the expert Hedge prefers (ties: the
    first), then for the last ceil(c/eta) rounds loss 1 to every expert but 0; some rounds are
    replaced by arbitrary loss vectors in [0, 1] (a grid of eighths, and 0/1)."""
    m = draw(st.integers(2, 6))
    T = draw(st.integers(1, 300))
    c = draw(st.sampled_from([2.0, 3.0, 4.0, 6.0, 8.0]))
    n_free = draw(st.integers(0, 5))
    free = {
        draw(st.integers(0, T - 1)): np.array(
            draw(st.lists(st.integers(0, 8), min_size=m, max_size=m))
        )
        / 8
        for _ in range(n_free)
    }
    if schedule == "fixed":
        eta = draw(st.one_of(st.sampled_from(["tuned"]), st.floats(0.01, 4.0)))
    else:
        eta = schedule
    return m, T, c, free, eta


def play_hedge(m, T, c, free, eta):
    """Hedge against the adversary; returns (Hedge, the eta of a fixed rate or None)."""
    h = Hedge(m, eta=eta, horizon=T if eta == "tuned" else None)
    start, n = 0, (1 if eta == "doubling" else T)
    for t in range(T):
        if t == start + n:  # a new epoch of the doubling trick
            start, n = start + n, 2 * n
        if t in free:
            h.update(free[t])
            continue
        switch = math.ceil(c / h.eta_at(start + n))
        losses = np.zeros(m)
        if t < start + n - switch:
            losses[int(np.argmax(h.predict()))] = 1.0
        else:
            losses[1:] = 1.0
        h.update(losses)
    return h


@given(game=hedge_adversaries("fixed"))
def test_hedge_fixed_rate_regret(game):
    """sum_t p_t.l_t - L*_T <= ln m/eta + eta T/8 for a constant eta (the tuned one or any).

    Catches: eta T/16 in place of eta T/8 (the greedy phase costs about eta T/8), and
    ln m/(2 eta) (the switch costs about ln m/eta).
    """
    m, T, c, free, eta = game
    h = play_hedge(m, T, c, free, eta)
    rate = h.eta_at(1)
    bound = hedge_fixed_bound(m, rate, T)
    assert math.isclose(
        h.regret_bound(T), math.log(m) / rate + rate * T / 8, rel_tol=1e-12
    )
    regret = h.cumulative_loss_ - h.expert_loss_.min()
    target(regret / max(bound, 1e-9), label="regret / bound")
    assert regret <= bound + TOL * T


@given(game=hedge_adversaries("anytime"))
def test_hedge_anytime_regret_at_every_prefix(game):
    """R(t) <= ln m/eta_t + (1/8) sum_{s<=t} eta_s for every t (eta_t = sqrt(8 ln m/t)), and
    that is at most 3 sqrt(t ln m/8) - sqrt(ln m/8) (olbook's regret_bound(t) is the weaker
    3 sqrt(t ln m/8)).

    Catches: the bound 10% smaller (the adversary comes within a few percent of it).
    """
    m, T, c, free, eta = game
    h = play_hedge(m, T, c, free, eta)
    regret = h.trace_.regret
    bounds = np.array([hedge_anytime_bound(m, t) for t in range(1, T + 1)])
    for t in range(1, T + 1):  # the second form, and olbook's (weaker) regret_bound
        assert (
            bounds[t - 1]
            <= 3 * math.sqrt(t * math.log(m) / 8)
            - math.sqrt(math.log(m) / 8)
            + 1e-12 * t
        )
        assert bounds[t - 1] <= h.regret_bound(t) + 1e-12 * t
    target(float(np.max(regret / np.maximum(bounds, 1e-9))), label="regret / bound")
    assert np.all(regret <= bounds + TOL * np.arange(1, T + 1))


@given(game=hedge_adversaries("doubling"))
def test_hedge_doubling_trick_regret_at_every_prefix(game):
    """R(t) <= sum_{k: 2^k <= t} sqrt(2^k ln m/2) for every t, restarting on epochs 1, 2, 4, ...;
    and that is below (2 + sqrt 2) sqrt((t/2) ln m).

    Catches: the bound 10% smaller (against the per-epoch adversary the regret at the end of
    an epoch comes within a few percent of it).
    """
    m, T, c, free, eta = game
    h = play_hedge(m, T, c, free, eta)
    regret = h.trace_.regret
    bounds = np.array([hedge_doubling_bound(m, t) for t in range(1, T + 1)])
    for t in range(1, T + 1):
        assert math.isclose(h.regret_bound(t), bounds[t - 1], rel_tol=1e-12)
        assert bounds[t - 1] < (2 + math.sqrt(2)) * math.sqrt(t / 2 * math.log(m))
    target(float(np.max(regret / np.maximum(bounds, 1e-9))), label="regret / bound")
    assert np.all(regret <= bounds + TOL * np.arange(1, T + 1))


@st.composite
def small_loss_games(draw):
    """(L, eta): experts 1..m-1 wrong on most rounds, expert 0 wrong on a few (on which every
    expert is wrong: the book's near-tight sequence), some entries arbitrary in {0, 1/2, 1}."""
    m = draw(st.integers(2, 8))
    T = draw(st.integers(1, 200))
    L = np.ones((T, m))
    L[:, 0] = 0.0
    for t in draw(st.lists(st.integers(0, T - 1), max_size=10)):
        L[t, 0] = 1.0
    for t, i, v in draw(
        st.lists(
            st.tuples(
                st.integers(0, T - 1),
                st.integers(0, m - 1),
                st.sampled_from([0.0, 0.5, 1.0]),
            ),
            max_size=10,
        )
    ):
        L[t, i] = v
    eta = draw(st.sampled_from([0.02, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0]))
    return L, eta


@given(game=small_loss_games())
def test_hedge_small_loss_bound(game):
    """sum_t p_t.l_t <= (eta L* + ln m)/(1 - e^-eta) for a constant eta.

    Catches: eta in place of 1 - e^-eta in the denominator (on this sequence Hedge's loss
    exceeds L* + ln m/eta, as the book's check shows).
    """
    L, eta = game
    m = L.shape[1]
    h = Hedge(m, eta=eta)
    h.run(L)
    L_star = float(h.expert_loss_.min())
    bound = hedge_small_loss_bound(L_star, m, eta)
    target(h.cumulative_loss_ / max(bound, 1e-9), label="loss / bound")
    assert h.cumulative_loss_ <= bound + TOL * L.shape[0]


@given(game=small_loss_games())
def test_hedge_small_loss_corollary(game):
    """With L* <= Lt (here Lt = L*, known in advance: the sequence is fixed) and
    eta = ln(1 + sqrt(2 ln m/Lt)), the regret is at most sqrt(2 Lt ln m) + ln m.

    Catches: the ``+ ln m`` dropped (with L* = 1 the switch to the best expert costs more
    than sqrt(2 ln m)).
    """
    L, _ = game
    m = L.shape[1]
    L_tilde = float(L.sum(axis=0).min())
    assume(L_tilde > 0)
    h = Hedge(m, eta=math.log(1 + math.sqrt(2 * math.log(m) / L_tilde)))
    h.run(L)
    regret = h.cumulative_loss_ - float(h.expert_loss_.min())
    bound = hedge_corollary_bound(L_tilde, m)
    target(regret / max(bound, 1e-9), label="regret / bound")
    assert regret <= bound + TOL * L.shape[0]


# ------------------------------------------------------------------ OGD


@st.composite
def ogd_games(draw):
    """OGD on K = [-1, 1]^d (D = 2 sqrt d) or the ball of radius r (D = 2r), linear losses
    g_t.x with ||g_t|| <= G (linear losses are the worst case: the regret of convex losses is
    at most that of their linearizations). The adversary: in d = 1 the book's (keep x near
    the corner -1, then walk to +1 for the last ceil(c sqrt T) rounds), in any d its analogue
    along the first axis; some rounds arbitrary gradients on a grid."""
    d = draw(st.integers(1, 3))
    ball = draw(st.booleans())
    r = draw(st.sampled_from([0.5, 1.0, 2.0]))
    G = draw(st.sampled_from([0.5, 1.0, 3.0]))
    T = draw(st.integers(1, 300))
    schedule = draw(st.sampled_from(["tuned", "anytime", "fixed"]))
    eta = draw(st.floats(0.01, 2.0)) if schedule == "fixed" else schedule
    c = draw(st.sampled_from([0.5, 1.0, 2.0]))
    n_free = draw(st.integers(0, 5))
    grid = st.lists(st.integers(-4, 4), min_size=d, max_size=d)
    free = {
        draw(st.integers(0, T - 1)): np.array(draw(grid), dtype=float)
        for _ in range(n_free)
    }
    return d, ball, r, G, T, eta, c, free


@given(game=ogd_games())
def test_ogd_regret(game):
    """R(T) <= D^2/(2 eta) + eta G^2 T/2 (constant or tuned step) and
    R(t) <= D^2/(2 eta_t) + (G^2/2) sum_{s<=t} eta_s <= (3/2) D G sqrt t - D G/2 at every t
    (anytime step), against every u in K (the best u of the linear losses).

    Catches: D^2/(4 eta) in place of D^2/(2 eta), and eta G^2 T/4 in place of eta G^2 T/2
    (the 1-D adversary with the tuned step attains the bound exactly when sqrt T is an integer).
    """
    d, ball, r, G, T, eta, c, free = game
    if ball:
        D, proj, corner = 2 * r, project_ball(r), -r
    else:
        D, proj, corner = 2 * math.sqrt(d), project_box(-1.0, 1.0), -1.0
        r = 1.0
    x0 = np.zeros(d)
    x0[0] = corner
    o = OGD(
        x0,
        eta=eta,
        diameter=D,
        lipschitz=G,
        horizon=T if eta == "tuned" else None,
        projection=proj,
    )
    switch = T - math.ceil(c * math.sqrt(T))
    for t in range(T):
        x = o.predict()
        if t in free:
            g = free[t]
            norm = math.sqrt(float(g @ g))
            g = g * (G / norm) if norm > G else g  # ||g|| <= G
        else:
            g = np.zeros(d)
            near = x[0] <= corner + o.eta_at(t + 1) * G / 2
            g[0] = -G if (t >= switch or near) else G
        o.update(g)
    P, Gs = o.trace_.points, o.trace_.gradients
    S = Gs.sum(axis=0)
    # the best u of sum_t g_t.u over K: -r S/||S|| on the ball, -sign(S) on the box
    if ball:
        nS = math.sqrt(float(S @ S))
        best = -r * nS
    else:
        best = -float(np.abs(S).sum())
    paid = np.cumsum(np.einsum("ij,ij->i", Gs, P))
    regret = float(paid[-1]) - best
    if eta == "anytime":
        bound = ogd_anytime_bound(D, G, T)
        assert bound <= 1.5 * D * G * math.sqrt(T) - 0.5 * D * G + 1e-12 * T
        assert math.isclose(
            o.regret_bound(T), 1.5 * D * G * math.sqrt(T) - 0.5 * D * G, rel_tol=1e-12
        )
    else:
        bound = ogd_fixed_bound(D, G, o.eta_at(1), T)
    target(regret / max(bound, 1e-9), label="regret / bound")
    # rounding: T products of size <= D G, summed: absolute slack 1e-9 D G per round
    assert regret <= bound + TOL * D * G * T
