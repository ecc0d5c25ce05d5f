"""Tests of olbook._kernel_cache: the vectorized exp (accuracy, the same bits on another CPU),
kernel columns (every path the same bits, equal to olbook.kernels), the LRU cache."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest

from olbook import _kernel_cache as kc
from olbook import kernels


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between positive floats."""
    return np.abs(a.view(np.int64) - b.view(np.int64))


def _exp(x: np.ndarray) -> np.ndarray:
    out = np.array(x, dtype=np.float64)
    kc.exp_nonpositive(out, out.shape[0])
    return out


# --- exp_nonpositive -------------------------------------------------------------------------------
def test_exp_exact_points_and_range_ends():
    out = _exp(
        np.array([0.0, -0.0, -1e-300, -5e-324, kc.EXP_MIN, -708.5, -1e4, -np.inf])
    )
    assert out[0] == 1.0 and out[1] == 1.0 and out[2] == 1.0 and out[3] == 1.0
    assert out[4] == pytest.approx(math.exp(kc.EXP_MIN), rel=1e-15)
    assert np.all(out[5:] == 0.0)  # below EXP_MIN: 0
    k = np.arange(-1000, 1, dtype=np.float64)
    powers = _exp(k * math.log(2.0))  # e^(k ln 2) = 2^k up to the rounding of k ln 2
    assert np.all(np.abs(np.log2(powers) - k) < 1e-12)


def test_exp_within_one_ulp_of_libm_and_monotone():
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            -rng.exponential(2.0, 200_000),
            -rng.uniform(0.0, -kc.EXP_MIN, 200_000),
            -rng.uniform(0.0, 1e-6, 10_000),
        ]
    )
    ours = _exp(x)
    libm = np.array([math.exp(v) for v in x])
    assert _ulps(ours, libm).max() <= 1
    s = np.sort(x)
    assert np.all(np.diff(_exp(s)) >= 0.0)


def test_exp_error_against_mpmath():
    rng = np.random.default_rng(1)
    x = np.concatenate(
        [-rng.exponential(3.0, 3000), -rng.uniform(0.0, -kc.EXP_MIN, 1000)]
    )
    ours = _exp(x)
    mpmath.mp.prec = 120
    worst = 0.0
    for v, e in zip(x, ours, strict=True):
        exact = mpmath.exp(mpmath.mpf(float(v)))
        worst = max(worst, float(abs((mpmath.mpf(float(e)) - exact) / exact)))
    # below one ulp of the binade's bottom (2 ulp-widths of 2**-53)
    assert worst < 2.0**-52


_BITS_SCRIPT = """
import hashlib, numpy as np
from olbook import _kernel_cache as kc, kernels
rng = np.random.default_rng(7)
x = np.concatenate([-rng.exponential(3.0, 100_000), -rng.uniform(0.0, 708.0, 20_000)])
kc.exp_nonpositive(x, x.shape[0])
X = rng.normal(size=(3001, 3))
parts = [x.tobytes()]
for k in (kernels.gaussian(0.7), kernels.laplacian(1.3), kernels.linear, kernels.polynomial(3, 1.0)):
    c = kc.make_cache(k.spec(), X, 1.0)
    parts += [kc.column_full(c, 5).tobytes(), c.diag.tobytes()]
print(hashlib.sha256(b"".join(parts)).hexdigest())
"""


def _bits_here() -> str:
    out = subprocess.run(
        [sys.executable, "-c", _BITS_SCRIPT], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_exp_and_columns_same_bits_under_the_second_cpu_setting():
    """The second CPU setting of `make test` (numba's generic CPU: SSE2, no FMA) gives the same bits."""
    env = dict(os.environ, OPENBLAS_CORETYPE="Prescott", NUMBA_CPU_NAME="generic")
    generic = subprocess.run(
        [sys.executable, "-c", _BITS_SCRIPT],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=Path(__file__).parent,
    )
    assert generic.stdout.strip() == _bits_here()


# --- columns -------------------------------------------------------------------------------------
KERNELS = [
    kernels.linear,
    kernels.gaussian(0.8),
    kernels.laplacian(1.5),
    kernels.polynomial(3, 1.0),
]


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_every_path_gives_the_same_bits(kernel):
    X = np.random.default_rng(2).normal(size=(300, 3))
    c = kc.make_cache(kernel.spec(), X, 1.0)
    whole = np.array([kc.column_full(c, i) for i in range(300)])
    assert np.array_equal(whole, whole.T)  # symmetric to the bit
    assert np.array_equal(np.diag(whole), c.diag)
    idx = np.arange(1, 300, 3)
    for i in (0, 7, 299):
        vals = np.empty(idx.size)
        kc.entries(c, i, idx, vals)  # cached whole: read
        assert np.array_equal(vals, whole[i, idx])
    fresh = kc.make_cache(kernel.spec(), X, 1.0)
    for i in (0, 7, 299):
        vals = np.empty(idx.size)
        kc.entries(fresh, i, idx, vals)  # not cached: computed
        assert np.array_equal(vals, whole[i, idx])
        # partial column
        assert np.array_equal(kc.column(fresh, i, idx, idx.size)[idx], whole[i, idx])


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_columns_equal_olbook_kernels(kernel):
    X = np.random.default_rng(3).normal(size=(200, 4))
    c = kc.make_cache(kernel.spec(), X, 1.0)
    K = kernels.gram(kernel, X)
    cols = np.array([kc.column_full(c, i) for i in range(200)])
    if kernel == kernels.linear:
        assert np.array_equal(cols, K)  # no exp, no pow: gram's bits
    else:
        # exp or pow within an ulp or two of libm/NumPy
        assert np.all(_ulps(np.abs(cols), np.abs(K)) <= 2)
    one = np.array(
        [kernels.kernel_value(*kernel.spec(), X, 5, X, j) for j in range(200)]
    )
    if kernel.spec()[0] <= 1:
        assert np.array_equal(cols[5], one)  # the arithmetic of kernel_value


def test_lru_eviction_and_counts():
    X = np.random.default_rng(4).normal(size=(1000, 2))
    k = kernels.gaussian(1.0)
    size_mb = 3 * 8 * 1000 / 2**20  # three columns
    c = kc.make_cache(k.spec(), X, size_mb)
    assert c.buf.shape[0] == 3 == kc.n_slots(1000, size_mb)
    assert kc.n_slots(1000, 1e-9) == 2 and kc.n_slots(10, 1000.0) == 10
    K = kernels.gram(k, X[:6], X)
    for i in (0, 1, 2, 0, 3):  # 3 evicts the least recently used: 1
        col = kc.column_full(c, i)
        assert np.all(_ulps(col, K[i]) <= 1)
    hits, misses = c.meta[3], c.meta[4]
    assert (hits, misses) == (1, 4)
    assert c.slot_of[1] == -1 and all(c.slot_of[i] >= 0 for i in (0, 2, 3))
    assert c.owner[c.slot_of[3]] == 3
    kc.column_full(c, 2)
    assert c.meta[3] == 2  # a hit


def test_partial_columns_are_recomputed_after_grow():
    X = np.random.default_rng(5).normal(size=(500, 2))
    c = kc.make_cache(kernels.gaussian(0.5).spec(), X, 10.0)
    active = np.arange(0, 500, 2)
    kc.column(c, 3, active, active.size)
    kc.column(c, 3, active[:50], 50)  # a subset of the active set: still valid
    assert (c.meta[3], c.meta[4]) == (1, 1)
    kc.grow(c)
    col = kc.column(c, 3, active, active.size)  # stale after the active set grew
    assert (c.meta[3], c.meta[4]) == (1, 2)
    full = kc.column_full(c, 3)  # a partial column is not a whole one
    assert c.meta[4] == 3 and np.array_equal(col[active], full[active])
    kc.grow(c)
    kc.column(c, 3, active, active.size)  # whole columns stay valid
    assert c.meta[3] == 2


def test_precomputed_cache_and_overflow():
    X = np.random.default_rng(6).normal(size=(50, 2))
    K = kernels.gram(kernels.gaussian(1.0), X)
    c = kc.precomputed_cache(K)
    assert np.array_equal(kc.column_full(c, 4), K[4]) and np.array_equal(
        c.diag, np.diag(K)
    )
    vals = np.empty(3)
    kc.entries(c, 4, np.array([0, 9, 4]), vals)
    assert np.array_equal(vals, K[4, [0, 9, 4]])
    with pytest.raises(ValueError, match="non-finite values k"):
        kc.make_cache(
            kernels.linear.spec(), np.array([[1e200, 0.0], [1.0, 2.0]]), 1.0, "linear"
        )
