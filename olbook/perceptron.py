"""The perceptron family: PLA and cyclic PLA, the normalized variant,
the averaged and the voted perceptron (book chapter 1).

The per-example loop is :func:`perceptron_epoch`, compiled with numba; it is
the code the book shows and the code that runs. It lives, with its CSR twin
:func:`perceptron_epoch_csr` and the helpers :func:`weight_history`,
:func:`normalize_rows` and :func:`pass_sum`, in ``olbook/_perceptron_loops.py``,
and is re-exported here: ``olbook.perceptron.perceptron_epoch`` is the public name.
"""

from __future__ import annotations

import numpy as np

from ._base import LinearPredictorMixin, OnlineLearner, pass_flags, run_pass
from ._perceptron_loops import (
    normalize_rows,
    pass_sum,
    perceptron_epoch,
    perceptron_epoch_csr,
    weight_history,
)
from ._rowops import csr_row_dots, row_dots
from ._validation import (
    check_X_sparse,
    is_sparse,
)

__all__ = [
    "perceptron_epoch",
    "perceptron_epoch_csr",
    "Perceptron",
    "NormalizedPerceptron",
    "AveragedPerceptron",
    "VotedPerceptron",
    "normalize_rows",
    "pass_sum",
    "run_epoch",
    "weight_history",
]


def run_epoch(X, y, w, b, fit_intercept):
    """Run :func:`perceptron_epoch` on a copy of ``w``; raise ``ValueError`` on NaN/inf.

    ``w`` is a 1-D vector (the row ``coef_[0]`` of a learner) and ``b`` a float.
    A canonical CSR ``X`` runs :func:`perceptron_epoch_csr` instead
    (:func:`olbook._base.run_pass` picks the loop and raises the ``ValueError``
    on a bad row). Returns ``(w, b, mistakes, updates)``; the
    caller's ``w`` is not changed.
    """
    w = w.copy()  # the caller's w is not changed
    mistakes, updates = pass_flags(X.shape[0])
    args = (y, w, float(b), bool(fit_intercept), mistakes, updates)
    (b,) = run_pass(X, perceptron_epoch, perceptron_epoch_csr, *args)
    return w, float(b), mistakes, updates


class Perceptron(LinearPredictorMixin, OnlineLearner):
    r"""Rosenblatt's perceptron (PLA); with ``max_iter > 1``, cyclic PLA.

    Starting from :math:`\mathbf w = \mathbf 0,\ b = 0`, each example
    :math:`(\mathbf x_t, y_t)` is predicted :math:`\hat y_t = +1` if
    :math:`f(\mathbf x_t) = \mathbf w^\top\mathbf x_t + b > 0` and
    :math:`-1` otherwise; whenever :math:`y_t f(\mathbf x_t) \le 0` (a tie
    counts as a mistake, the convention of the Block--Novikoff proof) the
    learner updates

    .. math:: \mathbf w \leftarrow \mathbf w + y_t \mathbf x_t, \qquad b \leftarrow b + y_t .

    One pass in the given order is the online perceptron; more passes, in the
    same order, are cyclic PLA, which stops after the first pass with no update.
    The result is identical to ``sklearn.linear_model.Perceptron(shuffle=False,
    max_iter=max_iter, tol=None, eta0=1.0, alpha=0.0, fit_intercept=...)``
    whenever no score lies within rounding error of 0 (always on the dyadic data of
    :mod:`olbook.data`): olbook adds each score in a fixed blocked order
    (:mod:`olbook._rowops`), scikit-learn left to right. ``X`` may be a
    ``scipy.sparse`` matrix: O(nnz) per pass, the bits of the dense computation.

    If some unit vector :math:`\mathbf u` has :math:`y_t\mathbf u^\top\mathbf x_t \ge \gamma`
    and :math:`\|\mathbf x_t\| \le R` for all :math:`t`, the number of
    updates (hence of mistakes) is at most :math:`(R/\gamma)^2` whatever the
    order and number of passes (Block 1962; Novikoff 1962); with
    ``fit_intercept=True`` the bound holds for the augmented vectors
    :math:`(\mathbf x, 1)`, see :func:`olbook.perceptron_bound`.
    Book: chapter 1, sections 1.2--1.3 (:ref:`perc-sec-pla`,
    :prf:ref:`perc-thm-novikoff`).

    Parameters
    ----------
    fit_intercept : bool, default=False
        Learn a bias :math:`b` (equivalently, append a constant 1 to every example).
    max_iter : int, default=1
        Maximum number of passes over the data in :meth:`fit`.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        :math:`\mathbf w` (as scikit-learn's binary linear models: ``w = coef_[0]``).
    intercept_ : ndarray of shape (1,)
        :math:`b` (``b = intercept_[0]``; always 0 when ``fit_intercept=False``).
    trace_, mistakes_, n_updates_, n_iter_, converged_
        See :class:`olbook._base.OnlineLearner`.

    References
    ----------
    F. Rosenblatt, "The perceptron: a probabilistic model for information storage
    and organization in the brain", Psychological Review 65(6), 1958.
    A. B. J. Novikoff, "On convergence proofs on perceptrons", 1962.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import Perceptron
    >>> clf = Perceptron().fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 1)
    >>> clf.coef_
    array([[2., 1.]])
    >>> clf.intercept_
    array([0.])
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
    """

    _accepts_sparse = True

    def __init__(
        self, fit_intercept: bool = False, max_iter: int = 1, trace: bool = True
    ):
        self.trace = trace
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter

    def _validate_params(self) -> None:
        self._check_common()

    def _init_state(self, n_features: int) -> None:
        self.coef_ = np.zeros((1, n_features))
        self.intercept_ = np.zeros(1)

    def _epoch(self, X, y):
        w, b, mistakes, updates = run_epoch(
            X, y, self.coef_[0], self.intercept_[0], self.fit_intercept
        )
        self.coef_, self.intercept_ = w[None, :], np.array([b])
        return mistakes, updates


class NormalizedPerceptron(Perceptron):
    r"""The perceptron on examples scaled to unit norm (the *Foundations of Data Science* draft, section 6.2).

    Every example :math:`\mathbf a` (with ``fit_intercept=True``, the augmented
    :math:`(\mathbf a, 1)`) is replaced by :math:`\mathbf a/\|\mathbf a\|`
    before the perceptron sees it; the sign of any linear score is unchanged,
    so the set of separators is the same, but now :math:`R = 1`.

    The source starts from :math:`\mathbf w = l_1 \mathbf a_1` rather than
    :math:`\mathbf 0`. That is the same algorithm: from :math:`\mathbf 0` the
    first example always gives :math:`l_1\mathbf w^\top\mathbf a_1 = 0 \le 0`,
    so the first update sets :math:`\mathbf w = l_1\mathbf a_1`. The bound
    "at most :math:`1/\delta^2 - 1` iterations" counts the updates *after*
    that start: ``n_updates_ - 1 <= 1/delta**2 - 1``, i.e. Block--Novikoff with
    :math:`R = 1`. Book: section 1.4 (:prf:ref:`perc-thm-normalized`).

    ``coef_`` and ``intercept_`` act on the normalized examples; since the
    scaling is positive, ``predict`` agrees with the sign of
    ``X @ coef_[0] + intercept_[0]`` on the raw examples, and
    ``decision_function`` returns the normalized score. ``coef_`` has shape
    (1, n_features) and ``intercept_`` shape (1,), as for :class:`Perceptron`.

    The zero vector has no direction: ``fit`` and ``partial_fit`` refuse an
    all-zero example (without ``fit_intercept``) with a ``ValueError``, by design.

    Parameters
    ----------
    fit_intercept : bool, default=False
        Learn a bias :math:`b`: the examples are augmented to :math:`(\mathbf a, 1)`
        before they are normalized.
    max_iter : int, default=1
        Maximum number of passes over the data in :meth:`fit`.

    References
    ----------
    A. Blum, J. Hopcroft, R. Kannan, *Foundations of Data Science*, chapter on
    learning (the *Foundations of Data Science* draft), theorem "perceptron on unit vectors".

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import NormalizedPerceptron
    >>> clf = NormalizedPerceptron().fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 1)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
    """

    def _init_state(self, n_features: int) -> None:
        # The length of the state fixes whether a bias coordinate is learned.
        self._intercept = bool(self.fit_intercept)
        self._w = np.zeros(n_features + self._intercept)
        self._split()

    def _split(self) -> None:
        d = self._w.shape[0] - self._intercept
        self.coef_ = self._w[None, :d].copy()
        self.intercept_ = self._w[d:].copy() if self._intercept else np.zeros(1)

    def _epoch(self, X, y):
        if bool(self.fit_intercept) != self._intercept:
            raise ValueError(
                f"fit_intercept was {self._intercept} when this NormalizedPerceptron started and is now "
                f"{self.fit_intercept}; its weights cannot change length: call fit to start again."
            )
        A = normalize_rows(X, self._intercept)
        self._w, _, mistakes, updates = run_epoch(A, y, self._w, 0.0, False)
        self._split()
        return mistakes, updates

    def decision_function(self, X) -> np.ndarray:
        """Score :math:`\\mathbf w^\\top \\hat{\\mathbf a}` of each normalized example."""
        self._check_fitted()
        Xa = check_X_sparse(
            X, n_features=self.n_features_in_, estimator=self, accept_sparse=True
        )
        A = normalize_rows(Xa, self._intercept)
        return csr_row_dots(A, self._w) if is_sparse(A) else row_dots(A, self._w)


class AveragedPerceptron(Perceptron):
    r"""The averaged perceptron: predict with the mean of the perceptron's weight vectors.

    Training is the perceptron's (the trace records the online predictions of
    the running :math:`\mathbf w_t`); the model returned is

    .. math:: \bar{\mathbf w} = \frac1T\sum_{t=1}^{T} \mathbf w_t, \qquad
              \bar b = \frac1T\sum_{t=1}^{T} b_t,

    where :math:`\mathbf w_t` is the weight vector *after* round :math:`t` and
    :math:`T` counts every round of every pass. This is Freund and Schapire's
    averaged perceptron, and it is identical (up to rounding) to
    ``sklearn.linear_model.SGDClassifier(loss='perceptron', learning_rate='constant',
    eta0=1, penalty=None, average=True, shuffle=False, max_iter=max_iter, tol=None,
    fit_intercept=...)``. Book: section 1.6 (:ref:`perc-sec-averaged`).

    The sum is computed from the updates alone: an update at round :math:`s`
    of a pass of :math:`n` rounds contributes to the :math:`n - s` weight
    vectors that follow it in that pass (0-based :math:`s`).

    Attributes
    ----------
    coef_, intercept_
        The averaged :math:`\bar{\mathbf w}, \bar b`: shapes (1, n_features) and (1,).
    last_coef_, last_intercept_
        The running perceptron state :math:`\mathbf w_T, b_T`: shapes
        (1, n_features) and (1,).

    References
    ----------
    Y. Freund and R. E. Schapire, "Large margin classification using the
    perceptron algorithm", Machine Learning 37(3), 1999.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import AveragedPerceptron
    >>> clf = AveragedPerceptron(max_iter=3).fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 1)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
    """

    _stop_when_converged = False

    def _init_state(self, n_features: int) -> None:
        self.last_coef_ = np.zeros((1, n_features))
        self.last_intercept_ = np.zeros(1)
        self.coef_ = np.zeros((1, n_features))
        self.intercept_ = np.zeros(1)
        self._rounds = 0
        self._w_total = np.zeros(n_features)  # the sum of all weight vectors so far
        self._b_total = 0.0

    def _epoch(self, X, y):
        n = X.shape[0]
        w0, b0 = self.last_coef_[0], float(self.last_intercept_[0])
        w, b, mistakes, updates = run_epoch(X, y, w0, b0, self.fit_intercept)
        self.last_coef_, self.last_intercept_ = w[None, :], np.array([b])
        w_sum, b_sum = pass_sum(X, y, updates, w0, b0, self.fit_intercept)
        # Keep the sum, divide once: the mean of all rounds, (t0 * mean + S) / (t0 + n)
        # without the rounding of t0 * mean.
        self._rounds += n
        self._w_total = self._w_total + w_sum
        self._b_total = float(self._b_total + b_sum)
        self.coef_ = (self._w_total / self._rounds)[None, :]
        self.intercept_ = np.array([self._b_total / self._rounds])
        return mistakes, updates


class VotedPerceptron(Perceptron):
    r"""Freund and Schapire's voted perceptron.

    Training is the perceptron's. Every weight vector :math:`\mathbf v_k` it
    passes through is kept with its count :math:`c_k`: the number of rounds
    it was the current vector *after* the round that created it, that round
    included (Freund and Schapire set :math:`c_{k+1} = 1` on creation). The
    prediction is a weighted vote,

    .. math:: \hat y(\mathbf x) = \operatorname{sign} \sum_k c_k \operatorname{sign}(\mathbf v_k^\top \mathbf x + b_k),

    with :math:`\operatorname{sign}(0) = -1` as everywhere in olbook. Replacing
    the inner sign by the identity gives the averaged perceptron:
    :math:`\sum_k c_k \mathbf v_k / \sum_k c_k` equals
    :class:`AveragedPerceptron`'s ``coef_[0]``. Book: section 1.6
    (:ref:`perc-sec-voted`).

    Attributes
    ----------
    vectors_ : ndarray of shape (n_vectors, n_features)
        :math:`\mathbf v_1 = \mathbf 0, \mathbf v_2, \dots` (one more than the number of updates).
    intercepts_ : ndarray of shape (n_vectors,)
    counts_ : ndarray of int, shape (n_vectors,)
    coef_, intercept_
        The running (last) perceptron vector, as for :class:`Perceptron`
        (shapes (1, n_features) and (1,)).
        ``predict`` does *not* use them alone.

    References
    ----------
    Y. Freund and R. E. Schapire, "Large margin classification using the
    perceptron algorithm", Machine Learning 37(3), 1999.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import VotedPerceptron
    >>> clf = VotedPerceptron(max_iter=3).fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 1)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
    """

    _stop_when_converged = False

    def _init_state(self, n_features: int) -> None:
        super()._init_state(n_features)
        self.vectors_ = np.zeros((1, n_features))
        self.intercepts_ = np.zeros(1)
        self.counts_ = np.zeros(1, dtype=np.int64)

    def _epoch(self, X, y):
        n = X.shape[0]
        w0, b0 = self.coef_[0], self.intercept_[0]
        mistakes, updates = super()._epoch(X, y)
        idx = np.flatnonzero(updates)
        counts = self.counts_.copy()
        counts[-1] += idx[0] if idx.size else n  # rounds the last vector survived
        if idx.size:
            # Running sums in the order the kernel adds them: v_{k+1} = v_k + y x.
            rows = X[idx].toarray() if is_sparse(X) else X[idx]
            steps = np.vstack([w0, y[idx, None] * rows])
            new_vectors = np.cumsum(steps, axis=0)[1:]
            b_steps = np.concatenate(
                [[b0], y[idx] if self.fit_intercept else np.zeros(idx.size)]
            )
            new_intercepts = np.cumsum(b_steps)[1:]
            new_counts = np.diff(np.append(idx, n))
            self.vectors_ = np.vstack([self.vectors_, new_vectors])
            self.intercepts_ = np.concatenate([self.intercepts_, new_intercepts])
            counts = np.concatenate([counts, new_counts])
        self.counts_ = counts
        return mistakes, updates

    def decision_function(self, X) -> np.ndarray:
        r"""The vote :math:`\sum_k c_k \operatorname{sign}(\mathbf v_k^\top\mathbf x + b_k) / \sum_k c_k`.

        A number in [-1, 1]: the weighted fraction of +1 votes minus that of -1 votes.
        """
        self._check_fitted()
        Xa = check_X_sparse(
            X, n_features=self.n_features_in_, estimator=self, accept_sparse=True
        )
        dots = csr_row_dots if is_sparse(Xa) else row_dots
        scores = np.empty((Xa.shape[0], len(self.vectors_)))
        for k, v in enumerate(
            self.vectors_
        ):  # row_dots, not BLAS: the same votes on every CPU
            scores[:, k] = dots(Xa, v)
        votes = np.where(scores + self.intercepts_ > 0.0, 1.0, -1.0)
        total = self.counts_.sum()
        return votes @ self.counts_ / total if total > 0 else np.full(Xa.shape[0], -1.0)
