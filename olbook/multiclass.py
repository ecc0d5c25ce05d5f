r"""Multiclass online classifiers: the multiclass perceptron and multiclass PA (book section 6.5).

One weight vector :math:`\mathbf w_r` per class; the prediction is the class of
largest score :math:`\mathbf w_r^\top\mathbf x` (a tie goes to the first class in
``classes_``). With :math:`s` the highest-scoring *wrong* class, both learners
update only :math:`\mathbf w_y` and :math:`\mathbf w_s`:

.. math:: \mathbf w_y \leftarrow \mathbf w_y + \tau\mathbf x, \qquad
          \mathbf w_s \leftarrow \mathbf w_s - \tau\mathbf x .

* the multiclass perceptron (the simplest ultraconservative algorithm of
  Crammer and Singer, JMLR 3, 2003): :math:`\tau = 1` when
  :math:`\mathbf w_y^\top\mathbf x \le \mathbf w_s^\top\mathbf x`;
* multiclass PA (Crammer, Dekel, Keshet, Shalev-Shwartz and Singer, JMLR 7,
  2006, section 8, the max-loss update), with the multiclass hinge loss
  :math:`\ell = \max(0, 1 - (\mathbf w_y - \mathbf w_s)^\top\mathbf x)` and the
  steps of :mod:`olbook.passive_aggressive` with :math:`\|\mathbf x\|^2` replaced by
  :math:`2\|\mathbf x\|^2` (the update moves two weight vectors).

Labels may be any sortable values (integers, strings): ``classes_`` holds them
sorted; at least two classes are needed.
"""

from __future__ import annotations

import numba
import numpy as np

from ._multiclass_base import MulticlassLearner
from ._rowops import row_score, with_constant_feature
from ._validation import check_positive_float
from .passive_aggressive import check_variant, pa_step_size

__all__ = ["MulticlassPerceptron", "MulticlassPA", "multiclass_epoch"]


@numba.njit(cache=True)
def multiclass_epoch(X, y, W, variant, C, mistakes, updates, scores):
    """One pass over ``(X, y)``; ``y`` holds class indices; ``W`` (k x d) changes.

    ``variant`` is -1 for the perceptron, else 0, 1, 2 for PA, PA-I, PA-II.
    Returns -1, or the index of the first row holding a NaN or inf.
    """
    n, d = X.shape
    k = W.shape[0]
    for i in range(n):
        for r in range(k):
            scores[r], nonfinite = row_score(W[r], X, i)
            if nonfinite != 0.0:
                return i
        yi = y[i]
        pred = 0
        for r in range(1, k):
            if scores[r] > scores[pred]:
                pred = r
        s = 0 if yi != 0 else 1  # the highest-scoring wrong class, first on ties
        for r in range(k):
            if r != yi and scores[r] > scores[s]:
                s = r
        mistakes[i] = pred != yi
        tau = 0.0
        if variant < 0:
            if scores[yi] <= scores[s]:
                tau = 1.0
        else:
            loss = max(0.0, 1.0 - (scores[yi] - scores[s]))
            sqnorm, _ = row_score(X[i], X, i)
            if loss > 0.0 and sqnorm > 0.0:
                tau = pa_step_size(loss, 2.0 * sqnorm, variant, C)
        updates[i] = tau > 0.0
        if updates[i]:
            for j in range(d):
                W[yi, j] += tau * X[i, j]
                W[s, j] -= tau * X[i, j]
    return -1


class _Multiclass(MulticlassLearner):
    """The perceptron and PA: the update of :func:`multiclass_epoch` on the weight rows."""

    def _rule(self) -> tuple[int, float]:
        """The update of :func:`multiclass_epoch`: (-1, unused C) for the perceptron."""
        return -1, 1.0

    def _epoch(self, X, y):
        A = with_constant_feature(X) if self._bias_feature else X
        W = self._W.copy()
        mistakes, updates = self._flags(X.shape[0])
        variant, C = self._rule()
        args = (y, W, variant, C, mistakes, updates, np.empty(W.shape[0]))
        self._run_loop(A, multiclass_epoch, None, *args)
        self._publish(W)
        return mistakes, updates


class MulticlassPerceptron(_Multiclass):
    """The multiclass perceptron (Crammer and Singer 2003): on an error, move toward the true class.

    Updates when the true class does not score strictly above every other
    class: :math:`\\mathbf w_y \\mathrel{+}= \\mathbf x`, :math:`\\mathbf w_s \\mathrel{-}= \\mathbf x`.

    Parameters
    ----------
    fit_intercept : bool, default=False
        Learn a bias per class, the weight of a constant feature 1 appended to
        every example. Changing it in the middle of a run is a ``ValueError``.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features)
        One weight vector per class, also for two classes (the learner keeps
        and updates a vector per class; scikit-learn's binary models keep one
        row).
    intercept_ : ndarray of shape (n_classes,)
        One bias per class (zeros without ``fit_intercept``).
    classes_ : ndarray of shape (n_classes,)
        The labels, sorted, in their dtype.
    trace_, mistakes_, n_updates_, n_iter_, converged_
        As in :class:`olbook.Perceptron`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [3.0, 1.0], [1.0, 3.0], [-3.0, -1.0]])
    >>> y = np.array([0, 1, 2, 0, 1, 2])
    >>> from olbook import MulticlassPerceptron
    >>> clf = MulticlassPerceptron(max_iter=5).fit(X, y)
    >>> clf.mistakes_
    3
    >>> clf.predict(np.array([[4.0, 0.0], [0.0, 4.0], [-1.0, -4.0]]))
    array([0, 1, 2])
    """

    def __init__(
        self, fit_intercept: bool = False, max_iter: int = 1, trace: bool = True
    ):
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _validate_params(self) -> None:
        self._check_common()


class MulticlassPA(_Multiclass):
    """Multiclass passive-aggressive (Crammer et al. 2006, section 8), max-loss update.

    Parameters
    ----------
    variant : {"PA", "PA-I", "PA-II"}, default="PA-I"
        The variant, as in :class:`olbook.PassiveAggressive`.
    C : float > 0, default=1.0
        The aggressiveness of PA-I and PA-II (unused by PA).
    fit_intercept : bool, default=False
        Learn a bias per class, the weight of a constant feature 1 appended to
        every example. Changing it in the middle of a run is a ``ValueError``.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features)
        One weight vector per class, also for two classes (the learner keeps
        and updates a vector per class; scikit-learn's binary models keep one
        row).
    intercept_ : ndarray of shape (n_classes,)
        One bias per class (zeros without ``fit_intercept``).
    classes_ : ndarray of shape (n_classes,)
        The labels, sorted, in their dtype.
    trace_, mistakes_, n_updates_, n_iter_, converged_
        As in :class:`olbook.Perceptron`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0], [3.0, 1.0], [1.0, 3.0], [-3.0, -1.0]])
    >>> y = np.array([0, 1, 2, 0, 1, 2])
    >>> from olbook import MulticlassPA
    >>> clf = MulticlassPA().fit(X, y)
    >>> clf.mistakes_
    2
    >>> clf.predict(np.array([[4.0, 0.0], [0.0, 4.0], [-1.0, -4.0]]))
    array([0, 1, 2])
    """

    #: Updates whenever the margin is below 1 (or a confidence level), also on
    #: separable data, where it need not ever stop: a last pass that updated says
    #: nothing about separability.
    _updates_mean_not_separable = False

    def __init__(
        self,
        variant: str = "PA-I",
        C: float = 1.0,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.variant = variant
        self.C = C
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _validate_params(self) -> None:
        check_variant(self.variant)
        check_positive_float(self.C, "C")
        self._check_common()

    def _rule(self) -> tuple[int, float]:
        return check_variant(self.variant), float(self.C)
