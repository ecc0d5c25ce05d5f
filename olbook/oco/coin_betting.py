"""Parameter-free online learning by coin betting, with the Krichevsky–Trofimov bettor.

Book section 8.4, :ref:`oco-sec-coin-betting`. The learner is a gambler who
starts with wealth ``epsilon`` (``initial_wealth``) and at round t bets the
vector ``w_t`` on the "coin" ``c_t = -g_t / L`` (``||g_t|| <= L``). In the
units of the losses its wealth after t rounds is

    Wealth_t = epsilon - (g_1 . w_1 + ... + g_t . w_t),

and the Krichevsky–Trofimov (KT) bettor bets the fraction
``beta_t = (c_1 + ... + c_{t-1}) / t`` of it:
``w_t = beta_t Wealth_{t-1} / L``. The learner plays ``x_t = x0 + w_t``.

A lower bound on the wealth is an upper bound on the regret, for every
comparator at once (Orabona & Pál 2016): for every ``u`` and ``T``,

    Regret_T(u) <= epsilon (1 - 1/(e sqrt(pi T)))
                   + L ||u - x0|| sqrt(T ln(1 + 24 T^2 L^2 ||u - x0||^2 / epsilon^2)),

with no step size to tune (book :prf:ref:`oco-thm-kt-regret`).

Reference: F. Orabona and D. Pál, "Coin betting and parameter-free online
learning", NeurIPS 2016 (the KT bettor and its reduction to a Hilbert space).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._base import GameLearner, GameTrace
from .._rowops import dot, lane_dot, row_sqnorms, rowwise_dots
from .._validation import check_gradients, check_positive_float, check_start_point

__all__ = ["CoinBetting", "kt_rounds", "kt_regret_bound"]


@numba.njit(cache=True)
def kt_rounds(x0, theta, wealth, t0, G, lipschitz, X, loss):
    """Play the rows of ``G`` with the KT bettor; return ``(wealth, theta)``.

    ``theta`` (d,) holds ``-(g_1 + ... + g_{t-1}) / L`` and is updated in
    place; ``wealth`` is ``Wealth_{t-1}``; ``t0`` the rounds already played.
    Round ``r`` (``t = t0 + r + 1``) bets ``w_t = theta Wealth_{t-1} / (t L)``,
    plays ``X[r] = x0 + w_t`` (``loss[r]`` receives the linear loss
    ``g_t . x_t``) and pays ``g_t . w_t`` out of its wealth. The dot products
    are added in the fixed order of :func:`olbook._rowops.dot` (the same bits
    on every CPU).
    """
    d = x0.shape[0]
    w = np.empty(d)
    g = np.empty(d)
    for r in range(G.shape[0]):
        scale = wealth / ((t0 + r + 1) * lipschitz)
        for i in range(d):
            w[i] = theta[i] * scale
            X[r, i] = x0[i] + w[i]
            g[i] = G[r, i]
        loss[r] = lane_dot(X, r * d, G, r * d, d)
        wealth = wealth - dot(g, w)
        for i in range(d):
            theta[i] -= g[i] / lipschitz
    return wealth, theta


def kt_regret_bound(
    norm_u: float, n_rounds: int, initial_wealth: float = 1.0, lipschitz: float = 1.0
) -> float:
    """Orabona and Pál's bound on the regret of the KT bettor against ``u``.

    ``epsilon (1 - 1/(e sqrt(pi T))) + L ||u|| sqrt(T ln(1 + 24 T^2 L^2
    ||u||^2 / epsilon^2))`` with ``||u||`` = ``norm_u`` (the distance from
    ``x0``), ``T`` = ``n_rounds`` (book :prf:ref:`oco-thm-kt-regret`).
    """
    eps, L, T = float(initial_wealth), float(lipschitz), int(n_rounds)
    U = float(norm_u)
    log_term = math.log1p(24.0 * T * T * L * L * U * U / (eps * eps))
    return eps * (1.0 - 1.0 / (math.e * math.sqrt(math.pi * T))) + L * U * math.sqrt(
        T * log_term
    )


class CoinBetting(GameLearner):
    """Parameter-free OCO on R^d by betting with the KT bettor (Orabona & Pál 2016).

    At round t it plays ``x_t = x0 + w_t``, is told the (sub)gradient ``g_t``
    (``||g_t|| <= lipschitz``, checked), pays the linear loss ``g_t . x_t``
    and updates its wealth ``Wealth_t = Wealth_{t-1} - g_t . w_t`` and its
    bet ``w_{t+1} = (-(g_1 + ... + g_t) / lipschitz) Wealth_t / ((t + 1)
    lipschitz)``. There is no step size.

    Parameters
    ----------
    x0 : array_like of shape (d,)
        The first point ``x_1`` (``w_1 = 0``); the bets are moves from it.
    initial_wealth : float > 0, default=1.0
        The wealth epsilon the bettor starts with, in the units of the
        losses: the regret against ``x0`` is at most epsilon.
    lipschitz : float > 0, default=1.0
        L, the bound on the gradient norms: a gradient with
        ``||g_t|| > L`` (beyond rounding, 1e-12 relative) is refused.

    Attributes
    ----------
    x_ : ndarray of shape (d,)
        The point to be played next.
    wealth_ : float
        ``Wealth_t = epsilon - sum_s g_s . w_s`` after the rounds played.
    n_rounds_ : int
    cumulative_loss_ : float
        The sum of the linear losses ``g_t . x_t`` since the last reset.
    trace_ : GameTrace
        Every round since the last reset (``loss``, ``cumulative_loss``,
        ``points`` and ``gradients``).

    Examples
    --------
    >>> from olbook.oco.coin_betting import CoinBetting
    >>> learner = CoinBetting([0.0], initial_wealth=1.0)
    >>> learner.update([-1.0])  # x_1 = 0: no bet, wealth stays 1
    0.0
    >>> learner.predict()  # beta_2 = 1/2 of the wealth 1
    array([0.5])
    >>> learner.update([-1.0])  # wins 0.5
    -0.5
    >>> learner.wealth_, learner.predict()  # beta_3 = 2/3 of 1.5
    (1.5, array([1.]))
    """

    def __init__(self, x0, *, initial_wealth: float = 1.0, lipschitz: float = 1.0):
        self.x0 = x0
        self.initial_wealth = initial_wealth
        self.lipschitz = lipschitz

    def _validate_params(self) -> dict:
        x = check_start_point(self.x0)
        eps = check_positive_float(self.initial_wealth, "initial_wealth")
        L = check_positive_float(self.lipschitz, "lipschitz")
        return {"x0": x, "initial_wealth": eps, "lipschitz": L}

    def _reset_state(self, settings: dict) -> None:
        self.x_ = settings["x0"].copy()
        self.wealth_ = settings["initial_wealth"]
        self._theta = np.zeros(self.x_.size)

    def _predict(self) -> np.ndarray:
        """The point ``x_t`` played at the next round (a copy)."""
        return self.x_.copy()

    def _check_feedback(self, feedback, settings: dict, ndim: int) -> np.ndarray:
        d = settings["x0"].size
        g = check_gradients(feedback, d, ndim)
        L = settings["lipschitz"]
        rows = g.reshape(-1, d)
        sq = row_sqnorms(rows)
        if not np.isfinite(sq).all():  # a square overflowed: rescale those rows
            big = np.max(np.abs(rows), axis=1)
            safe = np.where(big > 0, big, 1.0)
            scaled = rows / safe[:, None]
            sq = big * big * rowwise_dots(scaled, scaled)
        norms = np.sqrt(sq)
        if np.any(norms > L * (1.0 + 1e-12)):
            raise ValueError(
                f"every gradient must have norm <= lipschitz = {L!r} (the coin must "
                f"lie in the unit ball); got a norm of {float(norms.max())!r}."
            )
        return g

    def update(self, feedback) -> float:
        """Play one round: ``feedback`` is the (sub)gradient ``g_t`` at the point ``x_t`` played.

        Returns the linear loss ``g_t . x_t`` paid.
        """
        return super().update(feedback)

    def _play(self, F: np.ndarray) -> GameTrace:
        s = self._game
        theta = self._theta.copy()
        X = np.empty_like(F)
        loss = np.empty(F.shape[0])
        wealth, theta = kt_rounds(
            s["x0"], theta, self.wealth_, self.n_rounds_, F, s["lipschitz"], X, loss
        )
        t = self.n_rounds_ + F.shape[0] + 1
        self._theta, self.wealth_ = theta, float(wealth)
        self.x_ = s["x0"] + theta * (self.wealth_ / (t * s["lipschitz"]))
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
        """Orabona and Pál's bound on the regret against ``u`` after the rounds played."""
        s = self._settings()
        u = np.asarray(u, dtype=np.float64)
        if u.shape != s["x0"].shape or not np.isfinite(u).all():
            raise ValueError(f"u must be a finite array of shape {s['x0'].shape}.")
        diff = u - s["x0"]
        norm = math.sqrt(math.fsum(diff * diff))
        T = max(int(self._current().n_rounds_), 1)
        return kt_regret_bound(norm, T, s["initial_wealth"], s["lipschitz"])
