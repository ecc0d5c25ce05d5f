"""Feasible sets of online convex optimization, with exact Euclidean projections.

Book chapter 8, :ref:`oco-sec-ftrl` and :ref:`oco-sec-omd`. A feasible set
``K`` is a non-empty closed convex subset of :math:`\\mathbb R^d`; the learners
of :mod:`olbook.oco` take one as ``feasible_set`` (``None`` is
:math:`\\mathbb R^d`). Each set has

* ``project(x)``: the Euclidean projection
  :math:`\\Pi_K(\\mathbf x) = \\arg\\min_{\\mathbf z \\in K}\\|\\mathbf z - \\mathbf x\\|_2`;
* ``diameter(d)``: :math:`\\sup_{\\mathbf x, \\mathbf z\\in K}\\|\\mathbf x - \\mathbf z\\|_2`
  in dimension ``d``;
* ``linear_argmin(theta)``: a minimizer of :math:`\\boldsymbol\\theta^\\top\\mathbf x`
  over ``K`` (the play of follow the leader), the centre of the minimizers on
  ties.

The projections are compiled (numba) and add in a fixed order (the same bits on
every CPU). The simplex projection is the sort-based algorithm of Held, Wolfe
and Crowder (1974) and Duchi, Shalev-Shwartz, Singer and Chandra (2008,
figure 1); its sort is a heapsort (:func:`sort_into`, the values of
``np.sort``, which is slow to compile), or, in a loop that projects every
round, an insertion sort from the last round's order
(:func:`project_simplex_ordered`).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._rowops import dot
from .._validation import check_positive_float

__all__ = [
    "Ball",
    "Box",
    "Simplex",
    "set_code",
    "sort_into",
    "scale_into_ball",
    "project_into",
    "project_simplex_ordered",
    "project_ordered_into",
    "simplex_from_sorted",
    "linear_argmin_into",
]

#: The integer codes of the compiled loops: no set (R^d), ball, box, simplex.
REALS, BALL, BOX, SIMPLEX = 0, 1, 2, 3


@numba.njit(cache=True)
def simplex_from_sorted(y, u, out):  # pragma: no cover - compiled
    """The simplex projection of ``y`` into ``out``; ``u`` is ``y`` sorted increasing.

    Held, Wolfe and Crowder's threshold: read ``u`` from the largest value,
    ``tau`` is the last ``(css - 1) / k`` below the k-th largest value; then
    ``out = max(y - tau, 0)``. ``out`` may be ``y``.
    """
    d = y.shape[0]
    css = 0.0
    tau = 0.0
    for j in range(d):
        v = u[d - 1 - j]
        css += v
        t = (css - 1.0) / (j + 1)
        if v - t > 0.0:
            tau = t
    for i in range(d):
        out[i] = max(y[i] - tau, 0.0)


@numba.njit(cache=True)
def sort_into(y, u):  # pragma: no cover - compiled
    """``u = np.sort(y)``, by heapsort: increasing, NaN last (numba's order).

    Sorting is exact: the values in ``u`` are those of ``np.sort(y)`` (equal
    values are interchangeable, ``-0.0`` and ``0.0`` included, for every use
    here), and a heapsort compiles in a fraction of the time of
    ``np.sort``'s quicksort (a reader's first run compiles it).
    """
    n = y.shape[0]
    for i in range(n):
        u[i] = y[i]
    for k in range(n // 2 + n - 1, 0, -1):
        if k >= n:  # build the max-heap: sift down n // 2 - 1, ..., 0
            root, end = k - n, n
        else:  # move the largest of u[:k + 1] to k, sift down the root of u[:k]
            root, end = 0, k
            v = u[0]
            u[0] = u[k]
            u[k] = v
        v = u[root]
        while True:
            c = 2 * root + 1
            if c >= end:
                break
            w = u[c + 1] if c + 1 < end else u[c]
            if u[c] < w or (w != w and u[c] == u[c]):  # w after u[c] (NaN last)
                c += 1
            if v < u[c] or (u[c] != u[c] and v == v):
                u[root] = u[c]
                root = c
            else:
                break
        u[root] = v


@numba.njit(cache=True)
def scale_into_ball(y, a, p, out):  # pragma: no cover - compiled
    """``out = y min(1, a / ||y||_p)``: the ball's projection (code 1 of :func:`project_into`).

    For ``p = 2`` the Euclidean projection; for another ``p`` the Bregman
    projection of the p-norm regularizer (:class:`~olbook.oco.PNorm`). ``out``
    may be ``y``.
    """
    d = y.shape[0]
    if p == 2.0:
        n = math.sqrt(dot(y, y))
    else:
        m = 0.0
        for i in range(d):
            m = max(m, abs(y[i]))
        s = 0.0
        if m > 0.0:
            for i in range(d):
                s += (abs(y[i]) / m) ** p
        n = m * s ** (1.0 / p)
    if n <= a:
        for i in range(d):
            out[i] = y[i]
    else:
        r = a / n
        for i in range(d):
            out[i] = y[i] * r


@numba.njit(cache=True)
def project_into(y, code, a, b, p, out):  # pragma: no cover - compiled
    """Write the projection of ``y`` onto the set ``(code, a, b, p)`` into ``out``.

    Ball (code 1, radius ``a``, norm ``p``): :func:`scale_into_ball`, for
    ``p = 2`` the Euclidean projection ``y min(1, a/||y||_2)``; for another
    ``p`` the same scaling in the p-norm, which is the Bregman projection of
    the p-norm regularizer (:class:`~olbook.oco.PNorm`), not a Euclidean one.
    Box (code 2): clipping to ``[a, b]``. Simplex (code 3): the sort-based
    exact projection (:func:`sort_into`, then :func:`simplex_from_sorted`).
    Code 0: a copy. ``out`` may be ``y``.
    """
    d = y.shape[0]
    if code == 1:
        scale_into_ball(y, a, p, out)
    elif code == 2:
        for i in range(d):
            out[i] = min(max(y[i], a), b)
    elif code == 3:
        u = np.empty(d)
        sort_into(y, u)
        simplex_from_sorted(y, u, out)
    else:
        for i in range(d):
            out[i] = y[i]


@numba.njit(cache=True)
def project_simplex_ordered(y, order, u, out):  # pragma: no cover - compiled
    """The simplex projection of ``y`` (code 3 of :func:`project_into`), same bits.

    ``order`` is a permutation of ``0 .. d-1`` that sorted the last vector
    projected; ``u`` a work array. ``y[order]`` is sorted by insertion, which
    takes O(d) when the order has barely changed, as between two rounds of
    online mirror descent, instead of a full sort each round; ``order`` is left
    sorting ``y``. The sorted values are those of ``np.sort(y)`` (equal values
    are interchangeable), so the threshold and ``out`` have the same bits as
    :func:`project_into`'s. ``out`` may be ``y``.
    """
    d = y.shape[0]
    for i in range(d):
        u[i] = y[order[i]]
    for i in range(1, d):  # insertion sort, increasing, carrying the permutation
        v = u[i]
        k = order[i]
        j = i - 1
        while j >= 0 and u[j] > v:
            u[j + 1] = u[j]
            order[j + 1] = order[j]
            j -= 1
        u[j + 1] = v
        order[j + 1] = k
    simplex_from_sorted(y, u, out)


@numba.njit(cache=True, inline="always")
def project_ordered_into(y, code, a, b, p, order, u, out):  # pragma: no cover
    """:func:`project_into`, the simplex sorted from ``order`` (:func:`project_simplex_ordered`).

    For the loops of FTRL and OMD, which project every round and inline it.
    """
    d = y.shape[0]
    if code == SIMPLEX:  # sorted from the last round's order: O(d) when it holds
        project_simplex_ordered(y, order, u, out)
    elif code == BALL:
        scale_into_ball(y, a, p, out)
    elif code == BOX:
        for i in range(d):
            out[i] = min(max(y[i], a), b)
    else:
        for i in range(d):
            out[i] = y[i]


@numba.njit(cache=True)
def linear_argmin_into(theta, code, a, b, p, out):  # pragma: no cover - compiled
    """Write a minimizer of ``theta . x`` over the set into ``out`` (ties: the centre)."""
    d = theta.shape[0]
    if code == 1:
        m = 0.0
        for i in range(d):
            m = max(m, abs(theta[i]))
        if m == 0.0:
            for i in range(d):
                out[i] = 0.0
            return
        q = p / (p - 1.0) if p != 2.0 else 2.0
        if q == 2.0:
            n = math.sqrt(dot(theta, theta))
            for i in range(d):
                out[i] = -a * theta[i] / n
            return
        s = 0.0
        for i in range(d):
            s += (abs(theta[i]) / m) ** q
        nq = s ** (1.0 / q)  # ||theta/m||_q
        for i in range(d):
            v = abs(theta[i]) / m / nq
            t = theta[i]
            sign = 1.0 if t > 0.0 else (-1.0 if t < 0.0 else t)  # np.sign(t)
            out[i] = -a * sign * v ** (q - 1.0)
    elif code == 2:
        for i in range(d):
            if theta[i] > 0.0:
                out[i] = a
            elif theta[i] < 0.0:
                out[i] = b
            else:
                out[i] = 0.5 * (a + b)
    else:  # the simplex: uniform on the coordinates of the smallest theta
        lo = np.inf
        for i in range(d):
            lo = min(lo, theta[i])
        k = 0
        for i in range(d):
            if theta[i] == lo:
                k += 1
        for i in range(d):
            out[i] = 1.0 / k if theta[i] == lo else 0.0


class _FeasibleSet:
    """What every feasible set shares: ``project``, ``linear_argmin``, equality."""

    code = REALS
    low = high = 0.0
    p = 2.0

    def _params(self) -> tuple:
        return (self.code, self.low, self.high, self.p)

    def _vector(self, x, what: str) -> np.ndarray:
        try:
            v = np.array(x, dtype=np.float64)
        except (TypeError, ValueError):
            v = np.zeros((0, 0))
        if v.ndim != 1 or v.size == 0 or not np.isfinite(v).all():
            raise ValueError(f"{what} must be a non-empty finite 1-D array.")
        return v

    def project(self, x) -> np.ndarray:
        """The Euclidean projection of ``x`` onto the set (a new array)."""
        y = self._vector(x, "x")
        out = np.empty_like(y)
        project_into(y, *self._params(), out)
        return out

    def linear_argmin(self, theta) -> np.ndarray:
        """A minimizer of ``theta . x`` over the set (on ties, the centre of the minimizers)."""
        t = self._vector(theta, "theta")
        out = np.empty_like(t)
        linear_argmin_into(t, *self._params(), out)
        return out

    def contains(self, x, tol: float = 1e-12) -> bool:
        """Whether ``x`` lies in the set, up to ``tol``."""
        y = self._vector(x, "x")
        return bool(np.max(np.abs(self.project(y) - y)) <= tol)

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._params() == self._params()

    def __hash__(self) -> int:
        return hash(self._params())


class Ball(_FeasibleSet):
    """The ball ``{x : ||x||_p <= radius}`` (the Euclidean ball for ``p = 2``).

    Parameters
    ----------
    radius : float > 0
    p : float > 1, default=2.0
        The norm. ``project`` is the Euclidean projection for ``p = 2``; for
        another ``p`` it has no closed form and ``project`` refuses, but the
        ball is the feasible set of the p-norm regularizer
        (:class:`~olbook.oco.PNorm` with the same ``p``), whose Bregman
        projection onto it is a scaling.

    Examples
    --------
    >>> from olbook.oco import Ball
    >>> Ball(1.0).project([3.0, 4.0])
    array([0.6, 0.8])
    """

    code = BALL

    def __init__(self, radius: float, p: float = 2.0) -> None:
        self.radius = check_positive_float(radius, "radius")
        p = check_positive_float(p, "p (the norm of the ball)")
        if not p > 1.0:
            raise ValueError(f"p (the norm of the ball) must be > 1; got {p!r}.")
        self.p = p
        self.low = self.radius

    def project(self, x) -> np.ndarray:
        if self.p != 2.0:
            raise ValueError(
                f"the Euclidean projection onto an l_{self.p:g} ball has no closed "
                "form; use Ball(radius) (p = 2), or the p-norm regularizer."
            )
        return super().project(x)

    def diameter(self, d: int) -> float:
        """The Euclidean diameter ``2 radius max(1, d^(1/2 - 1/p))``."""
        return 2.0 * self.radius * max(1.0, float(d) ** (0.5 - 1.0 / self.p))

    def __repr__(self) -> str:
        return (
            f"Ball({self.radius!r})"
            if self.p == 2.0
            else (f"Ball({self.radius!r}, p={self.p!r})")
        )


class Box(_FeasibleSet):
    """The box ``[low, high]^d``; its projection clips each coordinate.

    Parameters
    ----------
    low, high : float, low < high
    """

    code = BOX

    def __init__(self, low: float, high: float) -> None:
        ok = all(
            isinstance(v, (int, float, np.integer, np.floating))
            and not isinstance(v, bool)
            for v in (low, high)
        )
        if not (ok and math.isfinite(low) and math.isfinite(high) and low < high):
            raise ValueError(
                f"the box needs finite low < high; got low={low!r}, high={high!r}."
            )
        self.low, self.high = float(low), float(high)

    def diameter(self, d: int) -> float:
        """The diagonal ``(high - low) sqrt(d)``."""
        return (self.high - self.low) * math.sqrt(d)

    def __repr__(self) -> str:
        return f"Box({self.low!r}, {self.high!r})"


class Simplex(_FeasibleSet):
    """The probability simplex ``{x : x_i >= 0, sum_i x_i = 1}``.

    Its projection is the exact sort-based algorithm: sort ``y`` decreasingly
    (``u``), find the largest ``j`` with ``u_j - (u_1 + ... + u_j - 1)/j > 0``,
    and return ``max(y - tau, 0)`` with ``tau`` that ratio (Duchi et al.,
    2008, figure 1).

    Examples
    --------
    >>> from olbook.oco import Simplex
    >>> Simplex().project([0.5, 0.0, 1.0])
    array([0.25, 0.  , 0.75])
    """

    code = SIMPLEX

    def diameter(self, d: int) -> float:
        """``sqrt(2)`` (two vertices) for ``d >= 2``, 0 for ``d = 1``."""
        return math.sqrt(2.0) if d >= 2 else 0.0

    def __repr__(self) -> str:
        return "Simplex()"


def set_code(feasible_set) -> tuple[int, float, float, float]:
    """The ``(code, a, b, p)`` of a feasible set (``None``: R^d) for the compiled loops."""
    if feasible_set is None:
        return (REALS, 0.0, 0.0, 2.0)
    return feasible_set._params()
