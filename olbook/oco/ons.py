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

The learner keeps ``A_t`` (updated by adding ``g g'``: additions only, so it
stays exactly symmetric and its eigenvalues only grow) and a triangular square
root of its inverse, ``A_t^{-1} = U U'`` (stored as ``T = U'``, lower
triangular), never ``A_t^{-1}`` itself. The Sherman-Morrison step

    A_t^{-1} = A_{t-1}^{-1} - K K' / (1 + v),  K = A_{t-1}^{-1} g,  v = g' K,

is a subtraction; on the factor it is Carlson's square-root step
(:func:`olbook._linalg.carlson_downdate` with ``1/c = 1``), the update of the
binary Gaussian learners of chapter 6, which also returns ``K``; then
``A_t^{-1} g = K / (1 + v)``. It is stable for the reasons given in
:mod:`olbook.second_order`'s docstring: ``A_t^{-1} = T'T`` is symmetric
positive semidefinite whatever the rounding, the step multiplies ``U`` by a
contraction whose coefficients come from increasing sums of positive terms (no
cancellation), and it is homogeneous, so its relative error does not depend
on the scale of ``A_t^{-1}`` (the tests check ``U U' A = I`` to 1e-12 at a
condition number of ``A_t`` above 2e7). The projection needs ``A_t`` itself
(principal submatrices for the simplex), in
:mod:`olbook.oco.norm_projections`. Every sum is a compiled loop in a fixed
order (the same bits on every CPU; no BLAS).

References: E. Hazan, A. Agarwal and S. Kale, "Logarithmic regret algorithms
for online convex optimization", Machine Learning 69, 2007; N. A. Carlson,
"Fast triangular formulation of the square root filter", AIAA J. 11, 1973.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._base import GameLearner, GameTrace
from .._linalg import carlson_downdate, covariance_from_factor, factor_project
from .._rowops import dot
from .._validation import (
    check_gradients,
    check_positive_float,
    check_positive_int,
    check_start_point,
)
from .norm_projections import (
    BALL,
    SIMPLEX,
    project_ball_in_norm,
    project_in_norm,
    project_simplex_in_norm,
    projection_code,
    projection_work,
)

__all__ = [
    "ONS",
    "ons_rounds",
    "project_in_norm",
    "theorem_parameters",
    "theorem_bound",
]


@numba.njit(cache=True)
def ons_rounds(x, A, T, G, gamma, radius, X, loss, log_det, V, W, M, idx):
    """Play the rows of ``G`` with the online Newton step, in place.

    ``x`` (d,) is the point to play, ``A`` (d, d) the matrix ``A_{t-1}`` and
    ``T = U'`` (d, d, lower triangular) the square root of its inverse,
    ``A_{t-1}^{-1} = U U'``; all three are updated, and ``log_det[0]`` gains
    ``ln(1 + g' A_{t-1}^{-1} g) = ln det A_t - ln det A_{t-1}`` per round. Row
    ``r`` of ``X`` receives the point played and ``loss[r]`` the linear loss
    ``G[r] . X[r]``. Per round: ``f = U' g`` and ``v = f . f = g' A_{t-1}^{-1} g``;
    Carlson's step makes ``T`` the factor of ``A_{t-1}^{-1} - K K' / (1 + v)``
    ``= A_t^{-1}`` and fills ``K = A_{t-1}^{-1} g``; ``A += g g'``;
    ``A_t^{-1} g = K / (1 + v)``, ``y = x - (K / (1 + v)) / gamma``, and ``x``
    becomes the projection of ``y`` in the norm of ``A_t``: onto the ball of
    ``radius``, or, with ``radius=None``, onto the simplex if ``idx`` is an
    array, else none (R^d). The set is chosen in Python: a ``None`` compiles the
    loop without the other sets' projections (a first run compiles only its
    own). ``V`` (5, d) and ``W``, ``M``, ``idx`` (:func:`projection_work`) are work
    arrays. Fixed-order sums: the same bits on every CPU.
    """
    d = x.shape[0]
    f, K, b, c, y = V[0], V[1], V[2], V[3], V[4]
    for r in range(G.shape[0]):
        g = G[r]
        for i in range(d):
            X[r, i] = x[i]
        loss[r] = dot(g, x)
        s = 1.0 + factor_project(T, g, f)  # f = U' g, s = 1 + g' A_{t-1}^{-1} g
        log_det[0] += math.log(s)
        carlson_downdate(T, f, 1.0, K, b, c, True)  # A_t^{-1} = T'T, K = A_{t-1}^{-1} g
        for i in range(d):  # row by row (contiguous); g_i g_j = g_j g_i: symmetric
            gi, row = g[i], A[i]
            for j in range(d):
                row[j] += gi * g[j]
        for i in range(d):
            y[i] = x[i] - (K[i] / s) / gamma
        if radius is not None:  # a ball
            project_ball_in_norm(y, A, radius, x, W, M)
        elif idx is not None:  # the simplex
            project_simplex_in_norm(y, A, x, x, W, M, idx)
        else:  # R^d
            for i in range(d):
                x[i] = y[i]


def theorem_parameters(exp_concavity, diameter, lipschitz) -> tuple[float, float]:
    """The parameters of the regret theorem of the online Newton step.

    ``gamma = min(1/(4 G D), alpha) / 2`` and ``a = 1/(gamma^2 D^2)`` (Hazan,
    Agarwal & Kale 2007, whose ``epsilon`` is ``a``; book :prf:ref:`oco-thm-ons`).

    Parameters
    ----------
    exp_concavity : float > 0
        ``alpha``: every loss is ``alpha``-exp-concave on the feasible set.
    diameter : float > 0
        ``D``, the diameter of the feasible set.
    lipschitz : float > 0
        ``G``, a bound on the norms of the gradients on the feasible set.

    Returns
    -------
    gamma, a : float
        ONS's ``gamma`` and the scale ``a`` of ``A_0 = a I``.

    Examples
    --------
    >>> theorem_parameters(1.0, 1.0, 0.25)  # 1/(4 G D) = alpha = 1
    (0.5, 4.0)
    """
    alpha = check_positive_float(exp_concavity, "exp_concavity (alpha)")
    D = check_positive_float(diameter, "diameter")
    G = check_positive_float(lipschitz, "lipschitz (the bound on the gradient norms)")
    gamma = 0.5 * min(1.0 / (4.0 * G * D), alpha)
    return gamma, 1.0 / (gamma * gamma * D * D)


def theorem_bound(exp_concavity, diameter, lipschitz, dim, n_rounds) -> float:
    """The regret bound of the online Newton step with :func:`theorem_parameters`.

    ``(d ln(1 + T G^2 gamma^2 D^2 / d) + 1) / (2 gamma)``, the first bound of
    book :prf:ref:`oco-thm-ons` (Hazan, Agarwal & Kale 2007 state the weaker
    ``5 (1/alpha + G D) d log T``).

    Parameters
    ----------
    exp_concavity, diameter, lipschitz : float > 0
        ``alpha``, ``D`` and ``G``, as in :func:`theorem_parameters`.
    dim : int >= 1
        ``d``, the dimension.
    n_rounds : int >= 1
        ``T``, the number of rounds.

    Returns
    -------
    float
        The bound on the regret after ``T`` rounds against every point of the set.
    """
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
    inverse_factor_ : ndarray of shape (d, d)
        ``T = U'``, lower triangular, with ``A_t^{-1} = U U' = T'T`` (Carlson's
        square-root updates; see the module's docstring).
    inverse_matrix_ : ndarray of shape (d, d)
        ``A_t^{-1} = T'T``, computed when read (exactly symmetric).
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
        code, radius = projection_code(self.feasible_set)
        if code == SIMPLEX and (np.any(x < 0.0) or abs(math.fsum(x) - 1.0) > 1e-12):
            raise ValueError(f"x0 must lie in the simplex; got {x!r}.")
        if code == BALL and math.sqrt(math.fsum(x * x)) > radius * (1.0 + 1e-12):
            raise ValueError(f"x0 must lie in the ball of radius {radius!r}.")
        return {"x0": x, "gamma": gamma, "a": a, "code": code, "radius": radius}

    def _reset_state(self, settings: dict) -> None:
        d, a = settings["x0"].size, settings["a"]
        self.x_ = settings["x0"].copy()
        self.matrix_ = a * np.eye(d)
        self.inverse_factor_ = np.eye(d) / math.sqrt(a)
        self.log_det_ratio_ = 0.0

    @property
    def inverse_matrix_(self) -> np.ndarray:
        """``A_t^{-1} = T'T`` from the factor ``T = inverse_factor_`` (a new array)."""
        return covariance_from_factor(self.inverse_factor_)

    def _predict(self) -> np.ndarray:
        """The point ``x_t`` played at the next round (a copy)."""
        return self.x_.copy()

    def _check_feedback(self, feedback, settings: dict, ndim: int) -> np.ndarray:
        return check_gradients(feedback, settings["x0"].size, ndim)

    def update(self, feedback) -> float:
        """Play one round: ``feedback`` is the gradient ``g_t`` at the point ``x_t``.

        Returns the linear loss ``g_t . x_t`` paid.
        """
        return super().update(feedback)

    def _play(self, F: np.ndarray) -> GameTrace:
        s = self._game
        x, A, T = self.x_.copy(), self.matrix_.copy(), self.inverse_factor_.copy()
        log_det = np.array([self.log_det_ratio_])
        X = np.empty_like(F)
        loss = np.empty(F.shape[0])
        radius = s["radius"] if s["code"] == BALL else None
        W, M, idx = projection_work(x.size)
        if s["code"] != SIMPLEX:
            idx = None  # the set is chosen here: the loop compiles only its own
        V = np.empty((5, x.size))
        ons_rounds(x, A, T, F, s["gamma"], radius, X, loss, log_det, V, W, M, idx)
        if not all(np.isfinite(v).all() for v in (log_det, x, A, T, loss)):
            raise ValueError(
                "the gradients are too large: a point or the matrix is no longer "
                "finite (scale the losses down)."
            )
        self.x_, self.matrix_, self.inverse_factor_ = x, A, T
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
        """The bound of the proof on the surrogate regret against ``u``.

        ``ln(det A_T / a^d) / (2 gamma) + gamma a ||x_1 - u||^2 / 2`` after the
        rounds played. It bounds ``sum_t [g_t.(x_t - u) - (gamma/2) (g_t.(x_t -
        u))^2]``, hence the regret of exp-concave losses for which the key lemma
        holds with this gamma (Hazan, Agarwal & Kale 2007; book
        :prf:ref:`oco-lem-exp-concave`, :prf:ref:`oco-thm-ons`).

        Parameters
        ----------
        u : array_like of shape (d,)
            The comparator (a point of the feasible set for the bound to apply).

        Returns
        -------
        float
            The bound; the learner's state is not changed.
        """
        s = self._settings()
        u = check_start_point(u)
        if u.shape != s["x0"].shape:
            raise ValueError(f"u must have shape {s['x0'].shape}; got {u.shape}.")
        diff = s["x0"] - u
        return self._current().log_det_ratio_ / (2.0 * s["gamma"]) + 0.5 * s[
            "gamma"
        ] * s["a"] * math.fsum(diff * diff)
