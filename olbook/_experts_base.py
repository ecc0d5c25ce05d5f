"""The pieces the expert learners share: their base class, the checks of losses, regret.

A private module below :mod:`olbook.experts` and :mod:`olbook.hedge`, which
both import it (book chapter 5).
"""

from __future__ import annotations

import numpy as np

from ._base import GameLearner, GameTrace
from ._rowops import rowwise_dots
from ._validation import describe_values, non_finite_error


def check_losses(
    losses, n_experts: int | None = None, *, kind: str = "unit", ndim: int = 2
) -> np.ndarray:
    """Return ``losses`` as a float64 array, or raise a ``ValueError`` naming the problem.

    ``kind`` is ``"unit"`` (values in [0, 1], as the regret bounds assume),
    ``"binary"`` (0 or 1: an expert is right or wrong) or ``"real"`` (any
    finite value). ``ndim`` is 1 for one round, 2 for a (T, m) matrix.
    """
    try:
        arr = np.asarray(losses, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"losses must be numeric; could not convert them to float64 ({exc})"
        ) from None
    shape = "(n_experts,)" if ndim == 1 else "(n_rounds, n_experts)"
    if arr.ndim != ndim:
        raise ValueError(
            f"losses must be a {ndim}-D array of shape {shape}; got shape {arr.shape}."
        )
    if arr.size == 0:
        raise ValueError(f"losses is empty (shape {arr.shape}).")
    if n_experts is not None and arr.shape[-1] != n_experts:
        raise ValueError(
            f"losses has {arr.shape[-1]} experts (columns), but the learner has {n_experts}."
        )
    if not np.all(np.isfinite(arr)):
        raise non_finite_error(arr, "losses")
    if kind == "binary" and np.any((arr != 0.0) & (arr != 1.0)):
        raise ValueError(
            f"losses must be 0 (expert right) or 1 (expert wrong); found {describe_values(arr)}."
        )
    if kind == "unit":
        lo, hi = float(arr.min()), float(arr.max())
        if lo < 0.0 or hi > 1.0:
            raise ValueError(
                f"losses must lie in [0, 1], the range the regret bound assumes; found values in "
                f"[{lo!r}, {hi!r}]. Rescale them, or use Hedge(bounded=False) to give up the bound."
            )
    return np.ascontiguousarray(arr)


def regret(losses, choices) -> float:
    """Regret of a sequence of choices against the best fixed expert.

    ``choices`` is either a 1-D array of expert indices (a deterministic
    learner follows expert ``choices[t]`` at round ``t``) or a (T, m) array of
    distributions (the learner's expected loss is ``p_t . l_t``). Returns
    ``sum_t loss_t - min_i sum_t l_{t,i}`` (book, :prf:ref:`regret-def-regret`).
    """
    L = check_losses(losses, kind="real")
    c = np.asarray(choices)
    if c.ndim == 1:
        if c.shape[0] != L.shape[0] or not np.issubdtype(c.dtype, np.integer):
            raise ValueError(
                f"choices must be {L.shape[0]} integer expert indices; got {c.dtype} of shape {c.shape}."
            )
        if c.min() < 0 or c.max() >= L.shape[1]:
            raise ValueError(
                f"choices must lie in [0, {L.shape[1] - 1}]; found [{c.min()}, {c.max()}]."
            )
        paid = L[np.arange(L.shape[0]), c]
    else:
        P = np.asarray(c, dtype=np.float64)
        if P.shape != L.shape:
            raise ValueError(
                f"choices has shape {P.shape}; the losses have shape {L.shape}."
            )
        paid = rowwise_dots(np.ascontiguousarray(P), L)
    return float(np.cumsum(paid)[-1] - np.cumsum(L, axis=0)[-1].min())


class ExpertLearner(GameLearner):
    """The part of :class:`~olbook._base.GameLearner` every learner of expert advice shares.

    The feedback of a round is the vector of the ``n_experts`` experts'
    losses (:func:`check_losses`, of the kind ``settings["losses"]``); the
    learner plays a distribution over the experts, and its trace fills
    ``best_loss`` and ``regret``. Subclasses put ``n_experts`` and
    ``losses`` (``"unit"``, ``"binary"`` or ``"real"``) in their settings and
    keep ``expert_loss_``, each expert's cumulative loss since the last reset.
    """

    def _check_feedback(self, feedback, settings: dict, ndim: int) -> np.ndarray:
        return check_losses(
            feedback, settings["n_experts"], kind=settings["losses"], ndim=ndim
        )

    def _empty_trace(self) -> GameTrace:
        return GameTrace(
            *(np.zeros(0) for _ in range(2)), best_loss=np.zeros(0), regret=np.zeros(0)
        )

    def _chunk(self, loss: np.ndarray, best: np.ndarray) -> GameTrace:
        """The trace of the rounds just played: their losses and the best expert's."""
        cum = self._cumulative(loss)
        return GameTrace(loss, cum, best_loss=best, regret=cum - best)
