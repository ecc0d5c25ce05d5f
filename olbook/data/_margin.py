"""Data sets of chapter 2: the *Foundations of Data Science* draft's family with an
exponentially small margin, and two spirals."""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_float, check_positive_int, check_rng
from ._grid import SeparableData, grid_step

MAX_PARITY_FEATURES = 20
"""Largest ``n_features`` of :func:`make_first_one_parity` (``2**20 - 1`` examples)."""


def first_one_parity_labels(X) -> np.ndarray:
    r"""Labels of the *Foundations of Data Science* draft's rule: +1 if the first 1 sits at an odd position.

    Positions are counted from 1, as in the source: :math:`(1, 0, \dots)` is
    +1, :math:`(0, 1, \dots)` is -1, :math:`(0, 0, 1, \dots)` is +1. Every row
    must contain a 1 and only the values 0 and 1.
    """
    A = np.asarray(X, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] == 0 or A.shape[1] == 0:
        raise ValueError(f"X must be a non-empty 2-D array; got shape {A.shape}.")
    if not np.all((A == 0.0) | (A == 1.0)):
        raise ValueError("X must contain only the values 0 and 1.")
    ones = A == 1.0
    if not np.all(ones.any(axis=1)):
        raise ValueError(
            "every row of X must contain a 1 (the zero vector has no label)."
        )
    first = np.argmax(ones, axis=1)  # 0-based index of the first 1
    return np.where(first % 2 == 0, 1, -1).astype(np.int64)


def make_first_one_parity(n_features: int) -> SeparableData:
    r"""All nonzero 0/1 vectors of length :math:`d`, labelled by the "first 1 is odd" rule.

    The *Foundations of Data Science* draft (Hopcroft and Kannan), section 6.2 (book section 2.2): the examples are the
    :math:`2^d - 1` vectors of :math:`\{0,1\}^d \setminus \{\mathbf 0\}`; an
    example is +1 if the index (counted from 1) of its first coordinate equal
    to 1 is odd, -1 if it is even. The separator through the origin

    .. math:: \mathbf w = \left(1, -\tfrac12, \tfrac14, -\tfrac18, \dots, (-\tfrac12)^{d-1}\right)

    labels every example correctly (the first 1 outweighs all later terms,
    whose absolute values sum to less than its own); ``u`` is this vector
    divided by its norm. All coordinates are exact (0 or 1), so every score of
    a perceptron on this data is an exact integer in float64.

    Rows are in the order of the integers :math:`1, \dots, 2^d - 1` written in
    binary with the first coordinate as the most significant bit.

    Parameters
    ----------
    n_features : int
        :math:`d`, with ``1 <= n_features <= 20``.

    Returns
    -------
    SeparableData
        ``(X, y, u)``, ``X`` of shape ``(2**d - 1, d)``.
    """
    d = check_positive_int(n_features, "n_features")
    if d > MAX_PARITY_FEATURES:
        raise ValueError(
            f"n_features must be <= {MAX_PARITY_FEATURES} (2**d - 1 examples); got {d}."
        )
    k = np.arange(1, 2**d, dtype=np.int64)
    shifts = np.arange(d - 1, -1, -1, dtype=np.int64)
    X = ((k[:, None] >> shifts[None, :]) & 1).astype(np.float64)
    y = first_one_parity_labels(X)
    w = (-0.5) ** np.arange(d)
    return SeparableData(np.ascontiguousarray(X), y, w / np.sqrt(np.sum(w * w)))


def make_spirals(
    n_samples: int,
    *,
    turns: float = 1.5,
    radius: float = 1.0,
    noise: float = 0.0,
    random_state=None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Two intertwined spirals in the plane, one per class, on a dyadic grid.

    The *Foundations of Data Science* draft, section 6.3, example of the Gaussian kernel (book section 2.6).
    Arm +1 is :math:`r(t)\,(\cos\theta(t), \sin\theta(t))` with
    :math:`r = R\,(0.1 + 0.9\,t)` and :math:`\theta = 2\pi\,\text{turns}\,t`
    for :math:`t \in [0, 1]`; arm -1 is arm +1 turned by :math:`\pi`
    (the point :math:`-\mathbf x`). The parameters :math:`t` are drawn
    uniformly and sorted, so consecutive rows are neighbours along their arm:
    the first ``n_samples // 2`` rows are arm +1 in order, the rest arm -1.
    Optional Gaussian ``noise`` (standard deviation, in units of :math:`R`)
    is added; then every coordinate is rounded to the grid of step
    ``2**(e - GRID_BITS)`` with ``2**e <= R`` (:data:`GRID_BITS`), so the data
    are exact and identical on every machine. Two successive turns of one arm are
    about :math:`0.9R/\text{turns}` apart and the other arm runs half-way between.

    Parameters
    ----------
    n_samples : int
        Total number of points, ``>= 2`` (arm +1 gets ``n_samples - n_samples // 2``).
    turns : float, default=1.5
        Number of turns of each arm, ``> 0``.
    radius : float, default=1.0
        :math:`R`, ``> 0``.
    noise : float, default=0.0
        Standard deviation of the added noise relative to :math:`R`, ``>= 0``.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,), +1 for the first arm, -1 for the second
    """
    n = check_positive_int(n_samples, "n_samples")
    if n < 2:
        raise ValueError(f"n_samples must be >= 2 so that both arms appear; got {n}.")
    tw = check_positive_float(turns, "turns")
    R = check_positive_float(radius, "radius")
    if not (
        isinstance(noise, (int, float, np.integer, np.floating))
        and np.isfinite(noise)
        and noise >= 0
    ):
        raise ValueError(f"noise must be a finite number >= 0; got {noise!r}.")
    rng = check_rng(random_state)
    n_neg = n // 2
    n_pos = n - n_neg
    t = np.concatenate(
        [
            np.sort(rng.uniform(0.0, 1.0, size=n_pos)),
            np.sort(rng.uniform(0.0, 1.0, size=n_neg)),
        ]
    )
    sign = np.concatenate([np.ones(n_pos), -np.ones(n_neg)])
    r = R * (0.1 + 0.9 * t)
    theta = 2.0 * np.pi * tw * t
    X = sign[:, None] * np.column_stack([r * np.cos(theta), r * np.sin(theta)])
    if noise > 0:
        X = X + float(noise) * R * rng.standard_normal(X.shape)
    step = grid_step(R)
    X = np.round(X / step) * step
    return np.ascontiguousarray(X), sign.astype(np.int64)
