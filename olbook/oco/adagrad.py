"""AdaGrad: online gradient descent with one step size per coordinate.

Book section 8.3, :ref:`oco-sec-adagrad`. At round t the learner plays
``x_t``, is told the (sub)gradient ``g_t`` and keeps the sums of squares
``s_{t,i}^2 = g_{1,i}^2 + ... + g_{t,i}^2``. The diagonal version moves to

    x_{t+1} = Proj^{H_t}_K(x_t - eta H_t^{-1} g_t),
    H_t = delta I + diag(s_{t,1}, ..., s_{t,d}),

the projection being in the norm ``||x||_{H_t} = sqrt(x' H_t x)``; on a box
``[low, high]^d`` (and on R^d) that projection is coordinate-wise clipping,
which is what this module computes (exact). The full-matrix version uses
``H_t = delta I + (g_1 g_1' + ... + g_t g_t')^{1/2}`` on R^d. A coordinate
whose gradients have all been 0 (with ``delta = 0``) does not move.

The diagonal bound (Duchi, Hazan & Singer 2011, theorem 5, composite mirror
descent with no regularizer; book :prf:ref:`oco-thm-adagrad`): on a box whose
sides have lengths ``D_i``, for every ``u`` in it,

    Regret_T(u) <= sum_i [(delta + s_{T,i}) D_i^2 / (2 eta) + eta s_{T,i}],

which for ``delta = 0`` and ``eta = D_inf / sqrt(2)`` is
``sqrt(2) D_inf sum_i s_{T,i}``.

References: J. Duchi, E. Hazan and Y. Singer, "Adaptive subgradient methods for
online learning and stochastic optimization", JMLR 12, 2011 (figure 1 and
theorem 5); H. B. McMahan and M. Streeter, "Adaptive bound optimization for
online convex optimization", COLT 2010.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._base import GameLearner, GameTrace
from .._rowops import lane_dot, rowwise_dots
from .._validation import (
    check_bool,
    check_gradients,
    check_nonnegative_float,
    check_positive_float,
    check_start_point,
)
from .sets import Box

__all__ = ["AdaGrad", "adagrad_diagonal_rounds"]


@numba.njit(cache=True)
def adagrad_diagonal_rounds(x, sq, G, eta, delta, low, high, X, loss):
    """Play the rows of ``G`` with diagonal AdaGrad, in place.

    ``x`` (d,) is the point to play and ``sq`` (d,) the sums of squared
    gradients so far; both are updated. Row ``r`` of ``X`` receives the point
    played at round ``r`` and ``loss[r]`` the linear loss ``G[r] . X[r]``. For
    each coordinate ``i``: ``sq_i += g_i^2``, ``h = delta + sqrt(sq_i)`` and
    ``x_i = clip(x_i - eta g_i / h, low_i, high_i)`` (``low = -inf``,
    ``high = inf`` on R^d). With ``h = 0`` every gradient of that coordinate
    was 0: it does not move. Plain IEEE operations, each coordinate on its
    own, and the loss in the fixed order of :func:`olbook._rowops.lane_dot`
    (the same bits on every CPU).
    """
    d = x.shape[0]
    for r in range(G.shape[0]):
        for i in range(d):
            X[r, i] = x[i]
        loss[r] = lane_dot(X, r * d, G, r * d, d)
        for i in range(d):
            g = G[r, i]
            s = sq[i] + g * g
            sq[i] = s
            h = delta + math.sqrt(s)
            h = h if h > 0.0 else 1.0  # h = 0 only where g = 0: no move
            x[i] = min(max(x[i] - eta * g / h, low[i]), high[i])


def _full_step(G: np.ndarray, g: np.ndarray, eta: float, delta: float) -> np.ndarray:
    """``eta H^+ g`` with ``H = delta I + G^{1/2}`` (eigenvalues of ``G`` below
    ``d eps lambda_max`` count as 0; with ``delta = 0`` the pseudo-inverse)."""
    lam, V = np.linalg.eigh(G)
    lam = np.where(lam > G.shape[0] * np.finfo(float).eps * max(lam[-1], 0.0), lam, 0)
    h = delta + np.sqrt(lam)
    c = V.T @ g
    c = np.divide(c, h, out=np.zeros_like(c), where=h > 0.0)
    return eta * (V @ c)


class AdaGrad(GameLearner):
    """AdaGrad (on the protocol of :class:`~olbook._base.GameLearner`).

    At round t it plays ``x_t``, is told the (sub)gradient ``g_t``, pays the
    linear loss ``g_t . x_t`` and moves to
    ``Proj^{H_t}(x_t - eta H_t^{-1} g_t)`` (Duchi, Hazan & Singer 2011).

    Parameters
    ----------
    x0 : array_like of shape (d,)
        The first point ``x_1`` (it must lie in the feasible set).
    eta : float > 0, default=1.0
        The step size: the step of coordinate i at round t is
        ``eta / (delta + s_{t,i})``. The bound is smallest at
        ``eta = D_inf / sqrt(2)`` (with ``delta = 0``).
    diagonal : bool, default=True
        Keep a diagonal matrix ``H_t`` (one step size per coordinate); False:
        the full matrix ``delta I + (sum_s g_s g_s')^{1/2}`` (R^d only; it
        uses LAPACK's ``eigh``, whose last bits may differ between CPUs).
    delta : float >= 0, default=0.0
        Added to the diagonal of ``H_t``: ``H_t = delta I + ...``.
    feasible_set : olbook.oco.Box or None, default=None
        ``None``: R^d. A box ``[low, high]^d``: the projection in the
        ``H_t``-norm is then coordinate-wise clipping (exact). Other sets are
        refused: their ``H_t``-norm projection is not a Euclidean one.

    Attributes
    ----------
    x_ : ndarray of shape (d,)
        The point to be played next.
    sum_sq_gradients_ : ndarray of shape (d,) or (d, d)
        ``sum_s g_s^2`` per coordinate (diagonal), or ``sum_s g_s g_s'``.
    n_rounds_ : int
    cumulative_loss_ : float
        The sum of the linear losses ``g_t . x_t`` since the last reset.
    trace_ : GameTrace
        Every round since the last reset (``loss``, ``cumulative_loss``,
        ``points`` and ``gradients``).

    Examples
    --------
    >>> from olbook.oco.adagrad import AdaGrad
    >>> learner = AdaGrad([0.0, 0.0], eta=0.5)
    >>> learner.update([2.0, 0.0])  # loss paid at x_1 = (0, 0)
    0.0
    >>> learner.predict()  # coordinate 0 moves by eta g / |g| = 0.5; 1 stays
    array([-0.5,  0. ])
    """

    def __init__(
        self,
        x0,
        eta: float = 1.0,
        *,
        diagonal: bool = True,
        delta: float = 0.0,
        feasible_set=None,
    ) -> None:
        self.x0 = x0
        self.eta = eta
        self.diagonal = diagonal
        self.delta = delta
        self.feasible_set = feasible_set

    def _validate_params(self) -> dict:
        x = check_start_point(self.x0)
        eta = check_positive_float(self.eta, "eta (the step size)")
        diagonal = check_bool(self.diagonal, "diagonal")
        delta = check_nonnegative_float(self.delta, "delta")
        fs = self.feasible_set
        low = np.full(x.size, -np.inf)
        high = np.full(x.size, np.inf)
        if fs is not None:
            if not isinstance(fs, Box):
                raise ValueError(
                    "feasible_set must be None (R^d) or an olbook.oco.Box: the "
                    f"H_t-norm projection onto {fs!r} is not computed; got {fs!r}."
                )
            if not diagonal:
                raise ValueError(
                    "feasible_set: the full-matrix version (diagonal=False) runs "
                    "on R^d only (feasible_set=None)."
                )
            low[:], high[:] = float(fs.low), float(fs.high)
            if np.any(x < low) or np.any(x > high):
                raise ValueError(f"x0 must lie in the feasible set {fs!r}.")
        return {
            "x0": x,
            "eta": eta,
            "diagonal": diagonal,
            "delta": delta,
            "low": low,
            "high": high,
            "bounded": fs is not None,
        }

    def _reset_state(self, settings: dict) -> None:
        self.x_ = settings["x0"].copy()
        d = self.x_.size
        self.sum_sq_gradients_ = np.zeros(d if settings["diagonal"] else (d, d))

    def _predict(self) -> np.ndarray:
        """The point ``x_t`` played at the next round (a copy)."""
        return self.x_.copy()

    def _check_feedback(self, feedback, settings: dict, ndim: int) -> np.ndarray:
        d = settings["x0"].size
        return check_gradients(feedback, d, ndim)

    def update(self, feedback) -> float:
        """Play one round: ``feedback`` is the (sub)gradient ``g_t`` at the point ``x_t`` played.

        Returns the linear loss ``g_t . x_t`` paid.
        """
        return super().update(feedback)

    def _play(self, F: np.ndarray) -> GameTrace:
        s = self._game
        x, sq = self.x_.copy(), self.sum_sq_gradients_.copy()
        X = np.empty_like(F)
        if s["diagonal"]:
            loss = np.empty(F.shape[0])
            adagrad_diagonal_rounds(
                x, sq, F, s["eta"], s["delta"], s["low"], s["high"], X, loss
            )
        else:
            for r in range(F.shape[0]):
                X[r] = x
                sq += np.outer(F[r], F[r])
                x = x - _full_step(sq, F[r], s["eta"], s["delta"])
            loss = rowwise_dots(X, F)  # the linear losses g_t . x_t, in a fixed order
        self.x_, self.sum_sq_gradients_ = x, sq
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

    def regret_bound(self) -> float:
        """The diagonal bound after the rounds played, on the box:
        ``sum_i [(delta + s_{T,i}) D_i^2 / (2 eta) + eta s_{T,i}]``
        (book :prf:ref:`oco-thm-adagrad`), ``D_i = high - low``."""
        s = self._settings()
        if not (s["diagonal"] and s["bounded"]):
            raise ValueError(
                "regret_bound needs the diagonal version on a box (feasible_set)."
            )
        root = np.sqrt(self._current().sum_sq_gradients_)
        D2 = (s["high"] - s["low"]) ** 2
        terms = (s["delta"] + root) * D2 / (2.0 * s["eta"]) + s["eta"] * root
        return math.fsum(terms)
