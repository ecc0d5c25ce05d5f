r"""Multiclass online classifiers: the multiclass perceptron and multiclass PA (book section 6.5).

One weight vector :math:`\mathbf w_r` per class; the prediction is the class of
largest score :math:`\mathbf w_r^\top\mathbf x` (a tie goes to the first class in
``classes_``). With :math:`s` the highest-scoring *wrong* class (first on ties),
an update adds :math:`\tau_r\mathbf x` to each row :math:`r`:

* the multiclass perceptron, in the three forms of Crammer and Singer's
  additive ultraconservative family (JMLR 3, 2003; LIBOL's ``M_PerceptronM``,
  ``M_PerceptronU``, ``M_PerceptronS``): when the error set
  :math:`E = \{r \ne y : \mathbf w_r^\top\mathbf x \ge \mathbf w_y^\top\mathbf x\}`
  is not empty, :math:`\tau_y = 1` and the classes of :math:`E` share
  :math:`-1` (``sharing``: all of it on :math:`s`, equal parts, or parts
  proportional to :math:`\mathbf w_r^\top\mathbf x - \mathbf w_y^\top\mathbf x`);
* multiclass PA (Crammer, Dekel, Keshet, Shalev-Shwartz and Singer, JMLR 7,
  2006, section 8, the max-loss update): :math:`\tau_y = -\tau_s = \tau` with
  the multiclass hinge loss
  :math:`\ell = \max(0, 1 - (\mathbf w_y - \mathbf w_s)^\top\mathbf x)` and the
  steps of :mod:`olbook.passive_aggressive` with :math:`\|\mathbf x\|^2` replaced by
  :math:`2\|\mathbf x\|^2` (the update moves two weight vectors).

Labels may be any sortable values (integers, strings): ``classes_`` holds them
sorted; at least two classes are needed. A ``scipy.sparse`` CSR ``X`` is read in
O(nnz) per pass, with the bits of the dense loop (the scores are added in the
fixed order of :mod:`olbook._rowops`). The helpers :func:`class_scores`,
:func:`class_scores_csr` and :func:`rival` serve the other multiclass loops
(:mod:`olbook.multiclass_margin`).
"""

from __future__ import annotations

import numba
import numpy as np

from ._multiclass_base import MulticlassLearner
from ._rowops import (
    LANES,
    csr_add,
    csr_row_score,
    csr_row_sqnorm,
    csr_span,
    row_score,
    with_constant_feature,
)
from ._validation import check_positive_float
from .passive_aggressive import check_variant, pa_step_size

__all__ = [
    "MulticlassPerceptron",
    "MulticlassPA",
    "SHARINGS",
    "check_sharing",
    "multiclass_epoch",
    "multiclass_epoch_csr",
    "multiclass_shares",
    "class_scores",
    "class_scores_csr",
    "rival",
]

#: The forms of sharing of :class:`MulticlassPerceptron`, in the order of the
#: codes the compiled loops take (0, 1, 2).
SHARINGS = ("max", "uniform", "proportional")


# compiled into its callers (see olbook._rowops: a cold start compiles less)
@numba.njit(cache=True, inline="always")
def class_scores(W, X, i, scores):
    """The score of every class on row ``i``: ``scores[r]`` is ``W[r]`` times ``X[i]``,
    summed in the fixed order.

    Returns True if row ``i`` holds a NaN or an inf.
    """
    for r in range(W.shape[0]):
        scores[r], nonfinite = row_score(W[r], X, i)
        if nonfinite != 0.0:
            return True
    return False


@numba.njit(cache=True)
def class_scores_csr(W, data, indices, start, stop, scores, acc):
    """:func:`class_scores` of the sparse row ``data[start:stop]``.

    The bits of the dense row (the fixed order of :mod:`olbook._rowops`).
    """
    for r in range(W.shape[0]):
        scores[r], nonfinite = csr_row_score(W[r], data, indices, start, stop, acc)
        if nonfinite != 0.0:
            return True
    return False


# compiled into its callers (see olbook._rowops: a cold start compiles less)
@numba.njit(cache=True, inline="always")
def rival(scores, yi):
    """``(prediction, s)``: the argmax of ``scores`` and the best class but ``yi``.

    Both are the first one on ties.
    """
    pred = 0
    for r in range(1, scores.shape[0]):
        if scores[r] > scores[pred]:
            pred = r
    s = 0 if yi != 0 else 1
    for r in range(scores.shape[0]):
        if r != yi and scores[r] > scores[s]:
            s = r
    return pred, s


@numba.njit(cache=True)
def multiclass_shares(scores, yi, s, variant, C, sharing, sqnorm, tau):
    """Fill ``tau`` (a coefficient of ``x`` per class); True if the round updates.

    ``variant`` -1 is the perceptron, whose error set
    ``E = {r != yi : scores[r] >= scores[yi]}`` shares ``-1`` by ``sharing``:
    0 (max) all on ``s``; 1 (uniform) ``1/|E|`` each; 2 (proportional)
    ``(scores[r] - scores[yi]) / sum_E (scores[q] - scores[yi])`` (the sum added
    in increasing ``q``; when it is 0, every member of ``E`` ties with ``yi``, the
    shares are uniform). ``variant`` 0, 1, 2 is PA, PA-I, PA-II on the multiclass
    hinge loss with ``||Delta||^2 = 2 sqnorm``.
    """
    tau[:] = 0.0
    margin = scores[yi] - scores[s]
    if variant >= 0:
        loss = max(0.0, 1.0 - margin)
        if loss > 0.0 and sqnorm > 0.0:
            step = pa_step_size(loss, 2.0 * sqnorm, variant, C)
            tau[yi] = step
            tau[s] = -step
            return step > 0.0
        return False
    if margin > 0.0:  # E is empty: scores[s] < scores[yi]
        return False
    tau[yi] = 1.0
    if sharing == 0:
        tau[s] = -1.0
        return True
    n_err = 0
    total = 0.0
    for r in range(scores.shape[0]):
        if r != yi and scores[r] >= scores[yi]:
            n_err += 1
            total += scores[r] - scores[yi]
    for r in range(scores.shape[0]):
        if r != yi and scores[r] >= scores[yi]:
            if sharing == 1 or total == 0.0:
                tau[r] = -(1.0 / n_err)
            else:
                tau[r] = -((scores[r] - scores[yi]) / total)
    return True


@numba.njit(cache=True)
def multiclass_epoch(X, y, W, variant, C, mistakes, updates, scores, sharing=0):
    """One pass over ``(X, y)``; ``y`` holds class indices; ``W`` (k x d) changes.

    ``variant`` is -1 for the perceptron (``sharing`` 0, 1, 2: max, uniform,
    proportional), else 0, 1, 2 for PA, PA-I, PA-II; the coefficients of the
    update are those of :func:`multiclass_shares`. Row ``r`` changes by
    ``tau[r] * x``. Returns -1, or the index of the first row holding a NaN or inf.
    """
    n, d = X.shape
    k = W.shape[0]
    tau = np.empty(k)
    for i in range(n):
        if class_scores(W, X, i, scores):
            return i
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        sqnorm = 0.0
        if variant >= 0:
            sqnorm, _ = row_score(X[i], X, i)
        updates[i] = multiclass_shares(scores, yi, s, variant, C, sharing, sqnorm, tau)
        if updates[i]:
            for r in range(k):
                if tau[r] != 0.0:
                    for j in range(d):
                        W[r, j] += tau[r] * X[i, j]
    return -1


@numba.njit(cache=True)
def multiclass_epoch_csr(
    data, indices, indptr, y, W, variant, C, mistakes, updates, scores, sharing
):
    """:func:`multiclass_epoch` on a CSR matrix.

    O(k nnz) per pass, with the bits of the dense loop.
    """
    n = indptr.shape[0] - 1
    k = W.shape[0]
    tau = np.empty(k)
    acc = np.empty(LANES)
    for i in range(n):
        start, stop = csr_span(indptr, i)
        if class_scores_csr(W, data, indices, start, stop, scores, acc):
            return i
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        sqnorm = 0.0
        if variant >= 0:
            sqnorm = csr_row_sqnorm(data, indices, start, stop, acc)
        updates[i] = multiclass_shares(scores, yi, s, variant, C, sharing, sqnorm, tau)
        if updates[i]:
            for r in range(k):
                if tau[r] != 0.0:
                    csr_add(W[r], tau[r], data, indices, start, stop)
    return -1


class _Multiclass(MulticlassLearner):
    """The perceptron and PA: :func:`multiclass_epoch` on the weight rows."""

    _accepts_sparse = True

    def _rule(self) -> tuple[int, float, int]:
        """(variant, C, sharing) of :func:`multiclass_epoch`."""
        raise NotImplementedError  # pragma: no cover - abstract

    def _epoch(self, X, y):
        A = with_constant_feature(X) if self._bias_feature else X
        W = self._W.copy()
        mistakes, updates = self._flags(X.shape[0])
        variant, C, sharing = self._rule()
        args = (y, W, variant, C, mistakes, updates, np.empty(W.shape[0]), sharing)
        self._run_loop(A, multiclass_epoch, multiclass_epoch_csr, *args)
        self._publish(W)
        return mistakes, updates


class MulticlassPerceptron(_Multiclass):
    r"""The multiclass perceptron (Crammer and Singer 2003), three forms of sharing.

    On a round where some wrong class scores at least as high as the true class
    :math:`y` (the error set
    :math:`E = \{r \ne y : \mathbf w_r^\top\mathbf x \ge \mathbf w_y^\top\mathbf x\}`
    is not empty), :math:`\mathbf w_y \mathrel{+}= \mathbf x` and each
    :math:`r \in E` gets :math:`\mathbf w_r \mathrel{-}= \tau_r\mathbf x` with
    :math:`\sum_{r\in E}\tau_r = 1`: the additive ultraconservative family of
    Crammer and Singer (JMLR 3, 2003), whose every member makes at
    most :math:`2(R/\gamma)^2` mistakes on data separable with margin
    :math:`\gamma` by a unit-norm matrix (book sections 6.5 and 6.6).

    LIBOL's ``M_PerceptronM/U/S`` differ on ties. They update only on a
    prediction mistake (MATLAB's ``max`` takes the first class on a tie), so a
    tie won by :math:`y` is no update there; and ``M_PerceptronU/S`` put in
    :math:`E` only the classes scoring *strictly* above :math:`y`, so when
    :math:`y` loses a tie to classes that only equal its score they move
    :math:`\mathbf w_y` alone (shares summing to less than 1). olbook follows
    the paper (:math:`\ge`; update whenever :math:`E` is not empty). The
    proportional shares use the same scores as LIBOL's,
    :math:`\mathbf w_r^\top\mathbf x - \mathbf w_y^\top\mathbf x`.

    Parameters
    ----------
    sharing : {"max", "uniform", "proportional"}, default="max"
        How the classes of :math:`E` share :math:`-\mathbf x`: all of it on the
        highest-scoring wrong class :math:`s` (first on ties; LIBOL's
        ``M_PerceptronM``); :math:`\tau_r = 1/|E|` (``M_PerceptronU``);
        :math:`\tau_r = (\mathbf w_r - \mathbf w_y)^\top\mathbf x \,/\,
        \sum_{q\in E}(\mathbf w_q - \mathbf w_y)^\top\mathbf x`
        (``M_PerceptronS``; when every class of :math:`E` ties with :math:`y`,
        as at the first round, the sum is 0 and the shares are uniform).
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
    >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0],
    ...               [3.0, 1.0], [1.0, 3.0], [-3.0, -1.0]])
    >>> y = np.array([0, 1, 2, 0, 1, 2])
    >>> from olbook import MulticlassPerceptron
    >>> clf = MulticlassPerceptron(max_iter=5).fit(X, y)
    >>> clf.mistakes_
    3
    >>> clf.predict(np.array([[4.0, 0.0], [0.0, 4.0], [-1.0, -4.0]]))
    array([0, 1, 2])
    >>> uni = MulticlassPerceptron(sharing="uniform")
    >>> uni = uni.partial_fit(X[:1], [0], classes=[0, 1, 2])
    >>> uni.coef_  # all scores tie at 0: E = {1, 2} shares -x equally
    array([[ 2.,  0.],
           [-1.,  0.],
           [-1.,  0.]])
    """

    def __init__(
        self,
        sharing: str = "max",
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.sharing = sharing
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _validate_params(self) -> None:
        check_sharing(self.sharing)
        self._check_common()

    def _rule(self) -> tuple[int, float, int]:
        return -1, 1.0, check_sharing(self.sharing)


def check_sharing(sharing) -> int:
    """The code of ``sharing`` in :data:`SHARINGS`, or a ``ValueError`` naming them."""
    if not isinstance(sharing, str) or sharing not in SHARINGS:
        raise ValueError(f"sharing must be one of {SHARINGS}; got {sharing!r}.")
    return SHARINGS.index(sharing)


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
    >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0],
    ...               [3.0, 1.0], [1.0, 3.0], [-3.0, -1.0]])
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

    def _rule(self) -> tuple[int, float, int]:
        return check_variant(self.variant), float(self.C), 0
