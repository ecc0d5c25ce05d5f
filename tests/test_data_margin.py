"""Tests of the chapter-2 generators in olbook.data: the "first 1 is odd" family and the spirals."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olbook.data import (
    GRID_BITS,
    first_one_parity_labels,
    make_first_one_parity,
    make_spirals,
)


@pytest.mark.parametrize("d", [1, 2, 5, 10])
def test_parity_family_shape_and_rows(d):
    X, y, u = make_first_one_parity(d)
    assert X.shape == (2**d - 1, d) and y.shape == (2**d - 1,)
    assert set(np.unique(X)) <= {0.0, 1.0} and set(np.unique(y)) <= {-1.0, 1.0}
    # every nonzero 0/1 vector exactly once
    assert (
        len({tuple(r) for r in X.astype(int)}) == 2**d - 1 and X.sum(axis=1).min() == 1
    )
    assert np.isclose(np.linalg.norm(u), 1.0)


@given(st.integers(1, 12), st.data())
@settings(max_examples=40)
def test_parity_rule_by_hand(d, data):
    X, y, _ = make_first_one_parity(d)
    i = data.draw(st.integers(0, len(y) - 1))
    # 1-based index of the first 1
    first = next(j for j in range(d) if X[i, j] == 1.0) + 1
    assert y[i] == (1.0 if first % 2 == 1 else -1.0)


@pytest.mark.parametrize("d", [1, 3, 8, 12])
def test_source_separator_is_exact(d):
    X, y, u = make_first_one_parity(d)
    w = np.array([(-1) ** j * 2 ** (d - 1 - j) for j in range(d)], dtype=np.int64)
    assert np.all(y.astype(np.int64) * (X.astype(np.int64) @ w) > 0)
    assert np.all(y * (X @ u) > 0)


def test_parity_labels_examples_and_errors():
    assert list(first_one_parity_labels([[1, 0, 0], [0, 1, 1], [0, 0, 1]])) == [
        1.0,
        -1.0,
        1.0,
    ]
    with pytest.raises(ValueError, match="contain a 1"):
        first_one_parity_labels([[0, 0]])
    with pytest.raises(ValueError, match="0 and 1"):
        first_one_parity_labels([[0.5, 1]])
    with pytest.raises(ValueError, match="2-D"):
        first_one_parity_labels([1, 0])


@pytest.mark.parametrize("bad", [0, -1, 21, 2.5, "3", None])
def test_parity_family_rejects_bad_dimension(bad):
    with pytest.raises(ValueError):
        make_first_one_parity(bad)


def test_spirals_shape_labels_order_grid():
    X, y = make_spirals(101, random_state=0)
    assert X.shape == (101, 2) and y.shape == (101,)
    assert np.all(y[:51] == 1.0) and np.all(y[51:] == -1.0)
    step = 2.0 ** (0 - GRID_BITS)
    assert np.array_equal(np.round(X / step) * step, X)
    assert np.max(np.hypot(X[:, 0], X[:, 1])) <= 1.0 + 1e-12


def test_spirals_reproducible_and_seed_dependent():
    a = make_spirals(50, turns=2.0, noise=0.01, random_state=7)
    b = make_spirals(50, turns=2.0, noise=0.01, random_state=np.random.default_rng(7))
    c = make_spirals(50, turns=2.0, noise=0.01, random_state=8)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_spirals_radii_within_range():
    X, y = make_spirals(4, random_state=3)
    r = np.hypot(X[:, 0], X[:, 1])
    assert np.all((r >= 0.1 - 1e-6) & (r <= 1.0 + 1e-6))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(n_samples=1),
        dict(n_samples=0),
        dict(n_samples=10, turns=0),
        dict(n_samples=10, radius=-1.0),
        dict(n_samples=10, noise=-0.1),
        dict(n_samples=10, noise=float("nan")),
        dict(n_samples=10, turns=float("inf")),
    ],
)
def test_spirals_reject_bad_input(kwargs):
    with pytest.raises(ValueError):
        make_spirals(**kwargs)
