"""Shared fixtures and plain-numpy reference implementations for the olbook tests.

The reference loops here are written from the textbook definitions, independently
of olbook's compiled kernels, so that the tests compare two implementations rather
than olbook with itself.
"""

from __future__ import annotations

import copy
import os

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

import olbook  # noqa: E402

# Hypothesis: one profile for every property test, chosen by HYPOTHESIS_PROFILE (default "ci"),
# and the only place where hypothesis settings other than max_examples are set.
# "ci": 100 examples per property (a test may ask for fewer with max_examples), derandomized
# (the same search on every run, so CI is reproducible), no example database, and no
# deadline: on a fresh clone the first example of a test compiles numba's loops (seconds),
# and on a shared 2-core machine wall-clock time per example says nothing about olbook.
# "thorough": ten times the examples, a fresh random search on every run; run it before
# changing a bound or a learner: HYPOTHESIS_PROFILE=thorough pytest tests/test_properties_*.py
settings.register_profile(
    "ci",
    max_examples=100,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
)
settings.register_profile(
    "thorough", settings.get_profile("ci"), max_examples=1000, derandomize=False
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: The online learners (fit, partial_fit, trace_).
ONLINE_LEARNERS = [
    olbook.Perceptron,
    olbook.NormalizedPerceptron,
    olbook.AveragedPerceptron,
    olbook.VotedPerceptron,
]
#: Every learner class of olbook.
ALL_LEARNERS = [*ONLINE_LEARNERS, olbook.Pocket]


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every matplotlib figure after each test."""
    yield
    plt.close("all")


def reference_perceptron(
    X, y, *, fit_intercept=False, epochs=1, stop_when_converged=True, w=None, b=0.0
):
    """The perceptron of the book, one example at a time, in plain Python/numpy.

    Round: f = w.x + b; predict +1 iff f > 0; update w += y x, b += y iff y f <= 0.
    Returns (w, b, mistakes, updates, history) where history[t] = (w_t, b_t) is the
    state *after* round t.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.zeros(X.shape[1]) if w is None else np.array(w, dtype=np.float64)
    b = float(b)
    mistakes, updates, history = [], [], []
    for _ in range(epochs):
        updated = False
        for xi, yi in zip(X, y, strict=True):
            f = float(np.dot(w, xi)) + (b if fit_intercept else 0.0)
            prediction = 1.0 if f > 0.0 else -1.0
            mistakes.append(prediction != yi)
            update = yi * f <= 0.0
            updates.append(update)
            if update:
                w = w + yi * xi
                if fit_intercept:
                    b += yi
                updated = True
            history.append((w.copy(), b))
        if stop_when_converged and not updated:
            break
    return w, b, np.array(mistakes, dtype=bool), np.array(updates, dtype=bool), history


def snapshot(est) -> dict:
    """A deep copy of a learner's attributes (arrays copied, a Trace by its arrays)."""
    out = {}
    for key, value in est.__dict__.items():
        if isinstance(value, np.ndarray):
            out[key] = value.copy()
        elif isinstance(value, olbook.Trace):
            out[key] = (
                "Trace",
                value.mistakes.copy(),
                value.updates.copy(),
                value.epoch_ends.copy(),
            )
        else:
            out[key] = copy.deepcopy(value)
    return out


def assert_same_state(before: dict, est) -> None:
    """Assert that ``est`` has exactly the attributes recorded in ``before``."""
    after = snapshot(est)
    assert set(after) == set(before), f"attributes changed: {set(after) ^ set(before)}"
    for key, old in before.items():
        new = after[key]
        if isinstance(old, np.ndarray):
            assert isinstance(new, np.ndarray), key
            assert old.dtype == new.dtype, key
            assert np.array_equal(old, new), key
        elif isinstance(old, tuple) and old and old[0] == "Trace":
            assert new[0] == "Trace", key
            for a, c in zip(old[1:], new[1:], strict=True):
                assert np.array_equal(a, c), key
        else:
            assert type(old) is type(new), key
            assert old == new, key


def xor_data():
    """The four XOR points: not linearly separable, with or without intercept."""
    X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    return X, y


def started_at(learner, w):
    """``learner`` (an online linear classifier) started, with its weights set to ``w``.

    The per-round tests need one round taken from a given state; this is the
    state ``partial_fit`` continues from.
    """
    learner._validate_params()
    learner._start(len(w), olbook._base.CLASSES.copy())
    w = np.array(w, dtype=np.float64)
    if hasattr(learner, "_publish"):  # weights kept with the bias feature, if any
        learner._publish(w)
    else:
        learner.coef_ = w[None, :]
    return learner
