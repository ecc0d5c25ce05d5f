"""Speed of olbook.vc: shatters and growth at the sizes the book uses.

Times, best of 5 runs:
* ``shatters(HalfSpaces(), P)`` for 10 points of the plane (target: < 1 s);
* ``growth(HalfSpaces(), P)`` for the same 10 points (every labelling, LPs);
* ``growth(AxisAlignedRectangles(), Q)`` for 12 points of R^3;
* ``shatters(ConvexPolygons(), C)`` for 12 integer points on a circle (4096 labellings).

Run: ``.venv/bin/python benchmarks/vc.py``.
"""

import numpy as np
from _timing import best_of

from olbook import vc


def main():
    rng = np.random.default_rng(0)
    P = rng.integers(-8, 9, size=(10, 2)).astype(float)
    Q = rng.integers(-8, 9, size=(12, 3)).astype(float)
    circle = np.array([(25, 0), (24, 7), (20, 15), (15, 20), (7, 24), (0, 25), (-7, 24), (-15, 20),
                       (-20, 15), (-24, 7), (-25, 0), (-24, -7)], dtype=float)
    cases = [
        ("shatters(HalfSpaces(), 10 points in R^2)", lambda: vc.shatters(vc.HalfSpaces(), P)),
        ("growth(HalfSpaces(), 10 points in R^2)", lambda: vc.growth(vc.HalfSpaces(), P)),
        ("growth(AxisAlignedRectangles(), 12 points in R^3)", lambda: vc.growth(vc.AxisAlignedRectangles(), Q)),
        ("shatters(ConvexPolygons(), 12 points on a circle)", lambda: vc.shatters(vc.ConvexPolygons(), circle)),
    ]
    for name, f in cases:
        out, t = best_of(f)
        print(f"{name:52s} -> {out!s:6s} {t * 1e3:9.2f} ms")


if __name__ == "__main__":
    main()
