"""Projections in the norm of a positive definite A: ``argmin_{z in K} ||z - y||_A``.

Book section :ref:`oco-sec-ons`: the online Newton step (:class:`~olbook.oco.ONS`)
projects in the norm ``||v||_A^2 = v' A v`` of its matrix ``A_t``. The sets:

* R^d (``feasible_set=None``): none;
* the simplex: a primal active-set method for the quadratic program (exact up
  to rounding: it ends when the multipliers of the zero coordinates are
  ``>= -SIMPLEX_TOL`` times the scale of the gradient ``A (x - y)``);
* the Euclidean ball of radius R: ``x = (A + lambda I)^{-1} A y`` with the
  ``lambda >= 0`` that puts ``x`` on the sphere, found by Newton's method on
  ``1/R - 1/||x(lambda)||`` (Moré and Sorensen), stopped at a relative error
  ``BALL_TOL`` in ``||x||``, then scaled onto the sphere.

Each linear system is solved by a Cholesky factor ``R = L'`` (upper triangular,
row-major) and the two triangular solves of :mod:`olbook._linalg`
(:func:`~olbook._linalg.solve_with_factor`), here on the leading block of a
work matrix (the work arrays come from Python, :func:`projection_work`: the
compiled code allocates nothing); every sum is added in one fixed order (no
BLAS, no ``fastmath``), so the results are the same on every CPU.

References: J. J. Moré and D. C. Sorensen, "Computing a trust region step",
SIAM J. Sci. Stat. Comput. 4, 1983; E. Hazan, A. Agarwal and S. Kale,
"Logarithmic regret algorithms for online convex optimization", Machine
Learning 69, 2007.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._rowops import dot, lane_dot
from .._validation import check_start_point
from .sets import Ball, Simplex

__all__ = [
    "project_in_norm",
    "project_simplex_in_norm",
    "project_ball_in_norm",
    "projection_code",
    "projection_work",
    "WORK_ROWS",
    "REALS",
    "SIMPLEX",
    "BALL",
    "SIMPLEX_TOL",
    "BALL_TOL",
]

#: The codes of the feasible sets in compiled loops (:func:`projection_code`).
REALS, SIMPLEX, BALL = 0, 1, 2
#: The relative tolerance of the simplex projection's multipliers.
SIMPLEX_TOL = 1e-12
#: The relative tolerance of the ball projection's norm before the final scaling.
BALL_TOL = 1e-14
#: The rows of the projections' work array (:func:`projection_work`).
WORK_ROWS = 8


def projection_work(d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The work arrays of the compiled projections in dimension ``d``.

    Allocated in Python: the compiled loops allocate nothing (a first run
    compiles less).

    Parameters
    ----------
    d : int >= 1
        The dimension.

    Returns
    -------
    W : ndarray of shape (WORK_ROWS, d)
        The vectors.
    M : ndarray of shape (d, d)
        The Cholesky factors (the simplex's systems on ``n`` coordinates in
        its leading ``n x n`` block).
    idx : ndarray of shape (2, d), int64
        The simplex's held flags and free indices.
    """
    return np.empty((WORK_ROWS, d)), np.empty((d, d)), np.empty((2, d), np.int64)


@numba.njit(cache=True, inline="always")
def _cholesky_block(M, n):  # pragma: no cover - compiled
    """Overwrite the leading ``n x n`` block of ``M`` (symmetric positive definite,
    read on and above the diagonal) with ``L'``, its upper triangular Cholesky
    factor ``M = L L'``.

    Outer-product form, row by row: row ``j`` is divided by its pivot, then
    subtracted (times its entry ``j, i``) from each later row ``i``: every entry
    receives its terms in increasing ``j``, element-wise.
    """
    for j in range(n):
        p = M[j, j]
        p = math.sqrt(p) if p > 0.0 else 1e-300
        M[j, j] = p
        for k in range(j + 1, n):
            M[j, k] = M[j, k] / p
        for i in range(j + 1, n):
            c = M[j, i]
            for k in range(i, n):
                M[i, k] = M[i, k] - c * M[j, k]


@numba.njit(cache=True, inline="always")
def _forward_block(M, n, x, z):  # pragma: no cover - compiled
    """``z[:n] = L^{-1} x[:n]`` for the factor ``L' = M[:n, :n]``; returns ``z.z``.

    :func:`olbook._linalg.forward_solve` on the leading block: the same sums.
    """
    for j in range(n):
        z[j] = x[j]
    for j in range(n):
        zj = z[j] / M[j, j]
        z[j] = zj
        for k in range(j + 1, n):
            z[k] -= M[j, k] * zj
    return lane_dot(z, 0, z, 0, n)


@numba.njit(cache=True, inline="always")
def _back_block(M, n, z, Sx):  # pragma: no cover - compiled
    """``Sx[:n] = (L')^{-1} z[:n]`` (:func:`olbook._linalg.back_solve` on the block)."""
    d = M.shape[1]
    for j in range(n - 1, -1, -1):
        Sx[j] = (z[j] - lane_dot(M, j * d + j + 1, Sx, j + 1, n - j - 1)) / M[j, j]


@numba.njit(cache=True)
def project_simplex_in_norm(y, A, x, out, W, M, idx):  # pragma: no cover - compiled
    """Write ``argmin {(z - y)' A (z - y) : z >= 0, sum z = 1}`` into ``out``.

    A primal active-set method started at the feasible point ``x``: on the
    free coordinates F (those not held at 0) it solves
    ``A_FF z_F = (A y)_F + lambda 1``, ``sum z_F = 1``; it steps towards that
    point until a coordinate reaches 0 (which joins the held ones), and at the
    point itself it frees the held coordinate whose multiplier
    ``(A (z - y))_i - lambda`` is most negative, ending when none is below
    ``-SIMPLEX_TOL`` times the scale of ``A (z - y)``. ``W``, ``M``, ``idx``:
    :func:`projection_work`.
    """
    d = y.shape[0]
    q, z, grad = W[0], W[1], W[2]
    u, v, work = W[5], W[6], W[7]  # rows 3, 4: the right-hand sides (A y)_F and 1
    held, free = idx[0], idx[1]
    for i in range(d):
        q[i] = dot(A[i], y)  # A y
        z[i] = x[i]
        held[i] = z[i] <= 0.0
        if held[i]:
            z[i] = 0.0
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
                W[3, r] = q[free[r]]
                W[4, r] = 1.0
            _cholesky_block(M, n)
            for k in range(2):  # u = A_FF^{-1} (A y)_F, then v = A_FF^{-1} 1
                _forward_block(M, n, W[3 + k], work)
                _back_block(M, n, work, W[5 + k])
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
        scale = abs(lam)
        for i in range(d):
            grad[i] = dot(A[i], z) - q[i]
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
def project_ball_in_norm(y, A, radius, out, W, M):  # pragma: no cover - compiled
    """Write ``argmin {(z - y)' A (z - y) : ||z||_2 <= radius}`` into ``out``.

    Inside the ball ``y`` itself; outside, ``z = (A + lambda I)^{-1} A y`` with
    ``lambda`` from Newton's iteration on ``1/R - 1/||z(lambda)||`` started at
    0 (it increases to the root: the function is concave and increasing),
    stopped when ``||z|| <= R (1 + BALL_TOL)``; ``z`` is then scaled onto the
    sphere. ``W`` and ``M``: :func:`projection_work`.
    """
    d = y.shape[0]
    ny = math.sqrt(dot(y, y))
    if ny <= radius:
        for i in range(d):
            out[i] = y[i]
        return
    q, z, w = W[0], W[1], W[2]
    for i in range(d):
        q[i] = dot(A[i], y)  # A y
    lam = 0.0
    nz = ny
    for _ in range(200):
        for r in range(d):
            for c in range(d):
                M[r, c] = A[r, c]
            M[r, r] += lam
        _cholesky_block(M, d)
        _forward_block(M, d, q, w)
        _back_block(M, d, w, z)  # z = (A + lambda I)^{-1} A y
        nz = math.sqrt(dot(z, z))
        if nz <= radius * (1.0 + BALL_TOL):
            break
        nw2 = _forward_block(M, d, z, w)  # ||L^{-1} z||^2 = z' (A + lambda I)^{-1} z
        new = lam + (nz * nz / nw2) * (nz - radius) / radius
        if not new > lam:
            break
        lam = new
    r = radius / nz if nz > radius else 1.0
    for i in range(d):
        out[i] = z[i] * r


def projection_code(feasible_set) -> tuple[int, float]:
    """The code of ``feasible_set`` for compiled loops and its radius.

    Used by :class:`~olbook.oco.ONS` (book section :ref:`oco-sec-ons`).

    Parameters
    ----------
    feasible_set : None, olbook.oco.Simplex or olbook.oco.Ball
        The set; any other (a box, a ball of another p-norm) is a ``ValueError``.

    Returns
    -------
    code, radius : int, float
        ``(REALS, 0.0)`` for ``None`` (R^d), ``(SIMPLEX, 0.0)`` for
        :class:`~olbook.oco.Simplex`, ``(BALL, R)`` for a Euclidean
        :class:`~olbook.oco.Ball` of radius ``R``.
    """
    if feasible_set is None:
        return REALS, 0.0
    if isinstance(feasible_set, Simplex):
        return SIMPLEX, 0.0
    if isinstance(feasible_set, Ball) and feasible_set.p == 2.0:
        return BALL, feasible_set.radius
    raise ValueError(
        "feasible_set must be None (R^d), olbook.oco.Simplex() or a Euclidean "
        "olbook.oco.Ball(radius): the projection in the norm of A_t onto "
        f"{feasible_set!r} is not computed."
    )


def project_in_norm(y, A, feasible_set, start=None) -> np.ndarray:
    """The projection ``argmin_{z in K} (z - y)' A (z - y)`` (a new array).

    The projection of the online Newton step (Hazan, Agarwal & Kale 2007; book
    section :ref:`oco-sec-ons`), computed by the compiled loops of this module.

    Parameters
    ----------
    y : array_like of shape (d,)
        The point to project.
    A : array_like of shape (d, d)
        A symmetric positive definite matrix (checked: symmetric to a relative
        1e-12, with a Cholesky factor).
    feasible_set : None, olbook.oco.Simplex or olbook.oco.Ball
        ``None``: R^d (the result is ``y``); the simplex; a Euclidean ball.
    start : array_like of shape (d,), default=None
        A point of the simplex where the active-set method starts (default:
        the uniform point); ignored for the other sets.

    Returns
    -------
    ndarray of shape (d,)
        The point of ``feasible_set`` nearest to ``y`` in the norm of ``A``.

    Examples
    --------
    >>> import numpy as np
    >>> from olbook.oco import Simplex
    >>> project_in_norm([2.0, 0.0], np.eye(2), Simplex())  # Euclidean for A = I
    array([1., 0.])
    """
    code, radius = projection_code(feasible_set)
    y = check_start_point(y)
    A = np.ascontiguousarray(A, dtype=np.float64)
    if A.shape != (y.size, y.size) or not np.isfinite(A).all():
        raise ValueError(f"A must be a finite ({y.size}, {y.size}) matrix.")
    if np.abs(A - A.T).max() > 1e-12 * np.abs(A).max():
        raise ValueError("A must be symmetric.")
    try:
        np.linalg.cholesky(A)  # a test of definiteness only: nothing is kept
    except np.linalg.LinAlgError:
        raise ValueError("A must be positive definite.") from None
    out = np.empty_like(y)
    W, M, idx = projection_work(y.size)
    if code == SIMPLEX:
        x = np.full(y.size, 1.0 / y.size) if start is None else check_start_point(start)
        if x.shape != y.shape or x.min() < 0.0 or abs(math.fsum(x) - 1.0) > 1e-12:
            raise ValueError("start must be a point of the simplex, of y's length.")
        project_simplex_in_norm(y, A, x, out, W, M, idx)
    elif code == BALL:
        project_ball_in_norm(y, A, radius, out, W, M)
    else:
        out[:] = y
    return out
