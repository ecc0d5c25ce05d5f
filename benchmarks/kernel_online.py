"""Speed of the kernel online learners of chapter 7.

* NORMA with truncation tau = 200 (Gaussian kernel, d = 10): the time per step
  measured over 1,000 rounds after t = 10^3, 10^4 and 10^5 rounds have been played:
  flat, since a step costs O(tau d) however long the stream;
* the kernel perceptron against the same algorithm written as a plain numpy loop
  (one kernel row per round), one pass over 5,000 examples; target >= 3x faster.

One run each after numba has compiled (or loaded its cache); ratios printed.

    .venv/bin/python benchmarks/kernel_online.py
"""

from __future__ import annotations

import time

import numpy as np

import olbook
from olbook import kernels


def numpy_kernel_perceptron(X, y, gamma):
    S, A = np.zeros((0, X.shape[1])), np.zeros(0)
    for x, t in zip(X, y, strict=True):
        f = A @ np.exp(-gamma * np.sum((S - x) ** 2, axis=1)) if A.size else 0.0
        if t * f <= 0:
            S, A = np.vstack([S, x]), np.append(A, t)
    return A


def main() -> None:
    rng = np.random.default_rng(0)
    d = 10
    X = rng.standard_normal((101_000, d))
    y = np.where(np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.5 * rng.standard_normal(X.shape[0]) > 0, 1.0, -1.0)
    g = kernels.gaussian(0.5)
    olbook.NORMA(kernel=g, truncation=5).fit(X[:20], y[:20])  # compile
    clf = olbook.NORMA(kernel=g, eta=0.2, lam=0.01, truncation=200)
    done = 0
    for t in (1_000, 10_000, 100_000):
        clf.partial_fit(X[done:t], y[done:t])
        start = time.perf_counter()
        clf.partial_fit(X[t:t + 1000], y[t:t + 1000])
        per = (time.perf_counter() - start) / 1000
        done = t + 1000
        print(f"NORMA, tau = 200, after t = {t:>7,} rounds: {per * 1e6:7.1f} microseconds per step "
              f"({clf.alpha_.size} terms stored)")
    n = 5_000
    olbook.KernelPerceptron(kernel=g).fit(X[:20], y[:20])
    start = time.perf_counter()
    kp = olbook.KernelPerceptron(kernel=g).fit(X[:n], y[:n])
    t_ol = time.perf_counter() - start
    start = time.perf_counter()
    A = numpy_kernel_perceptron(X[:n], y[:n], 0.5)
    t_np = time.perf_counter() - start
    print(f"kernel perceptron, one pass over {n} x {d}: olbook {t_ol * 1e3:.0f} ms, numpy loop "
          f"{t_np * 1e3:.0f} ms: {t_np / t_ol:.1f}x faster (target 3x: {'met' if t_np / t_ol >= 3 else 'NOT met'}); "
          f"same number of updates: {kp.n_updates_ == A.size}")


if __name__ == "__main__":
    main()
