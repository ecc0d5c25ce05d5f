r"""Multiclass ROMMA and multiclass online gradient descent (book section 6.6).

Both learners keep one weight vector per class and, with :math:`s` the
highest-scoring *wrong* class (first on ties), read a round through Kesler's
construction: the matrix :math:`W` stacked into one vector of :math:`\mathbb R^{kd}`
and the example into :math:`\Delta`, :math:`\mathbf x` in block :math:`y`,
:math:`-\mathbf x` in block :math:`s`, so that
:math:`W\cdot\Delta = (\mathbf w_y - \mathbf w_s)^\top\mathbf x` is the multiclass
margin :math:`m` and :math:`\|\Delta\|^2 = 2\|\mathbf x\|^2`.

* :class:`MulticlassROMMA` -- the binary ROMMA of Li and Long (Machine Learning
  46, 2002; :class:`olbook.ROMMA`) on the stacked vector: LIBOL's ``M_ROMMA`` and
  ``M_aROMMA``;
* :class:`MulticlassOGD` -- online gradient descent (Zinkevich 2003) on the
  multiclass hinge loss :math:`\max(0, 1 - m)`: LIBOL's ``M_OGD``.

The loops are compiled with numba, add every score in the fixed order of
:mod:`olbook._rowops`, and read a ``scipy.sparse`` CSR ``X`` with the bits of the
dense loop (the section "LIBOL's multiclass family" of chapter 6 derives both
rules and checks them).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._multiclass_base import MulticlassLearner
from ._rowops import (
    LANES,
    csr_row_sqnorm,
    csr_span,
    lane_dot,
    row_score,
    with_constant_feature,
)
from ._validation import check_bool, check_positive_float
from .multiclass import class_scores, class_scores_csr, rival

__all__ = [
    "MulticlassROMMA",
    "MulticlassOGD",
    "romma_coefficients",
    "multiclass_romma_epoch",
    "multiclass_romma_epoch_csr",
    "multiclass_ogd_epoch",
    "multiclass_ogd_epoch_csr",
]


@numba.njit(cache=True)
def romma_coefficients(m, xx, ww, aggressive):
    """The ROMMA step on the stacked weights: ``(kind, c, e)``.

    ``m`` is the multiclass margin
    :math:`(\\mathbf w_y - \\mathbf w_s)^\\top\\mathbf x`,
    ``xx`` :math:`\\|\\mathbf x\\|^2` and ``ww`` :math:`\\|W\\|_F^2` (both added in the
    fixed order). With :math:`q = \\|\\Delta\\|^2 = 2\\,xx`, the rule of
    :func:`olbook.first_order.romma_epoch` for the label +1: ``kind`` 0 is no
    update (no violation; :math:`\\mathbf x = 0`; or :math:`D = q\\,ww - m^2 \\le 0`);
    1 sets :math:`W = \\Delta/q` (from :math:`W = 0`, or when only the margin
    constraint binds, :math:`m \\ge q\\,ww`); 2 sets :math:`W = cW + e\\Delta` with
    :math:`c = (q\\,ww - m)/D`, :math:`e = ww\\,(1 - m)/D`.
    """
    violated = m < 1.0 if aggressive else m <= 0.0
    if not violated or xx == 0.0:
        return 0, 0.0, 0.0
    q = 2.0 * xx
    if ww == 0.0 or m >= q * ww:
        return 1, 0.0, 1.0 / q
    D = q * ww - m * m
    if D <= 0.0:
        return 0, 0.0, 0.0
    return 2, (q * ww - m) / D, ww * (1.0 - m) / D


# compiled into its callers (see olbook._rowops: a cold start compiles less)
@numba.njit(cache=True, inline="always")
def _romma_update(W, kind, c):
    """Every row under the step ``kind``: zeroed (1) or scaled by ``c`` (2)."""
    k, d = W.shape
    for r in range(k):
        for j in range(d):
            W[r, j] = 0.0 if kind == 1 else c * W[r, j]


@numba.njit(cache=True)
def multiclass_romma_epoch(X, y, W, aggressive, mistakes, updates, scores):
    """One pass of multiclass ROMMA over ``(X, y)`` (class indices); ``W`` changes.

    Updates when the margin :math:`m \\le 0` (aggressive: :math:`m < 1`) by
    :func:`romma_coefficients`: every row is scaled by ``c`` (or zeroed), then
    ``e x`` is added to row ``y`` and subtracted from row ``s``; an update costs
    O(kd). Returns -1, or the index of the first row holding a NaN or inf.
    """
    n, d = X.shape
    for i in range(n):
        if class_scores(W, X, i, scores):
            return i
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        xx, _ = row_score(X[i], X, i)
        ww = lane_dot(W, 0, W, 0, W.size)
        kind, c, e = romma_coefficients(scores[yi] - scores[s], xx, ww, aggressive)
        updates[i] = kind > 0
        if kind > 0:
            _romma_update(W, kind, c)
            for j in range(d):
                W[yi, j] += e * X[i, j]
                W[s, j] -= e * X[i, j]
    return -1


@numba.njit(cache=True)
def multiclass_romma_epoch_csr(
    data, indices, indptr, y, W, aggressive, mistakes, updates, scores
):
    """:func:`multiclass_romma_epoch` on a CSR matrix: the bits of the dense loop.

    A round without update reads the row in O(k nnz); an update rescales all of
    ``W``, O(kd), as the dense loop does.
    """
    n = indptr.shape[0] - 1
    acc = np.empty(LANES)
    for i in range(n):
        start, stop = csr_span(indptr, i)
        if class_scores_csr(W, data, indices, start, stop, scores, acc):
            return i
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        xx = csr_row_sqnorm(data, indices, start, stop, acc)
        ww = lane_dot(W, 0, W, 0, W.size)
        kind, c, e = romma_coefficients(scores[yi] - scores[s], xx, ww, aggressive)
        updates[i] = kind > 0
        if kind > 0:
            _romma_update(W, kind, c)
            for p in range(start, stop):
                j = np.uint64(indices[p])
                W[yi, j] += e * data[p]
                W[s, j] -= e * data[p]
    return -1


# compiled into its callers (see olbook._rowops: a cold start compiles less)
@numba.njit(cache=True, inline="always")
def _ogd_step(m, t, eta, decay):
    """The step at round ``t`` (1-based): ``eta_t`` if the hinge loss ``1 - m > 0``.

    Else 0 (the subgradient 0 at ``m = 1``).
    """
    if m >= 1.0:
        return 0.0
    return eta / math.sqrt(t) if decay else eta


@numba.njit(cache=True)
def multiclass_ogd_epoch(X, y, W, t0, eta, decay, mistakes, updates, scores):
    """One pass of multiclass OGD on the hinge loss; returns ``(t, bad_row)``.

    Round ``t`` (1-based, counted over all passes) with margin
    :math:`m = (\\mathbf w_y - \\mathbf w_s)^\\top\\mathbf x < 1` adds
    ``eta_t x`` to row ``y`` and subtracts it from row ``s`` (the negative
    subgradient of :math:`\\max(0, 1 - m)`, 0 at :math:`m = 1`), with
    ``eta_t = eta / sqrt(t)`` (``decay``) or ``eta``.
    """
    n, d = X.shape
    t = t0
    for i in range(n):
        if class_scores(W, X, i, scores):
            return t, i
        t += 1
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        step = _ogd_step(scores[yi] - scores[s], t, eta, decay)
        updates[i] = step > 0.0
        if updates[i]:
            for j in range(d):
                W[yi, j] += step * X[i, j]
                W[s, j] -= step * X[i, j]
    return t, -1


@numba.njit(cache=True)
def multiclass_ogd_epoch_csr(
    data, indices, indptr, y, W, t0, eta, decay, mistakes, updates, scores
):
    """:func:`multiclass_ogd_epoch` on a CSR matrix.

    O(k nnz) per pass, with the bits of the dense loop.
    """
    n = indptr.shape[0] - 1
    acc = np.empty(LANES)
    t = t0
    for i in range(n):
        start, stop = csr_span(indptr, i)
        if class_scores_csr(W, data, indices, start, stop, scores, acc):
            return t, i
        t += 1
        yi = y[i]
        pred, s = rival(scores, yi)
        mistakes[i] = pred != yi
        step = _ogd_step(scores[yi] - scores[s], t, eta, decay)
        updates[i] = step > 0.0
        if updates[i]:
            for p in range(start, stop):
                j = np.uint64(indices[p])
                W[yi, j] += step * data[p]
                W[s, j] -= step * data[p]
    return t, -1


class _Kesler(MulticlassLearner):
    _accepts_sparse = True

    def _start_epoch(self, X):
        """The weights to update (a copy), the examples, the flags and a buffer."""
        A = with_constant_feature(X) if self._bias_feature else X
        W = self._W.copy()
        return (W, A, *self._flags(X.shape[0]), np.empty(W.shape[0]))


class MulticlassROMMA(_Kesler):
    r"""Multiclass ROMMA and aggressive ROMMA (Li and Long 2002, Kesler's construction).

    The binary ROMMA rule (:class:`olbook.ROMMA`) applied to the stacked weight
    vector :math:`W \in \mathbb R^{kd}` and :math:`\Delta` (:math:`\mathbf x` in block
    :math:`y`, :math:`-\mathbf x` in block :math:`s`, the best wrong class), whose
    coefficients LIBOL's ``M_ROMMA``/``M_aROMMA`` compute: the new :math:`W` is the
    shortest vector
    :math:`V` with :math:`V\cdot\Delta \ge 1` and :math:`V\cdot W \ge \|W\|^2`,
    :math:`V = cW + e\Delta` (:func:`romma_coefficients`), so every row is
    rescaled. ROMMA updates when the margin
    :math:`m = (\mathbf w_y - \mathbf w_s)^\top\mathbf x \le 0` (a tie won by
    :math:`y` included, as the multiclass perceptron), aggressive ROMMA when
    :math:`m < 1`. Book section 6.6, "LIBOL's multiclass family".

    Where LIBOL's code departs from the problem, olbook solves the problem.
    LIBOL's ``M_ROMMA`` updates on a prediction mistake, so a tie won by
    :math:`y` (first of the tied classes) is no update there; from
    :math:`W = 0` LIBOL adds :math:`\pm\mathbf x` (margin :math:`2\|\mathbf x\|^2`),
    olbook the shortest solution :math:`\Delta/(2\|\mathbf x\|^2)` (margin 1);
    aggressive ROMMA with :math:`m \ge 2\|\mathbf x\|^2\|W\|^2` has only the
    margin constraint binding, solution :math:`\Delta/(2\|\mathbf x\|^2)`, where
    LIBOL's two-constraint formula gives a longer vector (as
    :class:`olbook.ROMMA` and LIBOL's ``aROMMA.m``). And LIBOL rescales only the
    rows :math:`y` and :math:`s`: ``W = W*c_t;`` scales a local copy, and only
    ``model.W(y_t,:)`` and ``model.W(s_t,:)`` are written back, so the other
    rows keep their values where the solution multiplies them by :math:`c`.

    Parameters
    ----------
    aggressive : bool, default=False
        Update whenever the margin is below 1, not only when :math:`m \le 0`.
    fit_intercept : bool, default=False
        Learn a bias per class, the weight of a constant feature 1 appended to
        every example (the rule, norms included, is the paper's rule on the
        augmented examples). Changing it in the middle of a run is a ``ValueError``.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features)
        One weight vector per class, also for two classes.
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
    >>> from olbook import MulticlassROMMA
    >>> clf = MulticlassROMMA(max_iter=5).fit(X, y)
    >>> clf.mistakes_, clf.converged_
    (3, True)
    >>> clf.predict(np.array([[4.0, 0.0], [0.0, 4.0], [-1.0, -4.0]]))
    array([0, 1, 2])
    """

    #: On scikit-learn's three-blob check data (standardized, not separable
    #: through the origin) multiclass ROMMA without intercept reaches 0.65
    #: training accuracy after 1 and after 20 passes (0.91 with
    #: ``fit_intercept``), against 0.93-0.94 for the multiclass perceptron: each
    #: update keeps only the last constraint and one half-space, and on data no
    #: matrix separates it keeps being pulled to the last example's constraint.
    _poor_score = True

    @property
    def _updates_mean_not_separable(self) -> bool:
        """ROMMA updates on margins <= 0 only; aggressive ROMMA below 1, also on
        separable data."""
        return not self.aggressive

    def __init__(
        self,
        aggressive: bool = False,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.aggressive = aggressive
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _validate_params(self) -> None:
        check_bool(self.aggressive, "aggressive")
        self._check_common()

    def _epoch(self, X, y):
        W, A, mistakes, updates, scores = self._start_epoch(X)
        args = (y, W, bool(self.aggressive), mistakes, updates, scores)
        self._run_loop(A, multiclass_romma_epoch, multiclass_romma_epoch_csr, *args)
        self._publish(W)
        return mistakes, updates


class MulticlassOGD(_Kesler):
    r"""Online gradient descent on the multiclass hinge loss (Zinkevich 2003; LIBOL's M_OGD).

    :math:`W_{t+1} = W_t - \eta_t\,\partial\ell_t(W_t)` with
    :math:`\ell_t(W) = \max(0, 1 - (\mathbf w_y - \mathbf w_s)^\top\mathbf x_t)`,
    :math:`s` the best wrong class: when the loss is positive,
    :math:`\mathbf w_y \mathrel{+}= \eta_t\mathbf x_t` and
    :math:`\mathbf w_s \mathrel{-}= \eta_t\mathbf x_t`. The step is
    :math:`\eta_t = \eta/\sqrt t` (``t`` counts the rounds over all passes and
    ``partial_fit`` calls, as LIBOL's ``model.t``) or a constant :math:`\eta`.
    Book section 6.6, "LIBOL's multiclass family".

    Parameters
    ----------
    eta : float > 0, default=1.0
        The step size :math:`\eta` (LIBOL's ``C``).
    schedule : {"inv_sqrt", "constant"}, default="inv_sqrt"
        :math:`\eta/\sqrt t` or a constant step, as :class:`olbook.OGDClassifier`.
    fit_intercept : bool, default=False
        Learn a bias per class, the weight of a constant feature 1 appended to
        every example. Changing it in the middle of a run is a ``ValueError``.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes. The hinge loss updates
        below margin 1, also on separable data, so the ``ConvergenceWarning`` of
        a ``fit`` whose last pass updated does not speak of separability.

    Attributes
    ----------
    coef_ : ndarray of shape (n_classes, n_features)
        One weight vector per class, also for two classes.
    intercept_ : ndarray of shape (n_classes,)
        One bias per class (zeros without ``fit_intercept``).
    classes_ : ndarray of shape (n_classes,)
        The labels, sorted, in their dtype.
    trace_, mistakes_, n_updates_, n_iter_, converged_
        As in :class:`olbook.Perceptron`.
    t_ : int
        Rounds played (the step schedule continues across passes).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, -2.0],
    ...               [3.0, 1.0], [1.0, 3.0], [-3.0, -1.0]])
    >>> y = np.array([0, 1, 2, 0, 1, 2])
    >>> from olbook import MulticlassOGD
    >>> clf = MulticlassOGD(schedule="constant", eta=0.5).fit(X, y)
    >>> clf.mistakes_, clf.t_
    (3, 6)
    >>> clf.predict(np.array([[4.0, 0.0], [0.0, 4.0], [-1.0, -4.0]]))
    array([0, 1, 2])
    """

    _updates_mean_not_separable = False

    def __init__(
        self,
        eta: float = 1.0,
        schedule: str = "inv_sqrt",
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.eta = eta
        self.schedule = schedule
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _validate_params(self) -> None:
        if self.schedule not in ("inv_sqrt", "constant"):
            raise ValueError(
                f"schedule must be 'inv_sqrt' or 'constant'; got {self.schedule!r}."
            )
        check_positive_float(self.eta, "eta")
        self._check_common()

    def _init_state(self, n_features: int) -> None:
        super()._init_state(n_features)
        self.t_ = 0

    def _epoch(self, X, y):
        W, A, mistakes, updates, scores = self._start_epoch(X)
        decay = self.schedule == "inv_sqrt"
        args = (y, W, self.t_, float(self.eta), decay, mistakes, updates, scores)
        (t,) = self._run_loop(A, multiclass_ogd_epoch, multiclass_ogd_epoch_csr, *args)
        self._publish(W)
        self.t_ = int(t)
        return mistakes, updates
