"""The compiled loops of :mod:`olbook.oco.classifiers` (book sections 8.3 and 8.4).

One pass of :class:`~olbook.oco.AdaGradClassifier` and of
:class:`~olbook.oco.CoinBettingClassifier` over dense or CSR examples; every
score is added in olbook's fixed order (:func:`olbook.row_score`), so the
outputs are the same on every CPU. :mod:`olbook.oco.classifiers` re-exports
every public name here and documents the rules.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._rowops import csr_row_score, csr_span, row_score
from .adagrad import adagrad_diagonal_rounds

__all__ = [
    "loss_slope",
    "adagrad_classifier_epoch",
    "adagrad_classifier_epoch_csr",
    "kt_classifier_epoch",
    "kt_classifier_epoch_csr",
]


@numba.njit(cache=True)
def loss_slope(m, logistic):
    """``c >= 0``: the loss's (sub)gradient at margin ``m = y w.x`` is ``-c y x``.

    Hinge: 1 if ``m < 1`` else 0 (:class:`~olbook.oco.HingeLoss`'s
    subgradient). Logistic: ``1 / (1 + exp(m))``, computed as
    :class:`~olbook.oco.LogisticLoss` computes it (``e / (1 + e)`` with
    ``e = exp(-m)`` for ``m > 0``): no overflow, the same bits.
    """
    if logistic:
        if m > 0.0:
            e = math.exp(-m)
            return e / (1.0 + e)
        return 1.0 / (1.0 + math.exp(m))
    return 1.0 if m < 1.0 else 0.0


@numba.njit(cache=True)
def adagrad_classifier_epoch(
    X, y, w, sq, eta, delta, logistic, low, high, G, P, paid, mistakes, updates
):
    """One pass of diagonal AdaGrad over ``(X, y)``; ``w`` and ``sq`` change in place.

    Round ``i``: the score ``f = w.x_i`` (fixed order), the mistake
    ``sign(f) != y_i``, the gradient ``g = (-y_i c) x_i`` with
    ``c = loss_slope(y_i f)``, then, if ``g != 0``, one round of
    :func:`~olbook.oco.adagrad.adagrad_diagonal_rounds` on R^d (a zero
    gradient changes nothing there; ``low = -inf`` and ``high = inf`` are its
    box, ``G``, ``P`` (1, d) and ``paid`` (1,) its buffers). Returns -1, or
    the index of the first row holding a NaN or an inf.
    """
    n, d = X.shape
    for i in range(n):
        f, nonfinite = row_score(w, X, i)
        if nonfinite != 0.0:
            return i
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        c = -y[i] * loss_slope(y[i] * f, logistic)
        moved = False
        for j in range(d):
            g = c * X[i, j]
            G[0, j] = g
            moved = moved or g != 0.0
        updates[i] = moved
        if moved:
            adagrad_diagonal_rounds(w, sq, G, eta, delta, low, high, P, paid)
    return -1


@numba.njit(cache=True)
def adagrad_classifier_epoch_csr(
    data, indices, indptr, y, w, sq, eta, delta, logistic, mistakes, updates
):
    """:func:`adagrad_classifier_epoch` on a CSR matrix: O(nnz), the same bits.

    A coordinate with ``g_j = 0`` (every coordinate not stored in the row)
    keeps its ``w_j`` and ``sq_j`` to the bit in the dense loop too, so only
    the stored entries are updated, with the arithmetic of
    :func:`~olbook.oco.adagrad.adagrad_diagonal_rounds`.
    """
    n = indptr.shape[0] - 1
    acc = np.empty(8)
    for i in range(n):
        start, stop = csr_span(indptr, i)
        f, nonfinite = csr_row_score(w, data, indices, start, stop, acc)
        if nonfinite != 0.0:
            return i
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        c = -y[i] * loss_slope(y[i] * f, logistic)
        moved = False
        for p in range(start, stop):
            g = c * data[p]
            if g != 0.0:
                j = indices[p]
                s = sq[j] + g * g
                sq[j] = s
                h = delta + math.sqrt(s)
                h = h if h > 0.0 else 1.0  # g * g underflowed to 0: no move
                w[j] = w[j] - eta * g / h
                moved = True
        updates[i] = moved
    return -1


@numba.njit(cache=True)
def kt_classifier_epoch(
    X, y, w, theta, wealth, t0, lipschitz, logistic, mistakes, updates
):
    """One pass of per-coordinate KT coin betting over ``(X, y)``; in place.

    Returns ``(t, bad_row)``.

    Coordinate j is the one-dimensional KT bettor of
    :func:`~olbook.oco.coin_betting.kt_rounds` with the bound
    ``L_j = lipschitz[j]``: ``theta_j = -(g_{1,j} + ... + g_{t,j}) / L_j``,
    ``wealth_j``, and the weight ``w_j = 0 + theta_j (wealth_j / ((t + 1) L_j))``
    after round ``t`` (1-based, over all passes). A feature with
    ``|x_ij| > L_j`` first raises ``L_j`` to ``|x_ij|`` and rescales
    ``theta_j`` to the new units (``theta_j L_old / L_new``; the weight is
    then recomputed, before the score); a coordinate with ``L_j = 0`` has
    seen only zeros (its coins are 0). Returns ``(t, -1)``, or
    ``(t, i)`` for the first row ``i`` holding a NaN or an inf.
    """
    n, d = X.shape
    t = t0
    for i in range(n):
        for j in range(d):
            a = abs(X[i, j])
            if a > lipschitz[j]:  # a larger bound: theta in the new units
                theta[j] = theta[j] * (lipschitz[j] / a)
                lipschitz[j] = a
                w[j] = 0.0 + theta[j] * (wealth[j] / ((t + 1) * a))
            elif not a <= lipschitz[j]:  # NaN
                return t, i
        f, nonfinite = row_score(w, X, i)
        if nonfinite != 0.0:
            return t, i
        t += 1
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        c = -y[i] * loss_slope(y[i] * f, logistic)
        moved = False
        for j in range(d):
            L = lipschitz[j]
            if L == 0.0:  # every x_j so far was 0: coins 0, no bet
                continue
            g = c * X[i, j]
            moved = moved or g != 0.0
            wealth[j] = wealth[j] - g * w[j]
            theta[j] -= g / L
            w[j] = 0.0 + theta[j] * (wealth[j] / ((t + 1) * L))
        updates[i] = moved
    return t, -1


@numba.njit(cache=True)
def kt_classifier_epoch_csr(
    data,
    indices,
    indptr,
    y,
    w,
    theta,
    wealth,
    t0,
    lipschitz,
    logistic,
    mistakes,
    updates,
):
    """:func:`kt_classifier_epoch` on a CSR matrix, with the same bits.

    The bounds are raised from the stored entries only and the score is
    O(nnz); the bets change at every coordinate each round (their ``t``
    grows), so the update is O(d) per row.
    """
    n = indptr.shape[0] - 1
    d = w.shape[0]
    acc = np.empty(8)
    t = t0
    for i in range(n):
        start, stop = csr_span(indptr, i)
        for p in range(start, stop):
            j = indices[p]
            a = abs(data[p])
            if a > lipschitz[j]:
                theta[j] = theta[j] * (lipschitz[j] / a)
                lipschitz[j] = a
                w[j] = 0.0 + theta[j] * (wealth[j] / ((t + 1) * a))
            elif not a <= lipschitz[j]:  # NaN
                return t, i
        f, nonfinite = csr_row_score(w, data, indices, start, stop, acc)
        if nonfinite != 0.0:
            return t, i
        t += 1
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        c = -y[i] * loss_slope(y[i] * f, logistic)
        moved = False
        p, end = np.int64(start), np.int64(stop)  # the next stored entry
        for j in range(d):
            x = 0.0
            if p < end and indices[p] == j:
                x = data[p]
                p += 1
            L = lipschitz[j]
            if L == 0.0:
                continue
            g = c * x
            moved = moved or g != 0.0
            wealth[j] = wealth[j] - g * w[j]
            theta[j] -= g / L
            w[j] = 0.0 + theta[j] * (wealth[j] / ((t + 1) * L))
        updates[i] = moved
    return t, -1
