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
    "kernel_args",
    "values",
    "FULL",
    "META_EPOCH",
    "column_loop",
    "entries_loop",
    "exp_nonpositive",
    "EXP_MIN",
]

#: Indices into ``KernelCache.meta``.
_HEAD, _TAIL, _USED, _HITS, _MISSES, _EPOCH = 0, 1, 2, 3, 4, 5
#: ``KernelCache.epoch`` of a slot that holds a whole column.
FULL = -1
#: ``KernelCache.meta[META_EPOCH]``: how often the active set grew (:func:`grow`).
META_EPOCH = _EPOCH


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
    diag = _diagonal(XT, int(code), p1, p2)
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


@numba.njit(cache=True, inline="always")
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
def kernel_args(cache: KernelCache) -> tuple:
    """The kernel of ``cache`` as the arguments ``(poly, gamma, root)`` of the compiled loops.

    ``poly`` is ``(degree, coef0)`` for the polynomial kernel, ``gamma`` the width of
    the Gaussian and Laplacian kernels, ``root`` True for the Laplacian; every other
    entry is None. numba compiles a loop once per kernel and drops the branches a
    None marks as absent, so a first fit compiles its own kernel's arithmetic only
    (no ``exp`` for the linear kernel). A precomputed cache gives three None.
    """
    code, p1, p2 = cache.code, cache.p1, cache.p2
    if code == 1:
        return (p1, p2), None, None
    if code >= 2:
        return None, p1, (True if code == 3 else None)
    return None, None, None


@numba.njit(cache=True)
def _power(vals, count, degree, coef0):  # pragma: no cover - compiled
    """``vals[:count] = (vals[:count] + coef0) ** degree`` in place (libm's ``pow``)."""
    for p in range(count):
        vals[p] = (vals[p] + coef0) ** degree


@numba.njit(cache=True)
def values(XT, i, idx, count, out, poly, gamma, root):  # pragma: no cover - compiled
    """``out[p] = k(x_i, x_idx[p])`` for ``p < count``; ``out[j] = k(x_i, x_j)`` for every
    ``j`` when ``count`` is the number of examples (``idx`` is then ``0, ..., n-1``).

    The dot product (``gamma`` None) or squared distance is added over the
    coordinates in their order (the same bits with or without ``idx``), then the
    kernel is applied: :func:`_power` with ``poly``, ``exp(-gamma * s)`` (of the
    distance itself with ``root``) by :func:`exp_nonpositive` with ``gamma``.
    """
    if count == XT.shape[1]:  # without the indirection: the same bits
        out[:] = 0.0
        for k in range(XT.shape[0]):
            xik = XT[k, i]
            row = XT[k]
            if gamma is None:
                for j in range(count):
                    out[j] += xik * row[j]
            else:
                for j in range(count):
                    t = xik - row[j]
                    out[j] += t * t
    else:
        for p in range(count):
            out[p] = 0.0
        for k in range(XT.shape[0]):
            xik = XT[k, i]
            row = XT[k]
            if gamma is None:
                for p in range(count):
                    out[p] += xik * row[idx[p]]
            else:
                for p in range(count):
                    t = xik - row[idx[p]]
                    out[p] += t * t
    if poly is not None:
        _power(out, count, poly[0], poly[1])
    if gamma is not None:
        if root is None:
            for p in range(count):
                out[p] = -gamma * out[p]
        else:
            for p in range(count):
                out[p] = -gamma * np.sqrt(out[p])
        exp_nonpositive(out, count)


def _diagonal(XT: np.ndarray, code: int, p1: float, p2: float) -> np.ndarray:
    r""":math:`K_{ii}`: ``exp(-gamma * 0) = 1`` exactly for the Gaussian and Laplacian
    kernels; for the others :math:`\sum_k x_{ik}^2` added over the coordinates in
    order (one NumPy operation per coordinate: the additions of the compiled loops), then
    :func:`_power` for the polynomial kernel."""
    n = XT.shape[1]
    if code >= 2:
        return np.ones(n)
    out = np.zeros(n)
    with np.errstate(over="ignore", invalid="ignore"):  # inf is reported by make_cache
        for k in range(XT.shape[0]):
            out += XT[k] * XT[k]
    if code == 1:
        _power(out, n, float(p1), float(p2))
    return out


@numba.njit(cache=True)
def entries_loop(
    cache, i, idx, count, out, poly, gamma, root
):  # pragma: no cover - compiled
    """:func:`entries` on ``idx[:count]``, for the kernel ``poly, gamma, root`` (:func:`kernel_args`)."""
    s = cache.slot_of[i] if cache.code >= 0 else -1
    if cache.code < 0 or (s >= 0 and cache.epoch[s] == FULL):
        col = cache.XT[i] if cache.code < 0 else cache.buf[s]
        for t in range(count):
            out[t] = col[idx[t]]
        return
    values(cache.XT, i, idx, count, out, poly, gamma, root)


def entries(cache: KernelCache, i: int, idx: np.ndarray, out: np.ndarray) -> None:
    """``out[t] = K[i, idx[t]]``: from column ``i`` if it is cached whole, else computed (the same bits).

    The cache is left as it was (no column is added, none moves in the LRU list).
    SMO's compiled code calls the loop itself, with the kernel's :func:`kernel_args`.
    """
    entries_loop(cache, i, idx, idx.shape[0], out, *kernel_args(cache))


@numba.njit(cache=True, inline="always")
def grow(cache):  # pragma: no cover - compiled
    """Tell the cache that the active set grew: the partial columns computed so far are stale."""
    cache.meta[_EPOCH] += 1


# --- the LRU list of slots ---------------------------------------------------------------
@numba.njit(cache=True)
def column_loop(
    cache, i, active, n_active, poly, gamma, root
):  # pragma: no cover - compiled
    """Column ``i`` of the Gram matrix, valid at least at the indices ``active[:n_active]``.

    From the cache, or computed (on the active entries only, unless all are
    active) and cached. The array returned, of length ``n``, is a view into the
    cache: it stays valid for the next ``n_slots - 1`` requests of other columns
    (at least one: SMO holds column ``i`` while it asks for column ``j``). The
    kernel is ``poly, gamma, root`` (:func:`kernel_args`); :func:`column` is the
    same from Python. The slots form a doubly linked list ``prev``/``nxt`` from the
    most (``meta[_HEAD]``) to the least (``meta[_TAIL]``) recently used.
    """
    if cache.code < 0:
        return cache.XT[i]
    buf = cache.buf
    slot_of = cache.slot_of
    epoch = cache.epoch
    prev = cache.prev
    nxt = cache.nxt
    meta = cache.meta
    whole = n_active == cache.diag.shape[0]
    s = slot_of[i]
    hit = False
    unlink = True  # take slot s out of the list, to put it in front
    if s >= 0:
        if epoch[s] == FULL or (not whole and epoch[s] == meta[_EPOCH]):
            hit = True
            meta[_HITS] += 1
            if meta[_HEAD] == s:
                return buf[s]
        # else stale or partial: recomputed in its slot
    elif meta[_USED] < buf.shape[0]:
        s = meta[_USED]
        meta[_USED] += 1
        unlink = False
    else:  # evict the least recently used column
        s = meta[_TAIL]
        slot_of[cache.owner[s]] = -1
    if s != slot_of[i]:
        cache.owner[s] = i
        slot_of[i] = s
    if unlink:
        p, q = prev[s], nxt[s]
        if p >= 0:
            nxt[p] = q
        else:
            meta[_HEAD] = q
        if q >= 0:
            prev[q] = p
        else:
            meta[_TAIL] = p
    head = meta[_HEAD]  # push s in front
    prev[s] = -1
    nxt[s] = head
    if head >= 0:
        prev[head] = s
    meta[_HEAD] = s
    if meta[_TAIL] < 0:
        meta[_TAIL] = s
    out = buf[s]
    if hit:
        return out
    meta[_MISSES] += 1
    vals = out if whole else cache.scratch
    values(cache.XT, i, active, n_active, vals, poly, gamma, root)
    if whole:
        epoch[s] = FULL
    else:
        for p in range(n_active):
            out[active[p]] = vals[p]
        epoch[s] = meta[_EPOCH]
    return out


def column(cache: KernelCache, i: int, active: np.ndarray, n_active: int) -> np.ndarray:
    """:func:`column_loop` for the kernel of ``cache`` (SMO calls the loop itself)."""
    return column_loop(cache, i, active, n_active, *kernel_args(cache))


def column_full(cache: KernelCache, i: int) -> np.ndarray:
    """Column ``i`` with every entry valid (:func:`column` on all the examples)."""
    return column(cache, i, cache.everyone, cache.diag.shape[0])
