"""The online Newton step: logarithmic regret for exp-concave losses.

Book section :ref:`oco-sec-ons`. At round t the learner plays ``x_t``,
is told the gradient ``g_t`` of the round's loss at ``x_t`` and moves to

    A_t = a I + g_1 g_1' + ... + g_t g_t',
    y_{t+1} = x_t - (1/gamma) A_t^{-1} g_t,
    x_{t+1} = argmin_{x in K} (x - y_{t+1})' A_t (x - y_{t+1}),

the projection being in the norm induced by ``A_t`` (Hazan, Agarwal & Kale
2007, the Online Newton Step; their ``epsilon`` is olbook's ``a``). For
``alpha``-exp-concave losses with gradients of norm at most ``G`` on a set of
diameter ``D``, the parameters ``gamma = min(1/(4 G D), alpha) / 2`` and
``a = 1/(gamma^2 D^2)`` (:func:`theorem_parameters`) give the regret bound
:func:`theorem_bound`, ``O((1/alpha + G D) d log T)``.

The learner keeps ``A_t`` (updated by adding ``g g'``) and its inverse
(updated by the Sherman-Morrison formula, each entry computed once for both
triangles, so that it stays exactly symmetric). That update subtracts, which
the Gaussian learners avoid; here the eigenvalues of ``A_t`` never fall below
``a`` and its condition number is at most ``1 + sum_t ||g_t||^2 / a`` (the
tests check ``A A^{-1} = I`` to 1e-12 at a condition number of 2e7). Every sum
is a compiled loop in a fixed order (the same bits on every CPU; no BLAS).
The projection:

* R^d (``feasible_set=None``): none;
* the simplex: a primal active-set method for the quadratic program (exact up
  to rounding: it ends when the multipliers of the zero coordinates are
  ``>= -1e-12`` times the scale of the gradient ``A (x - y)``);
* the Euclidean ball of radius R: ``x = (A + lambda I)^{-1} A y`` with the
  ``lambda >= 0`` that puts ``x`` on the sphere, found by Newton's method on
  ``1/R - 1/||x(lambda)||`` (Moré and Sorensen), stopped at a relative error
  ``1e-14`` in ``||x||``, then scaled onto the sphere.

References: E. Hazan, A. Agarwal and S. Kale, "Logarithmic regret algorithms
for online convex optimization", Machine Learning 69, 2007; J. J. Moré and
D. C. Sorensen, "Computing a trust region step", SIAM J. Sci. Stat. Comput. 4,
1983.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._base import GameLearner, GameTrace
from .._rowops import dot
from .._validation import (
    check_gradients,
    check_positive_float,
    check_positive_int,
    check_start_point,
)
from .sets import Ball, Simplex

__all__ = [
    "ONS",
    "ons_rounds",
    "project_in_norm",
    "theorem_parameters",
    "theorem_bound",
]

#: The codes of the feasible sets in the compiled loop.
_REALS, _SIMPLEX, _BALL = 0, 1, 2
#: The relative tolerance of the simplex projection's multipliers.
SIMPLEX_TOL = 1e-12
#: The relative tolerance of the ball projection's norm before the final scaling.
BALL_TOL = 1e-14


@numba.njit(cache=True)
def _cholesky(M, n):  # pragma: no cover - compiled
    """Overwrite the leading n x n block of ``M`` (positive definite) with its lower
    Cholesky factor; sums left to right."""
    for j in range(n):
        s = M[j, j]
        for k in range(j):
            s -= M[j, k] * M[j, k]
        s = math.sqrt(s) if s > 0.0 else 1e-300
        M[j, j] = s
        for i in range(j + 1, n):
            t = M[i, j]
            for k in range(j):
                t -= M[i, k] * M[j, k]
            M[i, j] = t / s


@numba.njit(cache=True)
def _cholesky_solve(L, n, b):  # pragma: no cover - compiled
    """Solve ``(L L') z = b`` in place (``b`` of length >= n); sums left to right."""
    for i in range(n):
        t = b[i]
        for k in range(i):
            t -= L[i, k] * b[k]
        b[i] = t / L[i, i]
    for i in range(n - 1, -1, -1):
        t = b[i]
        for k in range(i + 1, n):
            t -= L[k, i] * b[k]
        b[i] = t / L[i, i]


@numba.njit(cache=True)
def _matvec(A, y, out):  # pragma: no cover - compiled
    for i in range(A.shape[0]):
        out[i] = dot(A[i], y)


@numba.njit(cache=True)
def project_simplex_in_norm(y, A, x, out):  # pragma: no cover - compiled
    """Write ``argmin {(z - y)' A (z - y) : z >= 0, sum z = 1}`` into ``out``.

    A primal active-set method started at the feasible point ``x``: on the
    free coordinates F (those not held at 0) it solves
    ``A_FF z_F = (A y)_F + lambda 1``, ``sum z_F = 1``; it steps towards that
    point until a coordinate reaches 0 (which joins the held ones), and at the
    point itself it frees the held coordinate whose multiplier
    ``(A (z - y))_i - lambda`` is most negative, ending when none is below
    ``-SIMPLEX_TOL`` times the scale of ``A (z - y)``.
    """
    d = y.shape[0]
    q = np.empty(d)
    _matvec(A, y, q)
    z = x.copy()
    held = np.zeros(d, dtype=np.bool_)
    for i in range(d):
        held[i] = z[i] <= 0.0
        if held[i]:
            z[i] = 0.0
    free = np.empty(d, dtype=np.int64)
    M = np.empty((d, d))
    u = np.empty(d)
    v = np.empty(d)
    grad = np.empty(d)
    lam = 0.0
    at_solution = False
    for _ in range(20 * d + 20):
        if not at_solution:
            n = 0
            for i in range(d):
                if not held[i]:
                    free[n] = i
                    n += 1
            for r in range(n):
                for c in range(n):
                    M[r, c] = A[free[r], free[c]]
                u[r] = q[free[r]]
                v[r] = 1.0
            _cholesky(M, n)
            _cholesky_solve(M, n, u)
            _cholesky_solve(M, n, v)
            su = 0.0
            sv = 0.0
            for r in range(n):
                su += u[r]
                sv += v[r]
            lam = (1.0 - su) / sv
            step = 1.0
            block = -1
            for r in range(n):
                target = u[r] + lam * v[r]
                cur = z[free[r]]
                if target < cur and target < 0.0:
                    ratio = cur / (cur - target)
                    if ratio < step:
                        step = ratio
                        block = r
            for r in range(n):
                i = free[r]
                target = u[r] + lam * v[r]
                z[i] = target if step == 1.0 else z[i] + step * (target - z[i])
            if block >= 0:
                z[free[block]] = 0.0
                held[free[block]] = True
                continue
            at_solution = True
        # multipliers of the held coordinates: (A (z - y))_i - lambda
        _matvec(A, z, grad)
        scale = abs(lam)
        for i in range(d):
            grad[i] -= q[i]
            scale = max(scale, abs(grad[i]))
        worst = -SIMPLEX_TOL * scale
        j = -1
        for i in range(d):
            if held[i] and grad[i] - lam < worst:
                worst = grad[i] - lam
                j = i
        if j < 0:
            break
        held[j] = False
        at_solution = False
    for i in range(d):
        out[i] = z[i]


@numba.njit(cache=True)
def project_ball_in_norm(y, A, radius, out):  # pragma: no cover - compiled
    """Write ``argmin {(z - y)' A (z - y) : ||z||_2 <= radius}`` into ``out``.

    Inside the ball ``y`` itself; outside, ``z = (A + lambda I)^{-1} A y`` with
    ``lambda`` from Newton's iteration on ``1/R - 1/||z(lambda)||`` started at
    0 (it increases to the root: the function is concave and increasing),
    stopped when ``||z|| <= R (1 + BALL_TOL)``; ``z`` is then scaled onto the
    sphere.
    """
    d = y.shape[0]
    ny = math.sqrt(dot(y, y))
    if ny <= radius:
        for i in range(d):
            out[i] = y[i]
        return
    q = np.empty(d)
    _matvec(A, y, q)
    M = np.empty((d, d))
    z = np.empty(d)
    w = np.empty(d)
    lam = 0.0
    nz = ny
    for _ in range(200):
        for r in range(d):
            for c in range(d):
                M[r, c] = A[r, c]
            M[r, r] += lam
            z[r] = q[r]
        _cholesky(M, d)
        _cholesky_solve(M, d, z)
        nz = math.sqrt(dot(z, z))
        if nz <= radius * (1.0 + BALL_TOL):
            break
        for i in range(d):  # w = L^{-1} z: ||w||^2 = z' (A + lambda I)^{-1} z
            t = z[i]
            for k in range(i):
                t -= M[i, k] * w[k]
            w[i] = t / M[i, i]
        nw2 = dot(w, w)
        new = lam + (nz * nz / nw2) * (nz - radius) / radius
        if not new > lam:
            break
        lam = new
    r = radius / nz if nz > radius else 1.0
    for i in range(d):
        out[i] = z[i] * r


@numba.njit(cache=True)
def ons_rounds(x, A, Ainv, G, gamma, code, radius, X, loss, log_det):
    """Play the rows of ``G`` with the online Newton step, in place.

    ``x`` (d,) is the point to play, ``A`` and ``Ainv`` (d, d) the matrix
    ``A_{t-1}`` and its inverse; all three are updated, and ``log_det[0]``
    gains ``ln(1 + g' A_{t-1}^{-1} g) = ln det A_t - ln det A_{t-1}`` per
    round. Row ``r`` of ``X`` receives the point played and ``loss[r]`` the
    linear loss ``G[r] . X[r]``. Per round, with ``v = A_{t-1}^{-1} g`` and
    ``s = 1 + g . v``: ``A += g g'``, ``Ainv -= v v' / s`` (Sherman-Morrison),
    ``A_t^{-1} g = v / s``, ``y = x - (v / s) / gamma``, and ``x`` becomes the
    projection of ``y`` in the norm of ``A_t`` (``code``: 0 none, 1 simplex,
    2 ball of ``radius``). Fixed-order sums: the same bits on every CPU.
    Returns whether every number of the state and every loss is finite.
    """
    d = x.shape[0]
    v = np.empty(d)
    y = np.empty(d)
    for r in range(G.shape[0]):
        g = G[r]
        for i in range(d):
            X[r, i] = x[i]
        loss[r] = dot(g, x)
        _matvec(Ainv, g, v)
        s = 1.0 + dot(g, v)
        log_det[0] += math.log(s)
        for i in range(d):
            for j in range(i, d):
                a = A[i, j] + g[i] * g[j]
                b = Ainv[i, j] - v[i] * v[j] / s
                A[i, j] = a
                A[j, i] = a
                Ainv[i, j] = b
                Ainv[j, i] = b
        for i in range(d):
            y[i] = x[i] - (v[i] / s) / gamma
        if code == _SIMPLEX:
            project_simplex_in_norm(y, A, x, x)
        elif code == _BALL:
            project_ball_in_norm(y, A, radius, x)
        else:
            for i in range(d):
                x[i] = y[i]
    finite = math.isfinite(log_det[0])
    for i in range(d):
        finite = finite and math.isfinite(x[i])
        for j in range(d):
            finite = finite and math.isfinite(A[i, j]) and math.isfinite(Ainv[i, j])
    for r in range(G.shape[0]):
        finite = finite and math.isfinite(loss[r])
    return finite


def _set_code(feasible_set) -> tuple[int, float]:
    if feasible_set is None:
        return _REALS, 0.0
    if isinstance(feasible_set, Simplex):
        return _SIMPLEX, 0.0
    if isinstance(feasible_set, Ball) and feasible_set.p == 2.0:
        return _BALL, feasible_set.radius
    raise ValueError(
        "feasible_set must be None (R^d), olbook.oco.Simplex() or a Euclidean "
        f"olbook.oco.Ball(radius): the projection in the norm of A_t onto {feasible_set!r} "
        "is not computed."
    )


def project_in_norm(y, A, feasible_set, start=None) -> np.ndarray:
    """The projection ``argmin_{z in K} (z - y)' A (z - y)`` (a new array).

    ``A`` is symmetric positive definite (d, d); ``feasible_set`` is ``None``
    (R^d: ``y``), :class:`~olbook.oco.Simplex` or a Euclidean
    :class:`~olbook.oco.Ball`. ``start``: a point of the simplex where the
    active-set method starts (default: the uniform point).

    Examples
    --------
    >>> import numpy as np
    >>> from olbook.oco import Simplex
    >>> project_in_norm([2.0, 0.0], np.eye(2), Simplex())  # Euclidean for A = I
    array([1., 0.])
    """
    code, radius = _set_code(feasible_set)
    y = check_start_point(y)
    A = np.ascontiguousarray(A, dtype=np.float64)
    if A.shape != (y.size, y.size) or not np.isfinite(A).all():
        raise ValueError(f"A must be a finite ({y.size}, {y.size}) matrix.")
    out = np.empty_like(y)
    if code == _SIMPLEX:
        x = np.full(y.size, 1.0 / y.size) if start is None else check_start_point(start)
        if x.shape != y.shape or x.min() < 0.0 or abs(math.fsum(x) - 1.0) > 1e-12:
            raise ValueError("start must be a point of the simplex, of y's length.")
        project_simplex_in_norm(y, A, x, out)
    elif code == _BALL:
        project_ball_in_norm(y, A, radius, out)
    else:
        out[:] = y
    return out


def theorem_parameters(exp_concavity, diameter, lipschitz) -> tuple[float, float]:
    """The parameters of the regret theorem: ``gamma = min(1/(4 G D), alpha) / 2``
    and ``a = 1/(gamma^2 D^2)`` (Hazan, Agarwal & Kale 2007; book
    :prf:ref:`oco-thm-ons`)."""
    alpha = check_positive_float(exp_concavity, "exp_concavity (alpha)")
    D = check_positive_float(diameter, "diameter")
    G = check_positive_float(lipschitz, "lipschitz (the bound on the gradient norms)")
    gamma = 0.5 * min(1.0 / (4.0 * G * D), alpha)
    return gamma, 1.0 / (gamma * gamma * D * D)


def theorem_bound(exp_concavity, diameter, lipschitz, dim, n_rounds) -> float:
    """The bound of book :prf:ref:`oco-thm-ons` with :func:`theorem_parameters`:
    ``(d ln(1 + T G^2 gamma^2 D^2 / d) + 1) / (2 gamma)``."""
    gamma, _ = theorem_parameters(exp_concavity, diameter, lipschitz)
    d = check_positive_int(dim, "dim")
    T = check_positive_int(n_rounds, "n_rounds")
    G, D = float(lipschitz), float(diameter)
    return (d * math.log1p(T * (G * gamma * D) ** 2 / d) + 1.0) / (2.0 * gamma)


class ONS(GameLearner):
    """The online Newton step (on the protocol of :class:`~olbook._base.GameLearner`).

    At round t it plays ``x_t``, is told the gradient ``g_t``, pays the linear
    loss ``g_t . x_t``, and moves to the projection, in the norm of
    ``A_t = a I + sum_{s<=t} g_s g_s'``, of ``x_t - (1/gamma) A_t^{-1} g_t``
    (Hazan, Agarwal & Kale 2007; book section :ref:`oco-sec-ons`).

    Parameters
    ----------
    x0 : array_like of shape (d,)
        The first point ``x_1`` (it must lie in the feasible set).
    gamma : float > 0, default=0.5
        ONS's gamma: the Newton step is ``(1/gamma) A_t^{-1} g_t``. The
        theorem takes ``min(1/(4 G D), alpha) / 2`` (:func:`theorem_parameters`).
    a : float > 0, default=1.0
        The initial matrix ``A_0 = a I`` (the paper's epsilon); the theorem
        takes ``1/(gamma^2 D^2)``.
    feasible_set : olbook.oco.Simplex, olbook.oco.Ball or None, default=None
        ``None``: R^d. The simplex or a Euclidean ball: the projection in the
        norm of ``A_t`` is computed (see the module's docstring).

    Attributes
    ----------
    x_ : ndarray of shape (d,)
        The point to be played next.
    matrix_ : ndarray of shape (d, d)
        ``A_t``.
    inverse_matrix_ : ndarray of shape (d, d)
        ``A_t^{-1}`` (Sherman-Morrison updates).
    log_det_ratio_ : float
        ``ln det A_t - d ln a``, the sum of ``ln(1 + g_t' A_{t-1}^{-1} g_t)``.
    n_rounds_ : int
    cumulative_loss_ : float
        The sum of the linear losses ``g_t . x_t`` since the last reset.
    trace_ : GameTrace
        Every round since the last reset (``loss``, ``cumulative_loss``,
        ``points`` and ``gradients``).

    Examples
    --------
    >>> from olbook.oco import ONS
    >>> learner = ONS([0.0, 0.0], gamma=0.5, a=1.0)
    >>> learner.update([1.0, 0.0])  # A_1 = diag(2, 1): the step is 2 g / 2
    0.0
    >>> learner.predict()
    array([-1.,  0.])
    """

    def __init__(self, x0, gamma: float = 0.5, *, a: float = 1.0, feasible_set=None):
        self.x0 = x0
        self.gamma = gamma
        self.a = a
        self.feasible_set = feasible_set

    def _validate_params(self) -> dict:
        x = check_start_point(self.x0)
        gamma = check_positive_float(self.gamma, "gamma (the Newton step's 1/gamma)")
        a = check_positive_float(self.a, "a (the initial matrix A_0 = a I)")
        code, radius = _set_code(self.feasible_set)
        if code == _SIMPLEX and (np.any(x < 0.0) or abs(math.fsum(x) - 1.0) > 1e-12):
            raise ValueError(f"x0 must lie in the simplex; got {x!r}.")
        if code == _BALL and math.sqrt(math.fsum(x * x)) > radius * (1.0 + 1e-12):
            raise ValueError(f"x0 must lie in the ball of radius {radius!r}.")
        return {"x0": x, "gamma": gamma, "a": a, "code": code, "radius": radius}

    def _reset_state(self, settings: dict) -> None:
        d, a = settings["x0"].size, settings["a"]
        self.x_ = settings["x0"].copy()
        self.matrix_ = a * np.eye(d)
        self.inverse_matrix_ = np.eye(d) / a
        self.log_det_ratio_ = 0.0

    def _predict(self) -> np.ndarray:
        """The point ``x_t`` played at the next round (a copy)."""
        return self.x_.copy()

    def _check_feedback(self, feedback, settings: dict, ndim: int) -> np.ndarray:
        return check_gradients(feedback, settings["x0"].size, ndim)

    def update(self, feedback) -> float:
        """Play one round: ``feedback`` is the gradient ``g_t`` at the point ``x_t`` played.

        Returns the linear loss ``g_t . x_t`` paid.
        """
        return super().update(feedback)

    def _play(self, F: np.ndarray) -> GameTrace:
        s = self._game
        x, A, Ainv = self.x_.copy(), self.matrix_.copy(), self.inverse_matrix_.copy()
        log_det = np.array([self.log_det_ratio_])
        X = np.empty_like(F)
        loss = np.empty(F.shape[0])
        if not ons_rounds(
            x, A, Ainv, F, s["gamma"], s["code"], s["radius"], X, loss, log_det
        ):
            raise ValueError(
                "the gradients are too large: a point or the matrix is no longer "
                "finite (scale the losses down)."
            )
        self.x_, self.matrix_, self.inverse_matrix_ = x, A, Ainv
        self.log_det_ratio_ = float(log_det[0])
        # F is the learner's own checked copy of the feedback: kept without a copy
        return GameTrace(loss, self._cumulative(loss), points=X, gradients=F)

    def _empty_trace(self) -> GameTrace:
        d = self._game["x0"].size
        return GameTrace(
            np.zeros(0),
            np.zeros(0),
            points=np.zeros((0, d)),
            gradients=np.zeros((0, d)),
        )

    def regret_bound(self, u) -> float:
        """The bound of the proof on the surrogate regret against ``u`` after the rounds
        played: ``ln(det A_T / a^d) / (2 gamma) + gamma a ||x_1 - u||^2 / 2``.

        It bounds ``sum_t [g_t.(x_t - u) - (gamma/2) (g_t.(x_t - u))^2]``, hence the
        regret of exp-concave losses for which the key lemma holds with this
        gamma (book :prf:ref:`oco-lem-exp-concave`, :prf:ref:`oco-thm-ons`).
        """
        s = self._settings()
        u = check_start_point(u)
        if u.shape != s["x0"].shape:
            raise ValueError(f"u must have shape {s['x0'].shape}; got {u.shape}.")
        diff = s["x0"] - u
        return self._current().log_det_ratio_ / (2.0 * s["gamma"]) + 0.5 * s[
            "gamma"
        ] * s["a"] * math.fsum(diff * diff)
