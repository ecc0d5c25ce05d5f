"""Online gradient descent (Zinkevich 2003) for online convex optimization.

Book section 5.5, :ref:`regret-sec-ogd`. At round t the learner plays a
point ``x_t`` of a convex set K, the environment reveals a convex loss
through its (sub)gradient ``g_t`` at ``x_t``, and the learner moves to
``x_{t+1} = Proj_K(x_t - eta_t g_t)``. If K has diameter D and every
``||g_t|| <= G``, the regret is at most ``D^2/(2 eta) + eta G^2 T / 2`` for a
fixed eta, ``D G sqrt(T)`` for ``eta = D/(G sqrt T)``, and
``(3/2) D G sqrt(T)`` for ``eta_t = D/(G sqrt t)`` (book,
:prf:ref:`regret-thm-ogd` and :prf:ref:`regret-thm-ogd-anytime`).

Reference: M. Zinkevich, "Online convex programming and generalized
infinitesimal gradient ascent", ICML 2003, theorem 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ._base import GameLearner, GameTrace
from ._rowops import row_sqnorms, rowwise_dots
from ._validation import check_gradients, check_positive_float, check_start_point

__all__ = ["OGD", "GameTrace", "project_ball", "project_box", "projected_step"]


class _Ball:
    """The projection of :func:`project_ball` (a class, so that an OGD using it pickles)."""

    def __init__(self, radius: float) -> None:
        self.radius = radius

    def __call__(self, x: np.ndarray) -> np.ndarray:
        n = math.sqrt(
            float(row_sqnorms(np.ascontiguousarray(x, dtype=np.float64)[None, :])[0])
        )
        return x if n <= self.radius else x * (self.radius / n)

    def __repr__(self) -> str:
        return f"project_ball({self.radius!r})"


class _Box:
    """The projection of :func:`project_box` (a class, so that an OGD using it pickles)."""

    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = low, high

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return np.clip(x, self.low, self.high)

    def __repr__(self) -> str:
        return f"project_box({self.low!r}, {self.high!r})"


def project_ball(radius: float) -> Callable[[np.ndarray], np.ndarray]:
    """Euclidean projection onto the ball ``{x : ||x|| <= radius}`` (diameter ``2 radius``)."""
    return _Ball(check_positive_float(radius, "radius"))


def project_box(low: float, high: float) -> Callable[[np.ndarray], np.ndarray]:
    """Projection onto the box ``[low, high]^d`` (coordinate-wise clipping)."""
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(
            f"the box needs finite low < high; got low={low!r}, high={high!r}."
        )
    return _Box(float(low), float(high))


def projected_step(
    x: np.ndarray,
    g: np.ndarray,
    eta: float,
    projection: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """The step of online gradient descent: ``Proj_K(x - eta g)``.

    Without a projection, K = R^d.

    A projection that returns a point of another shape or with NaN/inf is a
    ``ValueError``.
    """
    y = x - eta * g
    if projection is not None:
        y = np.asarray(projection(y), dtype=np.float64)
        if y.shape != x.shape or not np.isfinite(y).all():
            raise ValueError(
                "projection returned a point of the wrong shape or with NaN/inf."
            )
    return y


class OGD(GameLearner):
    """Projected online gradient descent (on the protocol of :class:`~olbook._base.GameLearner`).

    At round t it plays ``x_t``, is told the (sub)gradient ``g_t`` of the
    round's convex loss at ``x_t``, pays the linear loss ``g_t . x_t`` (the
    loss of the linearized game) and moves to ``Proj(x_t - eta_t g_t)``.

    Parameters
    ----------
    x0 : array_like of shape (d,)
        The first point ``x_1`` (it must lie in the feasible set).
    eta : float > 0 or {"tuned", "anytime"}, default="anytime"
        The step size: a fixed step; ``"tuned"``: ``D / (G sqrt(horizon))``;
        ``"anytime"``: ``eta_t = D / (G sqrt(t))``.
    diameter, lipschitz : float, optional
        D (diameter of the feasible set) and G (bound on the gradient norms);
        required by ``"tuned"``, ``"anytime"`` and :meth:`regret_bound`.
    horizon : int, optional
        T, required by and only used with ``"tuned"``.
    projection : callable, optional
        ``x -> Proj_K(x)``; ``None`` means no constraint (K = R^d).

    Attributes
    ----------
    x_ : ndarray of shape (d,)
        The point to be played next.
    n_rounds_ : int
    cumulative_loss_ : float
        The sum of the linear losses ``g_t . x_t`` since the last reset.
    trace_ : GameTrace
        Every round since the last reset (``loss``, ``cumulative_loss``,
        ``points`` and ``gradients``).

    Examples
    --------
    >>> import numpy as np
    >>> from olbook import OGD
    >>> from olbook.ogd import project_ball
    >>> learner = OGD([0.0, 0.0], eta=0.75, projection=project_ball(1.0))
    >>> learner.update([-1.0, 0.0])  # the loss -x[0] at x_1 = (0, 0): loss paid 0
    0.0
    >>> learner.predict()  # a step towards (1, 0)
    array([0.75, 0.  ])
    >>> learner.update([-1.0, 0.0])  # loss paid -0.75
    -0.75
    >>> learner.predict()  # (1.5, 0) is projected back onto the unit ball
    array([1., 0.])
    >>> learner.n_rounds_, learner.cumulative_loss_
    (2, -0.75)
    """

    def __init__(
        self,
        x0,
        eta: float | str = "anytime",
        *,
        diameter: float | None = None,
        lipschitz: float | None = None,
        horizon: int | None = None,
        projection: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        self.x0 = x0
        self.eta = eta
        self.diameter = diameter
        self.lipschitz = lipschitz
        self.horizon = horizon
        self.projection = projection

    def _validate_params(self) -> dict:
        x = check_start_point(self.x0)
        D, G = self.diameter, self.lipschitz
        D = None if D is None else check_positive_float(D, "diameter")
        G = None if G is None else check_positive_float(G, "lipschitz")
        eta, horizon = self._checked_eta(("tuned", "anytime"))
        if isinstance(eta, str) and (D is None or G is None):
            raise ValueError(f"eta={eta!r} needs diameter (D) and lipschitz (G).")
        if self.projection is not None and not callable(self.projection):
            raise ValueError(
                "projection must be a callable x -> Proj(x) or None; "
                f"got {self.projection!r}."
            )
        return {
            "x0": x,
            "eta": eta,
            "horizon": horizon,
            "diameter": D,
            "lipschitz": G,
            "projection": self.projection,
        }

    def _reset_state(self, settings: dict) -> None:
        self.x_ = settings["x0"].copy()

    @staticmethod
    def _step(s: dict, t: int) -> float:
        if s["eta"] == "tuned":
            return s["diameter"] / (s["lipschitz"] * math.sqrt(s["horizon"]))
        if s["eta"] == "anytime":
            return s["diameter"] / (s["lipschitz"] * math.sqrt(t))
        return s["eta"]

    def eta_at(self, t: int) -> float:
        """The step used at (1-based) round t."""
        return self._step(self._settings(), t)

    def _predict(self) -> np.ndarray:
        """The point ``x_t`` played at the next round (a copy)."""
        return self.x_.copy()

    def _check_feedback(self, feedback, settings: dict, ndim: int) -> np.ndarray:
        d = settings["x0"].size
        return check_gradients(feedback, d, ndim)

    def update(self, feedback) -> float:
        """Play one round: ``feedback`` is the (sub)gradient ``g_t`` at the point ``x_t`` played.

        The learner moves to ``x_{t+1} = Proj(x_t - eta_t g_t)`` and returns the
        linear loss ``g_t . x_t`` it paid.
        """
        return super().update(feedback)

    def _play(self, F: np.ndarray) -> GameTrace:
        s = self._game
        x = self.x_
        X = np.empty_like(F)
        for r in range(F.shape[0]):  # round t = n_rounds_ + r + 1
            X[r] = x
            eta = self._step(s, self.n_rounds_ + r + 1)
            x = projected_step(x, F[r], eta, s["projection"])
        self.x_ = x
        loss = rowwise_dots(X, F)  # the linear losses g_t . x_t, in a fixed order
        return GameTrace(loss, self._cumulative(loss), points=X, gradients=F.copy())

    def _empty_trace(self) -> GameTrace:
        d = self._game["x0"].size
        return GameTrace(
            np.zeros(0),
            np.zeros(0),
            points=np.zeros((0, d)),
            gradients=np.zeros((0, d)),
        )

    def regret_bound(self, n_rounds: int) -> float:
        """Zinkevich's bound after ``n_rounds`` rounds, with D and G as given."""
        s = self._settings()
        if s["diameter"] is None or s["lipschitz"] is None:
            raise ValueError("regret_bound needs diameter (D) and lipschitz (G).")
        D, G, T = s["diameter"], s["lipschitz"], int(n_rounds)
        if s["eta"] == "anytime":
            return 1.5 * D * G * math.sqrt(T) - 0.5 * D * G
        eta = self._step(s, 1)
        return D * D / (2.0 * eta) + eta * G * G * T / 2.0
