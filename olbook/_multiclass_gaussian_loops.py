r"""The compiled loops of the multiclass confidence-weighted learners (book section 6.6).

:mod:`olbook.multiclass_second_order` re-exports every public name here and derives
the updates. Each round scores every class, takes the true class :math:`y` and the
highest-scoring wrong class :math:`s` (first on ties), and updates on Kesler's vector
:math:`\Delta` (:math:`\mathbf x` in block :math:`y`, :math:`-\mathbf x` in block
:math:`s`), whose margin is :math:`m = (\boldsymbol\mu_y - \boldsymbol\mu_s)^\top\mathbf x`:

* :func:`full_cov_epoch` keeps the Cholesky factor of the precision of the whole
  :math:`kD \times kD` covariance and makes the binary learner's update on
  :math:`\Delta` (:func:`olbook.second_order.coefficients` and
  :func:`olbook.second_order.precision_increment` with :math:`v = \Delta^\top\Sigma\Delta`),
  :math:`O((kD)^2)` per round;
* :func:`shared_cov_epoch` keeps one :math:`D \times D` factor for all classes and
  makes the update of :func:`shared_step`, :math:`O(kD + D^2)` per round.

The ``_csr`` versions read a CSR row in O(nnz) and, through a dense copy of the row,
give the bits of the dense loops. Every sum is added in one fixed order
(:mod:`olbook._rowops`, :mod:`olbook._linalg`), so the outputs are the same on
every CPU.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._gaussian_loops import coefficients, precision_increment
from ._linalg import back_solve, forward_solve, rank_one_update
from ._rowops import LANES, csr_row_score, dot, row_score
from .multiclass import rival

__all__ = [
    "shared_step",
    "full_cov_epoch",
    "full_cov_epoch_csr",
    "shared_cov_epoch",
    "shared_cov_epoch_csr",
]

#: A precision step c ||x||^2 above this is not applied (CW on data it cannot
#: separate: its variance collapses and the precision would overflow).
_CAP_PRECISION_STEP = 1e250


@numba.njit(cache=True)
def shared_step(rule, m, v, a, b, k):
    r"""``(alpha, c)`` of one shared-covariance update: the step of the mean and the
    increment :math:`S^{-1} \leftarrow S^{-1} + c\,\mathbf x\mathbf x^\top`.

    ``m`` is the margin :math:`(\boldsymbol\mu_y - \boldsymbol\mu_s)^\top\mathbf x`,
    ``v = 2 x'Sx`` Kesler's variance :math:`\Delta^\top(I_k\otimes S)\Delta`, ``k``
    the number of classes; ``rule`` and ``a``, ``b`` as in
    :func:`olbook.second_order.coefficients` (0 AROW, 3 CW, 4 SCW-I, 5 SCW-II).
    The KL divergence counts the shared matrix ``k`` times, so the per-round
    problem is the binary one with :math:`v \to kv`, :math:`\phi \to \phi/\sqrt k`,
    :math:`C \to C/k`, :math:`r \to kr`, whose step is :math:`\alpha/k`; the
    covariance's stationarity condition gives :math:`c = 2/(kr)` (AROW) and
    :math:`c = 2\alpha(\phi/k)/\sqrt u` (CW, SCW) with :math:`\sqrt u` the new
    Kesler standard deviation, the binary :math:`\sqrt u` with :math:`\phi/k`.
    ``(0, 0)`` means no update.
    """
    if rule == 0:
        alpha, beta = coefficients(0, m, v, a, b)
        if beta == 0.0:
            return 0.0, 0.0
        return alpha, 2.0 * precision_increment(0, m, v, k * a, b, alpha, beta)
    alpha, beta = coefficients(rule, m, k * v, a / math.sqrt(k), b / k)
    if beta == 0.0:
        return 0.0, 0.0
    alpha = k * alpha
    return alpha, 2.0 * precision_increment(3, m, v, a / k, b, alpha, 1.0)


@numba.njit(cache=True)
def _full_round(W, R, yi, s, x, m, rule, a, b, delta, z, Sd, w):
    """The update of one round on the full covariance; returns whether it updated."""
    k, D = W.shape
    delta[:] = 0.0
    for j in range(D):
        delta[yi * D + j] = x[j]
        delta[s * D + j] = 0.0 - x[j]
    v = forward_solve(R, delta, z)
    alpha, beta = coefficients(rule, m, v, a, b)
    if alpha == 0.0 and beta == 0.0:
        return False
    back_solve(R, z, Sd)  # Sigma Delta: every class's mean moves
    mu = W.reshape(k * D)
    for j in range(k * D):
        mu[j] += alpha * Sd[j]
    c = precision_increment(rule, m, v, a, b, alpha, beta)
    if c * dot(delta, delta) <= _CAP_PRECISION_STEP:
        sc = math.sqrt(c)
        for j in range(k * D):
            w[j] = sc * delta[j]
        rank_one_update(R, w)
    return True


@numba.njit(cache=True)
def _shared_round(W, R, yi, s, x, m, rule, a, b, z, Sx, w):
    """The update of one round on the shared covariance; returns whether it updated."""
    k, D = W.shape
    v = 2.0 * forward_solve(R, x, z)
    alpha, c = shared_step(rule, m, v, a, b, k)
    if alpha == 0.0 and c == 0.0:
        return False
    back_solve(R, z, Sx)
    for j in range(D):
        W[yi, j] += alpha * Sx[j]
        W[s, j] -= alpha * Sx[j]
    if c * dot(x, x) <= _CAP_PRECISION_STEP:
        sc = math.sqrt(c)
        for j in range(D):
            w[j] = sc * x[j]
        rank_one_update(R, w)
    return True


@numba.njit(cache=True)
def full_cov_epoch(X, y, W, R, rule, a, b, mistakes, updates):
    r"""One pass with the full :math:`kD \times kD` covariance; ``W`` (k x D), ``R`` change.

    ``y`` holds class indices, ``W`` the means (row ``r`` is block ``r`` of
    :math:`\boldsymbol\mu`), ``R`` the transposed Cholesky factor of the precision
    (as in :func:`olbook.second_order.gaussian_epoch`). Returns -1, or the index of
    the first row holding a NaN or inf.
    """
    n, D = X.shape
    k = W.shape[0]
    scores = np.empty(k)
    delta, z, Sd, w = np.empty(k * D), np.empty(k * D), np.empty(k * D), np.empty(k * D)
    for i in range(n):
        for r in range(k):
            scores[r], nonfinite = row_score(W[r], X, i)
            if nonfinite != 0.0:
                return i
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        m = scores[yi] - scores[s]
        updates[i] = _full_round(W, R, yi, s, X[i], m, rule, a, b, delta, z, Sd, w)
    return -1


@numba.njit(cache=True)
def full_cov_epoch_csr(data, indices, indptr, y, W, R, rule, a, b, mistakes, updates):
    """:func:`full_cov_epoch` on a CSR matrix: the bits of the dense loop."""
    n = indptr.shape[0] - 1
    k, D = W.shape
    scores, acc, x = np.empty(k), np.empty(LANES), np.zeros(D)
    delta, z, Sd, w = np.empty(k * D), np.empty(k * D), np.empty(k * D), np.empty(k * D)
    for i in range(n):
        start, stop = indptr[i], indptr[i + 1]
        for r in range(k):
            scores[r], nonfinite = csr_row_score(W[r], data, indices, start, stop, acc)
            if nonfinite != 0.0:
                return i
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        m = scores[yi] - scores[s]
        for p in range(start, stop):
            x[indices[p]] = data[p]
        updates[i] = _full_round(W, R, yi, s, x, m, rule, a, b, delta, z, Sd, w)
        for p in range(start, stop):
            x[indices[p]] = 0.0
    return -1


@numba.njit(cache=True)
def shared_cov_epoch(X, y, W, R, rule, a, b, mistakes, updates):
    r"""One pass with one :math:`D \times D` covariance shared by the classes.

    ``R`` is the transposed Cholesky factor of the shared precision :math:`S^{-1}`.
    Per round: :math:`v = 2\mathbf x^\top S\mathbf x`, :func:`shared_step`, then
    :math:`\boldsymbol\mu_y \mathrel{+}= \alpha S\mathbf x`,
    :math:`\boldsymbol\mu_s \mathrel{-}= \alpha S\mathbf x` and the rank-one update
    :math:`S^{-1} \mathrel{+}= c\,\mathbf x\mathbf x^\top` by rotations.
    Returns -1, or the index of the first row holding a NaN or inf.
    """
    n, D = X.shape
    k = W.shape[0]
    scores, z, Sx, w = np.empty(k), np.empty(D), np.empty(D), np.empty(D)
    for i in range(n):
        for r in range(k):
            scores[r], nonfinite = row_score(W[r], X, i)
            if nonfinite != 0.0:
                return i
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        m = scores[yi] - scores[s]
        updates[i] = _shared_round(W, R, yi, s, X[i], m, rule, a, b, z, Sx, w)
    return -1


@numba.njit(cache=True)
def shared_cov_epoch_csr(data, indices, indptr, y, W, R, rule, a, b, mistakes, updates):
    """:func:`shared_cov_epoch` on a CSR matrix: the bits of the dense loop."""
    n = indptr.shape[0] - 1
    k, D = W.shape
    scores, acc, x = np.empty(k), np.empty(LANES), np.zeros(D)
    z, Sx, w = np.empty(D), np.empty(D), np.empty(D)
    for i in range(n):
        start, stop = indptr[i], indptr[i + 1]
        for r in range(k):
            scores[r], nonfinite = csr_row_score(W[r], data, indices, start, stop, acc)
            if nonfinite != 0.0:
                return i
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        m = scores[yi] - scores[s]
        for p in range(start, stop):
            x[indices[p]] = data[p]
        updates[i] = _shared_round(W, R, yi, s, x, m, rule, a, b, z, Sx, w)
        for p in range(start, stop):
            x[indices[p]] = 0.0
    return -1
