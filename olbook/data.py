"""Data for the experiments of the book: synthetic sets with a prescribed geometry,
orderings that make the perceptron err, and scikit-learn's bundled real data.

Everything here is generated locally or read from the data files that ship
inside scikit-learn; nothing is downloaded.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from ._rowops import row_score
from ._validation import (
    check_positive_float,
    check_positive_int,
    check_probability,
    check_rng,
    check_X_y,
)

__all__ = [
    "SeparableData",
    "NoisyData",
    "random_unit_vector",
    "make_separable",
    "make_noisy",
    "make_shell",
    "make_orthogonal_worst_case",
    "greedy_adversarial_order",
    "load_binary",
    "REAL_DATASETS",
]


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


def _check_geometry(n_samples, n_features, margin, radius, *, min_features: int):
    """Validate the size, margin and radius asked of a synthetic separable data set."""
    n = check_positive_int(n_samples, "n_samples")
    d = check_positive_int(n_features, "n_features")
    if n < 2:
        raise ValueError(f"n_samples must be >= 2 so that both classes appear; got {n}.")
    if d < min_features:
        raise ValueError(f"n_features must be >= {min_features}; got {d}.")
    gamma = check_positive_float(margin, "margin")
    R = check_positive_float(radius, "radius")
    if gamma > R:
        raise ValueError(f"margin must not exceed radius; got margin={gamma} > radius={R}.")
    return n, d, gamma, R


def _separator_and_labels(n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random unit separator and random labels, example 0 labelled +1 and example 1 labelled -1."""
    u = random_unit_vector(d, rng)
    y = rng.choice(np.array([-1.0, 1.0]), size=n)
    y[0], y[1] = 1.0, -1.0
    return u, y


def _orthogonal_directions(n: int, u: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``n`` random unit vectors orthogonal to the unit vector ``u`` (needs ``len(u) >= 2``)."""
    Z = rng.standard_normal((n, u.shape[0]))
    Z -= np.outer(Z @ u, u)
    norms = np.linalg.norm(Z, axis=1)
    while np.any(norms == 0.0):  # probability zero; never divide by zero
        bad = norms == 0.0
        Z[bad] = rng.standard_normal((int(bad.sum()), u.shape[0]))
        Z[bad] -= np.outer(Z[bad] @ u, u)
        norms = np.linalg.norm(Z, axis=1)
    return Z / norms[:, None]


def make_separable(
    n_samples: int,
    n_features: int,
    *,
    margin: float,
    radius: float = 1.0,
    random_state=None,
) -> SeparableData:
    r"""Linearly separable data whose radius and margin are exactly the ones asked for.

    A unit vector :math:`\mathbf u` is drawn at random; every example is
    :math:`\mathbf x_i = y_i t_i \mathbf u + \mathbf z_i` with
    :math:`t_i \in [\gamma, R]` and :math:`\mathbf z_i \perp \mathbf u`,
    :math:`\|\mathbf z_i\|^2 \le R^2 - t_i^2`. Example 0 has
    :math:`t_0 = \gamma` and :math:`\|\mathbf x_0\| = R` (when
    ``n_features >= 2``; with one feature example 1 has norm :math:`R`), so

    .. math:: \max_i \|\mathbf x_i\| = R, \qquad \min_i y_i\,\mathbf u^\top \mathbf x_i = \gamma

    hold exactly (up to rounding), as the Block--Novikoff theorem
    (book section 1.3, label ``perc-thm-novikoff``) needs.

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
    n, d, gamma, R = _check_geometry(n_samples, n_features, margin, radius, min_features=1)
    rng = check_rng(random_state)
    u, y = _separator_and_labels(n, d, rng)
    t = rng.uniform(gamma, R, size=n)
    t[0] = gamma
    if d == 1:
        t[1] = R
        X = (y * t)[:, None] * u[None, :]
        return SeparableData(X, y, u)
    # Perpendicular parts: a random direction orthogonal to u and a random length.
    Z = _orthogonal_directions(n, u, rng)
    room = np.sqrt(np.maximum(R * R - t * t, 0.0))
    length = room * rng.uniform(0.0, 1.0, size=n)
    length[0] = room[0]
    X = (y * t)[:, None] * u[None, :] + length[:, None] * Z
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
    X, y, u = make_separable(n_samples, n_features, margin=margin, radius=radius, random_state=rng)
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
    r"""Separable data with *every* example at norm :math:`R` and margin exactly :math:`\gamma`.

    Each example is :math:`\mathbf x_i = y_i\gamma\,\mathbf u + \sqrt{R^2-\gamma^2}\,\mathbf z_i`
    with :math:`\mathbf z_i` a random unit vector orthogonal to :math:`\mathbf u`:
    the examples lie on the "shell" where both inequalities of the
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
    n, d, gamma, R = _check_geometry(n_samples, n_features, margin, radius, min_features=2)
    rng = check_rng(random_state)
    u, y = _separator_and_labels(n, d, rng)
    Z = _orthogonal_directions(n, u, rng)
    X = (y * gamma)[:, None] * u[None, :] + np.sqrt(R * R - gamma * gamma) * Z
    return SeparableData(X, y, u)


def make_orthogonal_worst_case(
    n_mistakes: int, n_features: int | None = None, *, radius: float = 1.0, random_state=None
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
        raise ValueError(f"n_features must be >= n_mistakes (orthogonal examples); got {d} < {k}.")
    R = check_positive_float(radius, "radius")
    rng = check_rng(random_state)
    Q = np.zeros((d, k))
    Q[rng.permutation(d)[:k], np.arange(k)] = rng.choice([-1.0, 1.0], size=k)
    X = R * Q.T
    y = np.ones(k)
    u = Q.sum(axis=1) / np.sqrt(k)
    return SeparableData(np.ascontiguousarray(X), y, u)


@numba.njit(cache=True)
def _greedy_order(X, y, u, max_rounds):  # pragma: no cover - compiled
    n, d = X.shape
    w = np.zeros(d)
    order = np.empty(max_rounds, dtype=np.int64)
    progress = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(d):
            s += u[j] * X[i, j]
        progress[i] = y[i] * s
    sqnorm = np.empty(n)
    for i in range(n):
        s = 0.0
        for j in range(d):
            s += X[i, j] * X[i, j]
        sqnorm[i] = s
    rounds = 0
    while rounds < max_rounds:
        best = -1
        best_progress = np.inf
        best_growth = -np.inf
        for i in range(n):
            f, _ = row_score(w, X, i)  # the perceptron's own score, to the last bit
            ywx = y[i] * f
            if ywx <= 0.0:
                growth = sqnorm[i] + 2.0 * ywx
                if progress[i] < best_progress or (progress[i] == best_progress and growth > best_growth):
                    best = i
                    best_progress = progress[i]
                    best_growth = growth
        if best < 0:
            break
        for j in range(d):
            w[j] += y[best] * X[best, j]
        order[rounds] = best
        rounds += 1
    return order[:rounds]


def greedy_adversarial_order(X, y, u, *, max_rounds: int = 100_000) -> np.ndarray:
    r"""A sequence of example indices chosen to make the perceptron err often.

    An adversary that knows the separator :math:`\mathbf u` replays the
    perceptron (start at 0, update :math:`\mathbf w \leftarrow \mathbf w + y\mathbf x`
    when :math:`y\,\mathbf w^\top\mathbf x \le 0`) and, at every round,
    presents the misclassified example that makes the least progress towards
    :math:`\mathbf u` (smallest :math:`y\,\mathbf u^\top \mathbf x`), breaking
    ties by the largest growth of :math:`\|\mathbf w\|^2`. These are the two
    quantities of the Block--Novikoff proof (book section 1.3): the adversary
    makes both of its inequalities as loose as it can.

    Every round of the returned sequence is an update, so feeding
    ``X[order], y[order]`` to :class:`olbook.Perceptron` in one pass
    reproduces ``len(order)`` updates. It ends when no example is
    misclassified any more (or after ``max_rounds``).

    Returns
    -------
    numpy.ndarray of int
        The indices, in the order the adversary presents them (repeats allowed).
    """
    Xa, ya = check_X_y(X, y)
    ua = np.asarray(u, dtype=np.float64).ravel()
    if ua.shape[0] != Xa.shape[1]:
        raise ValueError(f"u has {ua.shape[0]} entries but X has {Xa.shape[1]} features.")
    m = check_positive_int(max_rounds, "max_rounds")
    return _greedy_order(Xa, ya, ua, m)


# name -> what the data set is and which class is +1
REAL_DATASETS = {
    "breast_cancer": "Wisconsin diagnostic breast cancer, 569 x 30: malignant +1, benign -1",
    "iris_setosa": "Iris, 150 x 4: setosa +1, versicolor and virginica -1 (linearly separable)",
    "iris_versicolor_virginica": "Iris, 100 x 4: versicolor +1, virginica -1 (not linearly separable)",
    "wine": "Wine, 178 x 13: cultivar 0 +1, cultivars 1 and 2 -1",
    "digits_3_vs_8": "Digits, 357 x 64 (8x8 images): digit 3 +1, digit 8 -1",
}


def load_binary(name: str, *, standardize: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Load one of scikit-learn's bundled data sets as a binary problem with labels ±1.

    Nothing is downloaded: these data files ship inside scikit-learn.

    Parameters
    ----------
    name : str
        One of the keys of :data:`REAL_DATASETS`: ``"breast_cancer"``,
        ``"iris_setosa"``, ``"iris_versicolor_virginica"``, ``"wine"``,
        ``"digits_3_vs_8"``.
    standardize : bool, default=False
        Scale every feature to mean 0 and standard deviation 1 (over the whole
        set; constant features are left at 0).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), values in {-1, +1}
    """
    from sklearn import datasets

    if name == "breast_cancer":
        data = datasets.load_breast_cancer()
        X, y = data.data, np.where(data.target == 0, 1.0, -1.0)
    elif name == "iris_setosa":
        data = datasets.load_iris()
        X, y = data.data, np.where(data.target == 0, 1.0, -1.0)
    elif name == "iris_versicolor_virginica":
        data = datasets.load_iris()
        keep = data.target > 0
        X, y = data.data[keep], np.where(data.target[keep] == 1, 1.0, -1.0)
    elif name == "wine":
        data = datasets.load_wine()
        X, y = data.data, np.where(data.target == 0, 1.0, -1.0)
    elif name == "digits_3_vs_8":
        data = datasets.load_digits()
        keep = (data.target == 3) | (data.target == 8)
        X, y = data.data[keep], np.where(data.target[keep] == 3, 1.0, -1.0)
    else:
        raise ValueError(f"unknown data set {name!r}; choose one of {sorted(REAL_DATASETS)}.")
    X = np.ascontiguousarray(X, dtype=np.float64)
    if standardize:
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return X, y
