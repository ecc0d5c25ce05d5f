r"""Passive-aggressive classifiers PA, PA-I and PA-II (book section 6.1).

Crammer, Dekel, Keshet, Shalev-Shwartz and Singer, "Online passive-aggressive
algorithms", JMLR 7 (2006), section 3. At round :math:`t` the learner suffers
the hinge loss :math:`\ell_t = \max(0, 1 - y_t\,\mathbf w_t^\top\mathbf x_t)`
and moves to the solution of

.. math:: \mathbf w_{t+1} = \arg\min_{\mathbf w}\ \tfrac12\|\mathbf w - \mathbf w_t\|^2
          \quad\text{s.t.}\quad \ell(\mathbf w; \mathbf x_t, y_t) = 0

(PA), with a slack :math:`\xi` penalized by :math:`C\xi` (PA-I) or
:math:`C\xi^2` (PA-II). The solution is :math:`\mathbf w_{t+1} = \mathbf w_t +
\tau_t y_t \mathbf x_t` with

.. math:: \tau_t = \frac{\ell_t}{\|\mathbf x_t\|^2}, \qquad
          \min\Bigl(C, \frac{\ell_t}{\|\mathbf x_t\|^2}\Bigr), \qquad
          \frac{\ell_t}{\|\mathbf x_t\|^2 + \frac{1}{2C}} .

The learner updates on every margin violation :math:`y_t\mathbf w_t^\top\mathbf x_t < 1`,
not only on mistakes: ``n_updates_`` is usually larger than ``mistakes_``.
With ``fit_intercept=True`` the examples are augmented with a constant 1 (so
:math:`\|\mathbf x_t\|^2` includes it); with ``fit_intercept=False`` the weights
are scikit-learn's ``SGDClassifier(loss="hinge", learning_rate="pa1" | "pa2",
eta0=C, penalty=None)`` (PA-I, PA-II) up to the last bits: olbook adds each score in
the blocked order of :mod:`olbook._rowops`, scikit-learn left to right.

A ``scipy.sparse`` CSR ``X`` is read in O(nnz) per pass (:func:`pa_epoch_csr`),
with the bits of the dense loop.
"""

from __future__ import annotations

import numba
import numpy as np

from ._base import LinearPredictorMixin, OnlineLearner
from ._rowops import csr_add, csr_row_score_sqnorm, csr_span, dot, row_score
from ._validation import (
    check_positive_float,
)

__all__ = [
    "PassiveAggressive",
    "PA_VARIANTS",
    "check_variant",
    "pa_epoch",
    "pa_epoch_csr",
    "pa_step_size",
]

#: The variants, spelled as the paper spells them (Crammer et al. 2006, section 3).

PA_VARIANTS = ("PA", "PA-I", "PA-II")


def check_variant(variant) -> int:
    """The index of ``variant`` in :data:`PA_VARIANTS`, or a ``ValueError`` naming them."""
    if not isinstance(variant, str) or variant not in PA_VARIANTS:
        raise ValueError(f"variant must be one of {PA_VARIANTS}; got {variant!r}.")
    return PA_VARIANTS.index(variant)


@numba.njit(cache=True)
def pa_step_size(loss, sqnorm, variant, C):
    r"""The step :math:`\tau` of PA (variant 0), PA-I (1) or PA-II (2), ``loss > 0``."""
    if variant == 0:
        return loss / sqnorm
    if variant == 1:
        return min(C, loss / sqnorm)
    return loss / (sqnorm + 0.5 / C)


@numba.njit(cache=True)
def pa_epoch(X, y, w, b, fit_intercept, variant, C, mistakes, updates):
    """One pass of PA / PA-I / PA-II over ``(X, y)`` in order; ``w`` changes in place.

    Round ``i``: score ``f = w . x_i (+ b)``; predict +1 if ``f > 0`` else -1;
    the hinge loss ``max(0, 1 - y_i f)``; if it is positive (and the example is
    not the zero vector, whose direction cannot move ``f``) step by
    ``tau y_i x_i``. Returns the new ``b`` and -1, or, at the first row holding a
    NaN or inf, stops before using it and returns that row's index.
    """
    n, d = X.shape
    for i in range(n):
        f, nonfinite = row_score(w, X, i)
        if nonfinite != 0.0:
            return b, i
        if fit_intercept:
            f += b
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        loss = max(0.0, 1.0 - y[i] * f)
        updates[i] = False
        sqnorm = 0.0
        if loss > 0.0:
            x = X[i]
            sqnorm = dot(x, x)
            if fit_intercept:
                sqnorm += 1.0
            updates[i] = sqnorm > 0.0
        if updates[i]:
            step = pa_step_size(loss, sqnorm, variant, C) * y[i]
            for j in range(d):
                w[j] += step * X[i, j]
            if fit_intercept:
                b += step
    return b, -1


@numba.njit(cache=True)
def pa_epoch_csr(
    data, indices, indptr, y, w, b, fit_intercept, variant, C, mistakes, updates
):
    """:func:`pa_epoch` on a CSR matrix ``(data, indices, indptr)``: O(nnz), the bits of the dense loop."""
    n = indptr.shape[0] - 1
    acc, sq_acc = np.empty(8), np.empty(8)
    for i in range(n):
        start, stop = csr_span(indptr, i)
        # the score and ||x||^2 in one reading of the row (the norm of most rounds)
        f, xx, nonfinite = csr_row_score_sqnorm(
            w, data, indices, start, stop, acc, sq_acc
        )
        if nonfinite != 0.0:
            return b, i
        if fit_intercept:
            f += b
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        loss = max(0.0, 1.0 - y[i] * f)
        updates[i] = False
        sqnorm = 0.0
        if loss > 0.0:
            sqnorm = xx
            if fit_intercept:
                sqnorm += 1.0
            updates[i] = sqnorm > 0.0
        if updates[i]:
            step = pa_step_size(loss, sqnorm, variant, C) * y[i]
            csr_add(w, step, data, indices, start, stop)
            if fit_intercept:
                b += step
    return b, -1


class PassiveAggressive(LinearPredictorMixin, OnlineLearner):
    r"""The passive-aggressive classifiers of Crammer et al. (2006): PA, PA-I and PA-II.

    Parameters
    ----------
    variant : {"PA", "PA-I", "PA-II"}, default="PA-I"
        The variant, as the paper names it: which per-round problem is solved: no slack (PA; for separable data),
        linear slack (PA-I) or quadratic slack (PA-II).
    C : float > 0, default=1.0
        The aggressiveness of PA-I and PA-II: the cap on the step (PA-I) or the
        weight of the squared slack (PA-II); unused by PA.
    fit_intercept : bool, default=False
        Learn a bias (the examples get a constant coordinate 1).
    max_iter : int, default=1
        The most passes over the data :meth:`fit` makes; it stops early after a pass
        with no update (then every example has margin at least 1).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The current weights :math:`\mathbf w` (``coef_[0]``).
    intercept_ : ndarray of shape (1,)
        The current bias (0.0 without ``fit_intercept``).
    trace_, mistakes_, n_updates_, n_iter_, converged_ : see :class:`olbook.Perceptron`.

    References
    ----------
    K. Crammer, O. Dekel, J. Keshet, S. Shalev-Shwartz and Y. Singer, "Online
    passive-aggressive algorithms", JMLR 7:551-585, 2006, section 3 (the updates),
    Lemma 1 and Theorems 2, 4 and 5 (the bounds proved in book section 6.1).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import PassiveAggressive
    >>> clf = PassiveAggressive(variant="PA-I", C=1.0).fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 2)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
    """

    #: Updates whenever the margin is below 1 (or a confidence level), also on
    #: separable data, where it need not ever stop: a last pass that updated says
    #: nothing about separability.
    _updates_mean_not_separable = False

    _accepts_sparse = True

    def __init__(
        self,
        variant: str = "PA-I",
        C: float = 1.0,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.trace = trace
        self.variant = variant
        self.C = C
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter

    def _validate_params(self) -> None:
        check_variant(self.variant)
        check_positive_float(self.C, "C")
        self._check_common()

    def _init_state(self, n_features: int) -> None:
        self.coef_ = np.zeros((1, n_features))
        self.intercept_ = np.zeros(1)

    def _epoch(self, X, y):
        w = self.coef_[0].copy()
        mistakes, updates = self._flags(X.shape[0])
        args = (
            y,
            w,
            float(self.intercept_[0]),
            bool(self.fit_intercept),
            check_variant(self.variant),
            float(self.C),
            mistakes,
            updates,
        )
        (b,) = self._run_loop(X, pa_epoch, pa_epoch_csr, *args)
        self.coef_, self.intercept_ = w[None, :], np.array([b])
        return mistakes, updates
