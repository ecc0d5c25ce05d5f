"""Speed of olbook.vc: shatters, growth and vc_dimension at the sizes the book uses.

Times, best of 5 runs, of the largest calls chapter 4 makes (and a few larger ones):
* ``shatters(HalfSpaces(), P)``: the d + 1 corners of the simplex in R^3 (shattered)
  and d + 2 points in R^3 (Radon: not shattered), as in section 4.2; 10 points of the
  plane (stops at the first labelling no half-plane cuts out);
* ``growth(HalfSpaces(), P)``: 8 points of the plane and 7 points of R^3 (section 4.3,
  one LP per labelling); 10 points of the plane;
* ``vc_dimension(UnionOfIntervals(3), [1..8 points of the line])`` (section 4.2) and
  ``vc_dimension(HalfSpaces(), [1..5 points of the plane])`` (3: no 4 points are shattered);
* ``shatters(AxisAlignedRectangles(), Q)`` for each of the 12,650 four-point subsets
  of a 5 x 5 grid (section 4.2, one loop), ``growth`` of 12 points of R^3;
* ``shatters(ConvexPolygons(), C)`` for 12 integer points on a circle (4096 labellings).

Target: every call at the book's sizes under 1 s, so that a notebook stays well
within its budget (the loop over the 12,650 subsets: each call). Printed and saved.

Run: ``.venv/bin/python benchmarks/vc.py``.
"""

from itertools import combinations

import numpy as np
from _results import save
from _timing import best_of

from olbook import vc

TARGET_S = 1.0


def simplex(d: int) -> np.ndarray:
    return np.vstack([np.zeros(d), np.eye(d)])


def main():
    rng = np.random.default_rng(0)
    P = rng.integers(-8, 9, size=(10, 2)).astype(float)
    Q = rng.integers(-8, 9, size=(12, 3)).astype(float)
    plane8 = rng.integers(0, 64, size=(8, 2)).astype(float)
    space7 = rng.integers(0, 64, size=(7, 3)).astype(float)
    radon3 = rng.integers(-4, 5, size=(5, 3)).astype(float)
    line = [np.arange(m, dtype=float).reshape(-1, 1) for m in range(1, 9)]
    plane5 = np.array([[0, 0], [4, 1], [1, 3], [3, 4], [2, 2]], dtype=float)
    growing = [plane5[:k] for k in range(1, 6)]
    grid = np.array([(i, j) for i in range(5) for j in range(5)], dtype=float)
    quads = [grid[list(idx)] for idx in combinations(range(25), 4)]
    circle = np.array(
        [
            (25, 0),
            (24, 7),
            (20, 15),
            (15, 20),
            (7, 24),
            (0, 25),
            (-7, 24),
            (-15, 20),
            (-20, 15),
            (-24, 7),
            (-25, 0),
            (-24, -7),
        ],
        dtype=float,
    )
    half, rect = vc.HalfSpaces(), vc.AxisAlignedRectangles()
    cases = [
        (
            "shatters(HalfSpaces(), 4 corners of a simplex in R^3)",
            True,
            lambda: vc.shatters(half, simplex(3)),
        ),
        (
            "shatters(HalfSpaces(), 5 points in R^3)",
            True,
            lambda: vc.shatters(half, radon3),
        ),
        (
            "growth(HalfSpaces(), 8 points in R^2)",
            True,
            lambda: vc.growth(half, plane8),
        ),
        (
            "growth(HalfSpaces(), 7 points in R^3)",
            True,
            lambda: vc.growth(half, space7),
        ),
        (
            "vc_dimension(UnionOfIntervals(3), 1..8 points of a line)",
            True,
            lambda: vc.vc_dimension(vc.UnionOfIntervals(3), line),
        ),
        (
            "vc_dimension(HalfSpaces(), 1..5 points of the plane)",
            False,
            lambda: vc.vc_dimension(half, growing),
        ),
        (
            f"shatters(AxisAlignedRectangles(), each of the {len(quads):,} 4-subsets of a 5x5 grid)",
            True,
            lambda: sum(vc.shatters(rect, q) for q in quads),
        ),
        (
            "shatters(ConvexPolygons(), 12 points on a circle)",
            True,
            lambda: vc.shatters(vc.ConvexPolygons(), circle),
        ),
        (
            "shatters(HalfSpaces(), 10 points in R^2)",
            False,
            lambda: vc.shatters(half, P),
        ),
        ("growth(HalfSpaces(), 10 points in R^2)", False, lambda: vc.growth(half, P)),
        (
            "growth(AxisAlignedRectangles(), 12 points in R^3)",
            False,
            lambda: vc.growth(rect, Q),
        ),
    ]
    rows = []
    for name, in_book, f in cases:
        out, total = best_of(f)
        # the loop's time per call
        t = total / len(quads) if "each of the" in name else total
        verdict = (
            f"(book size, target < {TARGET_S:.0f} s: {'met' if t < TARGET_S else 'NOT met'})"
            if in_book
            else ""
        )
        print(f"{name:68s} -> {out!s:6s} {t * 1e3:9.2f} ms {verdict}")
        if t != total:
            print(
                f"{'':68s}    {'':6s} {total * 1e3:9.2f} ms for the whole loop (above: per call)"
            )
        rows.append(
            {
                "case": name,
                "result": out if isinstance(out, bool) else int(out),
                "seconds": round(t, 6),
                "total_seconds": round(total, 5),
                "book_size": in_book,
                "target_s": TARGET_S if in_book else None,
                "met": (t < TARGET_S) if in_book else None,
            }
        )
    save("vc", rows, notes="best of 5; target: each call at the book's sizes under 1 s")


if __name__ == "__main__":
    main()
