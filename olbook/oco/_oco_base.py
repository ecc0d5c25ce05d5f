"""The part of :class:`~olbook._base.GameLearner` the learners of :mod:`olbook.oco` share.

A private module below :mod:`olbook.oco.ftrl` and :mod:`olbook.oco.omd`: the
checks of the dimension, the step size, the regularizer and the feasible set,
the check of the gradients (the feedback of a round), and the trace of a block
of rounds (book chapter 8).
"""

from __future__ import annotations

import math

import numpy as np

from .._base import GameLearner, GameTrace
from .._rowops import rowwise_dots
from .._validation import (
    check_gradients,
    check_positive_float,
    check_positive_int,
)
from .regularizers import Entropic, Euclidean, PNorm
from .sets import Ball, Box, Simplex, set_code


def check_dim(dim) -> int:
    """The dimension d of the points played, an integer >= 1."""
    return check_positive_int(dim, "dim (the dimension of the points played)")


def check_eta(eta) -> float:
    """The step size, a finite number > 0."""
    return check_positive_float(eta, "eta (the step size)")


def check_set(feasible_set):
    """``None`` (R^d) or one of :class:`Ball`, :class:`Box`, :class:`Simplex`."""
    if feasible_set is not None and not isinstance(feasible_set, (Ball, Box, Simplex)):
        raise ValueError(
            "feasible_set must be None (R^d) or an olbook.oco Ball, Box or Simplex; "
            f"got {feasible_set!r}."
        )
    return feasible_set


def check_pair(regularizer, feasible_set, name: str) -> tuple:
    """The codes ``(map, p)`` and ``(set, a, b, p)`` of a supported pair, else a ``ValueError``.

    Supported: the Euclidean regularizer with any set; the entropic one with
    the simplex; the p-norm one on R^d or on the ball of its own norm.
    """
    if not isinstance(regularizer, (Euclidean, Entropic, PNorm)):
        raise ValueError(
            f"{name} must be an olbook.oco Euclidean(), Entropic() or PNorm(p); "
            f"got {regularizer!r}."
        )
    check_set(feasible_set)
    ok = (
        isinstance(regularizer, Euclidean)
        and not (isinstance(feasible_set, Ball) and feasible_set.p != 2.0)
        or isinstance(regularizer, Entropic)
        and isinstance(feasible_set, Simplex)
        or isinstance(regularizer, PNorm)
        and (
            feasible_set is None
            or isinstance(feasible_set, Ball)
            and feasible_set.p == regularizer.p
        )
    )
    if not ok:
        raise ValueError(
            f"{name}={regularizer!r} with feasible_set={feasible_set!r} has no closed "
            "form here: use Euclidean() with any set, Entropic() with Simplex(), or "
            "PNorm(p) with None (R^d) or Ball(radius, p=p)."
        )
    return (regularizer.code, regularizer.p), set_code(feasible_set)


class OCOLearner(GameLearner):
    """A learner of online convex optimization: plays points of R^d, receives gradients.

    The feedback of a round is the (sub)gradient ``g_t`` of the round's loss at
    the point played (shape (d,)); the loss paid is the linear loss
    ``g_t . x_t`` (the loss of the linearized game), and the trace keeps the
    points and the gradients. Subclasses put ``dim`` in their settings, keep
    the next point in ``x_`` and implement ``_advance(F)`` (returns the points
    played at the rows of ``F`` and the new state, changing nothing).
    """

    def _check_feedback(self, feedback, settings: dict, ndim: int) -> np.ndarray:
        d = settings["dim"]
        return check_gradients(feedback, d, ndim)

    def _empty_trace(self) -> GameTrace:
        d = self._game["dim"]
        return GameTrace(
            np.zeros(0),
            np.zeros(0),
            points=np.zeros((0, d)),
            gradients=np.zeros((0, d)),
        )

    def _predict(self) -> np.ndarray:
        """The point ``x_t`` played at the next round (a copy)."""
        return self.x_.copy()

    def _play(self, F: np.ndarray) -> GameTrace:
        X, state = self._advance(F)
        if not np.isfinite(X).all() or not all(
            np.isfinite(v).all() for v in state.values() if isinstance(v, np.ndarray)
        ):
            raise ValueError(
                "the gradients are too large: a point or the state is no longer "
                "finite (scale the losses down)."
            )
        self.__dict__.update(state)
        loss = rowwise_dots(X, F)  # the linear losses g_t . x_t, in a fixed order
        # F is the learner's own copy (_check_feedback made it): kept without another
        return GameTrace(loss, self._cumulative(loss), points=X, gradients=F)

    def update(self, feedback) -> float:
        """Play one round: ``feedback`` is the (sub)gradient ``g_t`` at the point ``x_t`` played.

        Returns the linear loss ``g_t . x_t`` paid.
        """
        return super().update(feedback)

    def regret_bound(self, u, gradients) -> float:
        """The bound of the book on the regret against ``u`` of the rounds ``gradients``.

        ``(R(u) - R(x_1)) / eta + eta / (2 lambda) sum_t ||g_t||_*^2``, with
        ``x_1`` the first point (the minimizer of R on the set), ``lambda`` the
        regularizer's strong convexity and ``||.||_*`` its dual norm
        (:prf:ref:`oco-thm-ftrl`, :prf:ref:`oco-thm-omd`).
        """
        s = self._settings()
        reg, eta = s["regularizer"], s["eta"]
        G = self._check_feedback(gradients, s, 2)
        x1 = self._current_start()
        u = np.asarray(u, dtype=np.float64)
        if u.shape != (s["dim"],):
            raise ValueError(f"u must have shape ({s['dim']},); got {u.shape}.")
        sq = math.fsum(reg.dual_norm(g) ** 2 for g in G)
        return (reg.value(u) - reg.value(x1)) / eta + eta / (
            2.0 * reg.strong_convexity
        ) * sq

    def _current_start(self) -> np.ndarray:
        fresh = object.__new__(type(self))
        fresh.__dict__.update(
            {k: v for k, v in self.__dict__.items() if not k.endswith("_")}
        )
        fresh._begin(self._settings())
        return fresh.x_.copy()
