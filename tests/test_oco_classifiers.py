"""Tests of olbook.oco.classifiers: AdaGrad and coin betting as linear classifiers.

Each classifier is checked three ways: against its game learner of olbook.oco
(AdaGrad; one one-dimensional CoinBetting per coordinate) driven by
gradient_feedback on the same stream, bit for bit; against a plain-numpy
reference at non-default hyper-parameters (up to rounding: numpy adds the
scores in another order); and against the same reference with a planted bug,
which must differ (the comparisons can fail).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from olbook.oco import (
    AdaGrad,
    AdaGradClassifier,
    CoinBetting,
    CoinBettingClassifier,
    HingeLoss,
    LogisticLoss,
    gradient_feedback,
)
from olbook.oco.coin_betting import kt_regret_bound

LOSSES = {"hinge": HingeLoss, "logistic": LogisticLoss}


def stream(n=120, d=4, seed=0, flip=0.1):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * np.array([1.0, 3.0, 0.5, 2.0])[:d]
    X[rng.random((n, d)) < 0.2] = 0.0
    y = np.where(X @ np.arange(1.0, d + 1.0) + 0.5 > 0, 1.0, -1.0)
    y[rng.random(n) < flip] *= -1
    y[:2] = [1.0, -1.0]
    return X, y


def augmented(X, fit_intercept):
    return np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X


def weights(clf):
    w = clf.coef_[0]
    return np.append(w, clf.intercept_[0]) if clf.fit_intercept else w


def bits(a):
    return np.asarray(a, dtype=np.float64).tobytes()


# ------------------------------------------------------------------ the game learners
@pytest.mark.parametrize("loss", ["hinge", "logistic"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_adagrad_is_the_game_learner(loss, fit_intercept):
    X, y = stream(seed=1)
    A = augmented(X, fit_intercept)
    clf = AdaGradClassifier(loss=loss, eta=0.37, delta=0.2, fit_intercept=fit_intercept)
    for lo, hi in ((0, 1), (1, 50), (50, 120)):
        clf.partial_fit(X[lo:hi], y[lo:hi])
    game = AdaGrad(np.zeros(A.shape[1]), eta=0.37, delta=0.2)
    tr = game.run(gradient_feedback(LOSSES[loss](), A, y), len(y))
    assert bits(weights(clf)) == bits(game.x_)
    assert bits(clf.sum_sq_gradients_) == bits(game.sum_sq_gradients_)
    scores = np.array([p @ a for p, a in zip(tr.points, A, strict=True)])
    assert np.array_equal(clf.trace_.mistakes, (scores > 0) != (y > 0))
    assert np.array_equal(clf.trace_.updates, (tr.gradients != 0).any(axis=1))
    assert clf.n_updates_ > 20 and clf.mistakes_ > 5


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_coin_betting_is_one_game_learner_per_coordinate(loss, fit_intercept):
    X, y = stream(seed=2)
    A = augmented(X, fit_intercept)
    L = 12.5
    clf = CoinBettingClassifier(
        loss=loss, initial_wealth=0.3, lipschitz=L, fit_intercept=fit_intercept
    )
    for lo, hi in ((0, 2), (2, 77), (77, 120)):
        clf.partial_fit(X[lo:hi], y[lo:hi])
    games = [CoinBetting([0.0], initial_wealth=0.3, lipschitz=L) for _ in A[0]]
    feedback = gradient_feedback(LOSSES[loss](), A, y)
    mistakes = []
    for t in range(len(y)):
        w = np.array([g.predict()[0] for g in games])
        mistakes.append((w @ A[t] > 0) != (y[t] > 0))
        grad = feedback(t, w)
        for game, g in zip(games, grad, strict=True):
            game.update([g])
    assert bits(weights(clf)) == bits([g.predict()[0] for g in games])
    assert bits(clf.wealth_) == bits([g.wealth_ for g in games])
    assert np.array_equal(clf.trace_.mistakes, mistakes)
    assert (clf.lipschitz_ == L).all()


def test_several_passes_continue_the_game():
    """fit with max_iter passes = the game on the data repeated (the logistic loss never
    stops updating; coin betting makes every pass)."""
    X, y = stream(n=40, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ada = AdaGradClassifier(eta=0.6, max_iter=3).fit(X, y)
        cb = CoinBettingClassifier(initial_wealth=2.0, max_iter=3).fit(X, y)
    X3, y3 = np.tile(X, (3, 1)), np.tile(y, 3)
    game = AdaGrad(np.zeros(4), eta=0.6)
    game.run(gradient_feedback(LogisticLoss(), X3, y3), len(y3))
    assert bits(ada.coef_[0]) == bits(game.x_) and ada.n_iter_ == 3
    once = CoinBettingClassifier(initial_wealth=2.0).partial_fit(X3, y3)
    assert bits(once.coef_) == bits(cb.coef_) and cb.n_iter_ == 3


# --------------------------------------------------------------------- numpy references
def adagrad_reference(X, y, loss, eta, delta, bug=None):
    """Diagonal AdaGrad on the loss of each example, in plain numpy."""
    w = np.zeros(X.shape[1])
    sq = np.zeros_like(w)
    for x, label in zip(X, y, strict=True):
        m = label * float(np.dot(w, x))
        c = (m < 1) * 1.0 if loss == "hinge" else 1.0 / (1.0 + math.exp(m))
        g = -label * c * x
        if bug == "old sum":  # the step with s_{t-1}: the gradient added after it
            h = delta + np.sqrt(sq)
            sq = sq + g * g
        else:
            sq = sq + g * g
            h = delta + np.sqrt(sq)
        w = w - eta * np.divide(g, h, out=np.zeros_like(g), where=h > 0)
    return w


def kt_reference(X, y, loss, eps, L, bug=None):
    """Per-coordinate KT betting on the loss of each example, in plain numpy."""
    d = X.shape[1]
    theta, wealth, w = np.zeros(d), np.full(d, eps), np.zeros(d)
    for t, (x, label) in enumerate(zip(X, y, strict=True), start=1):
        m = label * float(np.dot(w, x))
        c = (m < 1) * 1.0 if loss == "hinge" else 1.0 / (1.0 + math.exp(m))
        g = -label * c * x
        wealth = wealth - g * w
        theta = theta - g / L
        # KT bets the average of the t coins seen, over t + 1 (the bug: over t)
        w = theta * wealth / ((t if bug == "over t" else t + 1) * L)
    return w


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_adagrad_against_numpy_reference(loss):
    X, y = stream(n=200, seed=4)
    clf = AdaGradClassifier(loss=loss, eta=2.5, delta=0.05, fit_intercept=True)
    clf.fit(X, y)
    A = augmented(X, True)
    ref = adagrad_reference(A, y, loss, 2.5, 0.05)
    assert np.allclose(weights(clf), ref, rtol=1e-12, atol=1e-13)
    planted = adagrad_reference(A, y, loss, 2.5, 0.05, bug="old sum")
    assert not np.allclose(weights(clf), planted, rtol=1e-6)


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_coin_betting_against_numpy_reference(loss):
    X, y = stream(n=200, seed=5)
    clf = CoinBettingClassifier(loss=loss, initial_wealth=0.4, lipschitz=15.0)
    clf.fit(X, y)
    ref = kt_reference(X, y, loss, 0.4, 15.0)
    assert np.allclose(clf.coef_[0], ref, rtol=1e-12, atol=1e-13)
    planted = kt_reference(X, y, loss, 0.4, 15.0, bug="over t")
    assert not np.allclose(clf.coef_[0], planted, rtol=1e-6)


def test_coin_betting_regret_within_the_per_coordinate_bound():
    """Per-coordinate games with L_j = max |x_tj|: their linearized
    regret against several u is at most the sum of the one-dimensional KT bounds (on
    these gradients, not the worst case, it reaches about a quarter of it)."""
    X, y = stream(n=400, seed=6, flip=0.0)
    L = np.abs(X).max(axis=0)
    games = [CoinBetting([0.0], lipschitz=Lj) for Lj in L]
    feedback = gradient_feedback(LogisticLoss(), X, y)
    for t in range(len(y)):
        grad = feedback(t, np.array([g.predict()[0] for g in games]))
        for game, g in zip(games, grad, strict=True):
            game.update([g])
    clf = CoinBettingClassifier(lipschitz=float(L.max())).fit(X * (L.max() / L), y)
    assert bits(clf.lipschitz_) == bits(np.full(4, L.max()))
    G = np.stack([g.trace_.gradients[:, 0] for g in games], axis=1)
    theta = -G.sum(axis=0)
    ratios = []
    for u in (np.zeros(4), np.array([1.0, 2.0, 3.0, 4.0]), np.sign(theta) * 30.0):
        regret = math.fsum(
            g.trace_.linearized_regret(u[j : j + 1])[-1] for j, g in enumerate(games)
        )
        bound = math.fsum(
            kt_regret_bound(abs(uj), len(y), 1.0, Lj)
            for uj, Lj in zip(u, L, strict=True)
        )
        assert regret <= bound
        ratios.append(regret / bound)
    assert ratios[0] < 0 < 0.2 < ratios[-1]  # the learner gains against u = 0


# --------------------------------------------------------------------- the interface
@pytest.mark.parametrize("cls", [AdaGradClassifier, CoinBettingClassifier])
def test_labels_of_any_dtype(cls):
    X, y = stream(seed=7)
    ref = cls(loss="hinge").fit(X, y)
    for labels in (
        np.where(y > 0, 1, -1).astype(np.int32),
        np.where(y > 0, "yes", "no"),
        np.where(y > 0, 1.0, 0.0).astype(np.float32),
    ):
        clf = cls(loss="hinge").fit(X, labels)
        assert clf.classes_.dtype == labels.dtype
        assert list(clf.classes_) == sorted(set(labels.tolist()))
        assert bits(clf.coef_) == bits(ref.coef_)
        assert clf.predict(X).dtype == labels.dtype


def test_adagrad_hinge_stops_after_a_pass_without_gradient():
    X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, 0.0], [0.0, -2.0]])
    y = np.array([1, 1, -1, -1])
    clf = AdaGradClassifier(loss="hinge", eta=1.0, max_iter=10).fit(X, y)
    assert clf.converged_ and clf.n_iter_ < 10
    assert (y * clf.decision_function(X) >= 1).all()


def rescaled_reference(A, y, loss, eps, first, bug=False):
    """Per-coordinate KT in plain numpy, the bound raised (theta rescaled) by a larger
    feature before the round."""
    d = A.shape[1]
    L, theta, wealth, w = np.full(d, first), np.zeros(d), np.full(d, eps), np.zeros(d)
    played, grads = [], []
    for t, (x, label) in enumerate(zip(A, y, strict=True), start=1):
        up = np.abs(x) > L
        if not bug:
            theta[up] *= L[up] / np.abs(x[up])
        L[up] = np.abs(x[up])
        w = theta * wealth / (t * np.where(L > 0, L, 1.0))
        m = label * float(np.dot(w, x))
        c = (m < 1) * 1.0 if loss == "hinge" else 1.0 / (1.0 + math.exp(m))
        g = -label * c * x
        played.append(w)
        grads.append(g)
        wealth = wealth - g * w
        theta = theta - g / np.where(L > 0, L, 1.0)
    w = theta * wealth / ((len(y) + 1) * np.where(L > 0, L, 1.0))
    return w, L, np.array(played), np.array(grads)


@pytest.mark.parametrize("first", [0.0, 0.75])
@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_coin_betting_raised_bounds(first, loss):
    """A feature beyond L_j raises it and rescales theta_j: the numpy reference (up to
    rounding), and the linearized regret within the KT bound with the final L_j."""
    X, y = stream(n=300, seed=10, flip=0.05)
    X[100:, 1] *= 5.0  # feature 1 jumps in scale mid-stream
    X[:30, 2] = 0.0  # feature 2 starts late
    A = augmented(X, True)
    kw = {} if first == 0.0 else {"lipschitz": first}
    clf = CoinBettingClassifier(loss=loss, initial_wealth=0.7, fit_intercept=True, **kw)
    for lo, hi in ((0, 40), (40, 41), (41, 300)):
        clf.partial_fit(X[lo:hi], y[lo:hi])
    w, L, W, G = rescaled_reference(A, y, loss, 0.7, first)
    assert np.allclose(weights(clf), w, rtol=1e-11, atol=1e-13)
    assert np.array_equal(clf.lipschitz_, np.abs(A).max(axis=0))
    assert np.array_equal(L, clf.lipschitz_)
    # the planted bug: theta not rescaled when the bound grows
    planted = rescaled_reference(A, y, loss, 0.7, first, bug=True)[0]
    assert not np.allclose(weights(clf), planted, rtol=1e-6)
    # the linearized regret against several u, within the KT bounds with the final L
    theta = -G.sum(axis=0)
    for scale in (0.0, 1.0, 10.0, 100.0):
        u = np.sign(theta) * scale
        regret = (G * (W - u)).sum(axis=0)
        bound = [
            kt_regret_bound(abs(uj), len(y), 0.7, Lj)
            for uj, Lj in zip(u, L, strict=True)
        ]
        assert (regret <= bound).all(), (regret, bound)


def test_lipschitz_grows_and_is_structural():
    X, y = stream(seed=8)
    clf = CoinBettingClassifier(fit_intercept=True).partial_fit(X[:60], y[:60])
    assert (clf.lipschitz_ >= np.append(np.abs(X[:60]).max(axis=0), 1.0)).all()
    big = X[60:].copy()
    big[5, 2] = 100.0
    clf.partial_fit(big, y[60:])
    assert clf.lipschitz_[2] == 100.0  # raised to the feature (more than doubled)
    clf.set_params(lipschitz=100.0)
    with pytest.raises(ValueError, match="lipschitz changed"):
        clf.partial_fit(X[60:], y[60:])
    zero = CoinBettingClassifier().fit(np.zeros((3, 2)), [1, -1, 1])
    assert not zero.lipschitz_.any() and not zero.coef_.any()
    assert not zero.partial_fit(np.zeros((2, 2)), [1, -1]).coef_.any()


@pytest.mark.parametrize("cls", [AdaGradClassifier, CoinBettingClassifier])
def test_learns_a_separable_stream(cls):
    X, y = stream(n=1000, seed=9, flip=0.0)
    clf = cls().partial_fit(X, y)
    late = clf.trace_.mistakes[500:].mean()
    assert late < 0.08 and late < clf.trace_.mistakes[:100].mean()


def test_hinge_subgradient_is_zero_at_margin_one():
    """HingeLoss's subgradient at y w.x = 1 is 0: no update there (exact data)."""
    X = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.5]])
    y = np.array([1, 1, 1])
    ada = AdaGradClassifier(loss="hinge", eta=1.0).fit(X, y)  # w = (1, 0) after round 1
    assert ada.trace_.updates.tolist() == [True, False, False]
    cb = CoinBettingClassifier(loss="hinge", initial_wealth=2.0).fit(X[:2], y[:2])
    assert cb.trace_.updates.tolist() == [True, False]  # w_2 = 1 * 2 / 2 = 1


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
@pytest.mark.parametrize("cls", [AdaGradClassifier, CoinBettingClassifier])
def test_csr_gives_the_bits_of_the_dense_rows(cls, loss):
    import scipy.sparse as sparse

    X, y = stream(n=300, seed=11)
    X[100:, 3] *= 3.0  # a bound raised mid-stream (coin betting)
    for fit_intercept in (False, True):
        a = cls(loss=loss, fit_intercept=fit_intercept, max_iter=2)
        b = cls(loss=loss, fit_intercept=fit_intercept, max_iter=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a.fit(X, y)
            b.fit(sparse.csr_matrix(X), y)
        a.partial_fit(X[:50], y[:50])
        b.partial_fit(sparse.csr_matrix(X[:50]), y[:50])
        assert bits(a.coef_) == bits(b.coef_)
        assert bits(a.intercept_) == bits(b.intercept_)
        assert np.array_equal(a.trace_.mistakes, b.trace_.mistakes)
        assert np.array_equal(a.trace_.updates, b.trace_.updates)
        Xs = sparse.csr_matrix(X)
        assert bits(a.decision_function(X)) == bits(b.decision_function(Xs))


def log_kt_potential(t, x, eps):
    """ln F_t(x), the KT potential of the book's lemma oco-lem-kt-potential."""
    return (
        math.log(eps)
        + t * math.log(2.0)
        + math.lgamma((t + 1 + x) / 2)
        + math.lgamma((t + 1 - x) / 2)
        - math.log(math.pi)
        - math.lgamma(t + 1)
    )


def test_kt_one_step_inequality():
    """F_(t-1)(x) (1 + c x/t) >= F_t(x + c) for c in [-1, 1], |x| <= t - 1: the step
    that keeps Wealth_t >= F_t(theta_t) when theta is rescaled towards 0 (an
    equality at c = +-1, so a wrong fraction x/(t-1) or x/(t+1) fails)."""
    eps = 0.5
    worst = math.inf
    for t in range(1, 60):
        for x in np.linspace(-(t - 1), t - 1, 23):
            for c in np.linspace(-1.0, 1.0, 21):
                lhs = log_kt_potential(t - 1, x, eps) + math.log1p(c * x / t)
                gap = lhs - log_kt_potential(t, x + c, eps)
                assert gap >= -1e-12, (t, x, c, gap)
                if abs(c) == 1.0:
                    worst = min(worst, abs(gap))
    assert worst < 1e-12  # equality at c = +-1: the inequality is tight there


@pytest.mark.parametrize("first", [None, 1.0])
def test_coin_betting_wealth_above_the_potential_when_bounds_grow(first):
    """Coins +-1 (hinge loss below margin 1, |x_t| = L_t): Wealth_t >= F_t(theta_t)
    with theta_t = -(g_1 + ... + g_t)/L_t at every round, equal to it until the bound
    grows (round 51: 1 -> 2, theta halved). Not rescaling theta, or rescaling it
    away from 0, breaks the inequality after the jump."""
    eps = 0.01
    coins = [-1.0] * 10 + [1.0, -1.0] * 20 + [1.0] * 30  # theta = -10 at round 50
    scale = [1.0] * 50 + [2.0] * 30
    y = np.array([1.0 if t % 3 else -1.0 for t in range(len(coins))])
    X = (np.array(coins) * y * np.array(scale))[:, None]  # coin = y x / L
    clf = CoinBettingClassifier(loss="hinge", initial_wealth=eps, lipschitz=first)
    total, ratios = 0.0, []
    for t in range(len(coins)):
        if t:  # below margin 1: the hinge loss's coin is y_t x_t / L_t = +-1
            assert y[t] * clf.decision_function(X[t : t + 1])[0] < 1
        clf.partial_fit(X[t : t + 1], y[t : t + 1], classes=[-1.0, 1.0])
        total += -y[t] * X[t, 0]  # g_t = -y_t x_t below margin 1
        theta = -total / clf.lipschitz_[0]
        ratios.append(clf.wealth_[0] / math.exp(log_kt_potential(t + 1, theta, eps)))
    ratios = np.array(ratios)
    assert (ratios >= 1 - 1e-12).all(), ratios.min()
    assert np.allclose(ratios[:50], 1.0, rtol=1e-12)  # tight before the jump
