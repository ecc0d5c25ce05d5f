r"""The compiled loops of the multiclass confidence-weighted learners (book section 6.6).

:mod:`olbook.multiclass_second_order` re-exports every public name here and derives
the updates. Each round scores every class, takes the true class :math:`y` and the
highest-scoring wrong class :math:`s` (first on ties), and updates on Kesler's vector
:math:`\Delta` (:math:`\mathbf x` in block :math:`y`, :math:`-\mathbf x` in block
:math:`s`), whose margin is :math:`m = (\boldsymbol\mu_y - \boldsymbol\mu_s)^\top\mathbf x`.
Both forms keep a triangular square root of the covariance, as the binary learners
do (:mod:`olbook.second_order`: :math:`\Sigma = UU^\top`, stored as :math:`T = U^\top`,
updated by Carlson's square-root step, :func:`olbook._linalg.carlson_downdate`):

* :func:`full_cov_epoch` keeps the factor of the whole :math:`kD \times kD`
  covariance and makes the binary learner's update on :math:`\Delta`
  (:func:`olbook.second_order.coefficients` and
  :func:`olbook.second_order.precision_increment` with
  :math:`v = \Delta^\top\Sigma\Delta = \|U^\top\Delta\|^2`), :math:`O((kD)^2)` per
  round;
* :func:`shared_cov_epoch` keeps one :math:`D \times D` factor for all classes and
  makes the update of :func:`shared_step`, :math:`O(kD + D^2)` per round.

A round's work is independent dot products (:math:`U^\top\Delta` or
:math:`U^\top\mathbf x`) and element-wise row updates: no serial chain of divisions.
The ``_csr`` versions copy each CSR row into a dense one-row array and run the
dense loop on it (a round costs :math:`O((kD)^2)` or :math:`O(kD + D^2)` whatever
the row's zeros), so they give the bits of the dense loops. Every sum is added in
one fixed order (:mod:`olbook._rowops`, :mod:`olbook._linalg`), so the outputs are
the same on every CPU. A first fit on dense data compiles one function, its loop:
:func:`shared_step`, the steps it shares with the binary learners and those of
:mod:`olbook._linalg` are compiled into it (``inline="always"``).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._gaussian_loops import coefficients, precision_increment
from ._linalg import carlson_downdate, factor_project
from ._rowops import dot, row_score
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


@numba.njit(cache=True, inline="always")
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
def full_cov_epoch(X, y, W, T, rule, a, b, mistakes, updates):
    r"""One pass with the full :math:`kD \times kD` covariance; ``W`` (k x D), ``T`` change.

    ``y`` holds class indices, ``W`` the means (row ``r`` is block ``r`` of
    :math:`\boldsymbol\mu`), ``T`` the lower triangular :math:`U^\top`,
    :math:`\Sigma = UU^\top` (as in :func:`olbook.second_order.gaussian_epoch`).
    Per round: :math:`\mathbf f = U^\top\Delta`, :math:`v = \|\mathbf f\|^2`, the
    binary step :math:`(\alpha, c)`, then Carlson's step of ``T`` for
    :math:`\Sigma^{-1} \mathrel{+}= c\,\Delta\Delta^\top`, which also gives
    :math:`\Sigma\Delta` for :math:`\boldsymbol\mu \mathrel{+}= \alpha\Sigma\Delta`.
    Returns -1, or the index of the first row holding a NaN or inf.
    """
    n, D = X.shape
    k = W.shape[0]
    scores = np.empty(k)
    delta, f, Sd = np.empty(k * D), np.empty(k * D), np.empty(k * D)
    wb, wg = np.empty(k * D), np.empty(k * D)
    for i in range(n):
        for r in range(k):
            scores[r], nonfinite = row_score(W[r], X, i)
            if nonfinite != 0.0:
                return i
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        m = scores[yi] - scores[s]
        for j in range(k * D):  # Kesler's vector
            delta[j] = 0.0
        for j in range(D):
            delta[yi * D + j] = X[i, j]
            delta[s * D + j] = 0.0 - X[i, j]
        v = factor_project(T, delta, f)
        alpha, beta = coefficients(rule, m, v, a, b)
        updates[i] = alpha != 0.0 or beta != 0.0
        if updates[i]:
            c = precision_increment(rule, m, v, a, b, alpha, beta)
            apply = c > 0.0 and c * dot(delta, delta) <= _CAP_PRECISION_STEP
            carlson_downdate(T, f, 1.0 / c if apply else 1.0, Sd, wb, wg, apply)
            for r in range(k):  # Sigma Delta (before the step): every mean moves
                for j in range(D):
                    W[r, j] += alpha * Sd[r * D + j]
    return -1


@numba.njit(cache=True)
def full_cov_epoch_csr(data, indices, indptr, y, W, T, rule, a, b, mistakes, updates):
    """:func:`full_cov_epoch` on a CSR matrix: each row goes through a dense copy
    (a one-row array) to :func:`full_cov_epoch`, so the bits are the dense loop's."""
    x = np.zeros((1, W.shape[1]))
    for i in range(indptr.shape[0] - 1):
        start, stop = indptr[i], indptr[i + 1]
        for p in range(start, stop):
            x[0, indices[p]] = data[p]
        bad = full_cov_epoch(
            x, y[i : i + 1], W, T, rule, a, b, mistakes[i : i + 1], updates[i : i + 1]
        )
        if bad >= 0:
            return i
        for p in range(start, stop):
            x[0, indices[p]] = 0.0
    return -1


@numba.njit(cache=True)
def shared_cov_epoch(X, y, W, T, rule, a, b, mistakes, updates):
    r"""One pass with one :math:`D \times D` covariance shared by the classes.

    ``T`` is the lower triangular :math:`U^\top` of the shared :math:`S = UU^\top`.
    Per round: :math:`\mathbf f = U^\top\mathbf x`, :math:`v = 2\|\mathbf f\|^2`,
    :func:`shared_step`, then Carlson's step of ``T`` for
    :math:`S^{-1} \mathrel{+}= c\,\mathbf x\mathbf x^\top`, which also gives
    :math:`S\mathbf x` for :math:`\boldsymbol\mu_y \mathrel{+}= \alpha S\mathbf x`,
    :math:`\boldsymbol\mu_s \mathrel{-}= \alpha S\mathbf x`.
    Returns -1, or the index of the first row holding a NaN or inf.
    """
    n, D = X.shape
    k = W.shape[0]
    scores, f, Sx = np.empty(k), np.empty(D), np.empty(D)
    wb, wg = np.empty(D), np.empty(D)
    for i in range(n):
        for r in range(k):
            scores[r], nonfinite = row_score(W[r], X, i)
            if nonfinite != 0.0:
                return i
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        m = scores[yi] - scores[s]
        x = X[i]
        v = 2.0 * factor_project(T, x, f)
        alpha, c = shared_step(rule, m, v, a, b, k)
        updates[i] = alpha != 0.0 or c != 0.0
        if updates[i]:
            apply = c > 0.0 and c * dot(x, x) <= _CAP_PRECISION_STEP
            carlson_downdate(T, f, 1.0 / c if apply else 1.0, Sx, wb, wg, apply)
            for j in range(D):
                W[yi, j] += alpha * Sx[j]
                W[s, j] -= alpha * Sx[j]
    return -1


@numba.njit(cache=True)
def shared_cov_epoch_csr(data, indices, indptr, y, W, T, rule, a, b, mistakes, updates):
    """:func:`shared_cov_epoch` on a CSR matrix: each row goes through a dense copy
    (a one-row array) to :func:`shared_cov_epoch`, so the bits are the dense loop's."""
    x = np.zeros((1, W.shape[1]))
    for i in range(indptr.shape[0] - 1):
        start, stop = indptr[i], indptr[i + 1]
        for p in range(start, stop):
            x[0, indices[p]] = data[p]
        bad = shared_cov_epoch(
            x, y[i : i + 1], W, T, rule, a, b, mistakes[i : i + 1], updates[i : i + 1]
        )
        if bad >= 0:
            return i
        for p in range(start, stop):
            x[0, indices[p]] = 0.0
    return -1
