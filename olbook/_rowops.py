"""Scores and norms of rows, compiled with numba: the bottom layer shared by
the data generators (:mod:`olbook.data`), the margins and the learners.

Every piece of olbook that asks "does the perceptron err on this example?"
computes the score with :func:`row_score`, so that they agree to the last bit
even on examples whose score is within rounding error of 0.

**The order of the additions.** A dot product :math:`\\sum_j a_j b_j` is added
in one fixed *blocked* order, :data:`LANES` = 8 partial sums:

* term :math:`j` goes to partial sum :math:`s_{j \\bmod 8}`, and each partial sum
  adds its terms in increasing :math:`j` (starting from 0.0);
* the partial sums are combined in a fixed tree,
  :math:`((s_0 + s_1) + (s_2 + s_3)) + ((s_4 + s_5) + (s_6 + s_7))`.

Every operation is one IEEE-754 multiplication or addition in that order, with
no ``fastmath`` flag and no fused multiply-add, so the result is the same on
every x86-64 or ARM CPU whatever its vector width, and the same with
``NUMBA_CPU_NAME=generic`` (a BLAS ``X @ w`` is not: OpenBLAS picks its kernel,
and with it the order of the additions, from the CPU it runs on). The eight
partial sums are independent, so the loop runs as one 8-wide vector (or two
4-wide, or eight scalar) accumulators: the compiler does not have to reorder
anything to vectorize it, and it is not allowed to. The loop is written with
explicit vector operations (:func:`lane_dot`), because LLVM's vectorizers do
not turn eight scalar accumulators into one vector by themselves.

**Compilation.** The helpers the learners' loops call on every row (:func:`row_score`,
:func:`dot`; the learners' own step rules likewise) are compiled with
``inline="always"``: numba compiles them into each loop that calls them, so that the
first fit in a fresh process (an empty cache) compiles one function per loop, not
one per helper as well. The arithmetic is the same.

The same order serves sparse rows (:func:`csr_row_score`): a stored entry in column
:math:`j` goes to :math:`s_{j \\bmod 8}` in increasing :math:`j`; the zeros a dense
row holds add nothing, so a sparse row and its dense copy give the same bits
(:func:`csr_row_score`, whose loop reads the CSR arrays with unsigned indices and
asks for the weights :data:`PREFETCH_AHEAD` entries ahead: neither changes a
result). This is not scikit-learn's order (one accumulator, left to right): the two
agree exactly wherever the products and their partial sums are exact, as on
:mod:`olbook.data`'s dyadic grids and on small integers, and otherwise may differ in
the last bits.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

from . import _numba_cache  # noqa: F401 (olbook's cache locator, before any @njit)

__all__ = [
    "LANES",
    "lane_dot",
    "lane_tree",
    "row_score",
    "row_dots",
    "row_sqnorms",
    "rowwise_dots",
    "dot",
    "csr_row_score",
    "csr_row_sqnorm",
    "csr_row_score_sqnorm",
    "csr_add",
    "csr_span",
    "csr_nonfinite",
    "prefetch",
    "PREFETCH_AHEAD",
    "csr_row_dots",
    "csr_row_sqnorms",
    "blocked_sum_reference",
    "with_constant_feature",
]

#: Number of partial sums of every fixed-order dot product.
LANES = 8


@intrinsic
def lane_dot(typingctx, a, oa, b, ob, d):
    """``sum_k a.flat[oa + k] * b.flat[ob + k]`` for ``k < d`` in the blocked order.

    ``a`` and ``b`` are C-contiguous float64 arrays (any dimension); the offsets
    index their flat data. Built as explicit ``<8 x double>`` operations: lane
    ``k`` of the accumulator adds the terms ``k, k + 8, k + 16, ...`` in order,
    the ``d mod 8`` last terms go to lanes ``0, 1, ...`` and the lanes are
    combined in the fixed tree of the module docstring.
    """
    for arr in (a, b):
        if not (
            isinstance(arr, types.Array)
            and arr.dtype == types.float64
            and arr.layout == "C"
        ):
            raise TypingError(f"lane_dot needs C-contiguous float64 arrays; got {arr}")
    sig = types.float64(a, types.intp, b, types.intp, types.intp)

    def codegen(context, builder, signature, args):
        aty, _, bty, _, _ = signature.args
        av = context.make_array(aty)(context, builder, args[0])
        bv = context.make_array(bty)(context, builder, args[2])
        dbl, i32, i64 = ir.DoubleType(), ir.IntType(32), ir.IntType(64)
        vt = ir.VectorType(dbl, LANES)
        pa = builder.gep(av.data, [args[1]])
        pb = builder.gep(bv.data, [args[3]])
        d = args[4]
        nb = builder.sdiv(d, ir.Constant(i64, LANES))
        acc = cgutils.alloca_once_value(builder, ir.Constant(vt, [0.0] * LANES))
        vptr = vt.as_pointer()
        with cgutils.for_range(builder, nb) as loop:
            off = builder.mul(loop.index, ir.Constant(i64, LANES))
            xa = builder.load(builder.bitcast(builder.gep(pa, [off]), vptr), align=8)
            xb = builder.load(builder.bitcast(builder.gep(pb, [off]), vptr), align=8)
            builder.store(builder.fadd(builder.load(acc), builder.fmul(xa, xb)), acc)
        start = builder.mul(nb, ir.Constant(i64, LANES))
        with cgutils.for_range(builder, builder.sub(d, start)) as loop:
            j = builder.add(start, loop.index)
            p = builder.fmul(
                builder.load(builder.gep(pa, [j])), builder.load(builder.gep(pb, [j]))
            )
            v = builder.load(acc)
            lane = builder.trunc(loop.index, i32)
            builder.store(
                builder.insert_element(
                    v, builder.fadd(builder.extract_element(v, lane), p), lane
                ),
                acc,
            )
        v = builder.load(acc)
        s = [builder.extract_element(v, ir.Constant(i32, k)) for k in range(LANES)]
        while len(s) > 1:  # ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
            s = [builder.fadd(s[k], s[k + 1]) for k in range(0, len(s), 2)]
        return s[0]

    return sig, codegen


@numba.njit(cache=True, inline="always")
def _nonfinite(X, i):  # pragma: no cover - compiled
    s = 0.0
    for j in range(X.shape[1]):
        s += X[i, j] - X[i, j]
    return s


@numba.njit(cache=True, inline="always")
def row_score(w, X, i):
    """Return ``(dot(w, X[i]), s)`` where ``s = sum_j (X[i, j] - X[i, j])``.

    ``x - x`` is 0 for a finite ``x`` and NaN for NaN or inf, so ``s != 0``
    exactly when row ``i`` holds a NaN or an inf. The check costs no second read
    of the row: a NaN or an inf in the row makes the score NaN or infinite
    (``w_j x_j`` is then NaN or infinite, and no finite term can cancel it), so
    ``s`` is computed only when the score is not finite. ``w`` and ``X`` are
    C-contiguous; only the first ``X.shape[1]`` entries of ``w`` are used. The
    terms are added in the blocked order of the module (:data:`LANES` partial sums).
    """
    d = X.shape[1]
    f = lane_dot(w, 0, X, i * d, d)
    if np.isfinite(f):
        return f, 0.0
    return f, _nonfinite(X, i)


@numba.njit(cache=True, inline="always")
def dot(a, b):
    """``a . b`` of two C-contiguous float64 vectors of one length, in the blocked order."""
    return lane_dot(a, 0, b, 0, a.shape[0])


@numba.njit(cache=True)
def _row_dots(X, w):  # pragma: no cover - compiled
    out = np.empty(X.shape[0])
    d = X.shape[1]
    for i in range(X.shape[0]):
        out[i] = lane_dot(w, 0, X, i * d, d)
    return out


def row_dots(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``X @ w`` computed row by row in the fixed order of :func:`row_score` (same bits on every CPU).

    ``X`` is a C-contiguous 2-D float64 array and ``w`` a float64 vector of length ``X.shape[1]``.
    """
    return _row_dots(X, np.ascontiguousarray(w, dtype=np.float64))


def rowwise_dots(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``(A * B).sum(axis=1)``: the dot product of each row of ``A`` with the same row of ``B``.

    ``A`` and ``B`` are C-contiguous 2-D float64 arrays of the same shape (for the
    experts of chapter 5: distributions times losses, one round per row); the
    blocked order of :func:`row_score`.
    """
    return _rowwise_dots(A, B)


@numba.njit(cache=True)
def _rowwise_dots(A, B):  # pragma: no cover - compiled
    out = np.empty(A.shape[0])
    m = A.shape[1]
    for t in range(A.shape[0]):
        out[t] = lane_dot(A, t * m, B, t * m, m)
    return out


def row_sqnorms(X: np.ndarray) -> np.ndarray:
    """Squared Euclidean norm of every row of ``X``, in the fixed order of :func:`row_score`."""
    return _rowwise_dots(X, X)


@numba.njit(cache=True)
def lane_tree(acc):  # pragma: no cover - compiled
    """The :data:`LANES` partial sums ``acc`` combined in the fixed tree of the module."""
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + (
        (acc[4] + acc[5]) + (acc[6] + acc[7])
    )


#: How many stored entries ahead of the one it adds :func:`csr_row_score` asks the
#: memory for the weight it will read (a prefetch: a hint, it changes no result).
#: The weights of a text-like stream are read at random places of a long vector;
#: without the hint the loop waits for them one row at a time
#: (``benchmarks/sparse.py``).
PREFETCH_AHEAD = np.uint64(64)


@intrinsic
def prefetch(typingctx, arr, idx):
    """Ask the memory for ``arr.flat[idx]`` (LLVM's ``llvm.prefetch``, a read).

    A hint: it reads nothing, cannot fault, and changes no result; any ``idx``
    is allowed.
    """
    if not (isinstance(arr, types.Array) and isinstance(idx, types.Integer)):
        raise TypingError(f"prefetch needs an array and an integer; got {arr}, {idx}")
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        av = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.gep(av.data, [args[1]])
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [ptr.type], fnty)
        # read, high temporal locality, data cache
        builder.call(
            fn, [ptr, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)]
        )
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(cache=True)
def csr_span(indptr, i):
    """``(start, stop)`` of row ``i`` of a CSR matrix, as unsigned integers.

    The loops index the CSR arrays with them: numba adds no code for negative
    indices (which a canonical CSR matrix does not have), and the loop over the
    stored entries runs about twice as fast.
    """
    return np.uint64(indptr[i]), np.uint64(indptr[i + 1])


@numba.njit(cache=True)
def csr_nonfinite(data, start, stop):
    """``sum (x - x)`` over ``data[start:stop]``: not 0 exactly if one is NaN or inf."""
    s = 0.0
    for p in range(start, stop):
        s += data[p] - data[p]
    return s


@numba.njit(cache=True)
def csr_row_score(w, data, indices, start, stop, acc):
    """:func:`row_score` of a sparse row: the stored entries ``data[start:stop]`` in columns
    ``indices[start:stop]`` (increasing, no duplicates: scipy's canonical CSR).

    Returns ``(w . x, s)`` with the same bits as :func:`row_score` on the dense row:
    the entry of column ``j`` goes to partial sum ``j mod 8``, in increasing ``j``,
    and the partial sums are combined in the same tree. ``s`` is 0 unless a stored
    entry is NaN or inf (computed, as in :func:`row_score`, only when the score is
    not finite). ``acc`` is a scratch array of :data:`LANES` floats (overwritten).
    O(number of stored entries). ``start`` and ``stop`` are best unsigned
    (:func:`csr_span`); the weight of the entry :data:`PREFETCH_AHEAD` places
    ahead (in this row or the next ones) is prefetched.
    """
    for k in range(LANES):
        acc[k] = 0.0
    end = np.uint64(indices.shape[0])
    for p in range(np.uint64(start), np.uint64(stop)):
        q = p + PREFETCH_AHEAD
        if q < end:
            prefetch(w, np.uint64(indices[q]))
        j = np.uint64(indices[p])
        acc[j & np.uint64(7)] += w[j] * data[p]
    f = lane_tree(acc)
    if np.isfinite(f):
        return f, 0.0
    return f, csr_nonfinite(data, np.uint64(start), np.uint64(stop))


@numba.njit(cache=True)
def csr_row_score_sqnorm(w, data, indices, start, stop, acc, sq_acc):
    """:func:`csr_row_score` and :func:`csr_row_sqnorm` of a row in one reading of it.

    Returns ``(w . x, ||x||^2, s)``, each with the bits of its own function
    (``sq_acc`` is a second scratch array of :data:`LANES` floats). For a
    learner that needs the norm at most rounds (PA), one pass over the row
    instead of two.
    """
    for k in range(LANES):
        acc[k] = 0.0
        sq_acc[k] = 0.0
    end = np.uint64(indices.shape[0])
    for p in range(np.uint64(start), np.uint64(stop)):
        q = p + PREFETCH_AHEAD
        if q < end:
            prefetch(w, np.uint64(indices[q]))
        j = np.uint64(indices[p])
        x = data[p]
        acc[j & np.uint64(7)] += w[j] * x
        sq_acc[j & np.uint64(7)] += x * x
    f = lane_tree(acc)
    if np.isfinite(f):
        return f, lane_tree(sq_acc), 0.0
    return f, 0.0, csr_nonfinite(data, np.uint64(start), np.uint64(stop))


@numba.njit(cache=True)
def csr_add(w, c, data, indices, start, stop):
    """``w[indices[p]] += c * data[p]`` for the stored entries of a row (unsigned)."""
    for p in range(np.uint64(start), np.uint64(stop)):
        w[np.uint64(indices[p])] += c * data[p]


@numba.njit(cache=True)
def csr_row_sqnorm(data, indices, start, stop, acc):
    """Squared norm of a sparse row in the blocked order (the bits of the dense :func:`row_sqnorms`)."""
    for k in range(LANES):
        acc[k] = 0.0
    for p in range(np.uint64(start), np.uint64(stop)):
        acc[np.uint64(indices[p]) & np.uint64(7)] += data[p] * data[p]
    return lane_tree(acc)


@numba.njit(cache=True)
def _csr_row_sqnorms(data, indices, indptr):  # pragma: no cover - compiled
    n = indptr.shape[0] - 1
    out = np.empty(n)
    acc = np.empty(LANES)
    for i in range(n):
        start, stop = csr_span(indptr, i)
        out[i] = csr_row_sqnorm(data, indices, start, stop, acc)
    return out


def csr_row_sqnorms(X) -> np.ndarray:
    """:func:`row_sqnorms` of a canonical ``scipy.sparse`` CSR matrix: the bits of the dense rows."""
    return _csr_row_sqnorms(X.data, X.indices, X.indptr)


@numba.njit(cache=True)
def _csr_row_dots(data, indices, indptr, w):  # pragma: no cover - compiled
    n = indptr.shape[0] - 1
    out = np.empty(n)
    acc = np.empty(LANES)
    for i in range(n):
        start, stop = csr_span(indptr, i)
        out[i], _ = csr_row_score(w, data, indices, start, stop, acc)
    return out


def csr_row_dots(X, w: np.ndarray) -> np.ndarray:
    """:func:`row_dots` of a canonical ``scipy.sparse`` CSR matrix: the bits of the dense rows."""
    return _csr_row_dots(
        X.data, X.indices, X.indptr, np.ascontiguousarray(w, dtype=np.float64)
    )


def blocked_sum_reference(a, b) -> float:
    """The blocked-order dot product in plain Python floats (one IEEE rounding per operation).

    The specification that :func:`row_score` and :func:`csr_row_score` follow, for tests.
    """
    s = [0.0] * LANES
    for j, (p, q) in enumerate(
        zip(
            np.asarray(a, dtype=float).tolist(),
            np.asarray(b, dtype=float).tolist(),
            strict=True,
        )
    ):
        s[j % LANES] += p * q
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]))


def with_constant_feature(X):
    """``X`` with a last column of ones (dense, or CSR for a ``scipy.sparse`` ``X``).

    How a linear learner with ``fit_intercept=True`` learns its bias: as the
    weight of a constant feature 1, so the learner's rule (norms and steps
    included) is the paper's rule on the augmented examples.
    """
    n = X.shape[0]
    import sys

    sparse = sys.modules.get("scipy.sparse")
    if sparse is not None and sparse.issparse(X):
        A = sparse.hstack([X, np.ones((n, 1))], format="csr")
        A.sum_duplicates()
        return A
    out = np.empty((n, X.shape[1] + 1))
    out[:, :-1] = X
    out[:, -1] = 1.0
    return out
