"""Online gradient descent (Zinkevich 2003) for online convex optimization.

Book chapter 5, section ``regret-sec-ogd``. At round t the learner plays a
point ``x_t`` of a convex set K, the environment reveals a convex loss
through its (sub)gradient ``g_t`` at ``x_t``, and the learner moves to
``x_{t+1} = Proj_K(x_t - eta_t g_t)``. If K has diameter D and every
``||g_t|| <= G``, the regret is at most ``D^2/(2 eta) + eta G^2 T / 2`` for a
fixed eta, ``D G sqrt(T)`` for ``eta = D/(G sqrt T)``, and
``(3/2) D G sqrt(T)`` for ``eta_t = D/(G sqrt t)`` (book, theorems
``regret-thm-ogd`` and ``regret-thm-ogd-anytime``).

Reference: M. Zinkevich, "Online convex programming and generalized
infinitesimal gradient ascent", ICML 2003, theorem 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._base import GameLearner
from ._rowops import row_sqnorms, rowwise_dots
from ._validation import check_positive_float, check_positive_int, non_finite_error

__all__ = ["OGD", "OCOTrace", "project_ball", "project_box"]


@dataclass(frozen=True)
class OCOTrace:
    """What :meth:`OGD.run` returns and ``OGD.trace_`` holds, one row per round (0-based).

    Attributes
    ----------
    points : ndarray of shape (T, d)
        The point :math:`x_t` played at each round.
    gradients : ndarray of shape (T, d)
        The (sub)gradient :math:`g_t` revealed at each round.
    """

    points: np.ndarray
    gradients: np.ndarray

    def __len__(self) -> int:
        return int(self.points.shape[0])

    @classmethod
    def concatenate(cls, chunks) -> OCOTrace:
        """One trace from consecutive blocks of rounds."""
        return cls(
            np.concatenate([c.points for c in chunks]),
            np.concatenate([c.gradients for c in chunks]),
        )

    @classmethod
    def empty(cls, learner) -> OCOTrace:
        """The trace of no round."""
        d = learner.x0.size
        return cls(np.zeros((0, d)), np.zeros((0, d)))

    def linearized_regret(self, u) -> np.ndarray:
        """:math:`\\sum_{s \\le t} g_s^\top (x_s - u)` after each round: the regret against ``u``
        of the linear losses :math:`g_s^\top x`, which bounds that of convex losses (section 5.5)."""
        u = np.asarray(u, dtype=np.float64)
        if u.shape != (self.points.shape[1],):
            raise ValueError(
                f"u must have shape ({self.points.shape[1]},); got {u.shape}."
            )
        D = np.ascontiguousarray(self.points - u)
        return np.cumsum(rowwise_dots(np.ascontiguousarray(self.gradients), D))


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


class OGD(GameLearner):
    """Projected online gradient descent (on the interface of :class:`~olbook._base.GameLearner`).

    Parameters
    ----------
    x0 : array_like of shape (d,)
        The first point ``x_1`` (it must lie in the feasible set).
    eta : float > 0 or {"tuned", "anytime"}, default="anytime"
        A fixed step; ``"tuned"``: ``D / (G sqrt(horizon))``; ``"anytime"``:
        ``eta_t = D / (G sqrt(t))``.
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
    trace_ : OCOTrace
        Every round since the last reset.

    Examples
    --------
    >>> import numpy as np
    >>> from olbook import OGD
    >>> from olbook.ogd import project_ball
    >>> learner = OGD([0.0, 0.0], eta=0.75, projection=project_ball(1.0))
    >>> learner.update([-1.0, 0.0])  # gradient of the loss -x[0]: step towards (1, 0)
    array([0.75, 0.  ])
    >>> learner.update([-1.0, 0.0])  # (1.5, 0) is projected back onto the unit ball
    array([1., 0.])
    >>> learner.n_rounds_
    2
    """

    _trace_type = OCOTrace

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
        x = np.array(x0, dtype=np.float64)
        if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
            raise ValueError(
                f"x0 must be a non-empty finite 1-D array; got shape {x.shape}."
            )
        for name, v in (("diameter", diameter), ("lipschitz", lipschitz)):
            if v is not None:
                check_positive_float(v, name)
        if isinstance(eta, str):
            if eta not in ("tuned", "anytime"):
                raise ValueError(
                    f"eta must be a number > 0, 'tuned' or 'anytime'; got {eta!r}."
                )
            if diameter is None or lipschitz is None:
                raise ValueError(f"eta={eta!r} needs diameter (D) and lipschitz (G).")
        else:
            check_positive_float(eta, "eta")
        if eta == "tuned":
            check_positive_int(
                horizon, "horizon (the number of rounds, needed by eta='tuned')"
            )
        elif horizon is not None:
            raise ValueError(
                f"horizon is only used with eta='tuned'; got horizon={horizon!r}."
            )
        if projection is not None and not callable(projection):
            raise ValueError(
                f"projection must be a callable x -> Proj(x) or None; got {projection!r}."
            )
        self.x0, self.eta, self.diameter, self.lipschitz = x, eta, diameter, lipschitz
        self.horizon, self.projection = horizon, projection
        self.reset()

    def _reset_state(self) -> None:
        self.x_ = self.x0.copy()

    def eta_at(self, t: int) -> float:
        """The step used at (1-based) round t."""
        if self.eta == "tuned":
            return self.diameter / (self.lipschitz * math.sqrt(self.horizon))
        if self.eta == "anytime":
            return self.diameter / (self.lipschitz * math.sqrt(t))
        return float(self.eta)

    def predict(self) -> np.ndarray:
        """The point ``x_t`` played at the next round (a copy)."""
        return self.x_.copy()

    def update(self, gradient) -> np.ndarray:
        """Step ``x <- Proj(x - eta_t g)`` with the (sub)gradient g at ``x_t``.

        Returns the new point.
        """
        g = np.asarray(gradient, dtype=np.float64)
        if g.shape != self.x_.shape:
            raise ValueError(
                f"gradient has shape {g.shape}; the point has shape {self.x_.shape}."
            )
        if not np.all(np.isfinite(g)):
            raise non_finite_error(g, "gradient")
        x = self.x_ - self.eta_at(self.n_rounds_ + 1) * g
        if self.projection is not None:
            x = np.asarray(self.projection(x), dtype=np.float64)
            if x.shape != self.x_.shape or not np.all(np.isfinite(x)):
                raise ValueError(
                    "projection returned a point of the wrong shape or with NaN/inf."
                )
        self._record(OCOTrace(self.x_[None, :].copy(), g[None, :].copy()))
        self.x_ = x
        return x.copy()

    def run(
        self,
        gradient: Callable[[int, np.ndarray], np.ndarray],
        n_rounds: int,
        *,
        reset: bool = True,
    ) -> OCOTrace:
        """Play ``n_rounds`` rounds; ``gradient(t, x)`` gives ``g_t`` at the point played (t 0-based).

        Starts from ``x0`` (with ``reset=False``, from the current point, and
        ``trace_`` goes on). Returns the :class:`OCOTrace` of these rounds: the
        points ``x_1, ..., x_T`` played and the gradients revealed.
        """
        T = check_positive_int(n_rounds, "n_rounds")
        saved = dict(self.__dict__, _chunks=list(self._chunks))
        try:
            if reset:
                self.reset()
            start = len(self._chunks)
            for t in range(T):
                self.update(gradient(t, self.x_.copy()))
        except ValueError:  # a rejected gradient: the learner is left as it was
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        block = OCOTrace.concatenate(self._chunks[start:])
        self._chunks[start:] = [block]  # one block instead of T
        return block

    def regret_bound(self, n_rounds: int) -> float:
        """Zinkevich's bound after ``n_rounds`` rounds, with D and G as given."""
        if self.diameter is None or self.lipschitz is None:
            raise ValueError("regret_bound needs diameter (D) and lipschitz (G).")
        D, G, T = self.diameter, self.lipschitz, int(n_rounds)
        if self.eta == "anytime":
            return 1.5 * D * G * math.sqrt(T) - 0.5 * D * G
        eta = self.eta_at(1)
        return D * D / (2.0 * eta) + eta * G * G * T / 2.0
