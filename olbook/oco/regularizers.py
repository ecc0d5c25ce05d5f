"""Regularizers (mirror maps) of FTRL and online mirror descent.

Book sections 8.1 and 8.2, :ref:`oco-sec-ftrl` and :ref:`oco-sec-omd`. A
regularizer :math:`R` is a differentiable convex function, strongly convex
with modulus :math:`\\lambda` with respect to a norm :math:`\\|\\cdot\\|`
(:math:`R(\\mathbf y) \\ge R(\\mathbf x) + \\nabla R(\\mathbf x)^\\top(\\mathbf y
- \\mathbf x) + \\frac\\lambda2\\|\\mathbf y - \\mathbf x\\|^2`). Each one has

* ``value(x)``, ``grad(x)`` (the mirror map :math:`\\nabla R`),
  ``grad_conjugate(theta)`` (its inverse :math:`\\nabla R^*`),
  ``bregman(x, y)`` (:math:`B_R(\\mathbf x, \\mathbf y) = R(\\mathbf x) -
  R(\\mathbf y) - \\nabla R(\\mathbf y)^\\top(\\mathbf x - \\mathbf y)`);
* ``strong_convexity`` (:math:`\\lambda`), ``norm(x)`` and ``dual_norm(g)``.

The three of the book: :class:`Euclidean` (:math:`\\frac12\\|\\mathbf x\\|_2^2`,
:math:`\\lambda = 1` for :math:`\\|\\cdot\\|_2`), :class:`Entropic` (the
negative entropy on the simplex, :math:`\\lambda = 1` for
:math:`\\|\\cdot\\|_1` by Pinsker's inequality) and :class:`PNorm`
(:math:`\\frac12\\|\\mathbf x\\|_p^2`, :math:`\\lambda = p - 1` for
:math:`\\|\\cdot\\|_p`, :math:`1 < p \\le 2`; Shalev-Shwartz 2012, lemma 2.9).
Sums are added in a fixed order (``math.fsum``, or one compiled loop).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._rowops import dot
from .._validation import check_positive_float

__all__ = [
    "Euclidean",
    "Entropic",
    "PNorm",
    "mirror_grad_into",
    "mirror_inverse_into",
    "pnorm_grad_into",
    "softmax_into",
]

#: The integer codes of the compiled loops.
EUCLIDEAN, ENTROPIC, PNORM = 0, 1, 2


@numba.njit(cache=True)
def pnorm_grad_into(x, p, out):  # pragma: no cover - compiled
    """``out`` = the gradient of 0.5 ||x||_p^2, scaled by max |x_i| so that nothing overflows.

    The p-norm's mirror map (its inverse: the same with ``p / (p - 1)``).
    ``out`` must not be ``x``.
    """
    d = x.shape[0]
    m = 0.0
    for i in range(d):
        m = max(m, abs(x[i]))
    if m == 0.0:
        for i in range(d):
            out[i] = 0.0
        return
    s = 0.0
    for i in range(d):
        a = abs(x[i]) / m
        out[i] = a**p  # one power per coordinate: a^(p-1) = a^p / a below
        s += out[i]
    c = s ** ((2.0 - p) / p)  # ||x/m||_p^(2 - p)
    for i in range(d):
        a = abs(x[i]) / m
        if a > 0.0:
            sign = 1.0 if x[i] > 0.0 else -1.0  # np.sign(x_i): x_i != 0 here
            out[i] = m * sign * (out[i] / a) * c
        else:
            out[i] = 0.0


@numba.njit(cache=True)
def mirror_grad_into(x, code, p, out):  # pragma: no cover - compiled
    """``out = grad R(x)``: ``x`` (Euclidean), ``1 + ln x`` (entropic), p-norm's map."""
    d = x.shape[0]
    if code == 0:
        for i in range(d):
            out[i] = x[i]
    elif code == 1:
        for i in range(d):
            out[i] = 1.0 + math.log(x[i]) if x[i] > 0.0 else -np.inf
    else:
        pnorm_grad_into(x, p, out)


@numba.njit(cache=True)
def softmax_into(theta, out):  # pragma: no cover - compiled
    """``out = softmax(theta)``, the entropic map's inverse on the simplex.

    ``exp(theta_i - max theta)``, divided by their sum added in increasing
    ``i``. ``out`` may be ``theta``.
    """
    d = theta.shape[0]
    top = -np.inf
    for i in range(d):
        top = max(top, theta[i])
    s = 0.0
    for i in range(d):
        out[i] = math.exp(theta[i] - top)
        s += out[i]
    for i in range(d):
        out[i] = out[i] / s


@numba.njit(cache=True)
def mirror_inverse_into(theta, code, p, out):  # pragma: no cover - compiled
    """``out = grad R*(theta)``: ``theta``, ``softmax(theta)`` or the dual p-norm's map."""
    d = theta.shape[0]
    if code == 0:
        for i in range(d):
            out[i] = theta[i]
    elif code == 1:
        softmax_into(theta, out)
    else:
        pnorm_grad_into(theta, p / (p - 1.0), out)


def _vec(x, name: str) -> np.ndarray:
    try:
        v = np.array(x, dtype=np.float64)
    except (TypeError, ValueError):
        v = np.zeros((0, 0))
    if v.ndim != 1 or v.size == 0 or np.isnan(v).any():
        raise ValueError(f"{name} must be a non-empty 1-D array without NaN.")
    return v


def _pnorm(x: np.ndarray, p: float) -> float:
    if math.isinf(p):
        return float(np.max(np.abs(x)))
    m = float(np.max(np.abs(x)))
    if m == 0.0:
        return 0.0
    return m * math.fsum((np.abs(x) / m) ** p) ** (1.0 / p)


class _Regularizer:
    code = EUCLIDEAN
    p = 2.0
    #: the exponent of the norm R is strongly convex for, and of its dual
    norm_p = 2.0
    dual_p = 2.0
    strong_convexity = 1.0

    def grad(self, x) -> np.ndarray:
        """The mirror map ``grad R(x)``."""
        v = _vec(x, "x")
        out = np.empty_like(v)
        mirror_grad_into(v, self.code, self.p, out)
        return out

    def grad_conjugate(self, theta) -> np.ndarray:
        """The inverse mirror map ``grad R*(theta)``."""
        v = _vec(theta, "theta")
        out = np.empty_like(v)
        mirror_inverse_into(v, self.code, self.p, out)
        return out

    def bregman(self, x, y) -> float:
        """``B_R(x, y) = R(x) - R(y) - grad R(y) . (x - y)``, summed in a fixed order."""
        x, y = _vec(x, "x"), _vec(y, "y")
        return self._bregman(x, y)

    def _bregman(self, x: np.ndarray, y: np.ndarray) -> float:
        g = self.grad(y)
        return math.fsum([self.value(x), -self.value(y)] + list(-g * (x - y)))

    def norm(self, x) -> float:
        """The norm ``||x||`` for which R is ``strong_convexity``-strongly convex."""
        return _pnorm(_vec(x, "x"), self.norm_p)

    def dual_norm(self, g) -> float:
        """The dual norm ``||g||_*``, the norm of the bounds' gradients."""
        return _pnorm(_vec(g, "g"), self.dual_p)

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.p == self.p

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.p))


class Euclidean(_Regularizer):
    """``R(x) = ||x||_2^2 / 2``: the mirror map is the identity; OMD is OGD.

    1-strongly convex with respect to the Euclidean norm (its own dual);
    ``B_R(x, y) = ||x - y||_2^2 / 2``.

    Examples
    --------
    >>> from olbook.oco import Euclidean
    >>> float(Euclidean().bregman([1.0, 2.0], [0.0, 0.0]))
    2.5
    """

    def value(self, x) -> float:
        """``||x||_2^2 / 2``."""
        v = _vec(x, "x")
        return 0.5 * float(dot(v, v))

    def _bregman(self, x, y) -> float:
        z = np.ascontiguousarray(x - y)
        return 0.5 * float(dot(z, z))

    def __repr__(self) -> str:
        return "Euclidean()"


class Entropic(_Regularizer):
    """The negative entropy ``R(x) = sum_i x_i ln x_i`` on the probability simplex.

    ``0 ln 0 = 0``. 1-strongly convex on the simplex with respect to the
    1-norm (Pinsker's inequality); dual norm the max-norm. The mirror map is
    ``1 + ln x`` and, restricted to the simplex, its inverse is
    ``softmax(theta)``; ``B_R(x, y) = sum_i x_i ln(x_i / y_i)`` on the simplex,
    the Kullback-Leibler divergence (off the simplex, ``bregman`` adds
    ``sum y - sum x``). OMD with it on the simplex is Hedge.
    """

    code = ENTROPIC
    norm_p = 1.0
    dual_p = math.inf

    def value(self, x) -> float:
        """``sum_i x_i ln x_i`` (0 where ``x_i = 0``); ``x`` must be >= 0."""
        v = _vec(x, "x")
        if (v < 0).any():
            raise ValueError("the negative entropy needs x >= 0.")
        pos = v[v > 0]
        return math.fsum(pos * np.log(pos))

    def _bregman(self, x, y) -> float:
        if (x < 0).any() or (y <= 0).any():
            raise ValueError("the KL divergence needs x >= 0 and y > 0.")
        pos = x > 0
        return math.fsum(list(x[pos] * np.log(x[pos] / y[pos])) + list(y) + list(-x))

    def __repr__(self) -> str:
        return "Entropic()"


class PNorm(_Regularizer):
    """``R(x) = ||x||_p^2 / 2`` for ``1 < p <= 2``: (p - 1)-strongly convex w.r.t. ``||.||_p``.

    The mirror map is ``grad R(x)_i = sign(x_i) |x_i|^(p-1) / ||x||_p^(p-2)``
    and its inverse the same map with the dual exponent ``q = p / (p - 1)``
    (the gradient of ``R*(theta) = ||theta||_q^2 / 2``). The dual norm is
    ``||.||_q``. With ``p`` close to 1 (``q = 2 ln d``) the bound of OMD
    depends on the dimension only through ``ln d`` (book section 8.2).
    Strong convexity: Shalev-Shwartz (2012), lemma 2.9.

    Parameters
    ----------
    p : float in (1, 2]
        The norm of the regularizer.
    """

    code = PNORM

    def __init__(self, p: float) -> None:
        p = check_positive_float(p, "p (the norm of the regularizer)")
        if not 1.0 < p <= 2.0:
            raise ValueError(
                f"p (the norm of the regularizer) must be in (1, 2]; got {p!r}."
            )
        self.p = p
        self.norm_p = p
        self.dual_p = p / (p - 1.0)
        self.strong_convexity = p - 1.0

    def value(self, x) -> float:
        """``||x||_p^2 / 2``."""
        n = _pnorm(_vec(x, "x"), self.p)
        return 0.5 * n * n

    def __repr__(self) -> str:
        return f"PNorm({self.p!r})"
