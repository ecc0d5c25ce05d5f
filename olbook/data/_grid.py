"""The dyadic grid of the synthetic data sets, their return types, and shared helpers (book section 1.3)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._rowops import row_sqnorms
from .._validation import check_positive_float, check_positive_int, check_rng


class SeparableData(NamedTuple):
    """A linearly separable data set and the unit vector that separates it.

    Unpacks as ``X, y, u = make_separable(...)``.
    """

    X: np.ndarray
    """Examples, shape (n_samples, n_features)."""
    y: np.ndarray
    """Labels in {-1, +1}, shape (n_samples,)."""
    u: np.ndarray
    """Unit separator through the origin: ``y * (X @ u) >= margin``."""


class NoisyData(NamedTuple):
    """A data set made non-separable by flipping labels of a separable one."""

    X: np.ndarray
    y: np.ndarray
    """Observed (possibly flipped) labels."""
    u: np.ndarray
    """Unit separator of the clean labels."""
    flipped: np.ndarray
    """Boolean mask of the examples whose label was flipped."""


def random_unit_vector(n_features: int, random_state=None) -> np.ndarray:
    """Draw a direction uniformly from the unit sphere in ``R^n_features``."""
    d = check_positive_int(n_features, "n_features")
    rng = check_rng(random_state)
    v = rng.standard_normal(d)
    while not np.any(v):  # probability zero, but never divide by zero
        v = rng.standard_normal(d)
    return v / np.linalg.norm(v)


def check_geometry(n_samples, n_features, margin, radius, *, min_features: int):
    """Validate the size, margin and radius asked of a synthetic separable data set."""
    n = check_positive_int(n_samples, "n_samples")
    d = check_positive_int(n_features, "n_features")
    if n < 2:
        raise ValueError(
            f"n_samples must be >= 2 so that both classes appear; got {n}."
        )
    if d < min_features:
        raise ValueError(f"n_features must be >= {min_features}; got {d}.")
    gamma = check_positive_float(margin, "margin")
    R = check_positive_float(radius, "radius")
    if gamma > R:
        raise ValueError(
            f"margin must not exceed radius; got margin={gamma} > radius={R}."
        )
    return n, d, gamma, R


GRID_BITS = 20
"""Synthetic data lie on the dyadic grid of step ``2**(e - GRID_BITS)``, where ``2**e <= R < 2**(e + 1)``."""


def grid_step(R: float) -> float:
    """The grid step for data of radius ``R``.

    The power of two with ``R / 2**(GRID_BITS + 1) < step <= R / 2**GRID_BITS``.
    """
    return float(2.0 ** (np.floor(np.log2(R)) - GRID_BITS))


def separator_and_labels(
    n: int, d: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """A random signed coordinate axis as unit separator, and random labels (example 0 is +1, example 1 is -1)."""
    u = np.zeros(d)
    u[rng.integers(d)] = rng.choice(np.array([-1.0, 1.0]))
    y = rng.choice(np.array([-1, 1], dtype=np.int64), size=n)
    y[0], y[1] = 1, -1
    return u, y


def perpendicular(
    length: np.ndarray, u: np.ndarray, step: float, rng: np.random.Generator
) -> np.ndarray:
    """Random vectors orthogonal to the axis ``u``, of norm at most ``length``, on the grid of ``step``.

    A direction is drawn uniformly on the unit sphere of the other ``d - 1``
    coordinates and scaled to ``length``; every coordinate is then truncated
    towards 0 to a multiple of ``step``, so no norm grows (each shrinks by less
    than ``step * sqrt(d)``). Needs ``len(u) >= 2``.
    """
    n, d = length.shape[0], u.shape[0]
    axis = u != 0.0
    Z = rng.standard_normal((n, d))
    Z[:, axis] = 0.0
    norms = np.sqrt(row_sqnorms(Z))
    while np.any(norms == 0.0):  # probability zero; never divide by zero
        bad = norms == 0.0
        Z[bad] = rng.standard_normal((int(bad.sum()), d))
        Z[:, axis] = 0.0
        norms = np.sqrt(row_sqnorms(Z))
    return np.trunc(Z * (length / norms / step)[:, None]) * step


def on_axis(t: np.ndarray, y: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The examples ``y_i t_i u`` (``u`` a signed coordinate axis): exact, no rounding."""
    return (y * t)[:, None] * u[None, :]
