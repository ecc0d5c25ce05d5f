"""Time per round of the learners of olbook.oco against a plain numpy loop of the same rule.

Target (issue 27): every learner's ``run`` over T = 10**5 rounds in d = 100 is at
least 3x faster than a Python loop that applies the same rule with numpy, one
round at a time (the way the rule is usually written). Each case also reports the
largest difference between the two runs' points, so that a fast but wrong run is
noticed.

Extend by adding a :class:`Case` to ``CASES``: a name, a function that builds the
learner, and the numpy rule ``step(state, g) -> (state, point played)``.

    .venv/bin/python benchmarks/oco.py [--T 100000] [--d 100] [--repeat 3]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from _results import save
from _timing import best_of

from olbook.oco import (
    FTL,
    FTRL,
    OMD,
    ONS,
    Ball,
    Box,
    Entropic,
    Euclidean,
    PNorm,
    Simplex,
)

TARGET = 3.0
ETA = 0.01


def np_simplex(y: np.ndarray) -> np.ndarray:
    u = np.sort(y)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, y.size + 1)
    rho = np.nonzero(u - css / k > 0)[0][-1]
    return np.maximum(y - css[rho] / (rho + 1), 0.0)


def np_ball(y: np.ndarray, r: float) -> np.ndarray:
    n = np.sqrt(y @ y)
    return y if n <= r else y * (r / n)


def np_pgrad(x: np.ndarray, p: float) -> np.ndarray:
    n = np.sum(np.abs(x) ** p) ** (1.0 / p)
    if n == 0:
        return np.zeros_like(x)
    return np.sign(x) * np.abs(x) ** (p - 1.0) * n ** (2.0 - p)


@dataclass
class Case:
    name: str
    build: Callable[[int], object]
    start: Callable[[int], tuple]  # d -> (state, first point)
    step: Callable[[tuple, np.ndarray], tuple]  # (state, g) -> (state, next point)


def _omd_euclid(project):
    def step(s, g):
        x = project(s[0] - ETA * g)
        return (x,), x

    return step


def _entropic_step(s, g):
    w = s[0] * np.exp(-ETA * g)
    x = w / w.sum()
    return (x,), x


def _pnorm_step(s, g):
    x = np_pgrad(np_pgrad(s[0], P) - ETA * g, Q)
    return (x,), x


def _softmax(th):
    w = np.exp(-ETA * (th - th.min()))
    return w / w.sum()


def _ftrl(leader):
    def step(s, g):
        theta = s[0] + g
        return (theta,), leader(theta)

    return step


GAMMA, A0 = 2.0, 1.0  # ONS: the Newton step 1/gamma, A_0 = a I


def _ons_step(s, g):
    """Hazan, Agarwal and Kale's rule on R^d as usually written: A^{-1} by
    Sherman-Morrison, then the Newton step (no projection)."""
    x, Ainv = s
    k = Ainv @ g
    Ainv = Ainv - np.outer(k, k) / (1.0 + g @ k)
    x = x - (Ainv @ g) / GAMMA
    return (x, Ainv), x


P, Q = 1.5, 3.0
CASES = [
    Case(
        "OMD(Euclidean, Ball(1))",
        lambda d: OMD(Euclidean(), ETA, Ball(1.0), dim=d),
        lambda d: ((np.zeros(d),), np.zeros(d)),
        _omd_euclid(lambda y: np_ball(y, 1.0)),
    ),
    Case(
        "OMD(Euclidean, Simplex)",
        lambda d: OMD(Euclidean(), ETA, Simplex(), dim=d),
        lambda d: ((np.full(d, 1 / d),), np.full(d, 1 / d)),
        _omd_euclid(np_simplex),
    ),
    Case(
        "OMD(Entropic, Simplex)",
        lambda d: OMD(Entropic(), ETA, Simplex(), dim=d),
        lambda d: ((np.full(d, 1 / d),), np.full(d, 1 / d)),
        _entropic_step,
    ),
    Case(
        f"OMD(PNorm({P}), R^d)",
        lambda d: OMD(PNorm(P), ETA, dim=d),
        lambda d: ((np.zeros(d),), np.zeros(d)),
        _pnorm_step,
    ),
    Case(
        "FTRL(Euclidean, Box(-1, 1))",
        lambda d: FTRL(Euclidean(), ETA, Box(-1.0, 1.0), dim=d),
        lambda d: ((np.zeros(d),), np.zeros(d)),
        _ftrl(lambda th: np.clip(-ETA * th, -1.0, 1.0)),
    ),
    Case(
        "FTRL(Entropic, Simplex)",
        lambda d: FTRL(Entropic(), ETA, Simplex(), dim=d),
        lambda d: ((np.zeros(d),), np.full(d, 1 / d)),
        _ftrl(_softmax),
    ),
    Case(
        "FTL(Ball(1))",
        lambda d: FTL(Ball(1.0), dim=d),
        lambda d: ((np.zeros(d),), np.zeros(d)),
        _ftrl(lambda th: -th / np.sqrt(th @ th)),
    ),
    Case(
        "ONS(R^d)",
        lambda d: ONS(np.zeros(d), GAMMA, a=A0),
        lambda d: ((np.zeros(d), np.eye(d) / A0), np.zeros(d)),
        _ons_step,
    ),
]


def numpy_loop(case: Case, G: np.ndarray) -> np.ndarray:
    state, x = case.start(G.shape[1])
    X = np.empty_like(G)
    for t in range(G.shape[0]):
        X[t] = x
        state, x = case.step(state, G[t])
    return X


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--T", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    T, d = args.T, args.d
    rng = np.random.default_rng(0)
    G = rng.standard_normal((T, d)) + 0.1
    rows = []
    for case in CASES:
        case.build(d).run(G[:10])  # compile (or load numba's cache) before timing
        best_lib, best_ref = np.inf, np.inf
        for _ in range(args.repeat):  # interleaved: both sides see the same load
            X, t_lib = best_of(lambda c=case: c.build(d).run(G).points, 1)
            Xr, t_ref = best_of(lambda c=case: numpy_loop(c, G), 1)
            best_lib, best_ref = min(best_lib, t_lib), min(best_ref, t_ref)
        ratio = best_ref / best_lib
        diff = float(np.max(np.abs(X - Xr)))
        print(
            f"{case.name:30s} olbook {best_lib / T * 1e6:6.2f} us/round, numpy loop "
            f"{best_ref / T * 1e6:6.2f} us/round: {ratio:5.1f}x (target >= {TARGET}: "
            f"{'met' if ratio >= TARGET else 'NOT met'}); max |difference| {diff:.1e}"
        )
        rows.append(
            {
                "case": f"{case.name}.run, T={T}, d={d}",
                "olbook_s": round(best_lib, 4),
                "numpy_loop_s": round(best_ref, 4),
                "us_per_round": round(best_lib / T * 1e6, 3),
                "ratio": round(ratio, 2),
                "target": TARGET,
                "met": ratio >= TARGET,
                "max_abs_difference": diff,
            }
        )
    save(
        "oco",
        rows,
        notes=(
            f"best of {args.repeat} interleaved runs; the reference is a Python loop of "
            "the same rule with numpy, one round at a time"
        ),
    )


if __name__ == "__main__":
    main()
