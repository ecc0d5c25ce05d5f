"""Property-based check of the Block-Novikoff bound: the perceptron never updates more
than (R/gamma)^2 times, whatever the data, order, number of passes and intercept.

Every bound is compared with a relative slack of 1e-9: the theorem is exact, but
R and gamma are computed in floating point, and on data where the bound is attained
(an integer number of updates) rounding could otherwise put it 1 ulp below.
"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import olbook
from olbook.data import greedy_adversarial_order, make_orthogonal_worst_case, make_separable, make_shell

SLACK = 1 + 1e-9


@st.composite
def separable_problems(draw):
    """(X, y, u, b, fit_intercept): separable by (u, b) with a controlled margin and radius."""
    n = draw(st.integers(2, 30))
    d = draw(st.integers(1, 6))
    R = draw(st.floats(0.1, 20.0))
    ratio = draw(st.floats(0.05, 1.0))  # gamma / R
    seed = draw(st.integers(0, 2**32 - 1))
    shell = draw(st.booleans()) and d >= 2
    maker = make_shell if shell else make_separable
    X, y, u = maker(n, d, margin=ratio * R, radius=R, random_state=seed)
    fit_intercept = draw(st.booleans())
    b = draw(st.floats(-3.0, 3.0)) if fit_intercept else 0.0
    # Shift along u: y (u.x' + b) = y u.x >= gamma, so (u, b) separates the shifted data.
    X = X - b * u
    return X, y, u, b, fit_intercept, seed


@settings(max_examples=150, deadline=None)
@given(problem=separable_problems(), epochs=st.integers(1, 30), perm_seed=st.integers(0, 2**32 - 1))
def test_perceptron_updates_within_novikoff_bound(problem, epochs, perm_seed):
    X, y, u, b, fit_intercept, _ = problem
    order = np.random.default_rng(perm_seed).permutation(X.shape[0])
    mb = olbook.perceptron_bound(X, y, u, b, fit_intercept=fit_intercept)
    p = olbook.Perceptron(fit_intercept=fit_intercept, max_iter=epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", olbook.ConvergenceWarning)
        p.fit(X[order], y[order])
    assert p.mistakes_ <= p.n_updates_ <= mb.bound * SLACK
    # Consistency of the bound with its parts.
    assert np.isclose(mb.bound, (mb.radius / mb.margin) ** 2)
    # With enough passes the perceptron converges (the bound caps the updates).
    if epochs > mb.bound + 1:
        assert p.converged_
        assert np.array_equal(p.predict(X), y)


@settings(max_examples=100, deadline=None)
@given(problem=separable_problems())
def test_greedy_adversary_within_novikoff_bound(problem):
    X, y, u, b, fit_intercept, _ = problem
    mb = olbook.perceptron_bound(X, y, u, b, fit_intercept=fit_intercept)
    if fit_intercept:
        # The adversary plays against the perceptron on augmented vectors (x, 1), separator (u, b).
        A = np.hstack([X, np.ones((X.shape[0], 1))])
        order = greedy_adversarial_order(A, y, np.append(u, b))
    else:
        order = greedy_adversarial_order(X, y, u)
    assert len(order) <= mb.bound * SLACK
    p = olbook.Perceptron(fit_intercept=fit_intercept).fit(X[order], y[order])
    assert p.mistakes_ <= p.n_updates_ <= len(order)
    assert p.n_updates_ <= mb.bound * SLACK


@settings(max_examples=100, deadline=None)
@given(problem=separable_problems(), epochs=st.integers(1, 30), perm_seed=st.integers(0, 2**32 - 1))
def test_normalized_perceptron_within_inverse_delta_squared(problem, epochs, perm_seed):
    X, y, u, b, fit_intercept, _ = problem
    A = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    norms = np.linalg.norm(A, axis=1)
    if np.any(norms == 0.0):  # only possible without intercept; the learner rejects it
        return
    unit = A / norms[:, None]
    delta = olbook.margin(unit, y, np.append(u, b) if fit_intercept else u)
    assert delta > 0
    order = np.random.default_rng(perm_seed).permutation(X.shape[0])
    npc = olbook.NormalizedPerceptron(fit_intercept=fit_intercept, max_iter=epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", olbook.ConvergenceWarning)
        npc.fit(X[order], y[order])
    # the Foundations of Data Science draft: after the first update w = l_1 a_1, at most 1/delta^2 - 1 more.
    assert npc.n_updates_ - 1 <= (1.0 / delta**2 - 1.0) * SLACK + 1e-9
    assert npc.n_updates_ <= olbook.novikoff_bound(1.0, delta) * SLACK


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 12), extra=st.integers(0, 3), R=st.floats(0.1, 10.0), seed=st.integers(0, 2**32 - 1))
def test_orthogonal_worst_case_never_exceeds_k(k, extra, R, seed):
    X, y, u = make_orthogonal_worst_case(k, k + extra, radius=R, random_state=seed)
    mb = olbook.perceptron_bound(X, y, u)
    assert np.isclose(mb.bound, k, rtol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("error", olbook.ConvergenceWarning)
        p = olbook.Perceptron(max_iter=k + 2).fit(X, y)
    assert p.converged_
    assert p.mistakes_ <= p.n_updates_ <= k
