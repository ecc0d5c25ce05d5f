"""Online mirror descent (Nemirovski and Yudin 1983; Beck and Teboulle 2003).

Book section 8.2, :ref:`oco-sec-omd`. With a regularizer (mirror map) R,
OMD plays ``x_1 = argmin_K R`` and moves to

``x_{t+1} = argmin_{x in K} eta <g_t, x> + B_R(x, x_t)``,

the *greedy* rule: a step in the dual space, ``grad R*(grad R(x_t) - eta g_t)``,
then the Bregman projection onto K. Its regret against every ``u`` in K is at
most ``B_R(u, x_1) / eta + eta / (2 lambda) sum_t ||g_t||_*^2`` (Orabona 2019,
theorem 6.10). The *lazy* rule, which steps from the sum of the gradients, is
FTRL (:class:`~olbook.oco.FTRL`); the two coincide on R^d for the Euclidean
and p-norm maps and on the simplex for the entropic one.

Closed forms: the Euclidean map with any set of :mod:`olbook.oco.sets` (the
step is OGD's, ``Proj_K(x_t - eta g_t)``); the entropic map on the simplex (the
multiplicative update ``x_{t+1,i} ~ x_{t,i} exp(-eta g_{t,i})``: Hedge), kept in
log space; the p-norm map on R^d or its own ball (the Bregman projection onto
``{||x||_p <= r}`` is a scaling). Any other pair is a ``ValueError``. Each map
has its own compiled loop (:func:`omd_run` for the Euclidean map,
:func:`omd_entropic_run`, :func:`omd_pnorm_run`), chosen in Python: a first run
compiles only its own.
"""

from __future__ import annotations

import numba
import numpy as np

from ._oco_base import OCOLearner, check_dim, check_eta, check_pair
from .regularizers import ENTROPIC, EUCLIDEAN, pnorm_grad_into, softmax_into
from .sets import BALL, project_into, project_ordered_into, scale_into_ball

__all__ = ["OMD", "omd_run", "omd_entropic_run", "omd_pnorm_run"]


@numba.njit(cache=True)
def omd_run(F, x, eta, scode, a, b, sp):  # pragma: no cover - compiled
    """OMD with the Euclidean map, OGD: play the rows of ``F`` from the point ``x``.

    ``x_{t+1} = Proj_K(x_t - eta g_t)``. Returns (points played, next point);
    ``x`` is not changed in place. The other maps: :func:`omd_entropic_run`,
    :func:`omd_pnorm_run`.
    """
    T, d = F.shape
    X = np.empty((T, d))
    x = x.copy()
    y = np.empty(d)
    u = np.empty(d)
    order = np.arange(d)  # the simplex projection's sorting order, kept between rounds
    for t in range(T):
        for i in range(d):
            X[t, i] = x[i]
            y[i] = x[i] - eta * F[t, i]
        project_ordered_into(y, scode, a, b, sp, order, u, x)
    return X, x


@numba.njit(cache=True)
def omd_entropic_run(F, x, z, eta):  # pragma: no cover - compiled
    """OMD with the entropic map on the simplex (Hedge): play the rows of ``F`` from ``x``.

    ``x_{t+1,i} ~ x_{t,i} exp(-eta g_{t,i})``, kept in log space: ``z`` holds
    the log-weights, ``x = softmax(z)``. Returns (points played, next point, new
    ``z``); neither ``x`` nor ``z`` is changed in place.
    """
    T, d = F.shape
    X = np.empty((T, d))
    x = x.copy()
    z = z.copy()
    for t in range(T):
        for i in range(d):
            X[t, i] = x[i]
            z[i] = z[i] - eta * F[t, i]
        softmax_into(z, x)
    return X, x, z


@numba.njit(cache=True)
def omd_pnorm_run(F, x, eta, p, scode, a, sp):  # pragma: no cover - compiled
    """OMD with the p-norm map: ``grad R*(grad R(x) - eta g)``, scaled into the ball.

    ``scode`` 1: the ball of radius ``a`` in the norm ``sp``; otherwise R^d.
    Returns (points played, next point); ``x`` is not changed in place.
    """
    T, d = F.shape
    X = np.empty((T, d))
    x = x.copy()
    y = np.empty(d)
    q = p / (p - 1.0)
    for t in range(T):
        for i in range(d):
            X[t, i] = x[i]
        pnorm_grad_into(x, p, y)
        for i in range(d):
            y[i] = y[i] - eta * F[t, i]
        pnorm_grad_into(y, q, x)
        if scode == BALL:
            scale_into_ball(x, a, sp, x)
    return X, x


class OMD(OCOLearner):
    """Online mirror descent: ``x_{t+1} = argmin_K eta <g_t, x> + B_R(x, x_t)``.

    The greedy rule, from ``x_1 = argmin_K R``. With ``Euclidean()`` it is
    projected online gradient descent (:class:`~olbook.OGD` with a fixed step
    and the same projection); with ``Entropic()`` on the simplex it is Hedge
    (:class:`~olbook.Hedge`, the gradients being the experts' losses).

    Parameters
    ----------
    mirror_map : Euclidean, Entropic or PNorm
        The regularizer R whose gradient is the mirror map (book,
        :ref:`oco-sec-omd`).
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
    n_rounds_ : int
    cumulative_loss_ : float
    trace_ : GameTrace

    Examples
    --------
    >>> from olbook.oco import OMD, Euclidean, Ball
    >>> omd = OMD(Euclidean(), eta=0.75, feasible_set=Ball(1.0), dim=2)
    >>> omd.update([-1.0, 0.0]), omd.update([-1.0, 0.0])
    (0.0, -0.75)
    >>> omd.predict()  # (1.5, 0) projected back onto the unit ball
    array([1., 0.])
    """

    def __init__(self, mirror_map, eta: float, feasible_set=None, *, dim: int) -> None:
        self.mirror_map = mirror_map
        self.eta = eta
        self.feasible_set = feasible_set
        self.dim = dim

    def _validate_params(self) -> dict:
        d = check_dim(self.dim)
        eta = check_eta(self.eta)
        codes = check_pair(self.mirror_map, self.feasible_set, "mirror_map")
        return {"dim": d, "eta": eta, "codes": codes, "regularizer": self.mirror_map}

    def _reset_state(self, settings: dict) -> None:
        (mcode, p), (scode, a, b, sp) = settings["codes"]
        d = settings["dim"]
        x = np.zeros(d)
        if mcode == 1:
            x[:] = 1.0 / d
        else:  # argmin_K R: the projection of 0 (the Euclidean map), 0 (p-norm)
            project_into(np.zeros(d), scode, a, b, sp, x)
        self.x_ = x
        self._log_weights = np.zeros(d)

    def _advance(self, F: np.ndarray):
        (mcode, p), (scode, a, b, sp) = self._game["codes"]
        eta = self._game["eta"]
        if mcode == ENTROPIC:
            X, x, z = omd_entropic_run(F, self.x_, self._log_weights, eta)
            return X, {"x_": x, "_log_weights": z}
        if mcode == EUCLIDEAN:
            X, x = omd_run(F, self.x_, eta, scode, a, b, sp)
        else:
            X, x = omd_pnorm_run(F, self.x_, eta, p, scode, a, sp)
        return X, {"x_": x}
