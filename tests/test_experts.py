"""Tests of olbook.experts: Halving, Weighted Majority, Hedge and regret (book chapter 5)."""

from __future__ import annotations

import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import olbook
from olbook.experts import Halving, Hedge, WeightedMajority, check_losses, regret


def state(learner):
    return {
        k: (v.copy() if isinstance(v, np.ndarray) else v)
        for k, v in vars(learner).items()
    }


def same_state(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], np.ndarray):
            assert np.array_equal(a[k], b[k]), k
        else:
            assert a[k] == b[k], k


# ---------------------------------------------------------------- Hedge


@pytest.mark.parametrize("eta", ["anytime", "doubling", 0.3])
def test_hedge_run_equals_rounds(eta):
    rng = np.random.default_rng(1)
    L = rng.random((300, 7))
    tr = Hedge(7, eta=eta).run(L)
    h = Hedge(7, eta=eta)
    for t in range(300):
        p = h.predict()
        assert abs(p.sum() - 1) < 1e-12 and np.all(p > 0)
        assert abs(h.update(L[t]) - float(np.sum(p * L[t]))) < 1e-12
    assert abs(h.cumulative_loss_ - tr.cumulative_loss[-1]) < 1e-9


def test_hedge_chunks_equal_one_run():
    rng = np.random.default_rng(2)
    L = rng.random((500, 4))
    for eta in ["anytime", "doubling"]:
        whole = Hedge(4, eta=eta).run(L)
        h = Hedge(4, eta=eta)
        h.run(L[:123])
        rest = h.run(L[123:], reset=False)
        assert np.allclose(rest.regret, whole.regret[123:], atol=1e-9)


def test_hedge_distribution_formula():
    L = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 1.0]])
    h = Hedge(3, eta=0.7)
    h.run(L)
    C = L.sum(axis=0)
    w = np.exp(-0.7 * C)
    assert np.allclose(h.predict(), w / w.sum(), rtol=1e-14)


def test_hedge_tuned_bound_value():
    h = Hedge(10, eta="tuned", horizon=1000)
    assert h.regret_bound(1000) == pytest.approx(math.sqrt(1000 * math.log(10) / 2))
    assert Hedge(10).regret_bound(1000) == pytest.approx(
        3 * math.sqrt(1000 * math.log(10) / 8)
    )
    dbl = Hedge(10, eta="doubling").regret_bound(1000)
    assert dbl <= (2 + math.sqrt(2)) * math.sqrt(1000 * math.log(10) / 2)


def test_hedge_doubling_epochs():
    h = Hedge(3, eta="doubling")
    etas = [h.eta_at(t) for t in range(1, 9)]
    lens = [1, 2, 2, 4, 4, 4, 4, 8]
    assert np.allclose(etas, [math.sqrt(8 * math.log(3) / n) for n in lens])


@settings(max_examples=60)
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(1, 60), st.integers(1, 6)),
        elements=st.floats(0, 1, allow_nan=False),
    ),
    st.sampled_from(["tuned", "anytime", "doubling"]),
)
def test_hedge_regret_never_above_bound(L, eta):
    T = L.shape[0]
    h = Hedge(L.shape[1], eta=eta, horizon=T if eta == "tuned" else None)
    tr = h.run(L)
    assert tr.regret[-1] <= h.regret_bound(T) + 1e-9
    if eta != "tuned":  # the anytime and doubling bounds hold at every prefix
        bounds = np.array([h.regret_bound(t) for t in range(1, T + 1)])
        assert np.all(tr.regret <= bounds + 1e-9)


@settings(max_examples=30)
@given(st.integers(1, 5), st.integers(2, 200), st.integers(0, 2**32 - 1))
def test_hedge_regret_bound_adversarial_binary(m, T, seed):
    """Greedy adversary: loss 1 on the experts with the largest weight."""
    h = Hedge(m, eta="tuned", horizon=T)
    rng = np.random.default_rng(seed)
    for _ in range(T):
        p = h.predict()
        h.update(
            (p >= p.max() - 1e-12).astype(float)
            if rng.random() < 0.9
            else rng.random(m)
        )
    assert h.cumulative_loss_ - h.expert_loss_.min() <= h.regret_bound(T) + 1e-9


def test_hedge_large_losses_and_long_runs_stay_finite():
    rng = np.random.default_rng(3)
    h = Hedge(5, eta=0.5, bounded=False)
    tr = h.run(1e6 * rng.random((2000, 5)))
    assert np.all(np.isfinite(tr.regret)) and np.all(np.isfinite(h.predict()))
    # T = 10**6 rounds, m = 1000 experts, fed in chunks of 1000 rounds
    h = Hedge(1000, eta="anytime")
    chunk = (rng.random((1000, 1000)) < 0.5).astype(float)
    for _ in range(1000):
        tr = h.run(chunk, reset=False)
    assert h.n_rounds_ == 10**6
    assert np.all(np.isfinite(tr.regret)) and np.all(np.isfinite(h.predict()))
    assert tr.regret[-1] <= h.regret_bound(10**6)


def test_hedge_validation_and_unchanged_state():
    for bad in [0, -1.0, float("nan"), float("inf"), "fast", True]:
        h = Hedge(3, eta=bad)  # __init__ only stores; the game's start checks
        with pytest.raises(ValueError, match="eta"):
            h.reset()
        assert vars(h) == {"n_experts": 3, "eta": bad, "horizon": None, "bounded": True}
    with pytest.raises(ValueError, match="horizon"):
        Hedge(3, eta="tuned").reset()
    with pytest.raises(ValueError, match="horizon is only used"):
        Hedge(3, eta=0.1, horizon=10).update([0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="n_experts"):
        Hedge(0).run(np.zeros((2, 1)))
    h = Hedge(3)
    h.run(np.full((5, 3), 0.5))
    before = state(h)
    with pytest.raises(ValueError, match=r"\[0, 1\].*found values in \[-0.5, 2.0\]"):
        h.update([0.0, -0.5, 2.0])
    with pytest.raises(ValueError, match="1 NaN and 1 inf"):
        h.run([[0.0, np.nan, np.inf]], reset=False)
    with pytest.raises(ValueError, match="2 experts"):
        h.update([0.0, 1.0])
    with pytest.raises(ValueError, match="2-D"):
        h.run([0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="empty"):
        h.run(np.zeros((0, 3)))
    same_state(before, state(h))
    with pytest.raises(ValueError, match="bounded=False"):
        Hedge(3, bounded=False).regret_bound(10)


# ---------------------------------------------------------------- Halving and WM


@settings(max_examples=80)
@given(st.integers(1, 300), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_halving_never_more_than_log2_m(m, T, seed):
    rng = np.random.default_rng(seed)
    L = (rng.random((T, m)) < rng.random()).astype(float)
    L[:, rng.integers(m)] = 0.0  # a perfect expert
    h = Halving(m)
    h.run(L)
    assert h.mistakes_ <= math.floor(math.log2(m))


@pytest.mark.parametrize("m", [1, 2, 3, 7, 8, 9, 1000])
def test_halving_adversary_forces_floor_log2(m):
    h = Halving(m)
    for _ in range(2 * m):
        alive = h.consistent_
        if alive.size == 1:
            break
        losses = np.zeros(m)
        losses[alive[: (alive.size + 1) // 2]] = 1.0
        h.update(losses)
    assert h.mistakes_ == math.floor(math.log2(m))


def test_halving_rejects_inconsistent_round_unchanged():
    h = Halving(3)
    h.update([1.0, 0.0, 0.0])
    before = state(h)
    with pytest.raises(ValueError, match="perfect expert"):
        h.update([0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="perfect expert"):
        h.run([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]], reset=True)
    with pytest.raises(ValueError, match=r"0 \(expert right\) or 1.*found \{0, 0.5\}"):
        h.update([0.0, 0.5, 0.0])
    same_state(before, state(h))


def wm_exact(L, beta):
    """Weighted Majority in exact rational arithmetic: the number of mistakes."""
    w = [Fraction(1)] * L.shape[1]
    M = 0
    for row in L:
        wrong = sum((w[i] for i in range(len(w)) if row[i]), Fraction(0))
        M += wrong >= sum(w) - wrong
        w = [wi * beta if row[i] else wi for i, wi in enumerate(w)]
    return M


@settings(max_examples=60)
@given(
    st.integers(1, 12),
    st.integers(1, 60),
    st.integers(0, 2**32 - 1),
    st.sampled_from([Fraction(1, 2), Fraction(1, 4), Fraction(3, 4)]),
)
def test_wm_matches_exact_and_obeys_bound(m, T, seed, beta):
    rng = np.random.default_rng(seed)
    L = (rng.random((T, m)) < 0.5).astype(float)
    wm = WeightedMajority(m, float(beta))
    tr = wm.run(L)
    if (
        beta != Fraction(3, 4) or T <= 40
    ):  # 3/4 is not dyadic-exact for long runs; 1/2, 1/4 are
        assert wm.mistakes_ == wm_exact(L, beta)
    assert wm.mistakes_ <= wm.mistake_bound(tr.best_loss[-1]) + 1e-9


def test_wm_validation():
    for bad in [0, 1, 1.5, -0.1, float("nan"), True]:
        with pytest.raises(ValueError, match=r"open interval \(0, 1\)"):
            WeightedMajority(3, bad).reset()
    wm = WeightedMajority(2)
    assert wm.vote([1, -1]) == -1  # a tie is predicted -1
    wm.update([1.0, 0.0])
    assert wm.vote([1, -1]) == -1 and wm.vote([-1, 1]) == 1
    with pytest.raises(ValueError, match="advice"):
        wm.vote([1, 0])


def test_wm_long_run_no_underflow_to_zero_weights():
    L = np.zeros((5000, 3))
    L[:, :2] = 1.0  # two experts always wrong, one always right
    wm = WeightedMajority(3, 0.5)
    wm.run(L)
    assert np.all(np.isfinite(wm.weights_)) and wm.weights_.max() > 0
    assert wm.mistakes_ <= wm.mistake_bound(0.0)


# ---------------------------------------------------------------- regret and check_losses


def test_regret_indices_and_distributions():
    L = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    assert regret(L, np.array([0, 1, 0])) == 3.0 - 1.0
    assert regret(L, np.array([1, 0, 1])) == 0.0 - 1.0  # regret can be negative
    P = np.full((3, 2), 0.5)
    assert regret(L, P) == 1.5 - 1.0
    with pytest.raises(ValueError, match="choices must lie"):
        regret(L, np.array([0, 2, 0]))
    with pytest.raises(ValueError, match="shape"):
        regret(L, np.full((2, 2), 0.5))


def test_check_losses_messages():
    with pytest.raises(ValueError, match="numeric"):
        check_losses([["a", "b"]])
    assert check_losses([[0.0, 1.0]]).dtype == np.float64
    assert olbook.experts.Hedge is olbook.Hedge


# --- the one protocol of the game learners (experts and OCO) ---------------------------------
#
# predict() -> ndarray (changes nothing); update(feedback) -> float, the loss paid;
# run(feedback, n_rounds=None, *, reset=True) -> GameTrace, with feedback a (T, k) array or
# a callable feedback(t, play); hyper-parameters read when a game starts.


def _games():
    """(name, make, feedback(rng, T)): a fresh learner and a (T, k) feedback array for it."""
    from olbook import OGD
    from olbook.ogd import project_ball

    def perfect_expert(rng, T):
        L = (rng.random((T, 4)) < 0.4) * 1.0
        L[:, 2] = 0.0  # Halving needs a perfect expert
        return L

    return [
        ("Halving", lambda: Halving(4), perfect_expert),
        ("WM", lambda: WeightedMajority(4, beta=0.3), perfect_expert),
        ("Hedge", lambda: Hedge(4, eta=0.4), lambda rng, T: rng.random((T, 4))),
        (
            "Hedge-doubling",
            lambda: Hedge(4, eta="doubling"),
            lambda rng, T: rng.random((T, 4)),
        ),
        (
            "OGD",
            lambda: OGD(np.zeros(4), eta=0.3, projection=project_ball(1.0)),
            lambda rng, T: rng.standard_normal((T, 4)),
        ),
    ]


GAMES = _games()
GAME_IDS = [g[0] for g in GAMES]


def fields_equal(a, b):
    assert type(a) is type(b) is olbook.GameTrace
    for f in olbook.GameTrace.FIELDS:
        x, y = getattr(a, f), getattr(b, f)
        assert (x is None) == (y is None), f
        if x is not None:
            assert np.array_equal(x, y), f


@pytest.mark.parametrize("name, make, feed", GAMES, ids=GAME_IDS)
def test_game_learners_share_one_protocol(name, make, feed):
    a = make()
    assert a.n_rounds_ == 0 and len(a.trace_) == 0  # before a game: its start
    assert sorted(vars(a)) == sorted(
        type(a)._param_names
    )  # ... reading changed nothing
    F1, F2 = feed(np.random.default_rng(1), 20), feed(np.random.default_rng(2), 20)
    first = a.run(F1)
    second = a.run(F2, reset=False)
    assert isinstance(first, olbook.GameTrace) and isinstance(
        a.trace_, olbook.GameTrace
    )
    assert a.n_rounds_ == len(first) + len(second) == len(a.trace_) == 40
    whole = a.trace_
    for f in olbook.GameTrace.FIELDS:  # trace_ is the two runs, one after the other
        x = getattr(whole, f)
        if x is not None:
            assert np.array_equal(
                x, np.concatenate([getattr(first, f), getattr(second, f)])
            )
    # the shared fields mean the same for all: the losses paid and their running sum
    assert np.array_equal(whole.cumulative_loss, np.cumsum(whole.loss))
    assert a.cumulative_loss_ == whole.cumulative_loss[-1]
    experts = name != "OGD"
    assert (whole.regret is not None) == experts == (whole.points is None)
    p1, p2 = a.predict(), a.predict()
    assert np.array_equal(p1, p2) and p1 is not p2 and a.n_rounds_ == 40
    if experts:  # a distribution over the experts
        assert p1.shape == (4,) and math.isclose(math.fsum(p1), 1.0)
    # run with an array, with a callable, and round by round: one game
    b = make()
    by_call = b.run(lambda t, play: F1[t], 20)
    fields_equal(by_call, first)
    c = make()
    paid = []
    for t in range(20):
        loss = c.update(F1[t])
        assert type(loss) is float  # the documented type, for every learner
        paid.append(loss)
    assert np.array_equal(paid, first.loss)
    fields_equal(c.trace_, first)
    a.reset()
    assert a.n_rounds_ == 0 and len(a.trace_) == 0
    assert np.array_equal(a.predict(), make().predict())
    fields_equal(a.run(F1), first)  # after reset, the same game gives the same trace


@pytest.mark.parametrize("name, make, feed", GAMES, ids=GAME_IDS)
def test_callable_feedback_sees_what_is_played(name, make, feed):
    F = feed(np.random.default_rng(3), 15)
    a, b = make(), make()
    seen = []

    def environment(t, play):
        seen.append(play.copy())
        return F[5 + t]

    a.run(F[:5])
    b.run(F[:5])
    a.run(environment, 10, reset=False)
    for t in range(10):
        assert np.array_equal(seen[t], b.predict())
        b.update(F[5 + t])
    fields_equal(a.trace_, b.trace_)
    with pytest.raises(ValueError, match="n_rounds"):
        a.run(environment)
    with pytest.raises(ValueError, match="n_rounds"):
        a.run(F, n_rounds=3)


# (learner factory, hyper-parameter, the value set after construction, the same learner
# built with that value, feedback)
def _settable():
    from olbook import OGD
    from olbook.ogd import project_ball, project_box

    L = np.random.default_rng(4).random((30, 3))
    B = (L < 0.5) * 1.0
    B[:, 0] = 0.0
    G = np.random.default_rng(5).standard_normal((30, 3))
    ogd = dict(diameter=2.0, lipschitz=2.0)
    return [
        (lambda: Hedge(3, eta=0.2), "eta", 1.5, lambda: Hedge(3, eta=1.5), L),
        (lambda: Hedge(3), "eta", "doubling", lambda: Hedge(3, eta="doubling"), L),
        (
            lambda: Hedge(3, eta="tuned", horizon=10),
            "horizon",
            400,
            lambda: Hedge(3, eta="tuned", horizon=400),
            L,
        ),
        (lambda: Hedge(2), "n_experts", 3, lambda: Hedge(3), L),
        (lambda: Hedge(3), "bounded", False, lambda: Hedge(3, bounded=False), 5 * L),
        (
            lambda: WeightedMajority(3, 0.5),
            "beta",
            0.2,
            lambda: WeightedMajority(3, 0.2),
            B,
        ),
        (lambda: WeightedMajority(2), "n_experts", 3, lambda: WeightedMajority(3), B),
        (lambda: Halving(2), "n_experts", 3, lambda: Halving(3), B),
        (
            lambda: OGD(np.zeros(3), eta=0.1),
            "eta",
            0.7,
            lambda: OGD(np.zeros(3), eta=0.7),
            G,
        ),
        (
            lambda: OGD(np.zeros(3), eta="anytime", **ogd),
            "diameter",
            0.5,
            lambda: OGD(np.zeros(3), eta="anytime", diameter=0.5, lipschitz=2.0),
            G,
        ),
        (
            lambda: OGD(np.zeros(3), eta="anytime", **ogd),
            "lipschitz",
            8.0,
            lambda: OGD(np.zeros(3), eta="anytime", diameter=2.0, lipschitz=8.0),
            G,
        ),
        (
            lambda: OGD(np.zeros(3), eta="tuned", horizon=4, **ogd),
            "horizon",
            900,
            lambda: OGD(np.zeros(3), eta="tuned", horizon=900, **ogd),
            G,
        ),
        (
            lambda: OGD(np.zeros(3), eta=0.5),
            "projection",
            project_box(-0.2, 0.2),
            lambda: OGD(np.zeros(3), eta=0.5, projection=project_box(-0.2, 0.2)),
            G,
        ),
        (
            lambda: OGD(np.zeros(3), eta=0.5, projection=project_ball(0.1)),
            "x0",
            np.full(3, 0.05),
            lambda: OGD(np.full(3, 0.05), eta=0.5, projection=project_ball(0.1)),
            G,
        ),
    ]


SETTABLE = _settable()
SETTABLE_IDS = [
    f"{make().__class__.__name__}.{p}={v!r}" for make, p, v, _, _ in SETTABLE
]


@pytest.mark.parametrize("make, param, value, built, F", SETTABLE, ids=SETTABLE_IDS)
def test_hyper_parameter_set_after_construction_is_used(make, param, value, built, F):
    """Setting a hyper-parameter takes effect when the next game starts (never frozen in
    __init__); during a game the change is refused, the learner unchanged."""
    want = built().run(F)
    # set before the first game: run, update and reset all start the game with it
    a = make()
    setattr(a, param, value)
    if hasattr(a, "eta_at"):
        assert a.eta_at(7) == built().eta_at(7)
    if hasattr(a, "regret_bound") and getattr(a, "bounded", True):
        try:
            bound = built().regret_bound(30)
        except ValueError:  # OGD without D and G has none
            bound = None
        if bound is not None:
            assert a.regret_bound(30) == bound
    fields_equal(a.run(F), want)
    b = make()
    setattr(b, param, value)
    for row in F:
        b.update(row)
    fields_equal(b.trace_, want)
    # set during a game: refused at the next call, the learner unchanged; reset uses it
    c = make()
    c.run(np.minimum(F[:5, : getattr(c, "n_experts", F.shape[1])], 1.0))
    before = pickle.dumps(c.__dict__)
    setattr(c, param, value)
    for call in (lambda: c.update(F[5]), c.predict, lambda: c.run(F, reset=False)):
        with pytest.raises(ValueError, match=f"{param} was changed during the game"):
            call()
    setattr(c, param, getattr(make(), param))
    assert pickle.dumps(c.__dict__) == before
    setattr(c, param, value)
    c.reset()
    fields_equal(c.run(F), want)


def test_weighted_majority_beta_drives_learning_and_bound():
    """wm.beta set after construction changes both the learning and mistake_bound."""
    B = (np.random.default_rng(6).random((200, 5)) < 0.5) * 1.0
    wm = WeightedMajority(5, beta=0.5)
    wm.beta = 0.125
    ref = WeightedMajority(5, beta=0.125)
    assert wm.mistake_bound(10) == ref.mistake_bound(10)
    assert wm.run(B).loss.sum() == ref.run(B).loss.sum() == wm_exact(B, Fraction(1, 8))
    assert np.array_equal(wm.weights_, ref.weights_)


@pytest.mark.parametrize("name, make, feed", GAMES, ids=GAME_IDS)
def test_validation_writes_no_state(name, make, feed):
    a = make()
    before = pickle.dumps(a)
    a._validate_params()
    a.predict()
    assert len(a.trace_) == 0 and a.n_rounds_ == 0
    assert pickle.dumps(a) == before
    a.run(feed(np.random.default_rng(7), 5))
    mid = pickle.dumps(a)
    a._validate_params()
    assert pickle.dumps(a) == mid


@pytest.mark.parametrize("name, make, feed", GAMES, ids=GAME_IDS)
def test_rejected_calls_leave_the_learner_unchanged(name, make, feed):
    F = feed(np.random.default_rng(8), 12)
    fresh = make()
    snap = pickle.dumps(fresh)
    for bad in (F[:, :2], F[0, :2], np.full_like(F[0], np.nan)):
        call = fresh.run if bad.ndim == 2 else fresh.update
        with pytest.raises(ValueError):
            call(bad)
        assert pickle.dumps(fresh) == snap  # still before its first game
    a = make()
    a.run(F[:6])
    snap = pickle.dumps(a)

    def fails_at_round_3(t, play):
        if t == 3:
            raise ValueError("the environment gives up")
        return F[t]

    rejected = [
        lambda: a.update(F[0, :2]),
        lambda: a.update([np.inf] * F.shape[1]),
        lambda: a.run(F[:, :2], reset=False),
        lambda: a.run(F[:, :2]),  # a rejected run with reset=True does not reset
        lambda: a.run(fails_at_round_3, 6, reset=False),
        lambda: a.run(fails_at_round_3, 6),
        lambda: a.run(F, n_rounds=5),
        lambda: a.run(F, reset="yes"),
    ]
    for call in rejected:
        with pytest.raises(ValueError):
            call()
        assert pickle.dumps(a) == snap
    bad_param = "n_experts" if hasattr(a, "n_experts") else "x0"
    good = getattr(a, bad_param)
    setattr(a, bad_param, 0 if bad_param == "n_experts" else [[1.0]])
    snap = pickle.dumps(a)
    for call in (a.reset, lambda: a.run(F)):
        with pytest.raises(ValueError, match=bad_param):
            call()
        assert pickle.dumps(a) == snap
    setattr(a, bad_param, good)


@pytest.mark.parametrize("name, make, feed", GAMES, ids=GAME_IDS)
def test_pickled_game_continues_identically(name, make, feed):
    F = feed(np.random.default_rng(9), 30)
    a = make()
    for k, row in enumerate(F[:10]):
        a.update(row) if k % 2 else a.run(F[k : k + 1], reset=False)
    b = pickle.loads(pickle.dumps(a))
    assert np.array_equal(a.predict(), b.predict())
    fields_equal(a.run(F[10:], reset=False), b.run(F[10:], reset=False))
    fields_equal(a.trace_, b.trace_)
    c = pickle.loads(pickle.dumps(make()))  # a learner that has not played yet
    fields_equal(c.run(F), make().run(F))


def test_hedge_state_against_reference_rules():
    """Hedge's distribution after every round, at non-default rates, against the rule
    p_{t,i} proportional to exp(-eta_t L_{t-1,i}) written in plain numpy."""
    rng = np.random.default_rng(10)
    m, T = 5, 40
    L = rng.random((T, m))
    for eta in (0.9, "anytime", "tuned", "doubling"):
        h = Hedge(m, eta=eta, horizon=T if eta == "tuned" else None)
        start, n = 0, 1  # the doubling trick's epoch
        for t in range(1, T + 1):
            if eta == "doubling" and t > start + n:
                start, n = start + n, 2 * n
            rate = {
                "anytime": math.sqrt(8 * math.log(m) / t),
                "tuned": math.sqrt(8 * math.log(m) / T),
                "doubling": math.sqrt(8 * math.log(m) / n),
            }.get(eta, eta)
            past = (
                L[start : t - 1].sum(axis=0) if eta == "doubling" else L[: t - 1].sum(0)
            )
            w = np.exp(-rate * past)
            p = w / w.sum()
            assert np.allclose(h.predict(), p, rtol=1e-12, atol=0), (eta, t)
            assert h.update(L[t - 1]) == pytest.approx(p @ L[t - 1], rel=1e-12)
        assert np.allclose(h.expert_loss_, L.sum(axis=0), rtol=1e-13)


@pytest.mark.parametrize("beta", [Fraction(1, 4), Fraction(1, 8)])
def test_weighted_majority_state_against_reference_rule(beta):
    """WM's weights are beta^(mistakes of each expert), exactly (dyadic beta); a round is a
    mistake when the weight of the wrong experts is at least half (exact arithmetic)."""
    B = (np.random.default_rng(11).random((40, 6)) < 0.45) * 1.0
    wm = WeightedMajority(6, beta=float(beta))
    w = [Fraction(1)] * 6
    for row in B:
        wrong = sum((wi for wi, e in zip(w, row, strict=True) if e), Fraction(0))
        assert wm.update(row) == float(wrong >= sum(w) - wrong)
        w = [wi * beta if e else wi for wi, e in zip(w, row, strict=True)]
        assert np.array_equal(wm.weights_, [float(wi) for wi in w])
    assert np.array_equal(wm.expert_loss_, B.sum(axis=0))
