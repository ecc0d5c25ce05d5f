"""The averaged and the voted perceptron against explicit reference computations."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import reference_perceptron

import olbook
from olbook.data import make_noisy, make_separable

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _datasets():
    rng = np.random.default_rng(11)
    yield (
        "separable",
        *make_separable(40, 3, margin=0.05, radius=2.0, random_state=8)[:2],
    )
    yield "noisy", *make_noisy(45, 4, margin=0.1, flip=0.2, random_state=9)[:2]
    yield (
        "integers",
        rng.integers(-3, 4, size=(35, 3)).astype(float),
        rng.choice([-1.0, 1.0], 35),
    )


DATASETS = list(_datasets())
IDS = [d[0] for d in DATASETS]


@pytest.mark.parametrize(("name", "X", "y"), DATASETS, ids=IDS)
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("epochs", [1, 3, 10])
def test_averaged_is_mean_of_post_round_weights(name, X, y, fit_intercept, epochs):
    w, b, mistakes, updates, history = reference_perceptron(
        X, y, fit_intercept=fit_intercept, epochs=epochs, stop_when_converged=False
    )
    assert len(history) == epochs * X.shape[0]
    w_bar = np.mean([h[0] for h in history], axis=0)
    b_bar = np.mean([h[1] for h in history])
    avg = olbook.AveragedPerceptron(fit_intercept=fit_intercept, max_iter=epochs).fit(
        X, y
    )
    assert np.allclose(avg.coef_[0], w_bar, rtol=1e-10, atol=1e-12)
    assert np.isclose(avg.intercept_[0], b_bar, rtol=1e-10, atol=1e-12)
    assert np.array_equal(avg.last_coef_[0], w)
    assert avg.last_intercept_[0] == b
    assert np.array_equal(avg.trace_.mistakes, mistakes)
    assert np.array_equal(avg.trace_.updates, updates)
    assert avg.n_iter_ == epochs
    scores = X @ w_bar + b_bar
    assert np.allclose(avg.decision_function(X), scores, rtol=1e-9, atol=1e-9)
    clear = np.abs(scores) > 1e-9
    assert np.array_equal(avg.predict(X)[clear], np.where(scores > 0, 1.0, -1.0)[clear])


@pytest.mark.parametrize(("name", "X", "y"), DATASETS, ids=IDS)
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_averaged_last_coef_is_perceptron(name, X, y, fit_intercept):
    avg = olbook.AveragedPerceptron(fit_intercept=fit_intercept, max_iter=7).fit(X, y)
    per = olbook.Perceptron(fit_intercept=fit_intercept, max_iter=7).fit(X, y)
    assert np.array_equal(avg.last_coef_[0], per.coef_[0])
    assert avg.last_intercept_[0] == per.intercept_[0]
    # after convergence the extra passes update nothing
    assert avg.n_updates_ == per.n_updates_


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_averaged_partial_fit_twice_equals_one_pass(fit_intercept):
    X, y, _, _ = make_noisy(60, 3, margin=0.1, flip=0.2, random_state=12)
    one = olbook.AveragedPerceptron(fit_intercept=fit_intercept, max_iter=1).fit(X, y)
    two = olbook.AveragedPerceptron(fit_intercept=fit_intercept)
    two.partial_fit(X[:23], y[:23]).partial_fit(X[23:], y[23:])
    assert np.allclose(two.coef_[0], one.coef_[0], rtol=1e-12, atol=1e-12)
    assert np.isclose(two.intercept_[0], one.intercept_[0], rtol=1e-12, atol=1e-12)
    assert np.array_equal(two.last_coef_[0], one.last_coef_[0])
    assert np.array_equal(two.trace_.updates, one.trace_.updates)


def test_averaged_by_hand():
    # Perceptron without intercept on x1=(1,0) y=+1, x2=(0,1) y=-1, x3=(1,1) y=+1:
    # w1=(1,0) (tie), w2=(1,-1) (tie), x3: f=0 tie -> w3=(2,0).
    # Mean of (1,0), (1,-1), (2,0) = (4/3, -1/3).
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    avg = olbook.AveragedPerceptron().fit(X, y)
    assert np.allclose(avg.coef_[0], [4 / 3, -1 / 3])
    assert np.array_equal(avg.last_coef_[0], [2.0, 0.0])
    # Two passes: pass 2 with w=(2,0): x1 f=2 ok, x2 f=0 tie -> (2,-1), x3 f=1 ok.
    # Sum over six rounds = (4,-1) + (2,0) + (2,-1) + (2,-1) = (10,-3); mean (10/6, -3/6).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", olbook.ConvergenceWarning)
        avg2 = olbook.AveragedPerceptron(max_iter=2).fit(X, y)
    assert np.allclose(avg2.coef_[0], [10 / 6, -3 / 6])


# --------------------------------------------------------------------------- voted
@pytest.mark.parametrize(("name", "X", "y"), DATASETS, ids=IDS)
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("epochs", [1, 4])
def test_voted_bookkeeping(name, X, y, fit_intercept, epochs):
    w, b, _, updates, history = reference_perceptron(
        X, y, fit_intercept=fit_intercept, epochs=epochs, stop_when_converged=False
    )
    v = olbook.VotedPerceptron(fit_intercept=fit_intercept, max_iter=epochs).fit(X, y)
    n_rounds = epochs * X.shape[0]
    assert v.counts_.sum() == n_rounds == v.trace_.n_rounds
    assert v.vectors_.shape == (v.n_updates_ + 1, X.shape[1])
    assert v.intercepts_.shape == (v.n_updates_ + 1,) and v.counts_.shape == (
        v.n_updates_ + 1,
    )
    assert (
        np.array_equal(v.vectors_[0], np.zeros(X.shape[1])) and v.intercepts_[0] == 0.0
    )
    assert (
        np.array_equal(v.vectors_[-1], v.coef_[0])
        and v.intercepts_[-1] == v.intercept_[0]
    )
    assert np.array_equal(v.coef_[0], w) and v.intercept_[0] == b
    # The stored vectors are the reference weights after each update round.
    idx = np.flatnonzero(updates)
    assert np.array_equal(
        v.vectors_[1:], np.array([history[t][0] for t in idx]).reshape(-1, X.shape[1])
    )
    assert np.array_equal(v.intercepts_[1:], np.array([history[t][1] for t in idx]))
    # Counts: rounds each vector was the current one after the round.
    expected_counts = np.diff(np.concatenate([[0], idx, [n_rounds]]))
    assert np.array_equal(v.counts_, expected_counts)
    assert v.counts_[0] == 0  # the first round from w = 0 always updates
    if not fit_intercept:
        assert np.all(v.intercepts_ == 0.0)


@pytest.mark.parametrize(("name", "X", "y"), DATASETS, ids=IDS)
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("epochs", [1, 5])
def test_voted_weighted_mean_is_averaged(name, X, y, fit_intercept, epochs):
    v = olbook.VotedPerceptron(fit_intercept=fit_intercept, max_iter=epochs).fit(X, y)
    a = olbook.AveragedPerceptron(fit_intercept=fit_intercept, max_iter=epochs).fit(
        X, y
    )
    c = v.counts_ / v.counts_.sum()
    assert np.allclose(c @ v.vectors_, a.coef_[0], rtol=1e-10, atol=1e-12)
    assert np.isclose(c @ v.intercepts_, a.intercept_[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("name", "X", "y"), DATASETS, ids=IDS)
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("epochs", [1, 3])
def test_voted_predict_is_reference_vote(name, X, y, fit_intercept, epochs):
    *_, history = reference_perceptron(
        X, y, fit_intercept=fit_intercept, epochs=epochs, stop_when_converged=False
    )
    v = olbook.VotedPerceptron(fit_intercept=fit_intercept, max_iter=epochs).fit(X, y)
    rng = np.random.default_rng(5)
    Xt = np.vstack([X, rng.standard_normal((40, X.shape[1])) * 2])
    votes = np.zeros(Xt.shape[0])
    for w_t, b_t in history:  # each round's post-round vector casts one vote
        votes += np.where(Xt @ w_t + b_t > 0, 1.0, -1.0)
    expected = np.where(votes > 0, 1.0, -1.0)  # a tied vote is predicted -1
    assert np.array_equal(v.predict(Xt), expected)
    assert np.allclose(
        v.decision_function(Xt), votes / len(history), rtol=0, atol=1e-12
    )
    assert np.all(np.abs(v.decision_function(Xt)) <= 1.0)


def test_voted_by_hand():
    # Same data as test_averaged_by_hand: vectors 0, (1,0), (1,-1), (2,0) with counts 0, 1, 1, 1.
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    v = olbook.VotedPerceptron().fit(X, y)
    assert np.array_equal(v.vectors_, [[0, 0], [1, 0], [1, -1], [2, 0]])
    assert v.counts_.tolist() == [0, 1, 1, 1]
    # At x=(-1, 0.5): signs of (1,0).x=-1, (1,-1).x=-1.5, (2,0).x=-2 -> all -1 -> vote -1.
    # At x=(1, 2):   1 -> +1, -1 -> -1, 2 -> +1 -> vote +1/3 > 0 -> +1.
    assert np.allclose(v.decision_function([[-1.0, 0.5], [1.0, 2.0]]), [-1.0, 1 / 3])
    assert v.predict([[-1.0, 0.5], [1.0, 2.0]]).tolist() == [-1.0, 1.0]


def test_voted_partial_fit_continues_counts():
    X, y, _, _ = make_noisy(50, 3, margin=0.1, flip=0.2, random_state=13)
    one = olbook.VotedPerceptron().fit(X, y)
    two = (
        olbook.VotedPerceptron().partial_fit(X[:17], y[:17]).partial_fit(X[17:], y[17:])
    )
    assert np.array_equal(one.vectors_, two.vectors_)
    assert np.array_equal(one.counts_, two.counts_)
    assert np.array_equal(one.intercepts_, two.intercepts_)
