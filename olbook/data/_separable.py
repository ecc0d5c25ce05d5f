"""Synthetic linearly separable (and noisy) data sets of chapter 1, on the dyadic grid of :data:`GRID_BITS`."""

from __future__ import annotations

import numpy as np

from .._validation import (
    check_positive_float,
    check_positive_int,
    check_probability,
    check_rng,
)
from ._grid import (
    NoisyData,
    SeparableData,
    check_geometry,
    grid_step,
    on_axis,
    perpendicular,
    separator_and_labels,
)


def make_separable(
    n_samples: int,
    n_features: int,
    *,
    margin: float,
    radius: float = 1.0,
    random_state=None,
) -> SeparableData:
    r"""Linearly separable data with the radius and margin asked for, on a dyadic grid.

    The separator :math:`\mathbf u` is a coordinate axis with a random sign
    (the perceptron treats every rotation of the data alike, so this loses no
    generality); every example is :math:`\mathbf x_i = y_i t_i \mathbf u + \mathbf z_i`
    with :math:`t_i \in [\gamma, R]` and :math:`\mathbf z_i \perp \mathbf u`,
    :math:`\|\mathbf z_i\|^2 \le R^2 - t_i^2`. Example 0 has
    :math:`t_0 = \gamma` and the longest :math:`\mathbf z_0`, so

    .. math:: \max_i \|\mathbf x_i\| \approx R, \qquad \min_i y_i\,\mathbf u^\top \mathbf x_i = \gamma'

    as the Block--Novikoff theorem (book section 1.3,
    :prf:ref:`perc-thm-novikoff`) needs, where :math:`\gamma' \ge \gamma` is
    :math:`\gamma` rounded up to the grid.

    Every coordinate is a multiple of a power of two ``step`` with
    ``R / 2**21 < step <= R / 2**20`` (:data:`GRID_BITS`). Then every score
    :math:`\mathbf w^\top\mathbf x_i` of a perceptron trained on the data is
    computed *exactly* in float64, in any order of summation, as long as it has
    made fewer than about four million updates: its outcome is the same on every
    CPU, with every BLAS. The grid costs little: :math:`\gamma' - \gamma < ` ``step``
    and :math:`R - \sqrt d\,` ``step`` :math:`< \max_i\|\mathbf x_i\| \le R` (when
    :math:`\gamma'\le R`).

    Parameters
    ----------
    n_samples, n_features : int
        Size of the data set (``n_samples >= 2`` so both classes appear).
    margin : float
        :math:`\gamma`, with ``0 < margin <= radius``.
    radius : float, default=1.0
        :math:`R`.
    random_state : None, int or numpy.random.Generator
        Seed for :func:`numpy.random.default_rng`.

    Returns
    -------
    SeparableData
        ``(X, y, u)``.
    """
    n, d, gamma, R = check_geometry(
        n_samples, n_features, margin, radius, min_features=1
    )
    step = grid_step(R)
    rng = check_rng(random_state)
    u, y = separator_and_labels(n, d, rng)
    top = max(np.floor(R / step), np.ceil(gamma / step))
    t = np.minimum(np.ceil(rng.uniform(gamma, R, size=n) / step), top) * step
    t[0] = np.ceil(gamma / step) * step
    if d == 1:
        t[1] = top * step
        return SeparableData(on_axis(t, y, u), y, u)
    room = np.sqrt(np.maximum(R * R - t * t, 0.0))
    length = room * rng.uniform(0.0, 1.0, size=n)
    length[0] = room[0]
    X = on_axis(t, y, u) + perpendicular(length, u, step, rng)
    return SeparableData(X, y, u)


def make_noisy(
    n_samples: int,
    n_features: int,
    *,
    margin: float,
    radius: float = 1.0,
    flip: float = 0.1,
    random_state=None,
) -> NoisyData:
    """Separable data (see :func:`make_separable`) with a fraction ``flip`` of labels flipped.

    With ``flip > 0`` the data is, in general, no longer linearly separable:
    the setting of the pocket algorithm (book section 1.5).
    """
    p = check_probability(flip, "flip")
    rng = check_rng(random_state)
    X, y, u = make_separable(
        n_samples, n_features, margin=margin, radius=radius, random_state=rng
    )
    n_flip = int(round(p * X.shape[0]))
    flipped = np.zeros(X.shape[0], dtype=bool)
    flipped[rng.choice(X.shape[0], size=n_flip, replace=False)] = True
    y = np.where(flipped, -y, y)
    return NoisyData(X, y, u, flipped)


def make_shell(
    n_samples: int,
    n_features: int,
    *,
    margin: float,
    radius: float = 1.0,
    random_state=None,
) -> SeparableData:
    r"""Separable data with *every* example at norm :math:`\approx R` and margin exactly :math:`\gamma'`.

    Each example is :math:`\mathbf x_i = y_i\gamma'\,\mathbf u + \mathbf z_i` with
    :math:`\mathbf z_i \perp \mathbf u` of norm :math:`\sqrt{R^2-\gamma'^2}` in a random
    direction, where :math:`\mathbf u` is a coordinate axis with a random sign
    and :math:`\gamma'` is :math:`\gamma` rounded up to the grid (as in
    :func:`make_separable`, whose grid and exactness this shares). So
    :math:`y_i\mathbf u^\top\mathbf x_i = \gamma'` *exactly* for every example,
    and :math:`R - \sqrt d\,` ``step`` :math:`< \|\mathbf x_i\| \le R`.
    The examples lie on the "shell" where both inequalities of the
    Block--Novikoff proof (book section 1.3) can be nearly tight, so an
    adversarial order (:func:`greedy_adversarial_order`) makes the perceptron
    err close to :math:`(R/\gamma)^2` times when ``n_features`` is large
    enough. (With ``n_features == 2`` the shell is just four points.)

    Parameters
    ----------
    n_samples, n_features : int
        ``n_samples >= 2``, ``n_features >= 2``.
    margin, radius : float
        :math:`0 < \gamma \le R`.
    random_state : None, int or numpy.random.Generator
    """
    n, d, gamma, R = check_geometry(
        n_samples, n_features, margin, radius, min_features=2
    )
    step = grid_step(R)
    rng = check_rng(random_state)
    u, y = separator_and_labels(n, d, rng)
    t = np.full(n, np.ceil(gamma / step) * step)
    length = np.full(n, np.sqrt(max(R * R - t[0] * t[0], 0.0)))
    X = on_axis(t, y, u) + perpendicular(length, u, step, rng)
    return SeparableData(X, y, u)


def make_orthogonal_worst_case(
    n_mistakes: int,
    n_features: int | None = None,
    *,
    radius: float = 1.0,
    random_state=None,
) -> SeparableData:
    r"""The data on which the perceptron makes exactly :math:`(R/\gamma)^2` mistakes.

    The examples are :math:`R\,\mathbf q_1, \dots, R\,\mathbf q_k`, all
    labelled +1, where the :math:`\mathbf q_i` are ``k`` distinct standard
    basis vectors of :math:`\mathbb R^d` with random signs (a random signed
    permutation), and :math:`\mathbf u = \sum_i \mathbf q_i / \sqrt k`.
    Then :math:`\|\mathbf x_i\| = R`, :math:`\gamma = R/\sqrt k`, and the
    perceptron started at 0 sees :math:`\mathbf w^\top \mathbf x_i = 0` on
    every example, whatever the order: it errs ``k`` times, which is the
    Block--Novikoff bound :math:`(R/\gamma)^2 = k` (book section 1.3).

    Basis vectors rather than a random rotation keep the examples *exactly*
    orthogonal in floating point: the scores are exact zeros, not rounding
    errors of either sign, so every order gives exactly ``k`` mistakes.

    Parameters
    ----------
    n_mistakes : int
        :math:`k`, the number of examples and of mistakes.
    n_features : int, optional
        Ambient dimension, at least ``n_mistakes`` (default: ``n_mistakes``).
    radius : float, default=1.0
    random_state : None, int or numpy.random.Generator
    """
    k = check_positive_int(n_mistakes, "n_mistakes")
    d = k if n_features is None else check_positive_int(n_features, "n_features")
    if d < k:
        raise ValueError(
            f"n_features must be >= n_mistakes (orthogonal examples); got {d} < {k}."
        )
    R = check_positive_float(radius, "radius")
    rng = check_rng(random_state)
    Q = np.zeros((d, k))
    Q[rng.permutation(d)[:k], np.arange(k)] = rng.choice([-1.0, 1.0], size=k)
    X = R * Q.T
    y = np.ones(k, dtype=np.int64)
    u = Q.sum(axis=1) / np.sqrt(k)
    return SeparableData(np.ascontiguousarray(X), y, u)
