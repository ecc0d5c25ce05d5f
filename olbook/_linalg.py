"""Two compiled steps on a Cholesky factor, shared by the second-order learners (chapter 6).

A learner that keeps a positive definite matrix :math:`\\Sigma` stores the lower
Cholesky factor :math:`L` of its inverse, :math:`\\Sigma^{-1} = LL^\\top`. Then

* :func:`solve_with_factor` gives :math:`\\Sigma\\mathbf x` and
  :math:`v = \\mathbf x^\\top\\Sigma\\mathbf x` by two triangular solves, and
* :func:`rank_one_update` turns :math:`LL^\\top` into :math:`LL^\\top + \\mathbf w\\mathbf w^\\top`
  by plane rotations,

both in :math:`O(d^2)`, with every sum in one fixed order (the same bits on every CPU).
"""

from __future__ import annotations

import math

import numba
import numpy as np

__all__ = ["solve_with_factor", "rank_one_update", "covariance_from_cholesky"]


@numba.njit(cache=True)
def solve_with_factor(L, x, z, Sx):  # pragma: no cover - compiled
    """Fill ``z = L^{-1} x`` and ``Sx = L^{-T} z = (L L')^{-1} x``.

    Returns ``v = z.z = x' Sigma x``.
    """
    d = x.shape[0]
    for j in range(d):
        acc = x[j]
        for k in range(j):
            acc -= L[j, k] * z[k]
        z[j] = acc / L[j, j]
    for j in range(d - 1, -1, -1):
        acc = z[j]
        for k in range(j + 1, d):
            acc -= L[k, j] * Sx[k]
        Sx[j] = acc / L[j, j]
    v = 0.0
    for j in range(d):
        v += z[j] * z[j]
    return v


@numba.njit(cache=True)
def rank_one_update(L, w):  # pragma: no cover - compiled
    """Make ``L`` the Cholesky factor of ``L L' + w w'`` (``w`` is overwritten)."""
    d = w.shape[0]
    for k in range(d):
        r = math.hypot(L[k, k], w[k])
        cs = r / L[k, k]
        sn = w[k] / L[k, k]
        L[k, k] = r
        for j in range(k + 1, d):
            L[j, k] = (L[j, k] + sn * w[j]) / cs
            w[j] = cs * w[j] - sn * L[j, k]


@numba.njit(cache=True)
def covariance_from_cholesky(L):  # pragma: no cover - compiled
    r""":math:`\Sigma = (LL^\top)^{-1} = M^\top M`, :math:`M = L^{-1}`, fixed order.

    Exactly symmetric (each entry is the same sum of the same products).
    """
    d = L.shape[0]
    M = np.zeros((d, d))
    for col in range(d):  # L M[:, col] = e_col
        for j in range(col, d):
            acc = 1.0 if j == col else 0.0
            for k in range(col, j):
                acc -= L[j, k] * M[k, col]
            M[j, col] = acc / L[j, j]
    S = np.empty((d, d))
    for j in range(d):
        for k in range(j, d):
            acc = 0.0
            for t in range(k, d):
                acc += M[t, j] * M[t, k]
            S[j, k] = acc
            S[k, j] = acc
    return S
