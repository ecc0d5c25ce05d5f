"""The perceptron and the normalized perceptron against a plain reference loop and by hand."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
from conftest import ONLINE_LEARNERS, reference_perceptron, xor_data
from sklearn.exceptions import ConvergenceWarning

import olbook
from olbook.data import make_noisy, make_separable


def _datasets():
    rng = np.random.default_rng(7)
    yield (
        "separable",
        *make_separable(40, 4, margin=0.05, radius=2.0, random_state=1)[:2],
    )
    yield "noisy", *make_noisy(50, 3, margin=0.1, flip=0.2, random_state=2)[:2]
    yield "gaussian", rng.standard_normal((45, 5)), rng.choice([-1.0, 1.0], 45)
    yield (
        "integers",
        rng.integers(-4, 5, size=(40, 3)).astype(float),
        rng.choice([-1.0, 1.0], 40),
    )


DATASETS = list(_datasets())
DATA_IDS = [d[0] for d in DATASETS]


# --------------------------------------------------------------------------- by hand
def test_hand_worked_example():
    # x1=(1,0) y=+1: f=0, tie -> predict -1, mistake, update: w=(1,0), b=1
    # x2=(0,1) y=-1: f=0+1=1 > 0 -> predict +1, mistake, update: w=(1,-1), b=0
    # x3=(2,2) y=+1: f=2-2+0=0 -> tie, predict -1, mistake, update: w=(3,1), b=1
    # x4=(-1,0) y=-1: f=-3+1=-2 -> correct, no update
    X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [-1.0, 0.0]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    p = olbook.Perceptron(fit_intercept=True).fit(X, y)
    assert np.array_equal(p.coef_[0], [3.0, 1.0])
    assert p.intercept_[0] == 1.0
    assert p.trace_.mistakes.tolist() == [True, True, True, False]
    assert p.trace_.updates.tolist() == [True, True, True, False]
    assert p.mistakes_ == 3 and p.n_updates_ == 3
    assert np.array_equal(p.decision_function(X), [4.0, 2.0, 9.0, -2.0])
    assert np.array_equal(p.predict(X), [1.0, 1.0, 1.0, -1.0])


def test_tie_with_negative_label_is_update_not_mistake():
    # w=0: f=0, predicted -1 which is correct for y=-1, yet y f = 0 <= 0 is an update.
    p = olbook.Perceptron().fit([[1.0, 2.0]], [-1])
    assert p.trace_.mistakes.tolist() == [False]
    assert p.trace_.updates.tolist() == [True]
    assert p.mistakes_ == 0 and p.n_updates_ == 1
    assert np.array_equal(p.coef_[0], [-1.0, -2.0])
    # Orthogonal second example: again f=0; y=-1 -> update only, y=+1 -> mistake and update.
    p = olbook.Perceptron().fit([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], [-1, -1, 1])
    assert p.trace_.mistakes.tolist() == [False, False, True]
    assert p.trace_.updates.tolist() == [True, True, True]


def test_tie_is_predicted_negative():
    p = olbook.Perceptron().fit([[1.0, 0.0]], [1])  # w = (1, 0)
    X = np.array([[0.0, 5.0], [1e-300, 0.0], [-1e-300, 0.0]])
    assert np.array_equal(p.decision_function(X)[0], 0.0)
    assert p.predict(X).tolist() == [-1.0, 1.0, -1.0]


# --------------------------------------------------------------------------- reference loop
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(("name", "X", "y"), DATASETS, ids=DATA_IDS)
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("epochs", [1, 3, 50])
def test_matches_reference_loop(name, X, y, fit_intercept, epochs):
    w, b, mistakes, updates, _ = reference_perceptron(
        X, y, fit_intercept=fit_intercept, epochs=epochs
    )
    p = olbook.Perceptron(fit_intercept=fit_intercept, max_iter=epochs).fit(X, y)
    assert np.array_equal(p.trace_.mistakes, mistakes)
    assert np.array_equal(p.trace_.updates, updates)
    assert np.array_equal(p.coef_[0], w)
    assert p.intercept_[0] == b
    assert p.mistakes_ == mistakes.sum() and p.n_updates_ == updates.sum()
    assert p.trace_.n_rounds == mistakes.size
    if not fit_intercept:
        assert p.intercept_[0] == 0.0


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(("name", "X", "y"), DATASETS, ids=DATA_IDS)
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_mistakes_are_updates(name, X, y, fit_intercept):
    p = olbook.Perceptron(fit_intercept=fit_intercept, max_iter=5).fit(X, y)
    m, u = p.trace_.mistakes, p.trace_.updates
    assert np.all(u[m]), "every mistake must be an update"
    assert p.mistakes_ <= p.n_updates_
    assert np.array_equal(p.trace_.cumulative_mistakes(), np.cumsum(m))
    assert np.array_equal(p.trace_.cumulative_updates(), np.cumsum(u))
    # The first round starts from w = 0, b = 0: always an update.
    assert u[0]
    assert m[0] == (y[0] > 0)


# --------------------------------------------------------------------------- trace bookkeeping
@pytest.mark.parametrize("cls", ONLINE_LEARNERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_partial_fit_one_at_a_time_equals_one_pass(cls, fit_intercept):
    X, y, _, _ = make_noisy(30, 3, margin=0.1, flip=0.2, random_state=3)
    full = cls(fit_intercept=fit_intercept, max_iter=1).fit(X, y)
    step = cls(fit_intercept=fit_intercept)
    for i in range(X.shape[0]):
        step.partial_fit(X[i : i + 1], y[i : i + 1])
    assert np.array_equal(step.trace_.mistakes, full.trace_.mistakes)
    assert np.array_equal(step.trace_.updates, full.trace_.updates)
    assert step.mistakes_ == full.mistakes_ and step.n_updates_ == full.n_updates_
    assert np.allclose(step.coef_[0], full.coef_[0], rtol=1e-12, atol=1e-12)
    assert np.isclose(step.intercept_[0], full.intercept_[0], rtol=1e-12, atol=1e-12)
    assert step.n_iter_ == X.shape[0] and full.n_iter_ == 1
    assert np.array_equal(step.trace_.epoch_ends, np.arange(1, X.shape[0] + 1))
    assert np.array_equal(full.trace_.epoch_ends, [X.shape[0]])


def test_partial_fit_one_at_a_time_exact_for_perceptron():
    X, y, _, _ = make_noisy(30, 3, margin=0.1, flip=0.2, random_state=3)
    full = olbook.Perceptron(fit_intercept=True).fit(X, y)
    step = olbook.Perceptron(fit_intercept=True)
    for i in range(X.shape[0]):
        step.partial_fit(X[i : i + 1], y[i : i + 1])
    assert (
        np.array_equal(step.coef_[0], full.coef_[0])
        and step.intercept_[0] == full.intercept_[0]
    )


@pytest.mark.parametrize("cls", ONLINE_LEARNERS, ids=lambda c: c.__name__)
def test_fit_resets_and_partial_fit_appends(cls):
    X, y, _, _ = make_noisy(40, 3, margin=0.1, flip=0.2, random_state=4)
    est = cls().fit(X[:25], y[:25])
    first = (est.trace_.mistakes.copy(), est.trace_.updates.copy())
    assert est.trace_.n_rounds == 25
    est.partial_fit(X[25:], y[25:])
    assert est.trace_.n_rounds == 40
    assert np.array_equal(est.trace_.epoch_ends, [25, 40])
    assert np.array_equal(est.trace_.mistakes[:25], first[0])
    assert np.array_equal(est.trace_.updates[:25], first[1])
    assert est.n_iter_ == 2
    assert (
        est.mistakes_ == est.trace_.mistakes.sum()
        and est.n_updates_ == est.trace_.updates.sum()
    )
    # A second partial_fit on a one-example batch appends one round.
    est.partial_fit(X[:1], y[:1])
    assert est.trace_.n_rounds == 41 and est.n_iter_ == 3
    # fit starts afresh.
    est.fit(X[:10], y[:10])
    assert est.trace_.n_rounds == 10
    assert np.array_equal(est.trace_.epoch_ends, [10])
    assert est.n_iter_ == 1
    fresh = cls().fit(X[:10], y[:10])
    assert np.array_equal(est.trace_.updates, fresh.trace_.updates)
    assert np.array_equal(est.coef_[0], fresh.coef_[0])
    assert est.mistakes_ == fresh.mistakes_ and est.n_updates_ == fresh.n_updates_


def test_trace_repr_and_append_validation():
    t = olbook.Trace()
    assert t.n_rounds == 0 and t.mistakes.size == 0 and t.epoch_ends.size == 0
    t.append([True, False], [True, True])
    t.append([False], [False])
    assert t.n_rounds == 3
    assert t.epoch_ends.tolist() == [2, 3]
    assert repr(t) == "Trace(n_rounds=3, mistakes=1, updates=2, epochs=2)"
    with pytest.raises(ValueError, match="one length"):
        t.append([True], [True, False])


# --------------------------------------------------------------------------- cyclic PLA
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cyclic_pla_stops_after_clean_pass(fit_intercept, seed):
    X, y, _ = make_separable(60, 3, margin=0.2, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = olbook.Perceptron(fit_intercept=fit_intercept, max_iter=1000).fit(X, y)
    n = X.shape[0]
    assert p.converged_
    assert 2 <= p.n_iter_ < 1000
    assert p.trace_.n_rounds == p.n_iter_ * n
    ends = p.trace_.epoch_ends
    assert np.array_equal(ends, n * np.arange(1, p.n_iter_ + 1))
    assert not p.trace_.updates[ends[-2] :].any(), "the last pass is clean"
    assert p.trace_.updates[ends[-3] if p.n_iter_ > 2 else 0 : ends[-2]].any(), (
        "the one before is not"
    )
    assert np.array_equal(p.predict(X), y)
    assert np.all(y * p.decision_function(X) > 0)


def test_non_separable_warns():
    X, y = xor_data()
    with pytest.warns(
        olbook.ConvergenceWarning,
        match=r"still made updates in the last of its 7 passes",
    ):
        p = olbook.Perceptron(max_iter=7).fit(X, y)
    assert not p.converged_ and p.n_iter_ == 7
    assert olbook.ConvergenceWarning is ConvergenceWarning


@pytest.mark.parametrize("cls", ONLINE_LEARNERS, ids=lambda c: c.__name__)
def test_convergence_warning_every_learner(cls):
    X, y, _, _ = make_noisy(40, 2, margin=0.1, flip=0.3, random_state=5)
    assert not olbook.is_linearly_separable(X, y)
    with pytest.warns(olbook.ConvergenceWarning):
        cls(max_iter=3).fit(X, y)
    with pytest.warns(olbook.ConvergenceWarning):
        cls(max_iter=3, fit_intercept=True).fit(X, y)


@pytest.mark.parametrize("cls", ONLINE_LEARNERS, ids=lambda c: c.__name__)
def test_no_warning_with_one_epoch_or_partial_fit(cls):
    X, y = xor_data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = cls(max_iter=1).fit(X, y)
        est.partial_fit(X, y)
        cls(max_iter=5).partial_fit(X, y)
    assert not est.converged_


@pytest.mark.parametrize("cls", [olbook.AveragedPerceptron, olbook.VotedPerceptron])
def test_averaged_and_voted_make_every_pass(cls):
    X, y, _ = make_separable(30, 2, margin=0.3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = cls(max_iter=25).fit(X, y)
    assert est.n_iter_ == 25 and est.converged_
    assert est.trace_.n_rounds == 25 * 30


# --------------------------------------------------------------------------- normalized perceptron
def _unit_rows(X, fit_intercept):
    A = (
        np.hstack([X, np.ones((X.shape[0], 1))])
        if fit_intercept
        else np.asarray(X, dtype=float)
    )
    return A / np.linalg.norm(A, axis=1)[:, None]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(("name", "X", "y"), DATASETS, ids=DATA_IDS)
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("epochs", [1, 4])
def test_normalized_equals_perceptron_on_unit_rows(name, X, y, fit_intercept, epochs):
    A = _unit_rows(X, fit_intercept)
    ref = olbook.Perceptron(max_iter=epochs).fit(A, y)
    npc = olbook.NormalizedPerceptron(fit_intercept=fit_intercept, max_iter=epochs).fit(
        X, y
    )
    d = X.shape[1]
    assert np.allclose(npc.coef_[0], ref.coef_[0, :d], rtol=1e-12, atol=1e-12)
    assert np.isclose(
        npc.intercept_[0],
        ref.coef_[0, d] if fit_intercept else 0.0,
        rtol=1e-12,
        atol=1e-12,
    )
    assert np.array_equal(npc.trace_.mistakes, ref.trace_.mistakes)
    assert np.array_equal(npc.trace_.updates, ref.trace_.updates)
    assert npc.n_iter_ == ref.n_iter_
    # And the same as the plain reference loop on unit rows.
    w, _, m, u, _ = reference_perceptron(A, y, epochs=epochs)
    assert np.array_equal(npc.trace_.updates, u) and np.array_equal(
        npc.trace_.mistakes, m
    )
    # The normalized score; the sign agrees with the raw score.
    assert np.allclose(npc.decision_function(X), A @ w, rtol=1e-10, atol=1e-12)
    raw = X @ npc.coef_[0] + npc.intercept_[0]
    assert np.array_equal(npc.predict(X), np.where(raw > 0, 1.0, -1.0))


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_normalized_first_round_always_update(fit_intercept, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((5, 3)) * 10.0 ** rng.uniform(-3, 3)
    y = rng.choice([-1.0, 1.0], 5)
    npc = olbook.NormalizedPerceptron(fit_intercept=fit_intercept).fit(X, y)
    assert npc.trace_.updates[0]
    assert npc.trace_.mistakes[0] == (y[0] > 0)
    # The source's start w = l_1 a_1 / |a_1| is what the first update produces.
    a1 = _unit_rows(X[:1], fit_intercept)[0]
    first = olbook.NormalizedPerceptron(fit_intercept=fit_intercept).fit(X[:1], y[:1])
    got = (
        np.append(first.coef_[0], first.intercept_[0])
        if fit_intercept
        else first.coef_[0]
    )
    assert np.allclose(got, y[0] * a1)
    assert np.isclose(np.linalg.norm(got), 1.0)


def test_normalized_zero_example():
    X = np.array([[1.0, 2.0], [0.0, 0.0], [3.0, -1.0]])
    y = np.array([1.0, -1.0, 1.0])
    with pytest.raises(ValueError, match="example 1 is the zero vector"):
        olbook.NormalizedPerceptron().fit(X, y)
    npc = olbook.NormalizedPerceptron().fit(X[[0, 2]], y[[0, 2]])
    with pytest.raises(ValueError, match="zero vector"):
        npc.predict(X)
    # With an intercept the augmented example (0, 0, 1) is not zero.
    ok = olbook.NormalizedPerceptron(fit_intercept=True).fit(X, y)
    assert ok.trace_.n_rounds == 3


def test_normalized_is_scale_invariant():
    X, y, _, _ = make_noisy(40, 3, margin=0.1, flip=0.1, random_state=6)
    scales = np.random.default_rng(0).uniform(0.01, 100.0, size=40)
    a = olbook.NormalizedPerceptron(max_iter=3)
    b = olbook.NormalizedPerceptron(max_iter=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", olbook.ConvergenceWarning)
        a.fit(X, y)
        b.fit(X * scales[:, None], y)
    assert np.array_equal(a.trace_.updates, b.trace_.updates)
    assert np.allclose(a.coef_[0], b.coef_[0], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_normalized_bound(fit_intercept, seed):
    """n_updates_ - 1 <= 1/delta^2 - 1, delta the margin of the unit rows."""
    rng = np.random.default_rng(seed)
    X, y, u = make_separable(
        50, 3, margin=0.05, radius=rng.uniform(0.5, 5.0), random_state=seed
    )
    b = 0.0
    if fit_intercept:
        b = rng.uniform(-1.0, 1.0)
        X = X - b * u  # y (u.x' + b) = y u.x >= gamma
    A = _unit_rows(X, fit_intercept)
    uh = np.append(u, b) if fit_intercept else u
    delta = olbook.margin(A, y, uh)
    assert delta > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        npc = olbook.NormalizedPerceptron(
            fit_intercept=fit_intercept, max_iter=100_000
        ).fit(X, y)
    assert npc.converged_
    assert npc.n_updates_ - 1 <= 1.0 / delta**2 - 1.0
    assert np.array_equal(npc.predict(X), y)


@pytest.mark.parametrize(("first", "then"), [(False, True), (True, False)])
def test_normalized_fit_intercept_changed_before_partial_fit(first, then):
    X = np.array([[1.0, 2.0], [3.0, -1.0], [-2.0, 1.0]])
    y = np.array([1.0, -1.0, 1.0])
    est = olbook.NormalizedPerceptron(fit_intercept=first).fit(X, y)
    est.fit_intercept = then
    try:
        est.partial_fit(X, y)
    except ValueError:
        return  # a clear rejection is acceptable
    assert est.coef_.shape == (1, 2)
    assert est.predict(X).shape == (3,)


@pytest.mark.parametrize(
    "cls", [olbook.Perceptron, olbook.AveragedPerceptron, olbook.VotedPerceptron]
)
def test_fit_intercept_changed_before_partial_fit_is_refused(cls):
    """One rule for every online learner (OnlineLearner._structural_params): a continued
    run keeps the fit_intercept it started with; the refused call changes nothing."""
    X, y, _, _ = make_noisy(20, 2, margin=0.1, flip=0.2, random_state=0)
    est = cls().fit(X, y)
    before = pickle.dumps(est)
    est.fit_intercept = True
    with pytest.raises(
        ValueError, match="fit_intercept changed since this learner started"
    ):
        est.partial_fit(X, y)
    est.fit_intercept = False
    assert pickle.dumps(est) == before
    assert cls(fit_intercept=True).fit(X, y).partial_fit(X, y).n_iter_ == 2
