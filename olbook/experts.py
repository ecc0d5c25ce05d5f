"""Prediction with expert advice: Halving, Weighted Majority and Hedge.

Book chapter 5, sections 5.2--5.3 (:ref:`regret-sec-halving`, :prf:ref:`regret-alg-wm`,
:ref:`regret-sec-hedge`). At each round the learner holds a distribution (or a
set) over ``m`` experts, the environment reveals the loss of every expert, and
the learner pays its (expected) loss. The regret after ``T`` rounds is the
learner's cumulative loss minus that of the best single expert.

All three learners, and :class:`~olbook.OGD`, follow one protocol
(:class:`olbook._base.GameLearner`): :meth:`predict` (the distribution over
the experts played next; it changes nothing), :meth:`update` (one round of
losses; returns the loss paid, a float), :meth:`run` (a (T, m) loss matrix,
compiled with numba, or an adaptive environment ``losses(t, p)``; returns the
:class:`~olbook.GameTrace` of its rounds) and :meth:`reset`; ``trace_`` holds
every round since the last reset, ``n_rounds_`` counts them,
``cumulative_loss_`` is the learner's loss, and Halving and Weighted Majority
count their mistakes in ``mistakes_``. Hyper-parameters are read when a game
starts. Every input is checked before any state changes, so a rejected call
leaves the learner as it was. Sums are taken left to right in a fixed order
(no ``fastmath``): Halving and Weighted Majority use only ``+``, ``*`` and
comparisons, so their mistake counts are the same on every CPU.

References: Littlestone and Warmuth, "The weighted majority algorithm" (1994);
Freund and Schapire, "A decision-theoretic generalization of on-line learning
and an application to boosting" (1997); Cesa-Bianchi and Lugosi, *Prediction,
Learning, and Games* (2006), chapter 2.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._base import GameTrace
from ._experts_base import ExpertLearner, check_losses, regret
from ._validation import check_open_unit, check_positive_int
from .hedge import Hedge

__all__ = [
    "GameTrace",
    "Halving",
    "WeightedMajority",
    "Hedge",
    "regret",
    "check_losses",
]


@numba.njit(cache=True)
def majority_run(L, w, beta, total):  # pragma: no cover - compiled
    """Halving (beta = 0) and Weighted Majority: w, total updated in place.

    A round is a mistake when the weight of the wrong experts is at least that
    of the right ones (a tie is counted against the learner). Weights are
    rescaled by 2**600 when the largest falls below 2**-600 (exact).
    """
    T, m = L.shape
    loss = np.zeros(T)
    best = np.empty(T)
    for t in range(T):
        wrong = 0.0
        right = 0.0
        for i in range(m):
            if L[t, i] > 0.0:
                wrong += w[i]
            else:
                right += w[i]
        if wrong >= right:
            loss[t] = 1.0
        top = 0.0
        b = np.inf
        for i in range(m):
            if L[t, i] > 0.0:
                w[i] *= beta
            total[i] += L[t, i]
            top = max(top, w[i])
            b = min(b, total[i])
        if 0.0 < top < 2.0**-600:
            for i in range(m):
                w[i] *= 2.0**600
        best[t] = b
    return loss, best


class _Majority(ExpertLearner):
    """Shared code of Halving and Weighted Majority (deterministic, binary losses).

    Attributes
    ----------
    weights_ : ndarray of shape (m,)
    expert_loss_ : ndarray of shape (m,)
        Mistakes of each expert since the last reset.
    mistakes_ : int
        The learner's mistakes since the last reset (``cumulative_loss_``).
    n_rounds_ : int
    cumulative_loss_ : float
    trace_ : GameTrace
        Every round since the last reset (``loss`` is 1.0 at a mistake).
    """

    def __init__(self, n_experts: int) -> None:
        self.n_experts = n_experts

    def _beta(self) -> float:
        """The checked factor an erring expert's weight is multiplied by."""
        return 0.0

    def _validate_params(self) -> dict:
        return {
            "n_experts": check_positive_int(self.n_experts, "n_experts"),
            "beta": self._beta(),
            "losses": "binary",
        }

    def _reset_state(self, settings: dict) -> None:
        self.weights_ = np.ones(settings["n_experts"])
        self.expert_loss_ = np.zeros(settings["n_experts"])

    @property
    def mistakes_(self) -> int:
        """The learner's mistakes since the last reset."""
        return int(self.cumulative_loss_)

    def _predict(self) -> np.ndarray:
        """The current weights, normalized to a distribution over the experts."""
        return self.weights_ / math.fsum(self.weights_)

    def vote(self, advice) -> int:
        """Weighted-majority vote on advice in {-1, +1}^m: +1 if its weight is larger, else -1."""
        w = self._current().weights_
        a = np.asarray(advice, dtype=np.float64)
        if a.shape != w.shape or np.any((a != 1.0) & (a != -1.0)):
            raise ValueError(
                f"advice must be {w.size} labels in {{-1, +1}}; got shape {a.shape}."
            )
        plus = float(np.sum(np.where(a > 0, w, 0.0)))
        minus = float(np.sum(np.where(a < 0, w, 0.0)))
        return 1 if plus > minus else -1

    def _check_round(self, L: np.ndarray) -> None:  # overridden by Halving
        return None

    def update(self, feedback) -> float:
        """Play one round: ``feedback[i]`` is 1 if expert i was wrong, else 0.

        Returns the loss paid: 1.0 at a mistake, else 0.0.
        """
        return super().update(feedback)

    def _play(self, L: np.ndarray) -> GameTrace:
        self._check_round(L)
        loss, best = majority_run(
            L, self.weights_, self._game["beta"], self.expert_loss_
        )
        return self._chunk(loss, best)


class Halving(_Majority):
    """The halving algorithm: majority vote of the experts that have never erred.

    Assumes a perfect expert; then it makes at most ``floor(log2 m)``
    mistakes (book, :prf:ref:`regret-thm-halving`; Littlestone 1988,
    Angluin 1988). A round that would leave no consistent expert is rejected
    with a ``ValueError`` (and the learner is unchanged).

    Parameters
    ----------
    n_experts : int
        The number ``m`` of experts.

    Examples
    --------
    >>> import numpy as np
    >>> from olbook import Halving
    >>> L = np.array([[1, 0, 0, 1], [0, 1, 0, 1], [0, 0, 0, 1]])  # loss[t, i] = 1: expert i erred
    >>> learner = Halving(4)
    >>> trace = learner.run(L)
    >>> int(trace.cumulative_loss[-1])  # mistakes
    2
    >>> learner.predict()  # the weights: only expert 2 never erred
    array([0., 0., 1., 0.])
    """

    def _check_round(self, L: np.ndarray) -> None:
        ever = np.logical_or.accumulate(L > 0.0, axis=0)[-1]
        if not np.any((self.weights_ > 0.0) & ~ever):
            raise ValueError(
                "no expert is consistent with these losses: Halving assumes a perfect expert "
                "(use WeightedMajority or Hedge otherwise)."
            )

    @property
    def consistent_(self) -> np.ndarray:
        """Indices of the experts that have made no mistake so far (all before a game)."""
        return np.flatnonzero(self._current().weights_ > 0.0)


class WeightedMajority(_Majority):
    """Deterministic Weighted Majority of Littlestone and Warmuth (1994).

    Every expert starts with weight 1; an expert that errs has its weight
    multiplied by ``beta``. The learner follows the weighted majority (a tie
    counts as a mistake in :meth:`run`). If the best expert makes ``L*``
    mistakes, WM makes at most ``(L* ln(1/beta) + ln m) / ln(2/(1+beta))``
    (book, :prf:ref:`regret-thm-wm`).

    Parameters
    ----------
    n_experts : int
        The number ``m`` of experts.
    beta : float in (0, 1), default=0.5
        The penalty factor.

    Examples
    --------
    >>> import numpy as np
    >>> from olbook import WeightedMajority
    >>> L = np.array([[1, 0, 1], [1, 0, 0], [0, 1, 1], [1, 0, 1]])
    >>> learner = WeightedMajority(3, beta=0.5)
    >>> trace = learner.run(L)
    >>> int(trace.cumulative_loss[-1]), int(trace.best_loss[-1])  # mistakes, best expert's mistakes
    (3, 1)
    >>> learner.predict().round(3)  # the weights 1/8, 1/2, 1/8, normalized
    array([0.167, 0.667, 0.167])
    """

    def __init__(self, n_experts: int, beta: float = 0.5) -> None:
        self.n_experts = n_experts
        self.beta = beta

    def _beta(self) -> float:
        return check_open_unit(self.beta, "beta")

    def mistake_bound(self, best_loss: float) -> float:
        """The bound ``(L* ln(1/beta) + ln m) / ln(2/(1+beta))`` on the mistakes."""
        s = self._settings()
        b = s["beta"]
        return (best_loss * math.log(1.0 / b) + math.log(s["n_experts"])) / math.log(
            2.0 / (1.0 + b)
        )
