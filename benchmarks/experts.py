"""Time of Hedge.run for T = 10**6 rounds and m = 100 experts.

Prints the best of --repeat runs (after one untimed call that compiles, or
loads numba's cache), the rate in expert-rounds per second, and the final
regret beside its bound, so that a fast but wrong run is noticed.

    .venv/bin/python benchmarks/experts.py [--T 1000000] [--m 100] [--repeat 3]
"""

from __future__ import annotations

import argparse

import numpy as np
from _timing import best_of

import olbook


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--T", type=int, default=1_000_000)
    parser.add_argument("--m", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    L = rng.random((args.T, args.m))
    olbook.Hedge(args.m).run(L[:10])  # compile before timing
    for eta in ["anytime", "doubling"]:
        def play(eta=eta):
            h = olbook.Hedge(args.m, eta=eta)
            return h, h.run(L)

        (h, tr), best = best_of(play, args.repeat)
        print(f"Hedge(eta={eta!r}).run, T={args.T}, m={args.m}: {best:.3f} s "
              f"({args.T * args.m / best / 1e6:.0f} M expert-rounds/s); "
              f"regret {tr.regret[-1]:.2f} <= bound {h.regret_bound(args.T):.2f}")


if __name__ == "__main__":
    main()
