"""Convex losses of a linear predictor on one example: value and (sub)gradient.

Book chapter 8, :ref:`oco-sec-ftrl`. For a weight vector ``w`` and an
example ``(x, y)`` with ``y`` in {-1, +1} (any real ``y`` for the squared
loss), with the score ``s = w . x`` added in olbook's fixed order:

* :class:`LinearLoss`: ``-y s``, gradient ``-y x``;
* :class:`HingeLoss`: ``max(0, 1 - y s)``, subgradient ``-y x`` where
  ``y s < 1`` and 0 otherwise;
* :class:`LogisticLoss`: ``ln(1 + exp(-y s))``, gradient
  ``-y x / (1 + exp(y s))``;
* :class:`SquaredLoss`: ``(s - y)^2 / 2``, gradient ``(s - y) x``.

:func:`gradient_feedback` turns a loss and a data set into the feedback of
:meth:`~olbook._base.GameLearner.run`: the gradient at the point played of
the loss on example ``t``.
"""

from __future__ import annotations

import math

import numpy as np

from .._rowops import dot

__all__ = [
    "LinearLoss",
    "HingeLoss",
    "LogisticLoss",
    "SquaredLoss",
    "gradient_feedback",
]


def _score(w, x) -> float:
    w = np.ascontiguousarray(w, dtype=np.float64)
    x = np.ascontiguousarray(x, dtype=np.float64)
    if w.ndim != 1 or w.shape != x.shape:
        raise ValueError(
            f"w and x must be 1-D of one length; got shapes {w.shape} and {x.shape}."
        )
    return float(dot(w, x))


class _Loss:
    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class LinearLoss(_Loss):
    """``-y w.x``: the linear loss (gradient ``-y x``, whatever ``w``)."""

    def value(self, w, x, y) -> float:
        return -float(y) * _score(w, x)

    def gradient(self, w, x, y) -> np.ndarray:
        _score(w, x)
        return -float(y) * np.asarray(x, dtype=np.float64)


class HingeLoss(_Loss):
    """``max(0, 1 - y w.x)``; the subgradient ``-y x`` where ``y w.x < 1``, else 0."""

    def value(self, w, x, y) -> float:
        return max(0.0, 1.0 - float(y) * _score(w, x))

    def gradient(self, w, x, y) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        if float(y) * _score(w, x) < 1.0:
            return -float(y) * x
        return np.zeros_like(x)


class LogisticLoss(_Loss):
    """``ln(1 + exp(-y w.x))``, gradient ``-y x / (1 + exp(y w.x))`` (no overflow)."""

    def value(self, w, x, y) -> float:
        m = float(y) * _score(w, x)
        return math.log1p(math.exp(-m)) if m > 0 else -m + math.log1p(math.exp(m))

    def gradient(self, w, x, y) -> np.ndarray:
        m = float(y) * _score(w, x)
        if m > 0:
            e = math.exp(-m)
            c = e / (1.0 + e)
        else:
            c = 1.0 / (1.0 + math.exp(m))
        return -float(y) * c * np.asarray(x, dtype=np.float64)


class SquaredLoss(_Loss):
    """``(w.x - y)^2 / 2``, gradient ``(w.x - y) x``."""

    def value(self, w, x, y) -> float:
        r = _score(w, x) - float(y)
        return 0.5 * r * r

    def gradient(self, w, x, y) -> np.ndarray:
        return (_score(w, x) - float(y)) * np.asarray(x, dtype=np.float64)


def gradient_feedback(loss, X, y):
    """The feedback of a game played on the rows of ``X``: the loss's gradient at round t.

    It is the function ``(t, w) -> loss.gradient(w, X[t], y[t])``.

    Examples
    --------
    >>> import numpy as np
    >>> from olbook.oco import OMD, Euclidean, HingeLoss, gradient_feedback
    >>> X, y = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1.0, -1.0])
    >>> omd = OMD(Euclidean(), eta=1.0, dim=2)
    >>> trace = omd.run(gradient_feedback(HingeLoss(), X, y), 2)
    >>> omd.predict()
    array([ 1., -1.])
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"X must be 2-D with one y per row; got {X.shape}, {y.shape}.")

    def feedback(t, w):
        return loss.gradient(w, X[t], y[t])

    return feedback
