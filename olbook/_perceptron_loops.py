"""The compiled loops of the perceptron family and the array helpers around them.

:mod:`olbook.perceptron` re-exports every public name here and documents them
(book chapter 1): :func:`perceptron_epoch` is the per-example loop the book shows
(:func:`perceptron_epoch_csr` is its CSR twin), :func:`weight_history` replays a run,
:func:`normalize_rows` gives the examples of the normalized perceptron and
:func:`pass_sum` the sum behind the averaged perceptron. Every sum is added in a
fixed order (:mod:`olbook._rowops`), so the results are the same on every CPU.
"""

from __future__ import annotations

import numba
import numpy as np

from ._rowops import (
    csr_add,
    csr_row_score,
    csr_row_sqnorms,
    csr_span,
    row_score,
    row_sqnorms,
    with_constant_feature,
)
from ._validation import all_finite, check_X, is_sparse, non_finite_error

__all__ = [
    "perceptron_epoch",
    "perceptron_epoch_csr",
    "normalize_rows",
    "pass_sum",
    "weight_history",
]


@numba.njit(cache=True)
def perceptron_epoch(X, y, w, b, fit_intercept, mistakes, updates):
    """One pass of the perceptron over ``(X, y)`` in order.

    Round ``i``: score ``f = w . x_i + b``; predict +1 if ``f > 0`` else -1;
    if ``y_i * f <= 0`` (a tie counts) update ``w += y_i x_i`` and ``b += y_i``.
    ``w``, ``mistakes`` and ``updates`` are filled in place. Returns the new
    ``b`` and -1, or, at the first row holding a NaN or inf, stops before
    using it and returns that row's index (see :func:`olbook.row_score`).
    """
    n, d = X.shape
    for i in range(n):
        f, nonfinite = row_score(w, X, i)
        if nonfinite != 0.0:
            return b, i
        if fit_intercept:
            f += b
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        updates[i] = y[i] * f <= 0.0
        if updates[i]:
            for j in range(d):
                w[j] += y[i] * X[i, j]
            if fit_intercept:
                b += y[i]
    return b, -1


@numba.njit(cache=True)
def perceptron_epoch_csr(
    data, indices, indptr, y, w, b, fit_intercept, mistakes, updates
):
    """:func:`perceptron_epoch` on a CSR matrix ``(data, indices, indptr)``: O(nnz) per pass.

    The score of a row adds its stored entries in the blocked order of
    :func:`olbook._rowops.csr_row_score` and an update touches only them, so the
    weights, mistakes and updates are those of the dense loop on ``X.toarray()``,
    to the last bit.
    """
    n = indptr.shape[0] - 1
    acc = np.empty(8)
    for i in range(n):
        start, stop = csr_span(indptr, i)
        f, nonfinite = csr_row_score(w, data, indices, start, stop, acc)
        if nonfinite != 0.0:
            return b, i
        if fit_intercept:
            f += b
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        updates[i] = y[i] * f <= 0.0
        if updates[i]:
            csr_add(w, y[i], data, indices, start, stop)
            if fit_intercept:
                b += y[i]
    return b, -1


def weight_history(X, y, trace) -> tuple[np.ndarray, np.ndarray]:
    r"""Replay a cyclic perceptron run from its trace: which example each update used, and the weights after it.

    The run is that of :class:`Perceptron` without intercept, started at
    :math:`\mathbf w = \mathbf 0`, on the rows of ``X`` in cyclic order (round
    ``t`` visits example ``t mod n``), as recorded in its ``trace_``. Book
    sections 1.3 and 1.4 use it to follow :math:`\mathbf u^\top\mathbf w_k` and
    :math:`\|\mathbf w_k\|^2` update by update.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        The examples of the run, in the order it visited them (for the
        normalized perceptron, the normalized rows: :func:`normalize_rows`).
    y : array_like of shape (n_samples,)
        Their labels in {-1, +1}.
    trace : Trace
        The learner's ``trace_``.

    Returns
    -------
    idx : ndarray of int, shape (n_updates,)
        The example used by each update.
    W : ndarray of shape (n_updates, n_features)
        Row ``k - 1`` is the weight vector right after the ``k``-th update, summed
        in the order of the updates (the compiled loop's order, so to the last bit
        the weights the learner held).
    """
    Xa = check_X(X)
    ya = np.asarray(y, dtype=np.float64)
    idx = np.flatnonzero(trace.updates) % Xa.shape[0]
    W = np.cumsum(ya[idx, None] * Xa[idx], axis=0)
    return idx, np.ascontiguousarray(W)


def normalize_rows(X: np.ndarray, fit_intercept: bool) -> np.ndarray:
    """Append a constant 1 if ``fit_intercept``, then scale every row to unit norm.

    The examples the :class:`NormalizedPerceptron` learns on (book section 1.4).
    Raises ``ValueError`` for NaN/inf and for a zero row, which has no direction.
    A canonical CSR ``X`` (:func:`olbook._validation.check_X_sparse`) gives a CSR
    result with the bits of the dense one, in O(nnz).
    """
    if is_sparse(X):
        return _normalize_csr(X, fit_intercept)
    if not all_finite(X):
        raise non_finite_error(X)
    A = with_constant_feature(X) if fit_intercept else X
    norms = np.sqrt(row_sqnorms(np.ascontiguousarray(A)))
    _refuse_zero_rows(norms)
    return A / norms[:, None]


def _normalize_csr(X, fit_intercept: bool):
    if not np.all(np.isfinite(X.data)):
        raise non_finite_error(X.data)
    A = with_constant_feature(X) if fit_intercept else X.copy()
    A.sum_duplicates()
    norms = np.sqrt(csr_row_sqnorms(A))
    _refuse_zero_rows(norms)
    A.data = A.data / np.repeat(norms, np.diff(A.indptr))
    return A


def _refuse_zero_rows(norms: np.ndarray) -> None:
    zero = np.flatnonzero(norms == 0.0)
    if zero.size:
        raise ValueError(
            f"example {int(zero[0])} is the zero vector; the normalized perceptron "
            "scales every example to unit norm and cannot scale it."
        )


def pass_sum(X, y, updates, w0, b0, fit_intercept):
    r"""The sum of the :math:`n` weight vectors after the rounds of one pass.

    It is computed from the pass's updates alone.

    A pass of the perceptron over the :math:`n` rows of ``X`` starts from
    ``(w0, b0)``; ``updates[s]`` says whether round :math:`s` (0-based) updated.
    An update at round :math:`s` adds :math:`y_s\mathbf x_s` to the :math:`n - s`
    weight vectors that follow it in the pass, so the sum is
    :math:`n\mathbf w_0 + \sum_{s\ \mathrm{updated}} (n - s)\,y_s\mathbf x_s`
    (book section 1.6, :ref:`perc-sec-averaged`). Rows are added in order: the same
    bits on every CPU, in O(d) memory (no copy of the updated rows), on a dense or a
    canonical CSR ``X``. Returns ``(w_sum, b_sum)``.
    """
    n = X.shape[0]
    idx = np.flatnonzero(updates)
    lasting = (n - idx) * y[idx]
    total = np.zeros(w0.shape[0])
    if is_sparse(X):
        _add_rows_csr(X.data, X.indices, X.indptr, idx, lasting, total)
    else:
        _add_rows(X, idx, lasting, total)
    w_sum = n * w0 + total
    b_sum = n * b0 + (lasting.sum() if fit_intercept else 0.0)
    return w_sum, b_sum


@numba.njit(cache=True)
def _add_rows(X, idx, coef, out):  # pragma: no cover - compiled
    """``out[j] += coef[k] * X[idx[k], j]`` for k = 0, 1, ... in order (each column summed in order)."""
    for k in range(idx.shape[0]):
        for j in range(X.shape[1]):
            out[j] += coef[k] * X[idx[k], j]


@numba.njit(cache=True)
def _add_rows_csr(data, indices, indptr, idx, coef, out):  # pragma: no cover - compiled
    """:func:`_add_rows` on CSR rows: the same bits, O(nnz of the rows)."""
    for k in range(idx.shape[0]):
        start, stop = csr_span(indptr, idx[k])
        csr_add(out, coef[k], data, indices, start, stop)
