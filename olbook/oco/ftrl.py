"""Follow the leader and follow the regularized leader, on linearized losses.

Book section 8.1, :ref:`oco-sec-ftrl`. With the gradients
``g_1, ..., g_t`` of the rounds played, FTL plays
``x_{t+1} = argmin_{x in K} <g_1 + ... + g_t, x>`` and FTRL
``x_{t+1} = argmin_{x in K} eta <g_1 + ... + g_t, x> + R(x)``. FTRL's regret
against every ``u`` in ``K`` is at most
``(R(u) - min_K R) / eta + eta / (2 lambda) sum_t ||g_t||_*^2`` when R is
lambda-strongly convex with respect to a norm of dual norm ``||.||_*``
(Orabona 2019, corollary 7.9; Shalev-Shwartz 2012, theorem 2.11 with a
constant 1 in place of 1/2). FTL has no such bound: on the two-point game of
the book its regret is ``T - 1/2``.

The argmin has a closed form for the Euclidean regularizer on any set of
:mod:`olbook.oco.sets` (the projection of ``-eta theta``), the entropic one on
the simplex (``softmax(-eta theta)``) and the p-norm one on R^d or its own ball
(the inverse mirror map of ``-eta theta``, scaled into the ball); any other pair
is a ``ValueError``. Each rule has its own compiled loop (:func:`ftl_run`,
:func:`ftrl_run` for the Euclidean regularizer, :func:`ftrl_entropic_run`,
:func:`ftrl_pnorm_run`), chosen in Python: a first run compiles only its own.
"""

from __future__ import annotations

import numba
import numpy as np

from ._oco_base import OCOLearner, check_dim, check_eta, check_pair, check_set
from .regularizers import ENTROPIC, EUCLIDEAN, pnorm_grad_into, softmax_into
from .sets import (
    BALL,
    linear_argmin_into,
    project_ordered_into,
    scale_into_ball,
    set_code,
)

__all__ = ["FTL", "FTRL", "ftl_run", "ftrl_run", "ftrl_entropic_run", "ftrl_pnorm_run"]


@numba.njit(cache=True)
def ftl_run(F, theta, scode, a, b, sp):  # pragma: no cover - compiled
    """FTL: play the rows of ``F``; return (points played, new theta, next point).

    The leader ``argmin_K theta . x`` (:func:`~olbook.oco.sets.linear_argmin_into`).
    ``theta`` (the sum of the gradients so far) is not changed in place.
    """
    T, d = F.shape
    X = np.empty((T, d))
    th = theta.copy()
    x = np.empty(d)
    linear_argmin_into(th, scode, a, b, sp, x)
    for t in range(T):
        for i in range(d):
            X[t, i] = x[i]
            th[i] += F[t, i]
        linear_argmin_into(th, scode, a, b, sp, x)
    return X, th, x


@numba.njit(cache=True)
def ftrl_run(F, theta, eta, scode, a, b, sp):  # pragma: no cover - compiled
    """FTRL, Euclidean: play the rows of ``F``; return (points, new theta, next point).

    The leader ``argmin_K eta theta . x + ||x||^2 / 2`` is the projection of
    ``-eta theta`` onto K. ``theta`` (the sum of the gradients so far) is not
    changed in place. The other regularizers: :func:`ftrl_entropic_run`,
    :func:`ftrl_pnorm_run`.
    """
    T, d = F.shape
    X = np.empty((T, d))
    th = theta.copy()
    y = np.empty(d)
    x = np.empty(d)
    u = np.empty(d)
    order = np.empty(d, dtype=np.int64)  # the simplex projection's sorting order,
    for i in range(d):  # kept between rounds
        order[i] = i
    for t in range(-1, T):
        if t >= 0:
            for i in range(d):
                X[t, i] = x[i]
                th[i] += F[t, i]
        for i in range(d):
            y[i] = -eta * th[i]
        project_ordered_into(y, scode, a, b, sp, order, u, x)
    return X, th, x


@numba.njit(cache=True)
def ftrl_entropic_run(F, theta, eta):  # pragma: no cover - compiled
    """FTRL, entropic, on the simplex: the leader is ``softmax(-eta theta)``."""
    T, d = F.shape
    X = np.empty((T, d))
    th = theta.copy()
    y = np.empty(d)
    x = np.empty(d)
    for t in range(-1, T):
        if t >= 0:
            for i in range(d):
                X[t, i] = x[i]
                th[i] += F[t, i]
        for i in range(d):
            y[i] = -eta * th[i]
        softmax_into(y, x)
    return X, th, x


@numba.njit(cache=True)
def ftrl_pnorm_run(F, theta, eta, p, scode, a, sp):  # pragma: no cover - compiled
    """FTRL, p-norm: the leader is ``grad R*(-eta theta)``, scaled into the ball
    (``scode`` 1, radius ``a``, norm ``sp``) or not (R^d)."""
    T, d = F.shape
    X = np.empty((T, d))
    th = theta.copy()
    y = np.empty(d)
    x = np.empty(d)
    q = p / (p - 1.0)
    for t in range(-1, T):
        if t >= 0:
            for i in range(d):
                X[t, i] = x[i]
                th[i] += F[t, i]
        for i in range(d):
            y[i] = -eta * th[i]
        pnorm_grad_into(y, q, x)
        if scode == BALL:
            scale_into_ball(x, a, sp, x)
    return X, th, x


class _Leader(OCOLearner):
    """FTL and FTRL: the state is the sum of the gradients; the point is the leader."""

    def _reset_state(self, settings: dict) -> None:
        self.gradient_sum_ = np.zeros(settings["dim"])
        self.x_ = self._run(np.zeros((0, settings["dim"])), settings)[2]

    def _run(self, F: np.ndarray, s: dict):
        (mcode, p), (scode, a, b, sp) = s["codes"]
        theta = self.__dict__.get("gradient_sum_", np.zeros(s["dim"]))
        if mcode < 0:
            return ftl_run(F, theta, scode, a, b, sp)
        if mcode == EUCLIDEAN:
            return ftrl_run(F, theta, s["eta"], scode, a, b, sp)
        if mcode == ENTROPIC:
            return ftrl_entropic_run(F, theta, s["eta"])
        return ftrl_pnorm_run(F, theta, s["eta"], p, scode, a, sp)

    def _advance(self, F: np.ndarray):
        X, theta, x = self._run(F, self._game)
        return X, {"gradient_sum_": theta, "x_": x}


class FTL(_Leader):
    """Follow the leader: play ``argmin_{x in K} <theta_t, x>``, the gradients' sum.

    With ``theta_t = sum_{s <= t} g_s``: the minimizer of the linear loss summed so
    far; on ties (a zero sum, or several minimizing vertices) the centre of the
    minimizers: 0 on a ball, the middle of the box on a zero coordinate, the uniform
    distribution over the minimizing coordinates on the simplex. ``K`` must be
    bounded.

    Parameters
    ----------
    feasible_set : Ball, Box or Simplex
        The feasible set K (bounded: on R^d the leader does not exist).
    dim : int
        The dimension d of the points played.

    Attributes
    ----------
    x_ : ndarray of shape (d,)
        The point to be played next.
    gradient_sum_ : ndarray of shape (d,)
        The sum of the gradients received since the last reset.
    n_rounds_ : int
    cumulative_loss_ : float
    trace_ : GameTrace

    Examples
    --------
    >>> from olbook.oco import FTL, Box
    >>> ftl = FTL(Box(-1.0, 1.0), dim=1)
    >>> [ftl.update([g]) for g in (0.5, -1.0, 1.0, -1.0)]  # pays 1 from round 2 on
    [0.0, 1.0, 1.0, 1.0]
    """

    def __init__(self, feasible_set, *, dim: int) -> None:
        self.feasible_set = feasible_set
        self.dim = dim

    def _validate_params(self) -> dict:
        d = check_dim(self.dim)
        K = check_set(self.feasible_set)
        if K is None:
            raise ValueError(
                "feasible_set must be bounded for FTL (a Ball, Box or Simplex): on R^d "
                "the leader of a linear loss does not exist."
            )
        return {"dim": d, "eta": 1.0, "codes": ((-1, 2.0), set_code(K))}

    def regret_bound(self, u, gradients) -> float:
        """FTL has none: its regret can grow linearly (book, :ref:`oco-sec-ftrl`)."""
        raise ValueError("FTL has no regret bound (its regret can be linear in T).")


class FTRL(_Leader):
    """Follow the regularized leader: ``x_{t+1} = argmin_K eta <theta_t, x> + R(x)``.

    The *lazy* rule: the point depends on the gradients only through their sum
    ``theta_t = sum_{s <= t} g_s`` (``gradient_sum_``). Its first point is
    ``argmin_K R``. For the Euclidean regularizer on R^d it is online gradient
    descent from 0; with a projection, OGD (the *greedy* rule,
    :class:`~olbook.oco.OMD`) differs once a projection is active.

    Parameters
    ----------
    regularizer : Euclidean, Entropic or PNorm
        The regularizer R (book, :ref:`oco-sec-ftrl`).
    eta : float > 0
        The step size (a fixed one).
    feasible_set : Ball, Box, Simplex or None, default=None
        The feasible set K; ``None`` is R^d.
    dim : int
        The dimension d of the points played.

    Attributes
    ----------
    x_ : ndarray of shape (d,)
        The point to be played next.
    gradient_sum_ : ndarray of shape (d,)
        The sum of the gradients received since the last reset.
    n_rounds_ : int
    cumulative_loss_ : float
    trace_ : GameTrace

    Examples
    --------
    >>> from olbook.oco import FTRL, Entropic, Simplex
    >>> ftrl = FTRL(Entropic(), eta=1.0, feasible_set=Simplex(), dim=2)
    >>> ftrl.predict()
    array([0.5, 0.5])
    >>> ftrl.update([1.0, 0.0])
    0.5
    >>> ftrl.predict().round(4)  # (1, e) / (1 + e)
    array([0.2689, 0.7311])
    """

    def __init__(self, regularizer, eta: float, feasible_set=None, *, dim: int) -> None:
        self.regularizer = regularizer
        self.eta = eta
        self.feasible_set = feasible_set
        self.dim = dim

    def _validate_params(self) -> dict:
        d = check_dim(self.dim)
        eta = check_eta(self.eta)
        codes = check_pair(self.regularizer, self.feasible_set, "regularizer")
        return {
            "dim": d,
            "eta": eta,
            "codes": codes,
            "regularizer": self.regularizer,
        }
