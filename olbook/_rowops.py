"""Scores and norms of rows, compiled with numba: the bottom layer shared by
the data generators (:mod:`olbook.data`), the margins and the learners.

Every piece of olbook that asks "does the perceptron err on this example?"
computes the score with :func:`row_score`, so that they agree to the last bit
even on examples whose score is within rounding error of 0.

The sums are added strictly left to right, with no ``fastmath`` flag: the
result is the IEEE-754 result of one fixed order of operations, so it is the
same on every x86-64 or ARM CPU whatever its vector width, and the same with
``NUMBA_CPU_NAME=generic``. (A BLAS ``X @ w`` is not: OpenBLAS picks its
kernel, and with it the order of the additions, from the CPU it runs on.)
This is also scikit-learn's order in its SGD loop, so olbook's perceptron
gives scikit-learn's weights to the bit.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["row_score", "row_dots", "row_sqnorms", "rowwise_dots"]


@numba.njit(cache=True)
def row_score(w, X, i):
    """Return ``(w . X[i], s)`` where ``s = sum_j (X[i, j] - X[i, j])``.

    ``x - x`` is 0 for a finite ``x`` and NaN for NaN or inf, so ``s != 0``
    exactly when row ``i`` holds a NaN or an inf: checking the input costs no
    second read of the row. Only the first ``X.shape[1]`` entries of ``w`` are
    used. The terms are added in order ``j = 0, 1, ...``.
    """
    f = 0.0
    nonfinite = 0.0
    for j in range(X.shape[1]):
        f += w[j] * X[i, j]
        nonfinite += X[i, j] - X[i, j]
    return f, nonfinite


@numba.njit(cache=True)
def _row_dots(X, w):  # pragma: no cover - compiled
    out = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        out[i], _ = row_score(w, X, i)
    return out


def row_dots(X: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``X @ w`` computed row by row in the fixed order of :func:`row_score` (same bits on every CPU).

    ``X`` is a C-contiguous 2-D float64 array and ``w`` a float64 vector of length ``X.shape[1]``.
    """
    return _row_dots(X, w)


def rowwise_dots(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``(A * B).sum(axis=1)``: the dot product of each row of ``A`` with the same row of ``B``, left to right.

    ``A`` and ``B`` are C-contiguous 2-D float64 arrays of the same shape (for the
    experts of chapter 5: distributions times losses, one round per row).
    """
    return _rowwise_dots(A, B)


@numba.njit(cache=True)
def _rowwise_dots(A, B):  # pragma: no cover - compiled
    out = np.empty(A.shape[0])
    for t in range(A.shape[0]):
        acc = 0.0
        for i in range(A.shape[1]):
            acc += A[t, i] * B[t, i]
        out[t] = acc
    return out


def row_sqnorms(X: np.ndarray) -> np.ndarray:
    """Squared Euclidean norm of every row of ``X``, in the fixed order of :func:`row_score`."""
    return _rowwise_dots(X, X)
