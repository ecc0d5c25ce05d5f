r"""First-order online classifiers beyond the perceptron and PA (book section 6.2).

* :class:`ROMMA` -- the relaxed online maximum margin algorithm of Li and Long
  (Machine Learning 46, 2002), and its aggressive variant;
* :class:`ALMA` -- Gentile's approximate large margin algorithm ALMA\ :sub:`2`
  (JMLR 2, 2001);
* :class:`OGDClassifier` -- online gradient descent (Zinkevich 2003; the OGD of
  book section 5.5) on the hinge or the logistic loss, with a constant step or
  :math:`\eta/\sqrt t`.

Each per-example loop is compiled with numba and adds every score in one fixed
order, so the outputs are the same on every CPU.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._base import LinearPredictorMixin, OnlineLearner
from ._rowops import (
    csr_add,
    csr_row_score,
    csr_span,
    dot,
    row_score,
    with_constant_feature,
)
from ._validation import (
    check_bool,
    check_open_unit,
    check_positive_float,
)

__all__ = [
    "ROMMA",
    "ALMA",
    "OGDClassifier",
    "romma_epoch",
    "alma_epoch",
    "ogd_step",
    "ogd_epoch",
    "ogd_epoch_csr",
]


@numba.njit(cache=True)
def romma_epoch(X, y, w, aggressive, mistakes, updates):
    """One pass of ROMMA over ``(X, y)``; ``w`` is updated in place.

    ROMMA updates on a mistake (``y w.x <= 0``), aggressive ROMMA whenever
    ``y w.x < 1``. The new weights are the shortest vector in the intersection
    of the half-spaces ``{v : v.w >= ||w||^2}`` and ``{v : y v.x >= 1}``:
    ``v = c w + d x`` with ``c = (|x|^2 |w|^2 - y w.x) / D``,
    ``d = |w|^2 (y - w.x) / D``, ``D = |x|^2 |w|^2 - (w.x)^2``. From ``w = 0`` the
    first update is ``w = y x / |x|^2`` (the shortest vector with ``y v.x >= 1``).
    When ``D = 0`` (``x`` parallel to ``w``) no update is made. Aggressive ROMMA
    can update with ``0 < y w.x < 1``; then, if
    ``y w.x >= |x|^2 |w|^2``, the shortest vector is ``y x / |x|^2`` (only the margin
    constraint binds), where the two-constraint formula above, which LIBOL's
    ``aROMMA.m`` uses in every case, gives a longer vector (the tests solve the
    round's problem numerically and find the shorter one).
    Returns -1, or the index of the first row holding a NaN or inf.
    """
    n, d = X.shape
    for i in range(n):
        f, nonfinite = row_score(w, X, i)
        if nonfinite != 0.0:
            return i
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        violated = y[i] * f < 1.0 if aggressive else y[i] * f <= 0.0
        updates[i] = False
        if not violated:
            continue
        ww = dot(w, w)
        xx = dot(X[i], X[i])
        if xx == 0.0:  # the zero example: no v has y v.x >= 1; no update
            continue
        if ww == 0.0:
            if xx > 0.0:
                for j in range(d):
                    w[j] = y[i] * X[i, j] / xx
                updates[i] = True
            continue
        if y[i] * f >= xx * ww:  # y x/|x|^2 has v.w >= |w|^2: only the margin binds
            for j in range(d):
                w[j] = y[i] * X[i, j] / xx
            updates[i] = True
            continue
        D = xx * ww - f * f
        if D <= 0.0:
            continue
        c = (xx * ww - y[i] * f) / D
        e = ww * (y[i] - f) / D
        for j in range(d):
            w[j] = c * w[j] + e * X[i, j]
        updates[i] = True
    return -1


@numba.njit(cache=True)
def alma_epoch(X, y, w, k0, alpha, B, eta, mistakes, updates):
    """One pass of ALMA_2 over ``(X, y)``; ``w`` changes in place.

    Returns ``(k, bad_row)``.

    Every example is scaled to unit norm. With ``k`` the number of updates so
    far plus one, the margin asked for is ``gamma_k = B / sqrt(k)``; the learner
    updates when ``y w.x <= (1 - alpha) gamma_k`` by ``w += (eta / sqrt(k)) y x`` and
    projects ``w`` back onto the unit ball.
    """
    n, d = X.shape
    k = k0
    for i in range(n):
        f, nonfinite = row_score(w, X, i)
        if nonfinite != 0.0:
            return k, i
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        xx = dot(X[i], X[i])
        updates[i] = False
        if xx == 0.0:
            continue
        nx = math.sqrt(xx)
        if y[i] * f / nx <= (1.0 - alpha) * B / math.sqrt(k):
            step = eta / math.sqrt(k)
            for j in range(d):
                w[j] += step * y[i] * X[i, j] / nx
            ww = dot(w, w)
            if ww > 1.0:
                s = math.sqrt(ww)
                for j in range(d):
                    w[j] /= s
            k += 1
            updates[i] = True
    return k, -1


@numba.njit(cache=True)
def ogd_step(m, t, eta, decay, logistic):
    """The step along ``y x`` at round ``t`` (1-based) for the margin ``m = y w.x``.

    ``eta_t = eta`` or, with ``decay``, ``eta / sqrt(t)``, times the size of the
    negative (sub)gradient's factor: 1 if ``m < 1`` else 0 (hinge, the subgradient
    0 at ``m = 1``), ``1 / (1 + exp(m))`` (logistic).
    """
    if logistic:
        g = 1.0 / (1.0 + math.exp(m)) if m > -700.0 else 1.0
    else:
        g = 1.0 if m < 1.0 else 0.0
    return (eta / math.sqrt(t) if decay else eta) * g


@numba.njit(cache=True)
def ogd_epoch(X, y, w, t0, eta, decay, logistic, mistakes, updates):
    """One pass of OGD on the hinge (``logistic=False``) or logistic loss.

    Returns ``(t, bad_row)``.

    Round ``t`` (1-based, counted over all passes) steps by :func:`ogd_step`
    along ``y x``, the negative (sub)gradient of the loss at ``w``.
    """
    n, d = X.shape
    t = t0
    for i in range(n):
        f, nonfinite = row_score(w, X, i)
        if nonfinite != 0.0:
            return t, i
        t += 1
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        step = ogd_step(y[i] * f, t, eta, decay, logistic)
        updates[i] = step > 0.0
        if updates[i]:
            for j in range(d):
                w[j] += step * y[i] * X[i, j]
    return t, -1


@numba.njit(cache=True)
def ogd_epoch_csr(
    data, indices, indptr, y, w, t0, eta, decay, logistic, mistakes, updates
):
    """:func:`ogd_epoch` on a CSR matrix ``(data, indices, indptr)``: O(nnz), the bits of the dense loop."""
    n = indptr.shape[0] - 1
    acc = np.empty(8)
    t = t0
    for i in range(n):
        start, stop = csr_span(indptr, i)
        f, nonfinite = csr_row_score(w, data, indices, start, stop, acc)
        if nonfinite != 0.0:
            return t, i
        t += 1
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        step = ogd_step(y[i] * f, t, eta, decay, logistic)
        updates[i] = step > 0.0
        if updates[i]:  # step * y[i] * x_j, as the dense loop groups it
            csr_add(w, step * y[i], data, indices, start, stop)
    return t, -1


class _FirstOrder(LinearPredictorMixin, OnlineLearner):
    """Weights from 0; with ``fit_intercept`` the last weight is the bias of a constant feature."""

    def _init_state(self, n_features: int) -> None:
        self._bias_feature = bool(self.fit_intercept)
        self._publish(np.zeros(n_features + self._bias_feature))

    def _publish(self, w: np.ndarray) -> None:
        """Rebind ``coef_`` (1, d) and ``intercept_`` (1,) from the augmented weights ``w``."""
        d = w.shape[0] - self._bias_feature
        self._w = w
        self.coef_ = w[None, :d].copy()
        self.intercept_ = np.array([w[d] if self._bias_feature else 0.0])

    def _start_epoch(self, X):
        """The weights to update (a copy) and the examples the loop reads."""
        return self._w.copy(), with_constant_feature(X) if self._bias_feature else X


class ROMMA(_FirstOrder):
    r"""ROMMA and aggressive ROMMA (Li and Long, "The relaxed online maximum margin algorithm", 2002).

    ROMMA keeps the shortest weight vector consistent with a relaxation of
    all the margin constraints seen so far: the last one,
    :math:`y\,\mathbf v^\top\mathbf x \ge 1`, and the half-space
    :math:`\mathbf v^\top\mathbf w_t \ge \|\mathbf w_t\|^2` that contains the
    previous feasible set. Like the perceptron it makes at most
    :math:`(R/\gamma)^2` mistakes on data separable with margin :math:`\gamma`.

    Parameters
    ----------
    aggressive : bool, default=False
        Update whenever :math:`y\,\mathbf w^\top\mathbf x < 1`, not only on mistakes.
    fit_intercept : bool, default=False
        Learn a bias ``intercept_`` as the weight of a constant feature 1
        appended to every example (the rule, norms included, is the paper's
        rule on the augmented examples). Changing it in the middle of a run
        (``partial_fit``) is a ``ValueError``.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The weights :math:`\mathbf w` (``coef_[0]``), scikit-learn's shape.
    intercept_ : ndarray of shape (1,)
        The bias (0.0 without ``fit_intercept``).
    trace_, mistakes_, n_updates_, n_iter_, converged_
        As in :class:`olbook.Perceptron`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import ROMMA
    >>> clf = ROMMA().fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 1)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
    """

    #: One pass of ROMMA from the defaults reaches 0.830 training accuracy on
    #: scikit-learn's two-blob check data (0.87 after two passes), against
    #: 0.96-0.975 for the perceptron and PA with the same defaults: it moves to
    #: the shortest vector meeting only the last constraint and one half-space,
    #: a smaller step than theirs early on.
    @property
    def _updates_mean_not_separable(self) -> bool:
        """ROMMA updates on mistakes only; aggressive ROMMA below margin 1, also on
        separable data."""
        return not self.aggressive

    _poor_score = True

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
        w, A = self._start_epoch(X)
        mistakes, updates = self._flags(X.shape[0])
        args = (y, w, bool(self.aggressive), mistakes, updates)
        self._run_loop(A, romma_epoch, None, *args)
        self._publish(w)
        return mistakes, updates


class ALMA(_FirstOrder):
    r"""ALMA\ :sub:`2`, the approximate large margin algorithm of Gentile (JMLR 2, 2001), for p = 2.

    On examples scaled to unit norm it approximates the maximum margin: with
    :math:`B = 1/\alpha` and step size :math:`\eta_k = \eta/\sqrt k`,
    :math:`\eta = \sqrt2` (Gentile's choice; the paper calls this scale
    :math:`C`), it updates when the margin is below :math:`(1-\alpha)\gamma_k`,
    :math:`\gamma_k = B/\sqrt k`, and keeps :math:`\|\mathbf w\| \le 1`.

    Parameters
    ----------
    p : 2
        The norm of ALMA\ :sub:`p`; only :math:`p = 2` is implemented.
    alpha : float in (0, 1], default=1.0
        The accuracy: the margin reached is at least :math:`(1-\alpha)` of the best
        (``alpha=1``: no margin asked for beyond 0; LIBOL's ``init_options.m``
        sets 0.9).
    B : float > 0, optional
        The scale of the margin asked for, :math:`\gamma_k = B/\sqrt k`; default
        :math:`1/\alpha`.
    eta : float > 0, optional
        The step size scale: update :math:`k` adds
        :math:`(\eta/\sqrt k)\,y\,\mathbf x/\|\mathbf x\|`; default :math:`\sqrt 2`
        (Gentile's :math:`C`; olbook keeps ``C`` for aggressiveness).
    fit_intercept : bool, default=False
        Learn a bias ``intercept_`` as the weight of a constant feature 1
        appended to every example (the rule, norms included, is the paper's
        rule on the augmented examples). Changing it in the middle of a run
        (``partial_fit``) is a ``ValueError``.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The weights :math:`\mathbf w` (``coef_[0]``), scikit-learn's shape.
    intercept_ : ndarray of shape (1,)
        The bias (0.0 without ``fit_intercept``).
    trace_, mistakes_, n_updates_, n_iter_, converged_
        As in :class:`olbook.Perceptron`.
    k_ : int
        One more than the number of updates so far.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import ALMA
    >>> clf = ALMA().fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 1)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
    """

    def __init__(
        self,
        p: float = 2,
        alpha: float = 1.0,
        B: float | None = None,
        eta: float | None = None,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.p = p
        self.alpha = alpha
        self.B = B
        self.eta = eta
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _validate_params(self) -> None:
        if self.p != 2:
            raise ValueError(
                f"p must be 2: olbook implements ALMA_2 (Euclidean norm) only; got p={self.p!r}."
            )
        if self.alpha != 1.0:
            check_open_unit(self.alpha, "alpha")
        for name in ("B", "eta"):
            if getattr(self, name) is not None:
                check_positive_float(getattr(self, name), name)
        self._check_common()

    def _init_state(self, n_features: int) -> None:
        super()._init_state(n_features)
        self.k_ = 1

    def _epoch(self, X, y):
        w, A = self._start_epoch(X)
        mistakes, updates = self._flags(X.shape[0])
        B = 1.0 / float(self.alpha) if self.B is None else float(self.B)
        eta = math.sqrt(2.0) if self.eta is None else float(self.eta)
        args = (y, w, self.k_, float(self.alpha), B, eta, mistakes, updates)
        (k,) = self._run_loop(A, alma_epoch, None, *args)
        self._publish(w)
        self.k_ = int(k)
        return mistakes, updates


class OGDClassifier(_FirstOrder):
    r"""Online gradient descent on the hinge or logistic loss (Zinkevich 2003; book section 6.2).

    :math:`\mathbf w_{t+1} = \mathbf w_t - \eta_t \nabla\ell(\mathbf w_t; \mathbf x_t, y_t)`
    with step size :math:`\eta_t = \eta` or :math:`\eta/\sqrt t`. The hinge loss updates
    when :math:`y\,\mathbf w^\top\mathbf x < 1`; the logistic loss at every round in
    exact arithmetic, but in float64 its step :math:`1/(1 + e^{m})` is 0 once the
    margin :math:`m` exceeds about 709.78 (then the round is no update).

    A ``scipy.sparse`` CSR ``X`` is read in O(nnz) per pass (:func:`ogd_epoch_csr`),
    with the bits of the dense loop.

    Parameters
    ----------
    loss : {"hinge", "logistic"}, default="hinge"
        The loss whose (sub)gradient steps are taken.
    eta : float > 0, default=1.0
        The step size :math:`\eta` (scikit-learn's ``SGDClassifier`` calls it
        ``eta0``).
    schedule : {"inv_sqrt", "constant"}, default="inv_sqrt"
        :math:`\eta/\sqrt t` (the anytime rate of section 5.5) or a constant step.
    fit_intercept : bool, default=False
        Learn a bias ``intercept_`` as the weight of a constant feature 1
        appended to every example (the rule, norms included, is the paper's
        rule on the augmented examples). Changing it in the middle of a run
        (``partial_fit``) is a ``ValueError``.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes. Both losses update also
        on separable data (the logistic loss at every round, the hinge loss
        below margin 1), so the ``ConvergenceWarning`` of a ``fit`` whose last
        pass updated does not speak of separability.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The weights :math:`\mathbf w` (``coef_[0]``), scikit-learn's shape.
    intercept_ : ndarray of shape (1,)
        The bias (0.0 without ``fit_intercept``).
    trace_, mistakes_, n_updates_, n_iter_, converged_
        As in :class:`olbook.Perceptron`.
    t_ : int
        Rounds played (the step schedule continues across passes).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import OGDClassifier
    >>> clf = OGDClassifier(loss="hinge").fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 1)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
    """

    _accepts_sparse = True

    def __init__(
        self,
        loss: str = "hinge",
        eta: float = 1.0,
        schedule: str = "inv_sqrt",
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.loss = loss
        self.eta = eta
        self.schedule = schedule
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    @property
    def _updates_mean_not_separable(self) -> bool:
        """Never: the logistic loss updates at every round, the hinge loss whenever the
        margin is below 1, also on separable data."""
        return False

    def _validate_params(self) -> None:
        if self.loss not in ("hinge", "logistic"):
            raise ValueError(f"loss must be 'hinge' or 'logistic'; got {self.loss!r}.")
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
        w, A = self._start_epoch(X)
        mistakes, updates = self._flags(X.shape[0])
        decay, logistic = self.schedule == "inv_sqrt", self.loss == "logistic"
        args = (y, w, self.t_, float(self.eta), decay, logistic, mistakes, updates)
        (t,) = self._run_loop(A, ogd_epoch, ogd_epoch_csr, *args)
        self._publish(w)
        self.t_ = int(t)
        return mistakes, updates
