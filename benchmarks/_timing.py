"""The one timer of the benchmark scripts: the best of a few runs."""

import time


def best_of(fn, repeat: int = 5) -> tuple[object, float]:
    """Call ``fn()`` ``repeat`` times; return its last result and the shortest wall time in seconds."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best
