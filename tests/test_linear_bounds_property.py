"""Property-based checks of chapter 6's bounds on generated sequences (hypothesis).

Each test draws a stream and a comparator u, runs the learner one example at a time
(recording the hinge losses it suffered before each update), and compares with the
paper's bound. Slack 1e-9 relative: the bounds are exact, the data floating point.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import olbook

SLACK = 1 + 1e-9


def _losses(clf, X, y):
    """Feed (X, y) one example at a time; the hinge loss of each round before its update."""
    out = []
    for i in range(X.shape[0]):
        f = 0.0 if i == 0 else float(clf.decision_function(X[i:i + 1])[0])
        out.append(max(0.0, 1.0 - y[i] * f))
        clf.partial_fit(X[i:i + 1], y[i:i + 1])
    return np.array(out)


@st.composite
def streams(draw, separable=True):
    n = draw(st.integers(2, 40))
    d = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * draw(st.floats(0.1, 5.0))
    u = rng.standard_normal(d)
    s = X @ u
    y = np.where(s > 0, 1.0, -1.0)
    if separable:  # scale u so that y u.x >= 1 on every example
        m = np.min(np.abs(s))
        if m < 1e-6:
            X, y, s = X[np.abs(s) >= 1e-6], y[np.abs(s) >= 1e-6], s[np.abs(s) >= 1e-6]
            if X.shape[0] == 0:
                X, y, s = rng.standard_normal((1, d)), np.ones(1), np.ones(1)
                u = X[0] / (X[0] @ X[0])
                return X, y, u
            m = np.min(np.abs(s))
        u = u / m
    else:
        flip = rng.random(X.shape[0]) < draw(st.floats(0.0, 0.4))
        y = np.where(flip, -y, y)
    return X, y, u


@settings(max_examples=60, deadline=None)
@given(streams(separable=True))
def test_pa_separable_bound(stream):
    # Crammer et al. (2006), theorem 2: sum_t loss_t^2 <= ||u||^2 R^2 if y u.x >= 1 always.
    X, y, u = stream
    R2 = float(np.max(np.sum(X * X, axis=1)))
    losses = _losses(olbook.PassiveAggressive(variant="PA"), X, y)
    assert np.sum(losses**2) <= (u @ u) * R2 * SLACK


@settings(max_examples=60, deadline=None)
@given(streams(separable=False), st.sampled_from([0.01, 0.1, 1.0, 10.0]))
def test_pa2_bound_against_any_comparator(stream, C):
    # Theorem 5: sum_t loss_t^2 <= (R^2 + 1/(2C)) (||u||^2 + 2C sum_t loss_t(u)^2).
    X, y, u = stream
    R2 = float(np.max(np.sum(X * X, axis=1)))
    lu = np.maximum(0.0, 1.0 - y * (X @ u))
    losses = _losses(olbook.PassiveAggressive(variant="PA-II", C=C), X, y)
    assert np.sum(losses**2) <= (R2 + 1 / (2 * C)) * (u @ u + 2 * C * np.sum(lu**2)) * SLACK


@settings(max_examples=40, deadline=None)
@given(streams(separable=True))
def test_romma_and_perceptron_mistake_bound(stream):
    # ROMMA (Li and Long 2002) and the perceptron: at most (R ||u||)^2 mistakes when y u.x >= 1.
    X, y, u = stream
    bound = float(np.max(np.sum(X * X, axis=1))) * (u @ u) * SLACK
    for clf in (olbook.ROMMA(), olbook.Perceptron()):
        assert clf.fit(X, y).mistakes_ <= bound
