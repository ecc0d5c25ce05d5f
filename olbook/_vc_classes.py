"""Hypothesis classes of chapter 4 (VC dimension): the protocol and five classes.

A hypothesis class is any object with a method ``can_realize(points, labels)``
that answers whether some set of the class contains exactly the points labelled
``True``. The public functions of :mod:`olbook.vc` (``shatters``, ``growth``,
``vc_dimension``) need nothing else. The classes here also carry optional
private fast paths (``_growth``, ``_complement_symmetric``) that those functions
use when present; a reader's own class does not need them.

The sets are those of section 6.6.1 of Hopcroft and Kannan's draft
:cite:`hopcroft2014foundationsdraft` (book section 4.2, :ref:`vc-sec-shattering`).
"""

from __future__ import annotations

from itertools import product

import numpy as np
from scipy.optimize import linprog

from ._validation import check_bool, check_positive_int, check_X

__all__ = [
    "check_points",
    "check_points_labels",
    "Intervals",
    "UnionOfIntervals",
    "AxisAlignedRectangles",
    "ConvexPolygons",
    "HalfSpaces",
]


def check_points(points, *, dim: int | None = None, name: str = "points") -> np.ndarray:
    """Return ``points`` as a C-contiguous (n, d) float64 array, or raise ``ValueError``.

    ``n = 0`` is allowed (the empty set); ``d`` must be at least 1, and equal to
    ``dim`` when given. Every coordinate must be finite.
    """
    arr = check_X(points, name=name, allow_empty=True)
    if dim is not None and arr.shape[1] != dim:
        raise ValueError(
            f"{name} must have dimension {dim} for this class; got shape {arr.shape}."
        )
    return arr


def check_points_labels(
    points, labels, *, dim: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Check a point set and a boolean labelling of it (True = inside the set)."""
    pts = check_points(points, dim=dim)
    lab = np.asarray(labels)
    if lab.dtype != np.bool_:
        raise ValueError(
            f"labels must be a boolean array (True = in the set); got dtype {lab.dtype}. "
            "Convert e.g. with labels = (y == 1)."
        )
    if lab.ndim != 1 or lab.shape[0] != pts.shape[0]:
        raise ValueError(
            f"labels must have shape ({pts.shape[0]},), one per point; got shape {lab.shape}."
        )
    return pts, lab


def _check_k(k) -> int:
    return check_positive_int(k, "k, the number of intervals,")


def _label_groups(x: np.ndarray, labels: np.ndarray) -> np.ndarray | None:
    """Labels of the distinct values of ``x`` in increasing order; None if a value has both labels."""
    values, inverse = np.unique(x, return_inverse=True)
    pos = np.zeros(values.size, dtype=bool)
    neg = np.zeros(values.size, dtype=bool)
    pos[inverse[labels]] = True
    neg[inverse[~labels]] = True
    if np.any(pos & neg):
        return None
    return pos


class UnionOfIntervals:
    """Unions of at most ``k`` closed intervals of the real line (``k = 2``: the draft's pairs of intervals).

    A labelling of points on the line is realized if and only if no value
    carries both labels and, in increasing order, the points labelled True form
    at most ``k`` maximal runs. VC dimension ``2k`` (book section 4.2).
    """

    def __init__(self, k: int = 1):
        self.k = _check_k(k)

    def __repr__(self) -> str:
        return f"UnionOfIntervals(k={self.k})"

    def can_realize(self, points, labels) -> bool:
        """Whether some union of at most ``k`` intervals contains exactly the True points."""
        pts, lab = check_points_labels(points, labels, dim=1)
        groups = _label_groups(pts[:, 0], lab)
        if groups is None:
            return False
        runs = int(np.count_nonzero(groups[1:] & ~groups[:-1])) + int(groups[:1].sum())
        return runs <= self.k

    def _growth(self, pts: np.ndarray) -> int:
        # m distinct values: a realized set is a choice of 2j run ends among the m + 1 gaps, j <= k.
        m = np.unique(pts[:, 0]).size
        from math import comb

        return sum(comb(m + 1, 2 * j) for j in range(self.k + 1))


class Intervals(UnionOfIntervals):
    """Closed intervals ``[a, b]`` of the real line (the empty set included). VC dimension 2.

    Closed form: a labelling is realized if and only if no point labelled False
    lies between the smallest and the largest point labelled True.
    """

    def __init__(self):
        super().__init__(1)

    def __repr__(self) -> str:
        return "Intervals()"

    def can_realize(self, points, labels) -> bool:
        """Whether some interval contains exactly the True points."""
        pts, lab = check_points_labels(points, labels, dim=1)
        if not lab.any():
            return True
        x = pts[:, 0]
        lo, hi = x[lab].min(), x[lab].max()
        return not bool(np.any(~lab & (x >= lo) & (x <= hi)))


class AxisAlignedRectangles:
    """Closed axis-parallel boxes in any dimension d.

    A box is a product ``[a_1, b_1] x ... x [a_d, b_d]``.

    Closed form: a labelling is realized if and only if the bounding box of the
    points labelled True contains no point labelled False. VC dimension ``2d``
    (4 in the plane, section 6.6.1 of :cite:`hopcroft2014foundationsdraft`).
    """

    def __repr__(self) -> str:
        return "AxisAlignedRectangles()"

    def can_realize(self, points, labels) -> bool:
        """Whether some box contains exactly the True points."""
        pts, lab = check_points_labels(points, labels)
        if not lab.any():
            return True
        lo, hi = pts[lab].min(axis=0), pts[lab].max(axis=0)
        inside = np.all((pts >= lo) & (pts <= hi), axis=1)
        return not bool(np.any(inside & ~lab))

    def _growth(self, pts: np.ndarray) -> int | None:
        # Every realized non-empty set is cut out by its bounding box, a box spanned by coordinate
        # values of the points; enumerate those boxes as bit masks (one bit per point) and count the
        # distinct non-empty sets, plus the empty set. None (use the generic count) beyond 63 points.
        n, d = pts.shape
        if n > 63:
            return None
        bits = np.left_shift(np.uint64(1), np.arange(n, dtype=np.uint64))
        masks = np.array([~np.uint64(0)], dtype=np.uint64)
        for j in range(d):
            v = np.unique(pts[:, j])
            lo_i, hi_i = np.triu_indices(v.size)
            in_j = (pts[None, :, j] >= v[lo_i, None]) & (
                pts[None, :, j] <= v[hi_i, None]
            )
            mask_j = np.bitwise_or.reduce(np.where(in_j, bits, np.uint64(0)), axis=1)
            masks = np.unique(np.bitwise_and.outer(masks, mask_j).ravel())
        return int(np.count_nonzero(masks)) + 1


def _cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """z-component of (a - o) x (b - o), elementwise (broadcasts)."""
    return (a[..., 0] - o[..., 0]) * (b[..., 1] - o[..., 1]) - (
        a[..., 1] - o[..., 1]
    ) * (b[..., 0] - o[..., 0])


def convex_hull(pts: np.ndarray) -> np.ndarray:
    """Vertices of the convex hull of 2-D points, counter-clockwise (Andrew's monotone chain)."""
    p = np.unique(pts, axis=0)
    if p.shape[0] <= 2:
        return p
    lower: list = []
    upper: list = []
    for q in p:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], q) <= 0:
            lower.pop()
        lower.append(q)
    for q in p[::-1]:
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], q) <= 0:
            upper.pop()
        upper.append(q)
    return np.array(lower[:-1] + upper[:-1])


def in_hull(hull: np.ndarray, q: np.ndarray) -> np.ndarray:
    """For each row of ``q``, whether it lies in the (closed) convex hull with vertices ``hull``."""
    if hull.shape[0] == 1:
        return np.all(q == hull[0], axis=1)
    if hull.shape[0] == 2:
        a, b = hull
        on_line = _cross(a, b, q) == 0
        between = np.all((q >= np.minimum(a, b)) & (q <= np.maximum(a, b)), axis=1)
        return on_line & between
    a = hull[None, :, :]
    b = np.roll(hull, -1, axis=0)[None, :, :]
    return np.all(_cross(a, b, q[:, None, :]) >= 0, axis=1)


class ConvexPolygons:
    """Convex polygons in the plane (with the degenerate ones: points and segments). VC dimension infinite.

    A labelling is realized if and only if no point labelled False lies in the
    convex hull of the points labelled True. The hull and the point tests use
    cross products only: exact for integer coordinates below 2**25 in absolute
    value; for other floats a point within rounding of an edge is decided by the
    rounded cross product.
    """

    def __repr__(self) -> str:
        return "ConvexPolygons()"

    def can_realize(self, points, labels) -> bool:
        """Whether some convex polygon contains exactly the True points."""
        pts, lab = check_points_labels(points, labels, dim=2)
        if not lab.any() or lab.all():
            return True
        return not bool(np.any(in_hull(convex_hull(pts[lab]), pts[~lab])))


class HalfSpaces:
    """Closed half-spaces ``{x : a.x >= a_0}`` of R^d with ``a != 0`` (``a_0 = 0`` if ``homogeneous``).

    A labelling of finitely many points is realized by a half-space if and only
    if the linear feasibility problem ``y_i (w.x_i + b) >= 1`` has a solution
    (``y_i = +1`` for True, ``-1`` for False; strict separation of a finite set
    can be rescaled to margin 1). Homogeneous: ``w.x_i >= 0`` for True and
    ``w.x_i <= -1`` for False, plus, for the all-True labelling, some
    ``w != 0`` (one LP per coordinate and sign). Each problem is solved by
    :func:`scipy.optimize.linprog` (HiGHS, feasibility tolerance 1e-7): the
    answers do not depend on rounding for points in general position with small
    integer or dyadic coordinates, where a feasible problem has slack and an
    infeasible one is infeasible by a wide margin. VC dimension ``d + 1``
    (``d`` if homogeneous).

    Parameters
    ----------
    homogeneous : bool, default=False
        Only half-spaces whose boundary passes through the origin.
    """

    def __init__(self, homogeneous: bool = False):
        self.homogeneous = check_bool(homogeneous, "homogeneous")
        # A labelling and its complement are realized together (negate (w, b)); not so through the origin.
        self._complement_symmetric = not self.homogeneous

    def __repr__(self) -> str:
        return f"HalfSpaces(homogeneous={self.homogeneous})"

    @staticmethod
    def _feasible(A_ub: np.ndarray, b_ub: np.ndarray) -> bool:
        n_var = A_ub.shape[1]
        res = linprog(
            np.zeros(n_var),
            A_ub=A_ub,
            b_ub=b_ub,
            bounds=[(None, None)] * n_var,
            method="highs",
        )
        if res.status not in (0, 2):
            raise RuntimeError(f"linprog did not finish: {res.message}")
        return res.status == 0

    def can_realize(self, points, labels) -> bool:
        """Whether some half-space contains exactly the True points (one LP)."""
        pts, lab = check_points_labels(points, labels)
        n, d = pts.shape
        if n == 0:
            return True
        if not self.homogeneous:
            if lab.all() or not lab.any():
                return True
            y = np.where(lab, 1.0, -1.0)
            A = -y[:, None] * np.hstack([pts, np.ones((n, 1))])
            return self._feasible(A, -np.ones(n))
        if lab.all():
            # some w != 0 with w.x_i >= 0 for all i: try w_j >= 1 and w_j <= -1 for each j.
            for j, s in product(range(d), (1.0, -1.0)):
                row = np.zeros((1, d))
                row[0, j] = -s
                if self._feasible(
                    np.vstack([-pts, row]), np.concatenate([np.zeros(n), [-1.0]])
                ):
                    return True
            return False
        A = np.where(lab[:, None], -pts, pts)
        return self._feasible(A, np.where(lab, 0.0, -1.0))
