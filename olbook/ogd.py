"""Online gradient descent (Zinkevich 2003) for online convex optimization.

Book section 5.5, :ref:`regret-sec-ogd`. At round t the learner plays a
point ``x_t`` of a convex set K, the environment reveals a convex loss
through its (sub)gradient ``g_t`` at ``x_t``, and the learner moves to
``x_{t+1} = Proj_K(x_t - eta_t g_t)``. If K has diameter D and every
``||g_t|| <= G``, the regret is at most ``D^2/(2 eta) + eta G^2 T / 2`` for a
fixed eta, ``D G sqrt(T)`` for ``eta = D/(G sqrt T)``, and
``(3/2) D G sqrt(T)`` for ``eta_t = D/(G sqrt t)`` (book,
:prf:ref:`regret-thm-ogd` and :prf:ref:`regret-thm-ogd-anytime`). If every
loss is ``lambda``-strongly convex, ``eta_t = 1/(lambda t)`` gives regret at
most ``(G^2/(2 lambda)) (1 + ln T)`` (book, :ref:`oco-sec-strongly-convex`,
:prf:ref:`oco-thm-strongly-convex-ogd`).

References: M. Zinkevich, "Online convex programming and generalized
infinitesimal gradient ascent", ICML 2003, theorem 1; E. Hazan, A. Agarwal and
S. Kale, "Logarithmic regret algorithms for online convex optimization",
Machine Learning 69 (2007), theorem 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ._base import GameLearner, GameTrace
from ._rowops import row_sqnorms, rowwise_dots
from ._validation import (
    check_gradients,
    check_positive_float,
    check_positive_int,
    check_start_point,
)

__all__ = [
    "OGD",
    "GameTrace",
    "project_ball",
    "project_box",
    "projected_step",
    "strongly_convex_step",
]


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


def strongly_convex_step(strong_convexity: float, t: int) -> float:
    """The step ``eta_t = 1/(lambda t)`` of OGD on ``lambda``-strongly convex losses.

    With this step the coefficient of every ``||x_t - u||^2`` in the regret's
    telescoping sum is zero, and the regret is at most
    ``(G^2/(2 lambda)) (1 + ln T)`` (Hazan, Agarwal & Kale 2007, theorem 1,
    whose ``H`` is ``lambda``; book section 8.5,
    :prf:ref:`oco-thm-strongly-convex-ogd`).

    Parameters
    ----------
    strong_convexity : float > 0
        lambda, the modulus of strong convexity of the losses (Euclidean norm).
    t : int >= 1
        The (1-based) round.

    Returns
    -------
    float
        ``1 / (strong_convexity * t)``.

    Raises
    ------
    ValueError
        If ``strong_convexity`` is not a finite number > 0 or ``t`` is not an
        integer >= 1.

    Examples
    --------
    >>> from olbook.ogd import strongly_convex_step
    >>> [strongly_convex_step(0.5, t) for t in (1, 2, 4)]
    [2.0, 1.0, 0.5]
    """
    lam = check_positive_float(strong_convexity, "strong_convexity")
    t = check_positive_int(t, "t (the 1-based round)")
    return 1.0 / (lam * t)


class OGD(GameLearner):
    """Projected online gradient descent (on the protocol of :class:`~olbook._base.GameLearner`).

    At round t it plays ``x_t``, is told the (sub)gradient ``g_t`` of the
    round's convex loss at ``x_t``, pays the linear loss ``g_t . x_t`` (the
    loss of the linearized game) and moves to ``Proj(x_t - eta_t g_t)``.

    Parameters
    ----------
    x0 : array_like of shape (d,)
        The first point ``x_1`` (it must lie in the feasible set).
    eta : float > 0 or {"tuned", "anytime", "strongly_convex"}, default="anytime"
        The step size: a fixed step; ``"tuned"``: ``D / (G sqrt(horizon))``;
        ``"anytime"``: ``eta_t = D / (G sqrt(t))``; ``"strongly_convex"``:
        ``eta_t = 1 / (lambda t)`` (:func:`strongly_convex_step`).
    diameter, lipschitz : float, optional
        D (diameter of the feasible set) and G (bound on the gradient norms);
        required by ``"tuned"``, ``"anytime"`` and :meth:`regret_bound`
        (``"strongly_convex"`` needs only G, and only for :meth:`regret_bound`).
    horizon : int, optional
        T, required by and only used with ``"tuned"``.
    projection : callable, optional
        ``x -> Proj_K(x)``; ``None`` means no constraint (K = R^d).
    strong_convexity : float > 0, optional
        lambda, the modulus of strong convexity of the losses (each ``f_t`` is
        ``lambda``-strongly convex with respect to the Euclidean norm; book
        section 8.5, Hazan, Agarwal & Kale 2007); required by and only used
        with ``eta="strongly_convex"``, and checked when a game starts.

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
        strong_convexity: float | None = None,
    ) -> None:
        self.x0 = x0
        self.eta = eta
        self.diameter = diameter
        self.lipschitz = lipschitz
        self.horizon = horizon
        self.projection = projection
        self.strong_convexity = strong_convexity

    def _validate_params(self) -> dict:
        x = check_start_point(self.x0)
        D, G = self.diameter, self.lipschitz
        D = None if D is None else check_positive_float(D, "diameter")
        G = None if G is None else check_positive_float(G, "lipschitz")
        lam = self.strong_convexity
        lam = None if lam is None else check_positive_float(lam, "strong_convexity")
        eta, horizon = self._checked_eta(("tuned", "anytime", "strongly_convex"))
        if eta == "strongly_convex":
            if lam is None:
                raise ValueError(
                    "eta='strongly_convex' needs strong_convexity (lambda > 0, the "
                    "modulus of strong convexity of the losses)."
                )
        elif lam is not None:
            raise ValueError(
                "strong_convexity is only used with eta='strongly_convex'; got "
                f"strong_convexity={lam!r} with eta={eta!r}."
            )
        elif isinstance(eta, str) and (D is None or G is None):
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
            "strong_convexity": lam,
        }

    def _reset_state(self, settings: dict) -> None:
        self.x_ = settings["x0"].copy()

    @staticmethod
    def _step(s: dict, t: int) -> float:
        if s["eta"] == "tuned":
            return s["diameter"] / (s["lipschitz"] * math.sqrt(s["horizon"]))
        if s["eta"] == "anytime":
            return s["diameter"] / (s["lipschitz"] * math.sqrt(t))
        if s["eta"] == "strongly_convex":
            return strongly_convex_step(s["strong_convexity"], t)
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
        """The regret bound after ``n_rounds`` rounds, with D, G (and lambda) as given.

        Parameters
        ----------
        n_rounds : int >= 1
            T, the number of rounds.

        Returns
        -------
        float
            Zinkevich's bound for a fixed, ``"tuned"`` or ``"anytime"`` step
            (book section 5.5, :prf:ref:`regret-thm-ogd`,
            :prf:ref:`regret-thm-ogd-anytime`); with ``eta="strongly_convex"``,
            ``(G^2/(2 lambda)) (1 + ln T)`` (Hazan, Agarwal & Kale 2007, theorem 1;
            book section 8.5, :prf:ref:`oco-thm-strongly-convex-ogd`), which needs
            only G.

        Raises
        ------
        ValueError
            If ``n_rounds`` is not an integer >= 1, or if G (or, without
            ``eta="strongly_convex"``, D) was not given.
        """
        s = self._settings()
        T = check_positive_int(n_rounds, "n_rounds")
        if s["eta"] == "strongly_convex":
            if s["lipschitz"] is None:
                raise ValueError(
                    "regret_bound with eta='strongly_convex' needs lipschitz (G)."
                )
            G, lam = s["lipschitz"], s["strong_convexity"]
            return G * G / (2.0 * lam) * (1.0 + math.log(T))
        if s["diameter"] is None or s["lipschitz"] is None:
            raise ValueError("regret_bound needs diameter (D) and lipschitz (G).")
        D, G = s["diameter"], s["lipschitz"]
        if s["eta"] == "anytime":
            return 1.5 * D * G * math.sqrt(T) - 0.5 * D * G
        eta = self._step(s, 1)
        return D * D / (2.0 * eta) + eta * G * G * T / 2.0
