r"""Kernel columns on demand, kept in a least-recently-used cache (libsvm's ``Cache``).

SMO (:mod:`olbook._smo`) reads two columns :math:`K_{\cdot i}, K_{\cdot j}` of the
Gram matrix per iteration and never the whole matrix. Precomputing it costs
:math:`n^2` kernel values and :math:`8n^2` bytes (3.2 GB for 20,000 examples);
instead, as in libsvm (Chang and Lin 2011, section 4.3), a column is computed
when SMO first asks for it and kept in a buffer of ``cache_size`` megabytes; when
the buffer is full, the column used least recently makes room.

With shrinking, SMO works on a subset of the examples, the *active* ones, and
needs a column only there: :func:`column` then computes the active entries only.
Such a partial column stays valid while the active set shrinks; when it grows
again (:func:`grow`, after SMO has rebuilt the gradient of the dropped examples),
partial columns are recomputed on their next request.

The cache is a :class:`KernelCache`, a named tuple of arrays, so that compiled
code (``numba.njit(cache=True)``) takes it as an argument. A kernel value is
computed as in :mod:`olbook.kernels` (the dot product or squared distance added
over the coordinates in their order) except for ``exp``: a column is a loop over
examples, and libm's ``exp``, a function call, would keep the compiler from
vectorizing it (it cost three quarters of the time of a column). The Gaussian and
Laplacian kernels use :func:`exp_nonpositive` instead, written with additions and
multiplications only: the same bits on every CPU, within about one unit in the last
place of libm's. Linear columns are the rows of ``kernels.gram(kernel, X)`` to the
bit; polynomial ones use libm's ``pow``, as :func:`olbook.kernels.kernel_value`.
Every path (a whole column, the active part of one, single entries) gives the same
bits, so the result of SMO does not depend on the cache size. A kernel without a
compiled form (any callable) has its Gram matrix precomputed and served through
the same interface (``code = -1``, :func:`precomputed_cache`).

References
----------
C.-C. Chang, C.-J. Lin, "LIBSVM: a library for support vector machines",
ACM TIST 2(3), 2011.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from . import _numba_cache  # noqa: F401 (olbook's cache locator, before any @njit)

__all__ = [
    "KernelCache",
    "make_cache",
    "precomputed_cache",
    "n_slots",
    "column",
    "column_full",
    "entries",
    "grow",
    "exp_nonpositive",
    "EXP_MIN",
]

#: Indices into ``KernelCache.meta``.
_HEAD, _TAIL, _USED, _HITS, _MISSES, _EPOCH = 0, 1, 2, 3, 4, 5
#: ``KernelCache.epoch`` of a slot that holds a whole column.
FULL = -1


class KernelCache(NamedTuple):
    """The state of a kernel-column cache (see :func:`make_cache`).

    ``XT`` is the data transposed, shape ``(d, n)`` (one coordinate of every
    example contiguous), or the precomputed Gram matrix when ``code == -1``;
    ``code, p1, p2`` the kernel (:meth:`olbook.kernels.Kernel.spec`); ``diag``
    the diagonal :math:`K_{ii}`; ``everyone`` the indices ``0 .. n-1``; ``scratch``
    room for one column; ``buf``
    the cached columns, one per slot; ``slot_of[i]`` the slot of column ``i``
    or -1; ``owner[s]`` the column in slot ``s``; ``epoch[s]`` :data:`FULL` for
    a whole column, else the epoch of the active set it was computed on;
    ``prev``/``nxt`` the doubly linked list of slots from the most to the least
    recently used; ``meta`` its head and tail, the slots in use, the counts of
    hits and misses, and the current epoch (how often the active set grew).
    """

    XT: np.ndarray
    code: int
    p1: float
    p2: float
    diag: np.ndarray
    everyone: np.ndarray
    scratch: np.ndarray
    buf: np.ndarray
    slot_of: np.ndarray
    owner: np.ndarray
    epoch: np.ndarray
    prev: np.ndarray
    nxt: np.ndarray
    meta: np.ndarray


def n_slots(n: int, cache_size: float) -> int:
    """Columns of ``n`` float64 that fit in ``cache_size`` MB: at least 2 (SMO holds two), at most ``n``."""
    return int(min(n, max(2, (cache_size * 2**20) // (8 * n))))


def _empty(XT, code, p1, p2, diag, slots, width) -> KernelCache:
    def minus_ones(m):
        return np.full(m, -1, dtype=np.int64)

    n = diag.shape[0]
    return KernelCache(
        XT,
        int(code),
        float(p1),
        float(p2),
        diag,
        np.arange(n, dtype=np.int64),
        np.empty(n),
        np.empty((slots, width)),
        minus_ones(n),
        minus_ones(slots),
        np.full(slots, FULL, dtype=np.int64),
        minus_ones(slots),
        minus_ones(slots),
        np.array([-1, -1, 0, 0, 0, 0], dtype=np.int64),
    )


def make_cache(
    spec: tuple[int, float, float],
    X: np.ndarray,
    cache_size: float,
    name: str = "the kernel",
) -> KernelCache:
    """A cache of ``cache_size`` MB for the kernel ``spec`` (``Kernel.spec()``) on the rows of ``X``.

    Raises ``ValueError`` (naming the kernel ``name``) if a diagonal value
    :math:`k(\\mathbf x_i, \\mathbf x_i)` is not finite. For a positive
    semi-definite kernel :math:`|K_{ij}| \\le \\sqrt{K_{ii}K_{jj}}`, so otherwise
    no entry of the Gram matrix overflows.
    """
    code, p1, p2 = spec
    XT = np.ascontiguousarray(X.T, dtype=np.float64)
    n = XT.shape[1]
    diag = np.empty(n)
    _diagonal(XT, int(code), float(p1), float(p2), diag)
    if not np.all(np.isfinite(diag)):
        raise ValueError(
            f"kernel {name} gave {int(np.sum(~np.isfinite(diag)))} non-finite values k(x_i, x_i): "
            "the Gram matrix overflows float64 on this data."
        )
    return _empty(XT, code, p1, p2, diag, n_slots(n, cache_size), n)


def precomputed_cache(K: np.ndarray) -> KernelCache:
    """The same interface over a precomputed symmetric Gram matrix ``K`` (its rows are its columns)."""
    K = np.ascontiguousarray(K, dtype=np.float64)
    return _empty(K, -1, 0.0, 0.0, np.diag(K).copy(), 1, 1)


# --- exp, vectorized and the same on every CPU ------------------------------------------------
_LN2_HI = 6.93147180369123816490e-01  # ln 2 to 32 bits (fdlibm): k * _LN2_HI is exact for |k| < 2**20
_LN2_LO = 1.90821492927058770002e-10  # ln 2 - _LN2_HI
_INV_LN2 = 1.44269504088896338700e00
_SHIFT = (
    6755399441055744.0  # 1.5 * 2**52: (v + _SHIFT) - _SHIFT is v rounded to an integer
)
#: Below this, ``exp_nonpositive`` returns 0 (exp(-708) = 3.3e-308, near the smallest normal float).
EXP_MIN = -708.0
_C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12, _C13 = (
    1.0 / math.factorial(k) for k in range(2, 14)
)


@numba.njit(cache=True)
def exp_nonpositive(x, count):  # pragma: no cover - compiled
    r"""``x[:count] = exp(x[:count])`` in place, for :math:`x \le 0`, in a loop the compiler vectorizes.

    libm's ``exp`` is a function call per value, which no compiler vectorizes.
    Here :math:`e^x = 2^k e^r` with :math:`k` the integer nearest to
    :math:`x/\ln 2` and :math:`r = x - k\ln 2` (Cody and Waite's two-part
    :math:`\ln 2`, exact products), :math:`|r| \le \ln 2/2`; :math:`e^r` is its
    Taylor polynomial of degree 13 (truncation error below :math:`5\cdot 10^{-18}`)
    evaluated by Horner's rule, and :math:`2^k` is added to the exponent bits.
    Only additions, multiplications and exact operations occur, written in one
    order and without ``fastmath`` (so without fused multiply-adds): the result
    is the same to the bit on every CPU, at any SIMD width; it is within about
    one unit in the last place of the exact value (tested against libm and
    mpmath). :math:`x <` :data:`EXP_MIN` gives 0.
    """
    bits = x.view(np.int64)
    for j in range(count):
        ok = x[j] >= EXP_MIN
        v = x[j] if ok else 0.0
        kf = (v * _INV_LN2 + _SHIFT) - _SHIFT
        r = (v - kf * _LN2_HI) - kf * _LN2_LO
        p = 1.0 + r * (
            1.0
            + r
            * (
                _C2
                + r
                * (
                    _C3
                    + r
                    * (
                        _C4
                        + r
                        * (
                            _C5
                            + r
                            * (
                                _C6
                                + r
                                * (
                                    _C7
                                    + r
                                    * (
                                        _C8
                                        + r
                                        * (
                                            _C9
                                            + r
                                            * (
                                                _C10
                                                + r * (_C11 + r * (_C12 + r * _C13))
                                            )
                                        )
                                    )
                                )
                            )
                        )
                    )
                )
            )
        )
        x[j] = p if ok else 0.0
        bits[j] += (np.int64(kf) << 52) if ok else np.int64(0)


# --- kernel values ------------------------------------------------------------------------------
@numba.njit(cache=True)
def _finish(code, p1, p2, vals, count):  # pragma: no cover - compiled
    """Kernel values from the dot products (codes 0, 1) or squared distances (2, 3) ``vals[:count]``, in place."""
    if code == 0:
        return
    if code == 1:
        for p in range(count):
            vals[p] = (vals[p] + p2) ** p1
        return
    for p in range(count):
        vals[p] = -p1 * (np.sqrt(vals[p]) if code == 3 else vals[p])
    exp_nonpositive(vals, count)


@numba.njit(cache=True)
def _sums(XT, code, i, idx, count, out):  # pragma: no cover - compiled
    """``out[p]`` = dot product (codes 0, 1) or squared distance of ``x_i`` and ``x_idx[p]``, coordinates in order."""
    for p in range(count):
        out[p] = 0.0
    for k in range(XT.shape[0]):
        xik = XT[k, i]
        row = XT[k]
        if code <= 1:
            for p in range(count):
                out[p] += xik * row[idx[p]]
        else:
            for p in range(count):
                t = xik - row[idx[p]]
                out[p] += t * t


@numba.njit(cache=True)
def _fill(XT, code, p1, p2, i, out):  # pragma: no cover - compiled
    """``out[j] = k(x_i, x_j)`` for every ``j`` (:func:`_sums` without the indirection: the same bits)."""
    d, n = XT.shape
    out[:] = 0.0
    for k in range(d):
        xik = XT[k, i]
        row = XT[k]
        if code <= 1:
            for j in range(n):
                out[j] += xik * row[j]
        else:
            for j in range(n):
                t = xik - row[j]
                out[j] += t * t
    _finish(code, p1, p2, out, n)


@numba.njit(cache=True)
def _diagonal(XT, code, p1, p2, out):  # pragma: no cover - compiled
    for i in range(XT.shape[1]):
        s = 0.0
        if code <= 1:
            for k in range(XT.shape[0]):
                s += XT[k, i] * XT[k, i]
        out[i] = s
    _finish(code, p1, p2, out, out.shape[0])


@numba.njit(cache=True)
def entries(cache, i, idx, out):  # pragma: no cover - compiled
    """``out[t] = K[i, idx[t]]``: from column ``i`` if it is cached whole, else computed (the same bits).

    The cache is left as it was (no column is added, none moves in the LRU list).
    """
    s = cache.slot_of[i] if cache.code >= 0 else -1
    if cache.code < 0 or (s >= 0 and cache.epoch[s] == FULL):
        col = cache.XT[i] if cache.code < 0 else cache.buf[s]
        for t in range(idx.shape[0]):
            out[t] = col[idx[t]]
        return
    _sums(cache.XT, cache.code, i, idx, idx.shape[0], out)
    _finish(cache.code, cache.p1, cache.p2, out, idx.shape[0])


@numba.njit(cache=True, inline="always")
def grow(cache):  # pragma: no cover - compiled
    """Tell the cache that the active set grew: the partial columns computed so far are stale."""
    cache.meta[_EPOCH] += 1


# --- the LRU list of slots ---------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _unlink(cache, s):  # pragma: no cover - compiled
    p, q = cache.prev[s], cache.nxt[s]
    if p >= 0:
        cache.nxt[p] = q
    else:
        cache.meta[_HEAD] = q
    if q >= 0:
        cache.prev[q] = p
    else:
        cache.meta[_TAIL] = p


@numba.njit(cache=True, inline="always")
def _push_front(cache, s):  # pragma: no cover - compiled
    head = cache.meta[_HEAD]
    cache.prev[s] = -1
    cache.nxt[s] = head
    if head >= 0:
        cache.prev[head] = s
    cache.meta[_HEAD] = s
    if cache.meta[_TAIL] < 0:
        cache.meta[_TAIL] = s


@numba.njit(cache=True)
def column(cache, i, active, n_active):  # pragma: no cover - compiled
    """Column ``i`` of the Gram matrix, valid at least at the indices ``active[:n_active]``.

    From the cache, or computed (on the active entries only, unless all are
    active) and cached. The array returned, of length ``n``, is a view into the
    cache: it stays valid for the next ``n_slots - 1`` requests of other columns
    (at least one: SMO holds column ``i`` while it asks for column ``j``).
    """
    if cache.code < 0:
        return cache.XT[i]
    whole = n_active == cache.diag.shape[0]
    s = cache.slot_of[i]
    if s >= 0:
        if cache.epoch[s] == FULL or (
            not whole and cache.epoch[s] == cache.meta[_EPOCH]
        ):
            cache.meta[_HITS] += 1
            if cache.meta[_HEAD] != s:
                _unlink(cache, s)
                _push_front(cache, s)
            return cache.buf[s]
        _unlink(cache, s)  # stale or partial: recomputed in its slot
    else:
        if cache.meta[_USED] < cache.buf.shape[0]:
            s = cache.meta[_USED]
            cache.meta[_USED] += 1
        else:  # evict the least recently used column
            s = cache.meta[_TAIL]
            _unlink(cache, s)
            cache.slot_of[cache.owner[s]] = -1
        cache.owner[s] = i
        cache.slot_of[i] = s
    cache.meta[_MISSES] += 1
    _push_front(cache, s)
    out = cache.buf[s]
    if whole:
        _fill(cache.XT, cache.code, cache.p1, cache.p2, i, out)
        cache.epoch[s] = FULL
    else:
        vals = cache.scratch
        _sums(cache.XT, cache.code, i, active, n_active, vals)
        _finish(cache.code, cache.p1, cache.p2, vals, n_active)
        for p in range(n_active):
            out[active[p]] = vals[p]
        cache.epoch[s] = cache.meta[_EPOCH]
    return out


@numba.njit(cache=True, inline="always")
def column_full(cache, i):  # pragma: no cover - compiled
    """Column ``i`` with every entry valid (:func:`column` on all the examples)."""
    return column(cache, i, cache.everyone, cache.diag.shape[0])
