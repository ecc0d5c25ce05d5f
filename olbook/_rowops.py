"""The score of one example, compiled with numba: the bottom layer shared by
the data generators (:mod:`olbook.data`) and the learners.

Every piece of olbook that asks "does the perceptron err on this example?"
computes the score with this one function, so that they agree to the last bit
even on examples whose score is within rounding error of 0.
"""

from __future__ import annotations

import numba

__all__ = ["row_score"]


@numba.njit(cache=True, fastmath={"reassoc"})
def row_score(w, X, i):
    """Return ``(w . X[i], s)`` where ``s = sum_j (X[i, j] - X[i, j])``.

    ``x - x`` is 0 for a finite ``x`` and NaN for NaN or inf, so ``s != 0``
    exactly when row ``i`` holds a NaN or an inf: checking the input costs no
    second read of the row. Only the first ``X.shape[1]`` entries of ``w`` are
    used. ``reassoc`` lets the compiler add the terms in any order, which lets
    it use vector instructions; the score may then differ from ``X[i] @ w`` in
    its last bits.
    """
    f = 0.0
    nonfinite = 0.0
    for j in range(X.shape[1]):
        f += w[j] * X[i, j]
        nonfinite += X[i, j] - X[i, j]
    return f, nonfinite
