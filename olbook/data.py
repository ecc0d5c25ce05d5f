"""Data for the experiments of the book: synthetic sets with a prescribed geometry,
orderings that make the perceptron err, and scikit-learn's bundled real data.

Everything here is generated locally or read from the data files that ship
inside scikit-learn; nothing is downloaded.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from ._rowops import row_score, row_sqnorms
from ._validation import (
    check_positive_float,
    check_positive_int,
    check_probability,
    check_rng,
    check_X_y,
)

__all__ = [
    "GRID_BITS",
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


GRID_BITS = 20
"""Synthetic data lie on the dyadic grid of step ``2**(e - GRID_BITS)``, where ``2**e <= R < 2**(e + 1)``."""


def _grid_step(R: float) -> float:
    """The grid step for data of radius ``R``.

    The power of two with ``R / 2**(GRID_BITS + 1) < step <= R / 2**GRID_BITS``.
    """
    return float(2.0 ** (np.floor(np.log2(R)) - GRID_BITS))


def _separator_and_labels(n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A random signed coordinate axis as unit separator, and random labels (example 0 is +1, example 1 is -1)."""
    u = np.zeros(d)
    u[rng.integers(d)] = rng.choice(np.array([-1.0, 1.0]))
    y = rng.choice(np.array([-1.0, 1.0]), size=n)
    y[0], y[1] = 1.0, -1.0
    return u, y


def _perpendicular(length: np.ndarray, u: np.ndarray, step: float, rng: np.random.Generator) -> np.ndarray:
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


def _on_axis(t: np.ndarray, y: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The examples ``y_i t_i u`` (``u`` a signed coordinate axis): exact, no rounding."""
    return (y * t)[:, None] * u[None, :]


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

    as the Block--Novikoff theorem (book section 1.3, label
    ``perc-thm-novikoff``) needs, where :math:`\gamma' \ge \gamma` is
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
    n, d, gamma, R = _check_geometry(n_samples, n_features, margin, radius, min_features=1)
    step = _grid_step(R)
    rng = check_rng(random_state)
    u, y = _separator_and_labels(n, d, rng)
    top = max(np.floor(R / step), np.ceil(gamma / step))
    t = np.minimum(np.ceil(rng.uniform(gamma, R, size=n) / step), top) * step
    t[0] = np.ceil(gamma / step) * step
    if d == 1:
        t[1] = top * step
        return SeparableData(_on_axis(t, y, u), y, u)
    room = np.sqrt(np.maximum(R * R - t * t, 0.0))
    length = room * rng.uniform(0.0, 1.0, size=n)
    length[0] = room[0]
    X = _on_axis(t, y, u) + _perpendicular(length, u, step, rng)
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
    n, d, gamma, R = _check_geometry(n_samples, n_features, margin, radius, min_features=2)
    step = _grid_step(R)
    rng = check_rng(random_state)
    u, y = _separator_and_labels(n, d, rng)
    t = np.full(n, np.ceil(gamma / step) * step)
    length = np.full(n, np.sqrt(max(R * R - t[0] * t[0], 0.0)))
    X = _on_axis(t, y, u) + _perpendicular(length, u, step, rng)
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
def _greedy_order(X, y, u, sqnorm, max_rounds, tol):  # pragma: no cover - compiled
    n, d = X.shape
    w = np.zeros(d)
    order = np.empty(max_rounds, dtype=np.int64)
    progress = np.empty(n)
    scale = 0.0
    for i in range(n):
        s, _ = row_score(u, X, i)
        progress[i] = y[i] * s
        scale = max(scale, abs(progress[i]))
    violated = np.empty(n, dtype=np.bool_)
    growth = np.empty(n)
    rounds = 0
    while rounds < max_rounds:
        # Pass 1: which examples does the perceptron get wrong, and the least progress among them.
        least = np.inf
        for i in range(n):
            f, _ = row_score(w, X, i)  # the perceptron's own score, to the last bit
            ywx = y[i] * f
            violated[i] = ywx <= 0.0
            growth[i] = sqnorm[i] + 2.0 * ywx  # ||w + y x||^2 - ||w||^2
            if violated[i] and progress[i] < least:
                least = progress[i]
        # Pass 2: among the violated examples within tol of the least progress, the largest growth.
        best = -1
        for i in range(n):
            if violated[i] and progress[i] <= least + tol * scale and (best < 0 or growth[i] > growth[best]):
                best = i
        if best < 0:
            break
        for j in range(d):
            w[j] += y[best] * X[best, j]
        order[rounds] = best
        rounds += 1
    return order[:rounds]


def greedy_adversarial_order(X, y, u, *, max_rounds: int = 100_000, tol: float = 1e-9) -> np.ndarray:
    r"""A sequence of example indices chosen to make the perceptron err often.

    An adversary that knows the separator :math:`\mathbf u` replays the
    perceptron (start at 0, update :math:`\mathbf w \leftarrow \mathbf w + y\mathbf x`
    when :math:`y\,\mathbf w^\top\mathbf x \le 0`). At every round it
    presents, among the examples the perceptron gets wrong, one that makes the
    least progress towards :math:`\mathbf u` (smallest
    :math:`y\,\mathbf u^\top \mathbf x`) and, among those, the one that makes
    :math:`\|\mathbf w\|^2` grow most (largest
    :math:`\|\mathbf x\|^2 + 2y\,\mathbf w^\top\mathbf x`). These are the two
    quantities of the Block--Novikoff proof (book section 1.3): the adversary
    makes both of its inequalities as tight as it can (little progress, much
    growth), the first one first.

    Progress values within ``tol * max_i |y_i u^T x_i|`` of the least count as
    equal, so that rounding errors do not make the choice; remaining ties go to
    the first index. On :func:`make_shell` data every progress is exactly the
    same, so the adversary picks by growth alone. Every sum is added in the
    fixed order of :func:`olbook._rowops.row_score`, so the sequence is the
    same on every CPU.

    Every round of the returned sequence is an update, so feeding
    ``X[order], y[order]`` to :class:`olbook.Perceptron` in one pass
    reproduces ``len(order)`` updates. It ends when no example is
    misclassified any more (or after ``max_rounds``).

    Parameters
    ----------
    X, y : array-like
        The data, labels in {-1, +1}.
    u : array-like
        A separator (need not have unit norm).
    max_rounds : int, default=100_000
    tol : float, default=1e-9
        Relative tolerance of "least progress", ``0 <= tol``.

    Returns
    -------
    numpy.ndarray of int
        The indices, in the order the adversary presents them (repeats allowed).
    """
    Xa, ya = check_X_y(X, y)
    ua = np.asarray(u, dtype=np.float64).ravel()
    if ua.shape[0] != Xa.shape[1]:
        raise ValueError(f"u has {ua.shape[0]} entries but X has {Xa.shape[1]} features.")
    if not np.all(np.isfinite(ua)):
        raise ValueError("u contains NaN or inf.")
    m = check_positive_int(max_rounds, "max_rounds")
    if not (isinstance(tol, (int, float, np.floating, np.integer)) and np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0; got {tol!r}.")
    return _greedy_order(Xa, ya, ua, row_sqnorms(Xa), m, float(tol))


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
