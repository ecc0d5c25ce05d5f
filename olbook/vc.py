"""Shattering, growth functions and VC dimensions by exhaustive search (book chapter 4).

A **hypothesis class** is any object with a method

``can_realize(points, labels) -> bool``

where ``points`` is an (n, d) float array and ``labels`` an (n,) bool array; it
answers whether some set of the class contains exactly the points labelled
``True``. This module provides five classes (:class:`Intervals`,
:class:`UnionOfIntervals`, :class:`AxisAlignedRectangles`,
:class:`ConvexPolygons`, :class:`HalfSpaces`) and three functions that work for
every class, including the reader's own:

* :func:`shatters` -- is every labelling of the points realized?
* :func:`growth` -- how many labellings are realized?
* :func:`vc_dimension` -- the largest shattered set among candidate point sets.

The definitions are those of Vapnik and Chervonenkis :cite:`vapnik1971uniform`
as presented in section 6.6 of Hopcroft and Kannan's draft
:cite:`hopcroft2014foundationsdraft` (book sections 4.2 and 4.3).

Both searches grow the point set one point at a time and extend only the
labellings already realized: the restriction of a realized labelling to a
subset is realized, so a labelling of the first ``m + 1`` points can be
realized only if its first ``m`` labels are (this holds for every class of
sets, so ``can_realize`` must answer for one fixed class of sets). ``shatters`` stops at the first
prefix that is not shattered (a set that is not shattered has no shattered
superset); ``growth`` makes about ``2 * sum_m growth(first m points)`` calls
instead of ``2**n``. Classes closed under complement (non-homogeneous
half-spaces) are asked once per pair of complementary labellings, and intervals
and boxes count their labellings in closed form.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ._vc_classes import (
    AxisAlignedRectangles,
    ConvexPolygons,
    HalfSpaces,
    Intervals,
    UnionOfIntervals,
    check_points,
)

__all__ = [
    "Intervals",
    "UnionOfIntervals",
    "AxisAlignedRectangles",
    "ConvexPolygons",
    "HalfSpaces",
    "shatters",
    "growth",
    "vc_dimension",
    "sauer_shelah",
]


def sauer_shelah(n: int, d: int) -> int:
    r"""The Sauer--Shelah bound :math:`\Phi_d(n) = \sum_{i=0}^{d} \binom{n}{i}`.

    A class of VC dimension ``d`` realizes at most this many labellings of ``n``
    points (book section 4.3, :ref:`vc-sec-growth`; Sauer 1972, Shelah 1972). Exact
    integers.

    Examples
    --------
    >>> sauer_shelah(10, 2)
    56
    """
    n, d = int(n), int(d)
    if n < 0 or d < 0:
        raise ValueError(f"n and d must be integers >= 0; got n={n}, d={d}.")
    return sum(math.comb(n, i) for i in range(d + 1))


def _check_class(cls) -> None:
    if not callable(getattr(cls, "can_realize", None)):
        raise ValueError(
            f"a hypothesis class needs a method can_realize(points, labels) -> bool; {cls!r} has none."
        )


def _labels(code: int, m: int) -> np.ndarray:
    """The labelling of ``m`` points encoded by the bits of ``code`` (bit i = label of point i)."""
    return np.array([(code >> i) & 1 for i in range(m)], dtype=bool)


def _realized_codes(cls, pts: np.ndarray, *, stop_at_missing: bool) -> list[int] | None:
    """Codes of the realized labellings of ``pts``, extended point by point.

    With ``stop_at_missing``, return None as soon as some labelling of a prefix
    is not realized (then ``pts`` is not shattered).
    """
    symmetric = bool(getattr(cls, "_complement_symmetric", False))
    if not cls.can_realize(pts[:0], np.zeros(0, dtype=bool)):
        return None if stop_at_missing else []
    codes = [0]
    for m in range(1, pts.shape[0] + 1):
        prefix, full, bit = pts[:m], (1 << m) - 1, 1 << (m - 1)
        known: dict[int, bool] = {}
        new_codes = []
        for c in codes:
            for code in (c, c | bit):
                if symmetric and (full ^ code) in known:
                    ok = known[full ^ code]
                else:
                    ok = bool(cls.can_realize(prefix, _labels(code, m)))
                known[code] = ok
                if ok:
                    new_codes.append(code)
                elif stop_at_missing:
                    return None
        codes = new_codes
    return codes


def shatters(cls, points) -> bool:
    """Whether ``cls`` shatters ``points``: all ``2**n`` labellings are realized.

    Parameters
    ----------
    cls : hypothesis class
        Any object with ``can_realize(points, labels) -> bool``.
    points : array_like of shape (n, d)
        The point set (finite coordinates). A set with a repeated point is never
        shattered (the two copies cannot get different labels).

    Returns
    -------
    bool

    Notes
    -----
    Definition of section 6.6 of :cite:`hopcroft2014foundationsdraft` (book
    section 4.2). The search stops at the first prefix of ``points`` that is
    not shattered.
    """
    _check_class(cls)
    pts = check_points(points)
    n = pts.shape[0]
    if n >= 2 and np.unique(pts, axis=0).shape[0] < n:
        return False
    fast = getattr(cls, "_growth", None)
    if fast is not None:
        count = fast(pts)
        if count is not None:
            return count == 2**n
    return _realized_codes(cls, pts, stop_at_missing=True) is not None


def growth(cls, points) -> int:
    """Number of distinct labellings of ``points`` that sets of ``cls`` realize.

    The growth function of the class at ``n`` is the maximum of this count over
    all sets of ``n`` points; this function evaluates the count on one set.

    Parameters
    ----------
    cls : hypothesis class
        Any object with ``can_realize(points, labels) -> bool``.
    points : array_like of shape (n, d)

    Returns
    -------
    int
        Between 0 and ``2**n``; ``2**n`` exactly when ``points`` is shattered.

    Notes
    -----
    Vapnik and Chervonenkis :cite:`vapnik1971uniform`; book section 4.3. By
    the Sauer--Shelah lemma the count is at most ``sum(comb(n, i) for i <= d)``
    for a class of VC dimension ``d``.
    """
    _check_class(cls)
    pts = check_points(points)
    fast = getattr(cls, "_growth", None)
    if fast is not None:
        count = fast(pts)
        if count is not None:
            return int(count)
    return len(_realized_codes(cls, pts, stop_at_missing=False))


def vc_dimension(cls, candidates: Iterable) -> int:
    """Largest size of a candidate point set that ``cls`` shatters.

    This is a **lower bound** on the VC dimension of the class: it equals the
    VC dimension only if the candidates contain a shattered set of maximal size
    and an upper bound is proved (in the book, by a proof in the text or by an
    exhaustive search over every configuration that matters).

    Parameters
    ----------
    cls : hypothesis class
        Any object with ``can_realize(points, labels) -> bool``.
    candidates : iterable of array_like of shape (n_k, d)
        The point sets to try. Larger sets are tried first, and once a set of
        size ``m`` is shattered no set of size ``<= m`` is tried.

    Returns
    -------
    int
        The size of the largest shattered candidate, 0 if none is shattered
        (the empty set is shattered by every non-empty class).
    """
    _check_class(cls)
    sets = [check_points(c, name=f"candidates[{i}]") for i, c in enumerate(candidates)]
    if not sets:
        raise ValueError("candidates is empty: give at least one point set.")
    best = 0
    for pts in sorted(sets, key=lambda p: -p.shape[0]):
        if pts.shape[0] <= best:
            break
        if shatters(cls, pts):
            best = pts.shape[0]
    return best
