"""Hedge (exponential weights) with a fixed, tuned, anytime or doubling learning rate.

Book chapter 5, section ``regret-sec-hedge``. Re-exported by
:mod:`olbook.experts`. Freund and Schapire (1997); Cesa-Bianchi and Lugosi
(2006), section 2.2 and theorem 2.2.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._base import GameLearner
from ._experts_base import ExpertTrace, _trace, check_losses
from ._validation import check_bool, check_positive_float, check_positive_int

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


class Hedge(GameLearner):
    """Hedge: play the distribution ``p_t,i`` proportional to ``exp(-eta_t L_{t-1,i})``.

    ``L_{t-1,i}`` is expert i's cumulative loss before round t. Weights are
    kept in log space (shifted by their maximum, a log-sum-exp), so neither
    ``T = 10**6`` rounds nor losses of size ``10**6`` overflow.

    Parameters
    ----------
    n_experts : int
        The number ``m`` of experts.
    eta : float > 0 or {"tuned", "anytime", "doubling"}, default="anytime"
        A fixed rate; ``"tuned"``: ``sqrt(8 ln m / horizon)``, regret at most
        ``sqrt(horizon ln m / 2)`` (book, theorem ``regret-thm-hedge``);
        ``"anytime"``: ``eta_t = sqrt(8 ln m / t)``, regret at most
        ``3 sqrt(T ln m / 8)`` at every T (theorem ``regret-thm-anytime``);
        ``"doubling"``: restart with the tuned rate on epochs of lengths
        1, 2, 4, ... (theorem ``regret-thm-doubling``).
    horizon : int, optional
        The number of rounds T; required by, and only used with, ``"tuned"``.
    bounded : bool, default=True
        Require losses in [0, 1], the range every bound assumes. With
        ``False`` any finite losses are accepted, and :meth:`regret_bound` refuses.

    Attributes
    ----------
    expert_loss_ : ndarray of shape (m,)
        Each expert's cumulative loss since the last reset.
    learner_loss_ : float
        The learner's cumulative expected loss since the last reset.
    n_rounds_ : int
    trace_ : ExpertTrace
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

    _trace_type = ExpertTrace

    def __init__(
        self,
        n_experts: int,
        eta: float | str = "anytime",
        horizon: int | None = None,
        bounded: bool = True,
    ) -> None:
        self.n_experts = check_positive_int(n_experts, "n_experts")
        if isinstance(eta, str):
            if eta not in _SCHEDULES:
                raise ValueError(
                    f"eta must be a number > 0 or one of {_SCHEDULES}; got {eta!r}."
                )
        else:
            check_positive_float(eta, "eta")
        if eta == "tuned":
            check_positive_int(
                horizon, "horizon (the number of rounds, needed by eta='tuned')"
            )
        elif horizon is not None:
            raise ValueError(
                f"horizon is only used with eta='tuned'; got horizon={horizon!r} with eta={eta!r}."
            )
        self.eta, self.horizon, self.bounded = (
            eta,
            horizon,
            check_bool(bounded, "bounded"),
        )
        self._ln_m = math.log(self.n_experts)
        if eta == "tuned":
            self._mode, self._eta = 0, math.sqrt(8.0 * self._ln_m / horizon)
        elif isinstance(eta, str):
            self._mode, self._eta = _SCHEDULES.index(eta), 0.0
        else:
            self._mode, self._eta = 0, float(eta)
        self.reset()

    def _reset_state(self) -> None:
        # cumulative losses in the current epoch
        self.epoch_loss_ = np.zeros(self.n_experts)
        # cumulative losses since the reset
        self.expert_loss_ = np.zeros(self.n_experts)
        self.learner_loss_ = 0.0
        self._epoch = (0, 1)  # (start, length) for the doubling trick

    def eta_at(self, t: int) -> float:
        """The learning rate used at (1-based) round t."""
        start, length = 0, 1
        while self._mode == 2 and t > start + length:
            start, length = start + length, 2 * length
        return float(_eta_at(self._mode, self._eta, self._ln_m, t, length))

    def predict(self) -> np.ndarray:
        """The distribution ``p_t`` for the next round (log-sum-exp normalized)."""
        t = self.n_rounds_ + 1
        start, length = self._epoch
        C = (
            self.epoch_loss_
            if not (self._mode == 2 and t > start + length)
            else np.zeros(self.n_experts)
        )
        z = -self.eta_at(t) * (C - C.min())
        w = np.exp(z)
        return w / math.fsum(w)

    def update(self, losses) -> float:
        """Play one round with the loss vector ``losses``; return the expected loss paid."""
        L = check_losses(
            losses, self.n_experts, kind="unit" if self.bounded else "real", ndim=1
        )
        return float(self._play(L[None, :]).loss[0])

    def run(self, loss_matrix, *, reset: bool = True) -> ExpertTrace:
        """Play every row of a (T, m) loss matrix and return the :class:`ExpertTrace` of these rounds.

        With ``reset=False`` the run continues from the current state (feed a
        long game in chunks); the trace's regret is then counted since the last
        reset, and ``trace_`` goes on from the rounds already played.
        """
        L = check_losses(
            loss_matrix, self.n_experts, kind="unit" if self.bounded else "real"
        )
        if reset:
            self.reset()
        return self._play(L)

    def _play(self, L: np.ndarray) -> ExpertTrace:
        offset = self.learner_loss_
        loss, best, t, start, length = hedge_run(
            L,
            self.epoch_loss_,
            self.expert_loss_,
            self.n_rounds_,
            self._mode,
            self._eta,
            self._ln_m,
            self._epoch[0],
            self._epoch[1],
        )
        tr = _trace(loss, best, offset)
        self.learner_loss_ = float(tr.cumulative_loss[-1])
        self._epoch = (int(start), int(length))
        self._record(tr)
        return tr

    def regret_bound(self, n_rounds: int) -> float:
        """The proved bound on the regret after ``n_rounds`` rounds, losses in [0, 1]."""
        if not self.bounded:
            raise ValueError(
                "no regret bound: this Hedge was built with bounded=False (losses of any size)."
            )
        T, ln_m = check_positive_int(n_rounds, "n_rounds"), self._ln_m
        if self._mode == 1:
            return 3.0 * math.sqrt(T * ln_m / 8.0)
        if self._mode == 2:  # one tuned bound per epoch begun, lengths 1, 2, 4, ...
            k = 0
            total = 0.0
            while 2**k - 1 < T:
                total += math.sqrt(2**k * ln_m / 2.0)
                k += 1
            return total
        if self._eta == 0.0:  # m = 1: the only expert is the best one
            return 0.0
        return ln_m / self._eta + self._eta * T / 8.0
