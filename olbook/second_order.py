r"""Second-order online classifiers: a Gaussian over the weights (book sections 6.3-6.4).

Each learner keeps a mean :math:`\boldsymbol\mu` (the weights it predicts with,
``coef_``) and a covariance :math:`\Sigma` (its uncertainty about them,
``covariance_``). At round :math:`t`, with margin :math:`m = y\,\boldsymbol\mu^\top\mathbf x`
and variance :math:`v = \mathbf x^\top\Sigma\mathbf x`, every one of them
updates in the same form,

.. math:: \boldsymbol\mu \leftarrow \boldsymbol\mu + \alpha\, y\, \Sigma\mathbf x, \qquad
          \Sigma \leftarrow \Sigma - \beta\, \Sigma\mathbf x\mathbf x^\top\Sigma,

and they differ only in the two numbers :math:`\alpha, \beta`, each the closed-form
solution of the learner's own per-round problem (:func:`coefficients`):

* **AROW** (Crammer, Kulesza and Dredze, NIPS 2009): :math:`\beta = 1/(v + r)`,
  :math:`\alpha = \max(0, 1 - m)\beta`;
* **NAROW** (Orabona and Crammer, NIPS 2010): AROW with the adaptive
  :math:`r = v/(bv - 1)` when :math:`v > 1/b`, and no update otherwise;
* **NHerd**, normal herding (Crammer and Lee, NIPS 2010), full covariance:
  :math:`\beta = 1/(v + 1/C)`, :math:`\alpha = \max(0, 1-m)\beta`, and
  :math:`\Sigma` shrinks by :math:`\beta^2(v + 2/C)` instead of :math:`\beta`;
* **CW**, confidence-weighted in the exact form of Crammer, Dredze and
  Pereira (NIPS 2008), with :math:`\phi = \Phi^{-1}(\eta)`;
* **SCW-I** and **SCW-II**, soft confidence-weighted (Wang, Zhao and Hoi,
  ICML 2012).

The second-order perceptron (:class:`SecondOrderPerceptron`; Cesa-Bianchi,
Conconi and Gentile, SIAM J. Comput. 2005) keeps the correlation matrix of the
examples it erred on; it lives with the ellipsoid method IELLIP in
:mod:`olbook.ellipsoid` and is re-exported here.

olbook keeps the Cholesky factor :math:`L` of the precision
:math:`\Sigma^{-1} = LL^\top` (stored as :math:`R = L^\top`, see :mod:`olbook._linalg`),
never :math:`\Sigma` itself: a covariance downdate is a
precision *update* :math:`LL^\top + c\,\mathbf x\mathbf x^\top` (Sherman-Morrison,
:func:`precision_increment`), done with plane rotations, so :math:`\Sigma` stays
symmetric positive definite however many rounds are played (subtracting
:math:`\beta\Sigma\mathbf x\mathbf x^\top\Sigma` from :math:`\Sigma`, as LIBOL does,
loses symmetry and then definiteness in floating point). Every sum is added in one
fixed order (no BLAS, no ``fastmath``), so the outputs are the same on every CPU.
One round costs :math:`O(d^2)`, and :math:`O(d)` with ``diagonal=True``; the diagonal
learners also take a ``scipy.sparse`` CSR ``X``, in O(nnz) per round
(:func:`gaussian_epoch_diagonal_csr`), with the bits of the dense loop.
The compiled loops and :func:`coefficients`, :func:`precision_increment` live in
``olbook/_gaussian_loops.py`` and are re-exported here under their public names
(``olbook.second_order.gaussian_epoch``, ...).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from ._base import LinearPredictorMixin, OnlineLearner
from ._gaussian_loops import (
    coefficients,
    gaussian_epoch,
    gaussian_epoch_diagonal,
    gaussian_epoch_diagonal_csr,
    precision_increment,
)
from ._linalg import covariance_from_cholesky
from ._validation import (
    check_bool,
    check_open_unit,
    check_positive_float,
    check_positive_int,
    is_sparse,
    non_finite_error,
)
from .ellipsoid import SecondOrderPerceptron, sop_epoch

__all__ = [
    "AROW",
    "SecondOrderPerceptron",
    "sop_epoch",
    "NAROW",
    "NormalHerd",
    "ConfidenceWeighted",
    "SCW",
    "coefficients",
    "gaussian_epoch",
    "gaussian_epoch_diagonal",
    "gaussian_epoch_diagonal_csr",
    "precision_increment",
    "covariance_from_cholesky",
]

_AROW, _NAROW, _NHERD, _CW, _SCW1, _SCW2 = range(6)


class _Gaussian(LinearPredictorMixin, OnlineLearner):
    """Shared state and loop: mean ``coef_``, covariance ``covariance_`` (starts at ``a I``)."""

    _rule = -1

    @property
    def _accepts_sparse(self) -> bool:
        """The diagonal learners read CSR in O(nnz); the full ones keep a d x d factor (dense only)."""
        return isinstance(self.diagonal, (bool, np.bool_)) and bool(self.diagonal)

    def _params(self) -> tuple[float, float]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _validate_params(self) -> None:
        check_bool(self.fit_intercept, "fit_intercept")
        check_positive_int(self.max_iter, "max_iter")
        check_positive_float(self.a, "a")
        check_bool(self.diagonal, "diagonal")
        self._params()

    def _init_state(self, n_features: int) -> None:
        self._intercept = bool(self.fit_intercept)
        k = n_features + self._intercept
        self._mu = np.zeros(k)
        self._diagonal = bool(self.diagonal)
        # the Cholesky factor of the precision (a vector when diagonal); Sigma_1 = a I
        q = 1.0 / math.sqrt(float(self.a))
        self._precision = np.full(k, q) if self._diagonal else q * np.eye(k)
        self._split()

    @property
    def covariance_(self) -> np.ndarray:
        """:math:`\\Sigma`, shape (d, d), or its diagonal, shape (d,), with ``diagonal=True``."""
        if self._diagonal:
            return 1.0 / (self._precision * self._precision)
        return covariance_from_cholesky(self._precision)

    def _split(self) -> None:
        d = self._mu.shape[0] - self._intercept
        self.coef_ = self._mu[:d].copy()
        self.intercept_ = float(self._mu[d]) if self._intercept else 0.0

    def _epoch(self, X, y):
        if (
            bool(self.fit_intercept) != self._intercept
            or bool(self.diagonal) != self._diagonal
        ):
            raise ValueError(
                "fit_intercept or diagonal changed since this learner started; "
                "call fit to start again."
            )
        n = X.shape[0]
        mu, S = self._mu.copy(), self._precision.copy()
        mistakes = np.empty(n, dtype=np.bool_)
        updates = np.empty(n, dtype=np.bool_)
        p, q = self._params()
        if is_sparse(X):
            import scipy.sparse as sp

            A = sp.hstack([X, np.ones((n, 1))], format="csr") if self._intercept else X
            A.sum_duplicates()
            bad = gaussian_epoch_diagonal_csr(
                A.data,
                A.indices,
                A.indptr,
                y,
                mu,
                S,
                self._rule,
                p,
                q,
                mistakes,
                updates,
            )
        else:
            A = np.hstack([X, np.ones((n, 1))]) if self._intercept else X
            run = gaussian_epoch_diagonal if self._diagonal else gaussian_epoch
            bad = run(
                np.ascontiguousarray(A), y, mu, S, self._rule, p, q, mistakes, updates
            )
        if bad >= 0:
            raise non_finite_error(X.data if is_sparse(X) else X)
        self._mu, self._precision = mu, S
        self._split()
        return mistakes, updates


_COMMON = """
    a : float > 0, default=1.0
        The initial covariance :math:`\\Sigma_1 = a I`.
    diagonal : bool, default=False
        Keep a diagonal covariance (the diagonal of each precision update
        :math:`c\\,\\mathbf x\\mathbf x^\\top`): :math:`O(d)` per round instead of
        :math:`O(d^2)`, for high dimensions.
    fit_intercept : bool, default=False
        Learn a bias (the examples get a constant coordinate 1).
    max_iter : int, default=1
        Maximum number of passes in :meth:`fit`.

    Attributes
    ----------
    coef_, intercept_ : the mean :math:`\\boldsymbol\\mu`.
    covariance_ : ndarray of shape (d, d), or (d,) (its diagonal) with ``diagonal=True``
        (one more row and column with intercept)
    trace_, mistakes_, n_updates_, n_iter_, converged_ : see :class:`olbook.Perceptron`.
"""


class AROW(_Gaussian):
    __doc__ = (
        r"""Adaptive regularization of weights (Crammer, Kulesza and Dredze, NIPS 2009).

    Per round it minimizes
    :math:`\mathrm{KL}(\mathcal N(\boldsymbol\mu,\Sigma)\,\|\,\mathcal N(\boldsymbol\mu_t,\Sigma_t))
    + \frac{1}{2r}\ell_h^2(y, \boldsymbol\mu^\top\mathbf x) + \frac{1}{2r}\mathbf x^\top\Sigma\mathbf x`,
    with the squared hinge :math:`\ell_h^2`; the solution is :math:`\beta = 1/(v + r)`,
    :math:`\alpha = \max(0, 1 - m)\beta`. Updates whenever :math:`m < 1`.

    Parameters
    ----------
    r : float > 0, default=1.0
        The regularization :math:`r` (larger: smaller steps)."""
        + _COMMON
        + """
    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import AROW
    >>> clf = AROW(r=1.0).fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 3)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
"""
    )
    _rule = _AROW

    def __init__(
        self,
        r: float = 1.0,
        a: float = 1.0,
        diagonal: bool = False,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.trace = trace
        self.r, self.a, self.diagonal, self.fit_intercept, self.max_iter = (
            r,
            a,
            diagonal,
            fit_intercept,
            max_iter,
        )

    def _params(self):
        return check_positive_float(self.r, "r"), 0.0


class NAROW(_Gaussian):
    __doc__ = (
        r"""NAROW (Orabona and Crammer, NIPS 2010): AROW with an adaptive regularization.

    :math:`r_t = v/(bv - 1)` when :math:`v > 1/b`; when :math:`v \le 1/b` the example
    is already well known (small variance) and there is no update.

    Parameters
    ----------
    b : float > 0, default=1.0"""
        + _COMMON
        + """
    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import NAROW
    >>> clf = NAROW().fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 2)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
"""
    )
    _rule = _NAROW

    def __init__(
        self,
        b: float = 1.0,
        a: float = 1.0,
        diagonal: bool = False,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.trace = trace
        self.b, self.a, self.diagonal, self.fit_intercept, self.max_iter = (
            b,
            a,
            diagonal,
            fit_intercept,
            max_iter,
        )

    def _params(self):
        return check_positive_float(self.b, "b"), 0.0


class NormalHerd(_Gaussian):
    __doc__ = (
        r"""Normal herding, NHerd (Crammer and Lee, NIPS 2010), with the full covariance.

    The mean moves as in AROW with :math:`r = 1/C`; the covariance is the one
    obtained by moving every weight vector of the Gaussian ("herding" it) with the
    same linear map, :math:`\Sigma \leftarrow \Sigma - \beta^2(v + 2/C)\Sigma\mathbf x\mathbf x^\top\Sigma`.

    Parameters
    ----------
    C : float > 0, default=1.0"""
        + _COMMON
        + """
    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import NormalHerd
    >>> clf = NormalHerd().fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 3)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
"""
    )
    _rule = _NHERD

    def __init__(
        self,
        C: float = 1.0,
        a: float = 1.0,
        diagonal: bool = False,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.trace = trace
        self.C, self.a, self.diagonal, self.fit_intercept, self.max_iter = (
            C,
            a,
            diagonal,
            fit_intercept,
            max_iter,
        )

    def _params(self):
        return check_positive_float(self.C, "C"), 0.0


class ConfidenceWeighted(_Gaussian):
    __doc__ = (
        r"""Confidence-weighted learning (Dredze, Crammer and Pereira, ICML 2008), exact form.

    Per round: the Gaussian closest in KL divergence to the current one such
    that the current example is classified correctly with probability at least
    :math:`\eta`, i.e. :math:`m \ge \phi\sqrt{v}` with :math:`\phi = \Phi^{-1}(\eta)`
    (the exact solution of Crammer, Dredze and Pereira, NIPS 2008).

    On data it cannot separate, CW's variance collapses: a mistake on an example
    of small variance :math:`v` multiplies the precision along it by about
    :math:`\\phi^2 m^2/v`, so the precision grows doubly exponentially (the soft
    versions, :class:`SCW`, were made for this). olbook leaves the covariance as it
    is when one precision step :math:`c\\|\\mathbf x\\|^2` would exceed ``1e250``,
    so the numbers stay finite; the mean keeps its updates.

    Parameters
    ----------
    eta : float in (1/2, 1), default=0.9
        The required probability of a correct prediction."""
        + _COMMON
        + """
    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import ConfidenceWeighted
    >>> clf = ConfidenceWeighted(eta=0.9).fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 2)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
"""
    )
    _rule = _CW

    def __init__(
        self,
        eta: float = 0.9,
        a: float = 1.0,
        diagonal: bool = False,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.trace = trace
        self.eta, self.a, self.diagonal = eta, a, diagonal
        self.fit_intercept, self.max_iter = fit_intercept, max_iter

    def _params(self):
        eta = check_open_unit(self.eta, "eta")
        if eta <= 0.5:
            raise ValueError(
                f"eta must be in (1/2, 1) so that phi = Phi^-1(eta) > 0; got {self.eta!r}."
            )
        return float(norm.ppf(eta)), 0.0


class SCW(_Gaussian):
    __doc__ = (
        r"""Soft confidence-weighted learning SCW-I and SCW-II (Wang, Zhao and Hoi, ICML 2012).

    CW's constraint becomes a penalty :math:`C\,\ell^\phi` (SCW-I) or
    :math:`C\,(\ell^\phi)^2` (SCW-II) of the loss
    :math:`\ell^\phi = \max(0, \phi\sqrt{v} - m)`.

    SCW-II's step is the paper's :math:`\alpha = \max\{0, (-(2mn + \phi^2 mv) + \gamma)/(2(n^2 + nv\phi^2))\}`
    with :math:`n = v + 1/(2C)` and :math:`\gamma = \phi\sqrt{\phi^2m^2v^2 + 4nv(n + v\phi^2)}`;
    the tests solve the per-round problem numerically and find this optimum. (LIBOL's
    ``SCW2.m`` writes ``v_t*2`` and ``phi*2`` for :math:`v^2` and :math:`\phi^2` inside
    :math:`\gamma`, which misses it.)

    Parameters
    ----------
    variant : {"I", "II"}, default="I"
    C : float > 0, default=1.0
    eta : float in (1/2, 1), default=0.9"""
        + _COMMON
        + """
    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import SCW
    >>> clf = SCW(variant="I").fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 2)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
"""
    )

    def __init__(
        self,
        variant: str = "I",
        C: float = 1.0,
        eta: float = 0.9,
        a: float = 1.0,
        diagonal: bool = False,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.trace = trace
        self.variant, self.C, self.eta, self.a, self.diagonal = (
            variant,
            C,
            eta,
            a,
            diagonal,
        )
        self.fit_intercept, self.max_iter = fit_intercept, max_iter

    @property
    def _rule(self) -> int:
        return _SCW1 if self.variant == "I" else _SCW2

    def _params(self):
        if self.variant not in ("I", "II"):
            raise ValueError(f"variant must be 'I' or 'II'; got {self.variant!r}.")
        phi, _ = ConfidenceWeighted._params(self)
        return phi, check_positive_float(self.C, "C")
