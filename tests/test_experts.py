"""Tests of olbook.experts: Halving, Weighted Majority, Hedge and regret (book chapter 5)."""

from __future__ import annotations

import math
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
    assert abs(h.learner_loss_ - tr.cumulative_loss[-1]) < 1e-9


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
    assert h.learner_loss_ - h.expert_loss_.min() <= h.regret_bound(T) + 1e-9


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
        with pytest.raises(ValueError, match="eta"):
            Hedge(3, eta=bad)
    with pytest.raises(ValueError, match="horizon"):
        Hedge(3, eta="tuned")
    with pytest.raises(ValueError, match="horizon is only used"):
        Hedge(3, eta=0.1, horizon=10)
    with pytest.raises(ValueError, match="n_experts"):
        Hedge(0)
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
            WeightedMajority(3, bad)
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


# --- the one interface of the game learners (experts and OCO) ---------------------------------


def _learners():
    from olbook import OGD

    return [
        (lambda: Halving(4), lambda rng: np.eye(4)[[1, 2, 3]][rng.integers(0, 3, 20)]),
        (
            lambda: WeightedMajority(4, beta=0.5),
            lambda rng: (rng.random((20, 4)) < 0.4) * 1.0,
        ),
        (lambda: Hedge(4), lambda rng: rng.random((20, 4))),
        (lambda: Hedge(4, eta="doubling"), lambda rng: rng.random((20, 4))),
        (lambda: OGD(np.zeros(4), eta=0.1), None),
    ]


def _play(learner, feed, rng, *, reset=True, n=20):
    if feed is None:  # OGD: gradients
        G = rng.standard_normal((n, 4))
        return learner.run(lambda t, x: G[t], n, reset=reset)
    return learner.run(feed(rng), reset=reset)


@pytest.mark.parametrize("k", range(5))
def test_game_learners_share_one_interface(k):
    make, feed = _learners()[k]
    a = make()
    assert a.n_rounds_ == 0 and len(a.trace_) == 0
    first = _play(a, feed, np.random.default_rng(1))
    second = _play(a, feed, np.random.default_rng(2), reset=False)
    assert a.n_rounds_ == len(first) + len(second) == len(a.trace_) == 40
    whole = a.trace_
    for f in whole.__dataclass_fields__:  # trace_ is the two runs, one after the other
        assert np.array_equal(
            getattr(whole, f), np.concatenate([getattr(first, f), getattr(second, f)])
        )
    p1 = np.copy(a.predict())
    p2 = np.copy(a.predict())
    assert np.array_equal(p1, p2) and a.n_rounds_ == 40  # predict changes nothing
    a.reset()
    b = make()
    assert (
        a.n_rounds_ == 0
        and len(a.trace_) == 0
        and np.array_equal(a.predict(), b.predict())
    )
    again = _play(a, feed, np.random.default_rng(1))
    for (
        f
    ) in again.__dataclass_fields__:  # after reset, the same game gives the same trace
        assert np.array_equal(getattr(again, f), getattr(first, f))


def test_update_rounds_enter_the_trace():
    h = Hedge(3)
    h.update([0.0, 1.0, 0.5])
    h.run(np.array([[1.0, 0.0, 0.0]]), reset=False)
    assert h.n_rounds_ == 2 and h.trace_.loss[0] == pytest.approx(0.5)
