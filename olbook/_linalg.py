"""Two compiled steps on a Cholesky factor, shared by the second-order learners (chapter 6).

A learner that keeps a positive definite matrix :math:`\\Sigma` stores a Cholesky
factor of its inverse, :math:`\\Sigma^{-1} = LL^\\top` with :math:`L` lower triangular.
It stores it *transposed*: the array is the upper triangular :math:`R = L^\\top`,
row-major, so that every loop below runs along a contiguous row of memory (and is
vectorized). Then

* :func:`solve_with_factor` gives :math:`\\Sigma\\mathbf x` and
  :math:`v = \\mathbf x^\\top\\Sigma\\mathbf x` by two triangular solves, and
* :func:`rank_one_update` turns :math:`LL^\\top` into :math:`LL^\\top + \\mathbf w\\mathbf w^\\top`
  by plane rotations,

both in :math:`O(d^2)`, with every sum in one fixed order (the blocked dot products
of :mod:`olbook._rowops`, and element-wise updates), so the same bits on every CPU.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._rowops import lane_dot

__all__ = [
    "solve_with_factor",
    "forward_solve",
    "back_solve",
    "rank_one_update",
    "covariance_from_cholesky",
    "factor_project",
    "carlson_downdate",
    "covariance_from_factor",
]


@numba.njit(cache=True)
def solve_with_factor(R, x, z, Sx):  # pragma: no cover - compiled
    """Fill ``z = L^{-1} x`` and ``Sx = L^{-T} z = (L L')^{-1} x``, where ``R = L'``.

    Returns ``v = z.z = x' Sigma x`` (:func:`forward_solve` then :func:`back_solve`).
    """
    v = forward_solve(R, x, z)
    back_solve(R, z, Sx)
    return v


@numba.njit(cache=True)
def forward_solve(R, x, z):  # pragma: no cover - compiled
    """Fill ``z = L^{-1} x`` (``R = L'``) and return ``v = z.z``.

    The solve of ``R' z = x`` subtracts each solved ``z_j`` times row ``j`` of ``R``
    from the rest, ``j = 0, 1, ...``; ``v`` is a blocked dot product.
    """
    d = x.shape[0]
    for j in range(d):
        z[j] = x[j]
    for j in range(d):
        zj = z[j] / R[j, j]
        z[j] = zj
        for k in range(j + 1, d):
            z[k] -= R[j, k] * zj
    return lane_dot(z, 0, z, 0, d)


@numba.njit(cache=True)
def back_solve(R, z, Sx):  # pragma: no cover - compiled
    """Fill ``Sx = R^{-1} z``: the blocked dot product of row ``j`` of ``R`` with the
    solved part of ``Sx``, ``j = d-1, ..., 0``."""
    d = z.shape[0]
    for j in range(d - 1, -1, -1):
        Sx[j] = (z[j] - lane_dot(R, j * d + j + 1, Sx, j + 1, d - j - 1)) / R[j, j]


@numba.njit(cache=True)
def rank_one_update(R, w):  # pragma: no cover - compiled
    """Make ``R`` (``= L'``) the factor of ``L L' + w w'`` (``w`` is overwritten).

    Row ``k`` of ``R`` and ``w`` are turned by the plane rotation
    ``c = R[k, k] / r``, ``s = w[k] / r``, ``r = sqrt(R[k, k]^2 + w[k]^2)``, which zeroes
    ``w[k]``; ``k = 0, 1, ...``. No division in the inner loop: it is one vector loop.
    """
    d = w.shape[0]
    for k in range(d):
        # squares stay finite: the learners cap each step
        r = math.sqrt(R[k, k] * R[k, k] + w[k] * w[k])
        c = R[k, k] / r
        s = w[k] / r
        R[k, k] = r
        row, rest = R[k, k + 1 :], w[k + 1 :]  # views from 0: the loop is vectorized
        for j in range(row.shape[0]):
            rj = row[j]
            wj = rest[j]
            row[j] = c * rj + s * wj
            rest[j] = c * wj - s * rj


@numba.njit(cache=True)
def covariance_from_cholesky(R):  # pragma: no cover - compiled
    r""":math:`\Sigma = (LL^\top)^{-1} = M^\top M`, :math:`M = L^{-1}`, :math:`L = R^\top`, fixed order.

    Exactly symmetric: :math:`M` is lower triangular, and :math:`M^\top M` is
    :func:`covariance_from_factor`'s product.
    """
    d = R.shape[0]
    M = np.zeros((d, d))
    for col in range(d):  # L M[:, col] = e_col
        for j in range(col, d):
            acc = 1.0 if j == col else 0.0
            for k in range(col, j):
                acc -= R[k, j] * M[k, col]
            M[j, col] = acc / R[j, j]
    return covariance_from_factor(M)


# --- the square-root covariance factor of the Gaussian learners -----------------------
# factor_project and carlson_downdate are compiled into the loops that call them
# (inline="always", as in olbook._rowops): a first fit compiles one function, its loop.


@numba.njit(cache=True, inline="always")
def factor_project(T, x, f):  # pragma: no cover - compiled
    """Fill ``f = U' x`` (``T = U'`` lower triangular: ``f_j`` is row ``j`` of ``T``
    times ``x[:j+1]``, a blocked dot product) and return ``v = f.f = x' Sigma x``.

    The ``d`` dot products are independent of each other: no serial chain.
    """
    d = x.shape[0]
    for j in range(d):
        f[j] = lane_dot(T, j * d, x, 0, j + 1)
    return lane_dot(f, 0, f, 0, d)


@numba.njit(cache=True, inline="always")
def carlson_downdate(T, f, inv_c, K, b, g, apply):  # pragma: no cover - compiled
    r"""Make ``T`` (``= U'``, :math:`\Sigma = UU^\top`) the factor of
    :math:`\Sigma - \Sigma\mathbf x\mathbf x^\top\Sigma/(1/c + v)`, and fill
    ``K`` :math:`= \Sigma\mathbf x` (the covariance before the step).

    ``f`` :math:`= U^\top\mathbf x` (:func:`factor_project`), ``inv_c`` :math:`= 1/c`;
    ``b`` and ``g`` are work arrays. Carlson's square-root update: with
    :math:`a_{-1} = 1/c`, :math:`a_j = a_{j-1} + f_j^2`, column ``j`` of ``U``
    becomes :math:`b_j\mathbf u_j - g_j\mathbf k_{j-1}`, :math:`b_j =
    \sqrt{a_{j-1}}/\sqrt{a_j} \le 1`, :math:`g_j = f_j/(\sqrt{a_{j-1}}\sqrt{a_j})`,
    where :math:`\mathbf k_{j-1} = \sum_{i<j} f_i\mathbf u_i`. The scalars come first
    (one pass over ``j``), then one element-wise pass over the rows of ``T``.
    With ``apply`` false, ``T`` keeps its value (:math:`b_j = 1`, :math:`g_j = 0`) and
    only ``K`` is computed, with the same bits.
    """
    d = f.shape[0]
    acc = inv_c
    prev = math.sqrt(acc)
    for j in range(d):
        acc += f[j] * f[j]
        cur = math.sqrt(acc)
        b[j] = prev / cur if apply else 1.0
        g[j] = f[j] / (prev * cur) if apply else 0.0
        prev = cur
    K[:] = 0.0
    for j in range(d):
        bj, gj, fj = b[j], g[j], f[j]
        row, k = T[j, : j + 1], K[: j + 1]  # views from 0: the loop is vectorized
        for i in range(j + 1):
            t = row[i]
            ki = k[i]
            row[i] = bj * t - gj * ki
            k[i] = ki + fj * t


@numba.njit(cache=True)
def covariance_from_factor(T):  # pragma: no cover - compiled
    r""":math:`\Sigma = UU^\top = T^\top T` (``T`` lower triangular), fixed order.

    Entry :math:`(j, k)` adds :math:`T_{t j}T_{t k}` for :math:`t = \max(j, k), \dots,
    d-1` in increasing :math:`t`: exactly symmetric.
    """
    d = T.shape[0]
    S = np.empty((d, d))
    for j in range(d):
        for k in range(j, d):
            acc = 0.0
            for t in range(k, d):
                acc += T[t, j] * T[t, k]
            S[j, k] = acc
            S[k, j] = acc
    return S
