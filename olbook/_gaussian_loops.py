r"""The compiled loops of the second-order (Gaussian) learners of :mod:`olbook.second_order`.

:mod:`olbook.second_order` re-exports every public name here and explains the
update they share (book sections 6.3-6.4): :func:`coefficients` gives each learner's
:math:`(\alpha, \beta)`, :func:`precision_increment` turns :math:`\beta` into the
increment :math:`c` of the precision along :math:`\mathbf x`, and :func:`gaussian_epoch`
(full covariance, :math:`O(d^2)` per round), :func:`gaussian_epoch_diagonal`
(:math:`O(d)`) and :func:`gaussian_epoch_diagonal_csr` (O(nnz), the bits of the
dense loop) run one pass. Every sum is added in one fixed order
(:mod:`olbook._rowops`, :mod:`olbook._linalg`), so the outputs are the same on every CPU.
The steps are compiled into the loops that call them (``inline="always"``, as
:mod:`olbook._rowops` explains): a first fit compiles one function, its loop.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._linalg import carlson_downdate, factor_project
from ._rowops import (
    LANES,
    csr_row_score,
    csr_row_sqnorm,
    dot,
    lane_tree,
    row_score,
)

__all__ = [
    "coefficients",
    "gaussian_epoch",
    "gaussian_epoch_diagonal",
    "gaussian_epoch_diagonal_csr",
    "precision_increment",
]


#: A precision step c ||x||^2 above this is not applied: the covariance keeps its value along x.
#: Only CW reaches it, on data it cannot separate: its variance then collapses geometrically
#: (the precision doubles its exponent every few mistakes) and would overflow.
_MAX_PRECISION_STEP = 1e250


@numba.njit(cache=True, inline="always")
def _sqrt_u(alpha, v, phi):
    r""":math:`\sqrt u = \tfrac12(-\alpha v\phi + \sqrt{\alpha^2v^2\phi^2 + 4v})`.

    Written :math:`2v/(\alpha v\phi + \sqrt{\alpha^2v^2\phi^2 + 4v})`, so that
    nothing cancels.
    """
    t = alpha * v * phi
    return 2.0 * v / (t + math.sqrt(t * t + 4.0 * v))


@numba.njit(cache=True, inline="always")
def coefficients(rule, m, v, a, b):
    """``(alpha, beta)`` of one update, from the margin ``m = y mu.x``, the variance
    ``v = x' Sigma x`` and the parameters ``a``, ``b``.

    ``rule``: 0 AROW (``a = r``), 1 NAROW (``a = b``), 2 NHerd (``a = C``),
    3 CW (``a = phi``), 4 SCW-I (``a = phi``, ``b = C``), 5 SCW-II (``a = phi``,
    ``b = C``). ``(0, 0)`` means no update.
    """
    if rule <= 2:  # the hinge-loss family: update when m < 1
        if m >= 1.0:
            return 0.0, 0.0
        if rule == 0:
            beta = 1.0 / (v + a)
        elif rule == 1:
            if v <= 1.0 / a:
                return 0.0, 0.0
            beta = 1.0 / (v + v / (a * v - 1.0))
        else:
            beta = 1.0 / (v + 1.0 / a)
        alpha = (1.0 - m) * beta
        if rule == 2:
            beta = beta * beta * (v + 2.0 / a)
        return alpha, beta
    phi = a  # the confidence family: update when m < phi sqrt(v)
    if v <= 0.0 or m >= phi * math.sqrt(v):
        return 0.0, 0.0
    psi = 1.0 + phi * phi / 2.0
    zeta = 1.0 + phi * phi
    if rule <= 4:
        root = math.sqrt(m * m * phi**4 / 4.0 + v * phi * phi * zeta)
        alpha = (-m * psi + root) / (v * zeta)
        alpha = alpha if alpha > 0.0 else 0.0  # max(0, .) without compiling max
        if rule == 4:
            alpha = alpha if alpha <= b else b
    else:
        n = v + 1.0 / (2.0 * b)
        gam = phi * math.sqrt(
            phi * phi * m * m * v * v + 4.0 * n * v * (n + v * phi * phi)
        )
        top = -(2.0 * m * n + phi * phi * m * v) + gam
        alpha = top / (2.0 * (n * n + n * v * phi * phi))
        alpha = alpha if alpha > 0.0 else 0.0
    if alpha == 0.0:
        return 0.0, 0.0
    beta = alpha * phi / (_sqrt_u(alpha, v, phi) + v * alpha * phi)
    return alpha, beta


@numba.njit(cache=True, inline="always")
def precision_increment(rule, m, v, a, b, alpha, beta):
    r"""The ``c`` with :math:`\Sigma'^{-1} = \Sigma^{-1} + c\,\mathbf x\mathbf x^\top`.

    By Sherman-Morrison, :math:`\Sigma - \beta\Sigma\mathbf x\mathbf x^\top\Sigma` has
    inverse :math:`\Sigma^{-1} + c\,\mathbf x\mathbf x^\top` with
    :math:`c = \beta/(1 - \beta v) > 0`. It is computed in a form that does not
    cancel: :math:`1/r` (AROW), :math:`(bv - 1)/v` (NAROW),
    :math:`C^2(v + 2/C)` (NormalHerd), :math:`\alpha\phi/\sqrt u` (CW and SCW).
    """
    if beta == 0.0:
        return 0.0
    if rule == 0:
        return 1.0 / a
    if rule == 1:
        return (a * v - 1.0) / v
    if rule == 2:
        return a * a * (v + 2.0 / a)
    return alpha * a / _sqrt_u(alpha, v, a)


@numba.njit(cache=True)
def gaussian_epoch(X, y, mu, T, rule, a, b, mistakes, updates):
    r"""One pass of a Gaussian learner over ``(X, y)``; ``mu``, ``T`` change in place.

    ``T`` is :math:`U^\top`, the transpose of the upper triangular square root of the
    covariance, :math:`\Sigma = UU^\top` (lower triangular, so that each loop reads a
    row). Per round, :math:`\mathbf f = U^\top\mathbf x` (``d`` independent dot
    products) gives :math:`v = \|\mathbf f\|^2 \ge 0`; an update
    :math:`\Sigma \leftarrow \Sigma - \beta\Sigma\mathbf x\mathbf x^\top\Sigma`,
    that is :math:`\Sigma^{-1} \leftarrow \Sigma^{-1} + c\,\mathbf x\mathbf x^\top`
    (:func:`precision_increment`), is Carlson's square-root update of ``T``, which
    also yields :math:`\Sigma\mathbf x` for the mean; :math:`O(d^2)`, and the
    covariance stays symmetric positive semidefinite by construction (the stability
    argument is in :mod:`olbook.second_order`). Returns -1, or the index of the first
    row holding a NaN or inf (read before any use of it).
    """
    n, d = X.shape
    f = np.empty(d)
    Sx = np.empty(d)
    work_b = np.empty(d)
    work_g = np.empty(d)
    for i in range(n):
        s, nonfinite = row_score(mu, X, i)
        if nonfinite != 0.0:
            return i
        mistakes[i] = (s > 0.0) != (y[i] > 0.0)
        x = X[i]
        v = factor_project(T, x, f)
        alpha, beta = coefficients(rule, y[i] * s, v, a, b)
        updates[i] = alpha != 0.0 or beta != 0.0
        if updates[i]:
            c = precision_increment(rule, y[i] * s, v, a, b, alpha, beta)
            # CW on noise: the covariance stays when its step is too large (the class);
            # c = 0 (NHerd's beta underflowed) leaves it as it is
            apply = c > 0.0 and c * dot(x, x) <= _MAX_PRECISION_STEP
            inv_c = 1.0 / c if apply else 1.0
            carlson_downdate(T, f, inv_c, Sx, work_b, work_g, apply)
            for j in range(d):
                mu[j] += alpha * y[i] * Sx[j]
    return -1


@numba.njit(cache=True)
def gaussian_epoch_diagonal(X, y, mu, t, rule, a, b, mistakes, updates):
    r""":func:`gaussian_epoch` with a diagonal covariance :math:`\Sigma = D^2`.

    One round costs O(d). ``t`` is the diagonal of :math:`D`.

    The precision update keeps the diagonal of :math:`c\,\mathbf x\mathbf x^\top`,
    :math:`1/t_j^2 \mathrel{+}= c x_j^2`, written as Carlson's step on one
    coordinate: with :math:`f_j = x_j t_j`,
    :math:`t_j \leftarrow t_j\sqrt{1/c}/\sqrt{1/c + f_j^2}`, so every :math:`t_j`
    only shrinks, and :math:`(\Sigma\mathbf x)_j = f_j t_j`. This is the arithmetic
    of :func:`gaussian_epoch` on a diagonal factor: on examples with one nonzero
    coordinate the two give the same bits. Every sum is a blocked dot product
    (:mod:`olbook._rowops`).
    """
    n, d = X.shape
    z = np.empty(d)
    for i in range(n):
        f, nonfinite = row_score(mu, X, i)
        if nonfinite != 0.0:
            return i
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        x = X[i]
        for j in range(d):
            z[j] = t[j] * x[j]
        v = dot(z, z)
        alpha, beta = coefficients(rule, y[i] * f, v, a, b)
        updates[i] = alpha != 0.0 or beta != 0.0
        if updates[i]:
            c = precision_increment(rule, y[i] * f, v, a, b, alpha, beta)
            shrink = c > 0.0 and c * dot(x, x) <= _MAX_PRECISION_STEP
            inv_c = 1.0 / c if shrink else 1.0
            s0 = math.sqrt(inv_c)
            for j in range(d):
                mu[j] += alpha * y[i] * (z[j] * t[j])
                if shrink:
                    t[j] = s0 / math.sqrt(inv_c + z[j] * z[j]) * t[j]
    return -1


@numba.njit(cache=True)
def gaussian_epoch_diagonal_csr(
    data, indices, indptr, y, mu, t, rule, a, b, mistakes, updates
):
    """:func:`gaussian_epoch_diagonal` on a CSR matrix ``(data, indices, indptr)``: O(nnz) per round.

    A zero coordinate adds nothing to the sums and leaves its ``mu_j`` and ``t_j``
    as they are (``sqrt(1/c) / sqrt(1/c + 0) = 1``), so the bits are those of the
    dense loop.
    """
    n = indptr.shape[0] - 1
    acc = np.empty(LANES)  # the partial sums of the blocked order
    for i in range(n):
        start, stop = indptr[i], indptr[i + 1]
        f, nonfinite = csr_row_score(mu, data, indices, start, stop, acc)
        if nonfinite != 0.0:
            return i
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        acc[:] = 0.0  # v = z.z in the blocked order, z_j = t_j x_j
        for p in range(start, stop):
            zj = t[indices[p]] * data[p]
            acc[indices[p] & 7] += zj * zj
        v = lane_tree(acc)
        alpha, beta = coefficients(rule, y[i] * f, v, a, b)
        updates[i] = alpha != 0.0 or beta != 0.0
        if updates[i]:
            c = precision_increment(rule, y[i] * f, v, a, b, alpha, beta)
            xx = csr_row_sqnorm(
                data, indices, start, stop, acc
            )  # the bits of dot(x, x)
            shrink = c > 0.0 and c * xx <= _MAX_PRECISION_STEP
            inv_c = 1.0 / c if shrink else 1.0
            s0 = math.sqrt(inv_c)
            for p in range(start, stop):
                j = indices[p]
                zj = t[j] * data[p]
                mu[j] += alpha * y[i] * (zj * t[j])
                if shrink:
                    t[j] = s0 / math.sqrt(inv_c + zj * zj) * t[j]
    return -1
