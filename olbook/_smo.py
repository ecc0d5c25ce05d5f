r"""Sequential minimal optimization (SMO) for the SVM dual, compiled with numba.

The dual of the soft-margin SVM (book chapter 2, section ``marg-sec-dual``), written
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
:math:`10^{-6}` relative). Shrinking and kernel caches are left out: the
whole Gram matrix is precomputed, which is fine for a few thousand examples.

References
----------
J. C. Platt, "Sequential minimal optimization: a fast algorithm for training
support vector machines", Microsoft Research MSR-TR-98-14, 1998.
R.-E. Fan, P.-H. Chen, C.-J. Lin, "Working set selection using second order
information for training support vector machines", JMLR 6, 2005.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["TAU", "smo", "coordinate_descent", "intercept_from_gradient", "weight_sqnorm"]

#: Replaces a non-positive curvature :math:`a_{ij}` (libsvm's ``TAU``).
TAU = 1e-12


@numba.njit(cache=True)
def _in_up(alpha_t, y_t, C):
    return (y_t > 0.0 and alpha_t < C) or (y_t < 0.0 and alpha_t > 0.0)


@numba.njit(cache=True)
def _in_low(alpha_t, y_t, C):
    return (y_t < 0.0 and alpha_t < C) or (y_t > 0.0 and alpha_t > 0.0)


@numba.njit(cache=True)
def smo(K, y, C, tol, max_iter, alpha, G):
    """Run SMO from ``alpha`` (feasible) with gradient ``G = Q alpha - 1``.

    Both are updated in place.

    ``C`` may be ``inf`` (hard margin). Returns ``(n_iter, gap)``: the number
    of pair updates and the final KKT gap :math:`m - M` (``-inf`` if one of
    :math:`I_{up}, I_{low}` is empty). ``n_iter == max_iter`` means SMO was
    stopped before the gap fell below ``tol``.
    """
    n = y.shape[0]
    n_iter = 0
    gap = np.inf
    while True:
        # i: the most violating example in I_up; m = -y_i G_i.
        i = -1
        m = -np.inf
        for t in range(n):
            if _in_up(alpha[t], y[t], C) and -y[t] * G[t] >= m:
                m = -y[t] * G[t]
                i = t
        # j: the best second-order partner in I_low; M = min over I_low of -y G.
        j = -1
        M = np.inf
        best = np.inf
        for t in range(n):
            if not _in_low(alpha[t], y[t], C):
                continue
            v = -y[t] * G[t]
            if v < M:
                M = v
            b = m - v
            if b > 0.0:
                a = K[i, i] + K[t, t] - 2.0 * K[i, t]
                if a <= 0.0:
                    a = TAU
                if -(b * b) / a <= best:
                    best = -(b * b) / a
                    j = t
        gap = m - M
        if j == -1 or gap < tol or n_iter >= max_iter:
            break
        # The step t >= 0 along alpha_i += y_i t, alpha_j -= y_j t, clipped to the box.
        a = K[i, i] + K[j, j] - 2.0 * K[i, j]
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
        # G_k += Q_ki di + Q_kj dj, Q_kl = y_k y_l K_kl (K symmetric: read rows i, j).
        for k in range(n):
            G[k] += y[k] * (y[i] * K[i, k] * di + y[j] * K[j, k] * dj)
        n_iter += 1
    return n_iter, gap


@numba.njit(cache=True)
def coordinate_descent(K, y, C, tol, max_iter, alpha, G):
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
    largest violation is below ``tol``. Returns ``(n_iter, largest violation)``.
    """
    n = y.shape[0]
    n_iter = 0
    worst = 0.0
    while True:
        i = -1
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
        curvature = K[i, i] if K[i, i] > 0.0 else TAU
        old = alpha[i]
        new = old - G[i] / curvature
        alpha[i] = min(max(new, 0.0), C)
        d = alpha[i] - old
        for k in range(n):
            G[k] += y[k] * y[i] * K[i, k] * d
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
def weight_sqnorm(K, idx, coef):
    """:math:`\\|\\mathbf w\\|^2 = \\sum_{s,t} c_s c_t K_{st}` over the support vectors ``idx``, fixed order."""
    total = 0.0
    for s in range(idx.shape[0]):
        row = 0.0
        for t in range(idx.shape[0]):
            row += coef[t] * K[idx[s], idx[t]]
        total += coef[s] * row
    return total
