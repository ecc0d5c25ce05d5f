r"""Sequential minimal optimization (SMO) for the SVM dual, compiled with numba.

The dual of the soft-margin SVM (book section 2.3, :ref:`marg-sec-dual`), written
as a minimization as in libsvm:

.. math::
    \min_{\boldsymbol\alpha}\ f(\boldsymbol\alpha) = \tfrac12 \boldsymbol\alpha^\top Q \boldsymbol\alpha
    - \mathbf 1^\top\boldsymbol\alpha
    \quad\text{s.t.}\quad 0 \le \alpha_i \le C,\ \ \mathbf y^\top\boldsymbol\alpha = 0,
    \qquad Q_{ij} = y_i y_j K_{ij},

with :math:`C = \infty` for the hard margin. SMO (Platt 1998) changes two
multipliers at a time, the smallest change that keeps
:math:`\mathbf y^\top\boldsymbol\alpha = 0`: along the direction
:math:`\alpha_i \mathrel{+}= y_i t,\ \alpha_j \mathrel{-}= y_j t` the
objective is the parabola

.. math:: f(t) = f(0) - b_{ij}\, t + \tfrac12 a_{ij}\, t^2, \qquad
          b_{ij} = -y_i G_i + y_j G_j, \quad a_{ij} = K_{ii} + K_{jj} - 2K_{ij},

where :math:`\mathbf G = Q\boldsymbol\alpha - \mathbf 1` is the gradient; its
minimum :math:`t = b_{ij}/a_{ij}` is clipped to the box.

**Working-set rule** (WSS 3 of Fan, Chen and Lin 2005, the rule of libsvm and
so of scikit-learn's ``SVC``). With

.. math:: I_{up} = \{t : \alpha_t < C, y_t = +1 \text{ or } \alpha_t > 0, y_t = -1\},\quad
          I_{low} = \{t : \alpha_t < C, y_t = -1 \text{ or } \alpha_t > 0, y_t = +1\},

take :math:`i = \arg\max_{t\in I_{up}} -y_t G_t` (the most violating
example), then the :math:`j \in I_{low}` with :math:`-y_j G_j < -y_i G_i`
whose step decreases :math:`f` most, :math:`j = \arg\min_t -b_{it}^2/a_{it}`
(second-order information; :math:`a_{it} \le 0` is replaced by
:math:`\tau = 10^{-12}`).

**Stopping rule.** :math:`\boldsymbol\alpha` satisfies the KKT conditions
if and only if :math:`m(\boldsymbol\alpha) = \max_{I_{up}} -y_tG_t \le
M(\boldsymbol\alpha) = \min_{I_{low}} -y_tG_t`; SMO stops when the gap
:math:`m - M < \text{tol}` (libsvm's default is :math:`10^{-3}`; olbook's
``SVM`` uses :math:`10^{-6}`, so that decision values are accurate to about
:math:`10^{-6}` relative).

**Kernel columns and shrinking** (as in libsvm, Chang and Lin 2011). An
iteration reads two columns of :math:`K`, never the whole matrix: they come
from an LRU cache (:mod:`olbook._kernel_cache`), so the memory is the cache's
``cache_size`` megabytes instead of :math:`8n^2` bytes. Every
:data:`SHRINK_EVERY` iterations, the examples at a bound that cannot be part of
a violating pair are set aside (:func:`shrink`); SMO then scans, updates and
computes kernel columns on the others only, and rebuilds the gradient of the
set-aside examples (:func:`unshrink`) before it declares the KKT conditions
met. Every step adds in a fixed order, so the result is the same on every CPU.

**Compilation.** The kernel reaches the compiled functions as three arguments
``poly, gamma, root`` (:func:`olbook._kernel_cache.kernel_args`), None for what
it does not use: numba compiles them once per kernel and leaves out the other
kernels' arithmetic, so that a first linear fit compiles no ``exp``.

References
----------
J. C. Platt, "Sequential minimal optimization: a fast algorithm for training
support vector machines", Microsoft Research MSR-TR-98-14, 1998.
R.-E. Fan, P.-H. Chen, C.-J. Lin, "Working set selection using second order
information for training support vector machines", JMLR 6, 2005.
T. Joachims, "Making large-scale SVM learning practical", in Advances in Kernel
Methods, MIT Press, 1999. C.-C. Chang, C.-J. Lin, "LIBSVM: a library for support
vector machines", ACM TIST 2(3), 2011.
"""

from __future__ import annotations

import numba
import numpy as np

from ._kernel_cache import FULL, column_loop, grow, values

__all__ = [
    "TAU",
    "SHRINK_EVERY",
    "smo",
    "shrink",
    "unshrink",
    "kkt_gap",
    "coordinate_descent",
    "intercept_from_gradient",
    "weight_sqnorm",
]

#: Replaces a non-positive curvature :math:`a_{ij}` (libsvm's ``TAU``).
TAU = 1e-12
#: Iterations between two shrinking passes (at most ``n``). libsvm waits 1000; on the
#: two-dimensional problems of ``benchmarks/svm.py`` (2,000 to 20,000 examples) 200 was
#: up to twice as fast and never slower by more than the timing noise.
SHRINK_EVERY = 200


@numba.njit(cache=True)
def _in_up(alpha_t, y_t, C):
    return (y_t > 0.0 and alpha_t < C) or (y_t < 0.0 and alpha_t > 0.0)


@numba.njit(cache=True)
def _in_low(alpha_t, y_t, C):
    return (y_t < 0.0 and alpha_t < C) or (y_t > 0.0 and alpha_t > 0.0)


@numba.njit(cache=True)
def smo(cache, y, C, tol, max_iter, alpha, G, shrinking, poly, gamma, root):
    """Run SMO from ``alpha`` (feasible) with gradient ``G = Q alpha - 1``.

    Both are updated in place. ``cache`` gives the kernel: its diagonal
    ``cache.diag`` and, on request, a column ``column_loop(cache, i, ...)``
    (:mod:`olbook._kernel_cache`) of the kernel ``poly, gamma, root``
    (:func:`olbook._kernel_cache.kernel_args`); an iteration reads the columns of
    the two multipliers it changes, never the whole Gram matrix. With ``shrinking``
    it works on the active examples ``active[:n_active]`` only (see :func:`shrink`).

    ``C`` may be ``inf`` (hard margin). Returns ``(n_iter, gap)``: the number
    of pair updates and the final KKT gap :math:`m - M` (``-inf`` if one of
    :math:`I_{up}, I_{low}` is empty). ``n_iter == max_iter`` means SMO was
    stopped before the gap fell below ``tol``.
    """
    n = y.shape[0]
    Kd = cache.diag  # K[t, t]
    kernel = (poly, gamma, root)
    active = np.empty(n, dtype=np.int64)  # the examples SMO works on, increasing
    for t in range(n):
        active[t] = t
    n_active = n
    # C * sum of Q[:, t] over the alpha_t = C (rebuilds G of dropped examples)
    G_bar = np.zeros(n)
    countdown = min(n, SHRINK_EVERY)
    unshrunk = False
    n_iter = 0
    gap = np.inf
    while True:
        countdown -= 1
        if shrinking and countdown == 0:
            countdown = min(n, SHRINK_EVERY)
            m, M = _extremes(y, C, alpha, G, active, n_active)
            if not unshrunk and m - M <= 10.0 * tol:  # near the end: all back, once
                unshrunk = True
                n_active = unshrink(
                    cache, y, C, alpha, G, G_bar, active, n_active, kernel
                )
            n_active = shrink(y, C, alpha, G, active, n_active, m, M)
        # i: the most violating example in I_up; m = -y_i G_i.
        i = np.int64(
            -1
        )  # not the literal -1, which numba would compile its callees for
        m = -np.inf
        for p in range(n_active):
            t = active[p]
            if _in_up(alpha[t], y[t], C) and -y[t] * G[t] >= m:
                m = -y[t] * G[t]
                i = t
        # j: the best second-order partner in I_low; M = min over I_low of -y G.
        # Ki[t] = K[i, t] at the active t
        Ki = column_loop(cache, i, active, n_active, *kernel) if i >= 0 else Kd
        j = np.int64(-1)
        M = np.inf
        best = np.inf
        for p in range(n_active):
            t = active[p]
            if not _in_low(alpha[t], y[t], C):
                continue
            v = -y[t] * G[t]
            if v < M:
                M = v
            b = m - v
            if b > 0.0:  # never when I_up is empty (i = -1, m = -inf)
                a = Kd[i] + Kd[t] - 2.0 * Ki[t]
                if a <= 0.0:
                    a = TAU
                if -(b * b) / a <= best:
                    best = -(b * b) / a
                    j = t
        gap = m - M
        if (j == -1 or gap < tol) and n_active < n:
            # Optimal on the active examples: bring the others back and look again.
            n_active = unshrink(cache, y, C, alpha, G, G_bar, active, n_active, kernel)
            countdown = 2  # no shrinking before that look
            continue
        if j == -1 or gap < tol or n_iter >= max_iter:
            break
        Kj = column_loop(cache, j, active, n_active, *kernel)
        # The step t >= 0 along alpha_i += y_i t, alpha_j -= y_j t, clipped to the box.
        a = Kd[i] + Kd[j] - 2.0 * Ki[j]
        if a <= 0.0:
            a = TAU
        step = (m + y[j] * G[j]) / a
        room_i = C - alpha[i] if y[i] > 0.0 else alpha[i]
        room_j = alpha[j] if y[j] > 0.0 else C - alpha[j]
        step = min(step, room_i, room_j)
        old_i = alpha[i]
        old_j = alpha[j]
        if step == room_i:
            alpha[i] = C if y[i] > 0.0 else 0.0  # exactly on the bound
        else:
            alpha[i] = old_i + y[i] * step
        if step == room_j:
            alpha[j] = 0.0 if y[j] > 0.0 else C
        else:
            alpha[j] = old_j - y[j] * step
        di = alpha[i] - old_i
        dj = alpha[j] - old_j
        # G_k += Q_ki di + Q_kj dj, Q_kl = y_k y_l K_kl.
        for p in range(n_active):
            k = active[p]
            G[k] += y[k] * (y[i] * Ki[k] * di + y[j] * Kj[k] * dj)
        if shrinking:
            _track_upper_bound(cache, y, C, G_bar, i, old_i, alpha[i], kernel)
            _track_upper_bound(cache, y, C, G_bar, j, old_j, alpha[j], kernel)
        n_iter += 1
    if n_active < n:  # stopped by max_iter: complete G, and the gap over every example
        n_active = unshrink(cache, y, C, alpha, G, G_bar, active, n_active, kernel)
        m, M = _extremes(y, C, alpha, G, active, n_active)
        gap = m - M
    return n_iter, gap


@numba.njit(cache=True)
def _track_upper_bound(
    cache, y, C, G_bar, t, old, new, kernel
):  # pragma: no cover - compiled
    """Keep ``G_bar = C sum_{alpha_s = C} Q[:, s]`` when ``alpha_t`` reaches or leaves ``C``."""
    if (old >= C) == (new >= C):
        return
    Kt = column_loop(cache, t, cache.everyone, y.shape[0], *kernel)
    sign = C * y[t] if new >= C else -C * y[t]
    for k in range(y.shape[0]):
        G_bar[k] += y[k] * Kt[k] * sign


@numba.njit(cache=True)
def kkt_gap(y, C, alpha, G):  # pragma: no cover - compiled
    """:math:`m - M` over every example (``-inf`` if :math:`I_{up}` or :math:`I_{low}` is empty)."""
    m = -np.inf
    M = np.inf
    for t in range(y.shape[0]):
        v = -y[t] * G[t]
        if _in_up(alpha[t], y[t], C):
            m = max(m, v)
        if _in_low(alpha[t], y[t], C):
            M = min(M, v)
    return m - M


@numba.njit(cache=True)
def _extremes(y, C, alpha, G, active, n_active):  # pragma: no cover - compiled
    """``(m, M)``: the largest :math:`-y_tG_t` over :math:`I_{up}` and the smallest over
    :math:`I_{low}`, among the examples ``active[:n_active]``."""
    m = -np.inf
    M = np.inf
    for p in range(n_active):
        t = active[p]
        v = -y[t] * G[t]
        if _in_up(alpha[t], y[t], C):
            m = max(m, v)
        if _in_low(alpha[t], y[t], C):
            M = min(M, v)
    return m, M


@numba.njit(cache=True)
def shrink(y, C, alpha, G, active, n_active, m, M):  # pragma: no cover - compiled
    r"""Drop from ``active[:n_active]`` the examples that cannot be in a violating pair (libsvm's shrinking).

    An example at a bound belongs to one of :math:`I_{up}, I_{low}` only; with
    :math:`v_t = -y_tG_t`, it cannot be the :math:`i` of a violating pair if it is
    in :math:`I_{up}` only with :math:`v_t < M`, nor the :math:`j` if it is in
    :math:`I_{low}` only with :math:`v_t > m` (``m, M`` from :func:`_extremes`).
    Such examples are likely to stay at their bound (Joachims 1999; Chang and
    Lin 2011, section 5.1): SMO leaves them out, their :math:`G_t` is no longer
    updated, and :func:`unshrink` rebuilds it when SMO is optimal on the rest.
    The first time the gap :math:`m - M` is below ``10 tol`` SMO brings every
    example back once before shrinking (libsvm's rule). Returns the new
    ``n_active``; the order of ``active`` is kept.
    """
    kept = 0
    for p in range(n_active):
        t = active[p]
        up = _in_up(alpha[t], y[t], C)
        low = _in_low(alpha[t], y[t], C)
        v = -y[t] * G[t]
        if (up and not low and v < M) or (low and not up and v > m):
            continue
        active[kept] = t
        kept += 1
    return kept


@numba.njit(cache=True)
def unshrink(
    cache, y, C, alpha, G, G_bar, active, n_active, kernel
):  # pragma: no cover - compiled
    r"""Rebuild :math:`G_t` of the examples outside ``active[:n_active]`` and make every example active.

    :math:`G_t = \bar G_t - 1 + \sum_{0 < \alpha_s < C} \alpha_s Q_{ts}`, with
    :math:`\bar G_t = C\sum_{\alpha_s = C} Q_{ts}` kept up to date by SMO, the
    sum over the free multipliers (all active: a free multiplier is never
    dropped) in increasing order of ``s``. ``kernel`` is ``(poly, gamma, root)``
    (:func:`olbook._kernel_cache.kernel_args`). Returns ``n`` (the new ``n_active``).
    """
    n = y.shape[0]
    dropped = np.empty(n - n_active, dtype=np.int64)  # the others, in increasing order
    q = 0
    p = 0
    for t in range(n):
        if p < n_active and active[p] == t:  # active is increasing
            p += 1
        else:
            dropped[q] = t
            q += 1
    for t in dropped:
        G[t] = G_bar[t] - 1.0
    vals = np.empty(dropped.shape[0])
    for s in range(n):
        if 0.0 < alpha[s] < C:
            # K[s, dropped]: from column s if it is cached whole, else computed
            slot = cache.slot_of[s] if cache.code >= 0 else -1
            if cache.code < 0 or (slot >= 0 and cache.epoch[slot] == FULL):
                col = cache.XT[s] if cache.code < 0 else cache.buf[slot]
                for q in range(dropped.shape[0]):
                    vals[q] = col[dropped[q]]
            else:
                values(cache.XT, s, dropped, dropped.shape[0], vals, *kernel)
            for q in range(dropped.shape[0]):
                t = dropped[q]
                G[t] += y[t] * y[s] * alpha[s] * vals[q]
    for t in range(n):
        active[t] = t
    grow(cache)
    return n


@numba.njit(cache=True)
def coordinate_descent(cache, y, C, tol, max_iter, alpha, G, poly, gamma, root):
    r"""The dual without intercept, one multiplier at a time (no :math:`\mathbf y^\top\boldsymbol\alpha = 0`).

    Without :math:`b` the only constraints are the box :math:`0 \le \alpha_i \le C`,
    so SMO's smallest working set is a single multiplier. KKT: :math:`G_i \ge 0`
    where :math:`\alpha_i = 0`, :math:`G_i \le 0` where :math:`\alpha_i = C`,
    :math:`G_i = 0` in between; the violation of example :math:`t` is
    :math:`-G_t` if it could still grow (:math:`\alpha_t < C,\ G_t < 0`),
    :math:`G_t` if it could still shrink (:math:`\alpha_t > 0,\ G_t > 0`), else 0.
    Each iteration takes the most violating :math:`i` (Gauss--Southwell rule),
    minimizes exactly along it, :math:`\alpha_i \leftarrow
    \mathrm{clip}_{[0, C]}(\alpha_i - G_i/K_{ii})`, and updates
    :math:`G_k \mathrel{+}= y_k y_i K_{ik}\,\Delta\alpha_i`. Stops when the
    largest violation is below ``tol``. The kernel is ``poly, gamma, root`` as in
    :func:`smo`. Returns ``(n_iter, largest violation)``.
    """
    n = y.shape[0]
    n_iter = 0
    worst = 0.0
    while True:
        i = np.int64(-1)
        worst = 0.0
        for t in range(n):
            if alpha[t] < C and -G[t] > worst:
                worst = -G[t]
                i = t
            elif alpha[t] > 0.0 and G[t] > worst:
                worst = G[t]
                i = t
        if i == -1 or worst < tol or n_iter >= max_iter:
            break
        curvature = cache.diag[i] if cache.diag[i] > 0.0 else TAU
        Ki = column_loop(cache, i, cache.everyone, n, poly, gamma, root)
        old = alpha[i]
        new = old - G[i] / curvature
        alpha[i] = min(max(new, 0.0), C)
        d = alpha[i] - old
        for k in range(n):
            G[k] += y[k] * y[i] * Ki[k] * d
        n_iter += 1
    return n_iter, worst


@numba.njit(cache=True)
def intercept_from_gradient(alpha, y, G, C):
    """The intercept :math:`b` from the KKT conditions (libsvm's rule).

    At a free multiplier (:math:`0 < \\alpha_i < C`) the KKT conditions give
    :math:`y_i f(\\mathbf x_i) = 1`, i.e. :math:`b = -y_i G_i`: average it over
    the free multipliers. With none free, :math:`b` is only known to lie in an
    interval given by the bounded ones; take its midpoint.
    """
    lo = -np.inf
    hi = np.inf
    total = 0.0
    n_free = 0
    for t in range(y.shape[0]):
        yg = y[t] * G[t]
        at_upper = alpha[t] >= C
        at_lower = alpha[t] <= 0.0
        if (at_upper and y[t] < 0.0) or (at_lower and y[t] > 0.0):
            hi = min(hi, yg)
        elif at_upper or at_lower:
            lo = max(lo, yg)
        else:
            n_free += 1
            total += yg
    rho = total / n_free if n_free > 0 else (hi + lo) / 2.0
    return -rho


@numba.njit(cache=True)
def weight_sqnorm(alpha, G):
    r""":math:`\|\mathbf w\|^2 = \boldsymbol\alpha^\top Q\boldsymbol\alpha = \sum_t \alpha_t (G_t + 1)`, in index order.

    ``G`` is the gradient :math:`Q\boldsymbol\alpha - \mathbf 1` that SMO keeps, so
    no kernel value is needed (the double sum over the support vectors would cost
    :math:`n_{SV}^2` of them).
    """
    total = 0.0
    for t in range(alpha.shape[0]):
        if alpha[t] != 0.0:
            total += alpha[t] * (G[t] + 1.0)
    return total
