"""Peak memory of one pass of every online linear learner, beyond the data it reads.

``tracemalloc`` (which sees NumPy's allocations) records the peak of the memory
allocated during ``fit`` (one pass) on data that exists before the measurement.
The target: the data + O(d^2) for the second-order learners (their d x d factor)
and the data + O(d) for the first-order ones. Every learner also keeps its per-round
trace (two booleans per example) and reads the labels as float64: 10 bytes per
example, i.e. O(n), 10/(8d) of the data. So a pass passes if its peak is at most

    allowed = 10 n + 16 * 8 d          (first-order)
    allowed = 10 n + 16 * 8 d + 4 * 8 d^2   (second-order: the factor and its working copy)

The voted perceptron stores every vector it passes through (O(updates x d), its
definition); the normalized perceptron and the second-order learners with
fit_intercept=True build a transformed copy of the data (reported, not counted against the target).

    .venv/bin/python benchmarks/memory.py [--n 100000] [--d 100]
"""

from __future__ import annotations

import argparse
import tracemalloc
import warnings

import numpy as np
from _results import save

import olbook

FIRST = {
    "Perceptron": olbook.Perceptron,
    "Perceptron(fit_intercept=True)": lambda: olbook.Perceptron(fit_intercept=True),
    "AveragedPerceptron": olbook.AveragedPerceptron,
    "PassiveAggressive(PA-I)": lambda: olbook.PassiveAggressive("PA-I"),
    "ROMMA": olbook.ROMMA,
    "ALMA": olbook.ALMA,
    "OGDClassifier": olbook.OGDClassifier,
    "AROW(diagonal=True)": lambda: olbook.AROW(diagonal=True),
    "SCW(SCW-II, diagonal=True)": lambda: olbook.SCW("SCW-II", diagonal=True),
}
SECOND = {
    "AROW": olbook.AROW,
    "NAROW": lambda: olbook.NAROW(b=2.0),
    "NormalHerd": olbook.NormalHerd,
    "ConfidenceWeighted": olbook.ConfidenceWeighted,
    "SCW(SCW-I)": lambda: olbook.SCW("SCW-I"),
    "SecondOrderPerceptron": olbook.SecondOrderPerceptron,
    "IELLIP": olbook.IELLIP,
}
COPIES = {
    "NormalizedPerceptron": olbook.NormalizedPerceptron,
    "VotedPerceptron": olbook.VotedPerceptron,
    "AROW(fit_intercept=True)": lambda: olbook.AROW(fit_intercept=True),
}


def peak_of_fit(make, X, y) -> int:
    make().fit(X[:20], y[:20])  # compile (or load the cache) outside the measurement
    tracemalloc.start()
    tracemalloc.reset_peak()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = make().fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del clf
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--d", type=int, default=100)
    args = parser.parse_args()
    n, d = args.n, args.d
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    y = np.where(
        X @ rng.standard_normal(d) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0
    )
    data = X.nbytes + y.nbytes
    print(
        f"data: {n} x {d} float64 and labels = {data / 1e6:.1f} MB; peak = memory allocated during one fit pass"
    )
    rows = []
    for group, learners, allowed in [
        ("first-order", FIRST, 10 * n + 16 * 8 * d),
        ("second-order", SECOND, 10 * n + 16 * 8 * d + 4 * 8 * d * d),
        ("copies the data", COPIES, None),
    ]:
        for name, make in learners.items():
            peak = peak_of_fit(make, X, y)
            ok = None if allowed is None else peak <= allowed
            verdict = "not counted" if ok is None else ("met" if ok else "NOT met")
            bound = "" if allowed is None else f" of {allowed / 1e6:6.2f} MB allowed"
            print(
                f"{group:16s} {name:32s} peak {peak / 1e6:8.2f} MB = {peak / data:6.1%} of the data"
                f"{bound}: {verdict}"
            )
            rows.append(
                {
                    "case": f"{name}.fit, one pass, {n} x {d}",
                    "peak_bytes": peak,
                    "data_bytes": data,
                    "allowed_bytes": allowed,
                    "ratio": round(peak / data, 4),
                    "group": group,
                    "target_kind": "peak memory beyond the data",
                    "met": ok,
                }
            )
    save(
        "memory",
        rows,
        notes="tracemalloc peak of the allocations made during one fit pass (the data exists "
        "before); allowed = 10 n + 128 d (+ 32 d^2 for second-order learners)",
    )


if __name__ == "__main__":
    main()
