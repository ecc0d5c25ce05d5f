"""Hedge (exponential weights) with a fixed, tuned, anytime or doubling learning rate.

Book section 5.3, :ref:`regret-sec-hedge`. Re-exported by
:mod:`olbook.experts`. Freund and Schapire (1997); Cesa-Bianchi and Lugosi
(2006), section 2.2 and theorem 2.2.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._base import GameTrace
from ._experts_base import ExpertLearner
from ._validation import check_bool, check_positive_int

__all__ = ["Hedge"]

_SCHEDULES = ("tuned", "anytime", "doubling")


@numba.njit(cache=True)
def _eta_at(mode, eta, ln_m, t, epoch_len):  # pragma: no cover - compiled
    """Learning rate of 1-based round t. mode 0 fixed, 1 anytime, 2 doubling."""
    if mode == 0:
        return eta
    if mode == 1:
        return math.sqrt(8.0 * ln_m / t)
    return math.sqrt(8.0 * ln_m / epoch_len)


@numba.njit(cache=True)  # pragma: no cover - compiled
def hedge_run(L, C, total, t0, mode, eta, ln_m, epoch_start, epoch_len):
    """Play the rows of L; C (losses in the current epoch) and total change in place.

    The weights are exp(-eta_t * (C_i - min_j C_j)): the largest is exactly 1,
    so their sum is in [1, m] and nothing overflows or divides by zero.
    Returns (expected loss per round, best cumulative loss, t, epoch_start, epoch_len).
    """
    T, m = L.shape
    loss = np.empty(T)
    best = np.empty(T)
    p = np.empty(m)
    t = t0
    for r in range(T):
        t += 1
        if mode == 2 and t > epoch_start + epoch_len:  # the doubling trick: new epoch
            epoch_start += epoch_len
            epoch_len *= 2
            for i in range(m):
                C[i] = 0.0
        e = _eta_at(mode, eta, ln_m, t, epoch_len)
        cmin = np.inf
        for i in range(m):
            cmin = min(cmin, C[i])
        s = 0.0
        for i in range(m):
            p[i] = math.exp(-e * (C[i] - cmin))
            s += p[i]
        acc = 0.0
        b = np.inf
        for i in range(m):
            acc += p[i] * L[r, i]
            C[i] += L[r, i]
            total[i] += L[r, i]
            b = min(b, total[i])
        loss[r] = acc / s
        best[r] = b
    return loss, best, t, epoch_start, epoch_len


class Hedge(ExpertLearner):
    """Hedge: play the distribution ``p_t,i`` proportional to ``exp(-eta_t L_{t-1,i})``.

    ``L_{t-1,i}`` is expert i's cumulative loss before round t. Weights are
    kept in log space (shifted by their maximum, a log-sum-exp), so neither
    ``T = 10**6`` rounds nor losses of size ``10**6`` overflow.

    Parameters
    ----------
    n_experts : int
        The number ``m`` of experts.
    eta : float > 0 or {"tuned", "anytime", "doubling"}, default="anytime"
        The step size (learning rate): a fixed rate; ``"tuned"``:
        ``sqrt(8 ln m / horizon)``, regret at most ``sqrt(horizon ln m / 2)``
        (book, :prf:ref:`regret-thm-hedge`);
        ``"anytime"``: ``eta_t = sqrt(8 ln m / t)``, regret at most
        ``3 sqrt(T ln m / 8)`` at every T (:prf:ref:`regret-thm-anytime`);
        ``"doubling"``: restart with the tuned rate on epochs of lengths
        1, 2, 4, ... (:prf:ref:`regret-thm-doubling`).
    horizon : int, optional
        The number of rounds T; required by, and only used with, ``"tuned"``.
    bounded : bool, default=True
        Require losses in [0, 1], the range every bound assumes. With
        ``False`` any finite losses are accepted, and :meth:`regret_bound` refuses.

    Attributes
    ----------
    expert_loss_ : ndarray of shape (m,)
        Each expert's cumulative loss since the last reset.
    cumulative_loss_ : float
        The learner's cumulative expected loss since the last reset.
    n_rounds_ : int
    trace_ : GameTrace
        Every round since the last reset.

    Examples
    --------
    >>> import numpy as np
    >>> from olbook import Hedge, fmt
    >>> L = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    >>> learner = Hedge(2, eta=1.0)
    >>> trace = learner.run(L)
    >>> int(np.argmax(learner.predict()))  # the expert with the most weight
    1
    >>> fmt(trace.regret[-1])  # regret after 4 rounds, printed the same on every CPU
    '0.919'
    """

    def __init__(
        self,
        n_experts: int,
        eta: float | str = "anytime",
        horizon: int | None = None,
        bounded: bool = True,
    ) -> None:
        self.n_experts = n_experts
        self.eta = eta
        self.horizon = horizon
        self.bounded = bounded

    def _validate_params(self) -> dict:
        m = check_positive_int(self.n_experts, "n_experts")
        eta, horizon = self._checked_eta(_SCHEDULES)
        bounded = check_bool(self.bounded, "bounded")
        ln_m = math.log(m)
        if eta == "tuned":
            mode, rate = 0, math.sqrt(8.0 * ln_m / horizon)
        elif isinstance(eta, str):
            mode, rate = _SCHEDULES.index(eta), 0.0
        else:
            mode, rate = 0, eta
        return {
            "n_experts": m,
            "losses": "unit" if bounded else "real",
            "mode": mode,  # 0 a fixed rate (or the tuned one), 1 anytime, 2 doubling
            "eta": rate,
            "ln_m": ln_m,
        }

    def _reset_state(self, settings: dict) -> None:
        # cumulative losses in the current epoch
        self._epoch_loss = np.zeros(settings["n_experts"])
        # cumulative losses since the reset
        self.expert_loss_ = np.zeros(settings["n_experts"])
        self._doubling_epoch = (0, 1)  # (start, length) for the doubling trick

    @staticmethod
    def _rate(s: dict, t: int) -> float:
        start, length = 0, 1
        while s["mode"] == 2 and t > start + length:
            start, length = start + length, 2 * length
        return float(_eta_at(s["mode"], s["eta"], s["ln_m"], t, length))

    def eta_at(self, t: int) -> float:
        """The learning rate used at (1-based) round t."""
        return self._rate(self._settings(), t)

    def _predict(self) -> np.ndarray:
        """The distribution ``p_t`` for the next round (log-sum-exp normalized)."""
        s = self._game
        t = self.n_rounds_ + 1
        start, length = self._doubling_epoch
        C = (
            self._epoch_loss
            if not (s["mode"] == 2 and t > start + length)
            else np.zeros(s["n_experts"])
        )
        z = -self._rate(s, t) * (C - C.min())
        w = np.exp(z)
        return w / math.fsum(w)

    def update(self, feedback) -> float:
        """Play one round with the experts' losses ``feedback``; return the expected loss paid."""
        return super().update(feedback)

    def _play(self, L: np.ndarray) -> GameTrace:
        s = self._game
        loss, best, _, start, length = hedge_run(
            L,
            self._epoch_loss,
            self.expert_loss_,
            self.n_rounds_,
            s["mode"],
            s["eta"],
            s["ln_m"],
            self._doubling_epoch[0],
            self._doubling_epoch[1],
        )
        self._doubling_epoch = (int(start), int(length))
        return self._chunk(loss, best)

    def regret_bound(self, n_rounds: int) -> float:
        """The proved bound on the regret after ``n_rounds`` rounds, losses in [0, 1]."""
        s = self._settings()
        if s["losses"] != "unit":
            raise ValueError(
                "no regret bound: this Hedge has bounded=False (losses of any size)."
            )
        T, ln_m = check_positive_int(n_rounds, "n_rounds"), s["ln_m"]
        if s["mode"] == 1:
            return 3.0 * math.sqrt(T * ln_m / 8.0)
        if s["mode"] == 2:  # one tuned bound per epoch begun, lengths 1, 2, 4, ...
            k = 0
            total = 0.0
            while 2**k - 1 < T:
                total += math.sqrt(2**k * ln_m / 2.0)
                k += 1
            return total
        if s["eta"] == 0.0:  # m = 1: the only expert is the best one
            return 0.0
        return ln_m / s["eta"] + s["eta"] * T / 8.0
