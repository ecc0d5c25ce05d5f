"""Tests of olbook.vc: brute-force cross-checks, known VC dimensions, Sauer-Shelah, validation."""

from itertools import product
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from olbook import vc

CLASSES_2D = [vc.AxisAlignedRectangles(), vc.ConvexPolygons(), vc.HalfSpaces()]
CLASSES_1D = [
    vc.Intervals(),
    vc.UnionOfIntervals(1),
    vc.UnionOfIntervals(2),
    vc.UnionOfIntervals(3),
    vc.AxisAlignedRectangles(),
    vc.HalfSpaces(),
    vc.HalfSpaces(homogeneous=True),
]


def brute_growth(cls, pts):
    n = pts.shape[0]
    return sum(
        bool(cls.can_realize(pts, np.array(lab, dtype=bool)))
        for lab in product([False, True], repeat=n)
    )


def brute_interval_union(x, labels, k):
    # Realized iff some union of <= k intervals with endpoints at data values works: try all of them.
    vals = np.unique(x)
    ivs = [(a, b) for a in vals for b in vals if a <= b]
    for r in range(k + 1):
        for choice in product(ivs, repeat=r):
            inside = np.zeros(x.size, dtype=bool)
            for a, b in choice:
                inside |= (x >= a) & (x <= b)
            if np.array_equal(inside, labels):
                return True
    return False


def sauer(n, d):
    return sum(comb(n, i) for i in range(d + 1))


grid_1d = st.lists(st.integers(-4, 4), min_size=1, max_size=6).map(
    lambda v: np.array(v, float).reshape(-1, 1)
)
grid_2d = st.lists(
    st.tuples(st.integers(-3, 3), st.integers(-3, 3)), min_size=1, max_size=6
).map(lambda v: np.array(v, float))


@settings(max_examples=40)
@given(grid_1d, st.integers(1, 3))
def test_union_of_intervals_against_enumeration(x, k):
    cls = vc.UnionOfIntervals(k)
    for lab in product([False, True], repeat=x.shape[0]):
        lab = np.array(lab)
        assert cls.can_realize(x, lab) == brute_interval_union(x[:, 0], lab, k)


@settings(max_examples=40)
@given(grid_1d)
def test_intervals_closed_form_equals_union_of_one(x):
    for lab in product([False, True], repeat=x.shape[0]):
        lab = np.array(lab)
        assert vc.Intervals().can_realize(x, lab) == vc.UnionOfIntervals(1).can_realize(
            x, lab
        )


@settings(max_examples=30)
@given(grid_1d)
def test_growth_fast_paths_and_search_agree_1d(x):
    for cls in CLASSES_1D:
        g = vc.growth(cls, x)
        assert g == brute_growth(cls, x)
        assert vc.shatters(cls, x) == (g == 2 ** x.shape[0])


@settings(max_examples=25)
@given(grid_2d)
def test_growth_fast_paths_and_search_agree_2d(pts):
    for cls in CLASSES_2D:
        g = vc.growth(cls, pts)
        assert g == brute_growth(cls, pts)
        assert vc.shatters(cls, pts) == (g == 2 ** pts.shape[0])


@settings(max_examples=25)
@given(grid_2d)
def test_sauer_shelah_never_exceeded(pts):
    n = pts.shape[0]
    for cls, d in [
        (vc.AxisAlignedRectangles(), 4),
        (vc.HalfSpaces(), 3),
        (vc.HalfSpaces(homogeneous=True), 2),
    ]:
        assert vc.growth(cls, pts) <= sauer(n, d)


def test_rectangle_box_realization_brute_force():
    # A labelling is realized by a box iff by a box with sides at data coordinates: enumerate them.
    rng = np.random.default_rng(1)
    pts = rng.integers(0, 4, size=(6, 2)).astype(float)
    xs, ys = np.unique(pts[:, 0]), np.unique(pts[:, 1])
    cut = {tuple(np.zeros(6, bool))}
    for a, b, c, d in product(xs, xs, ys, ys):
        cut.add(
            tuple(
                (pts[:, 0] >= a)
                & (pts[:, 0] <= b)
                & (pts[:, 1] >= c)
                & (pts[:, 1] <= d)
            )
        )
    assert vc.growth(vc.AxisAlignedRectangles(), pts) == len(cut)


def test_known_vc_dimensions():
    line = [np.arange(m, dtype=float).reshape(-1, 1) for m in range(1, 8)]
    assert vc.vc_dimension(vc.Intervals(), line) == 2
    assert vc.vc_dimension(vc.UnionOfIntervals(2), line) == 4
    assert vc.vc_dimension(vc.UnionOfIntervals(3), line) == 6
    diamond = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]], float)
    assert vc.shatters(vc.AxisAlignedRectangles(), diamond)
    assert not vc.shatters(
        vc.AxisAlignedRectangles(), np.array([[0, 0], [1, 1], [2, 2], [3, 3]], float)
    )
    for d in (1, 2, 3):
        simplex = np.vstack([np.zeros(d), np.eye(d)])
        assert vc.shatters(vc.HalfSpaces(), simplex)
        assert not vc.shatters(vc.HalfSpaces(), np.vstack([simplex, np.ones((1, d))]))
        assert vc.shatters(vc.HalfSpaces(homogeneous=True), np.eye(d))
    circle = np.array(
        [
            (25, 0),
            (20, 15),
            (7, 24),
            (-7, 24),
            (-20, 15),
            (-25, 0),
            (-20, -15),
            (-7, -24),
            (7, -24),
            (20, -15),
        ],
        float,
    )
    assert vc.shatters(vc.ConvexPolygons(), circle)
    # With the centre added, the set is no longer shattered (the centre is in the hull of the rest).
    assert not vc.shatters(vc.ConvexPolygons(), np.vstack([circle, [[0, 0]]]))


def test_homogeneous_origin_and_opposite_points():
    h0 = vc.HalfSpaces(homogeneous=True)
    assert not h0.can_realize(np.zeros((1, 2)), np.array([False]))
    assert not h0.can_realize(np.array([[1.0], [-1.0]]), np.array([True, True]))
    assert h0.can_realize(np.array([[1.0, 0.0], [-1.0, 0.0]]), np.array([True, True]))


def test_repeated_points_never_shattered_and_empty_set():
    assert not vc.shatters(vc.HalfSpaces(), np.array([[0.0, 0.0], [0.0, 0.0]]))
    assert vc.shatters(vc.HalfSpaces(), np.zeros((0, 2)))
    assert vc.growth(vc.AxisAlignedRectangles(), np.zeros((0, 3))) == 1


def test_boxes_growth_fallback_beyond_63_points():
    pts = np.arange(70, dtype=float).reshape(-1, 1)
    assert vc.growth(vc.AxisAlignedRectangles(), pts) == 1 + 70 * 71 // 2


class Rays:
    """A reader-style class without fast paths: the rays [a, +inf) of the line (and the empty set)."""

    def can_realize(self, points, labels):
        x = np.asarray(points)[:, 0]
        return not labels.any() or not np.any(~labels & (x >= x[labels].min()))


def test_reader_class_without_fast_path():
    pts = np.array([3.0, 0.0, 4.0, 1.0, 2.0]).reshape(-1, 1)
    assert vc.growth(Rays(), pts) == brute_growth(Rays(), pts) == 6
    assert vc.vc_dimension(Rays(), [pts[:1], pts[:2], pts]) == 1


@pytest.mark.parametrize(
    "points, labels, match",
    [
        (np.zeros(3), np.zeros(3, bool), "2-D"),
        (np.zeros((3, 0)), np.zeros(3, bool), "0 feature"),
        (np.array([[0.0], [np.nan], [np.inf]]), np.zeros(3, bool), "1 NaN and 1 inf"),
        (np.zeros((3, 1)), np.zeros(3, int), "boolean"),
        (np.zeros((3, 1)), np.zeros(2, bool), "shape"),
        (np.zeros((3, 2)), np.zeros(3, bool), "dimension 1"),
        ([["a"], ["b"]], np.zeros(2, bool), "numeric"),
    ],
)
def test_validation_errors(points, labels, match):
    with pytest.raises(ValueError, match=match):
        vc.Intervals().can_realize(points, labels)


@pytest.mark.parametrize("k", [0, -1, 1.5, True, "2"])
def test_bad_k(k):
    with pytest.raises(ValueError, match="k, the number of intervals"):
        vc.UnionOfIntervals(k)


def test_other_validation_errors():
    with pytest.raises(ValueError, match="dimension 2"):
        vc.ConvexPolygons().can_realize(np.zeros((3, 3)), np.zeros(3, bool))
    with pytest.raises(ValueError, match="homogeneous"):
        vc.HalfSpaces(homogeneous=1)
    with pytest.raises(ValueError, match="can_realize"):
        vc.shatters(object(), np.zeros((1, 1)))
    with pytest.raises(ValueError, match="candidates is empty"):
        vc.vc_dimension(vc.Intervals(), [])
    with pytest.raises(ValueError, match=r"candidates\[1\]"):
        vc.vc_dimension(vc.Intervals(), [np.zeros((1, 1)), np.zeros(2)])
    with pytest.raises(ValueError, match="non-finite"):
        vc.growth(vc.HalfSpaces(), np.array([[np.nan, 0.0]]))


@settings(max_examples=40)
@given(grid_1d)
def test_halfspaces_in_one_dimension_are_rays(x):
    # Independent of the LP: on the line a half-space is a ray [a, inf) or (-inf, a]; a labelling is
    # realized iff the True points all lie above, or all below, every False point.
    t = x[:, 0]
    for lab in product([False, True], repeat=t.size):
        lab = np.array(lab)
        if lab.all() or not lab.any():
            expected = True
        else:
            expected = t[lab].min() > t[~lab].max() or t[lab].max() < t[~lab].min()
        assert vc.HalfSpaces().can_realize(x, lab) == expected


def test_halfplanes_growth_in_general_position_is_covers_count():
    # Cover (1965): n points of the plane in general position, n^2 - n + 2 labellings by half-planes.
    rng = np.random.default_rng(3)
    done = 0
    while done < 6:
        n = 3 + done
        pts = rng.integers(0, 40, size=(n, 2)).astype(float)
        tri = [
            np.linalg.det(np.column_stack([pts[[i, j, k]], np.ones(3)]))
            for i in range(n)
            for j in range(i + 1, n)
            for k in range(j + 1, n)
        ]
        if min(abs(v) for v in tri) < 0.5:
            continue
        assert vc.growth(vc.HalfSpaces(), pts) == n * n - n + 2
        done += 1
