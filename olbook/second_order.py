r"""Second-order online classifiers: a Gaussian over the weights (book sections 6.3-6.4).

Each learner keeps a mean :math:`\boldsymbol\mu` (the weights it predicts with,
``coef_[0]``) and a covariance :math:`\Sigma` (its uncertainty about them,
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
  Pereira (NIPS 2008), with :math:`\phi = \Phi^{-1}(\text{confidence})` (the
  papers' :math:`\eta`, the probability of a correct prediction asked for);
* **SCW-I** and **SCW-II**, soft confidence-weighted (Wang, Zhao and Hoi,
  ICML 2012): variants ``"SCW-I"`` and ``"SCW-II"``.

The second-order perceptron (:class:`SecondOrderPerceptron`; Cesa-Bianchi,
Conconi and Gentile, SIAM J. Comput. 2005) keeps the correlation matrix of the
examples it erred on; it lives with the ellipsoid method IELLIP in
:mod:`olbook.ellipsoid` and is re-exported here.

olbook keeps a square root of the covariance, :math:`\Sigma = UU^\top` with
:math:`U` upper triangular (stored as :math:`T = U^\top`, see :mod:`olbook._linalg`),
never :math:`\Sigma` itself. A round computes :math:`\mathbf f = U^\top\mathbf x` and
:math:`v = \|\mathbf f\|^2`; an update, the precision *increment*
:math:`\Sigma^{-1} \leftarrow \Sigma^{-1} + c\,\mathbf x\mathbf x^\top`
(Sherman-Morrison, :func:`precision_increment`), is Carlson's square-root update
(:func:`olbook._linalg.carlson_downdate`; Carlson, AIAA J. 1973; Bierman,
*Factorization Methods for Discrete Sequential Estimation*, 1977), which also
returns :math:`\Sigma\mathbf x` for the mean. Each round's work is ``d`` independent
dot products and element-wise row updates, with no serial chain of divisions.

*Why it is stable.* (1) Whatever the rounding, the covariance olbook uses is
:math:`T^\top T`: symmetric positive semidefinite by construction, and
``covariance_`` is that product added in one order, exactly symmetric; so
:math:`v = \|\mathbf f\|^2 \ge 0` on every round (subtracting
:math:`\beta\Sigma\mathbf x\mathbf x^\top\Sigma` from :math:`\Sigma`, as LIBOL does,
loses symmetry at once and definiteness after a few thousand rounds). (2) The update
multiplies :math:`U` on the right by the triangular square root of
:math:`I - \mathbf f\mathbf f^\top/(1/c + v)`, a contraction: its coefficients
:math:`b_j = \sqrt{a_{j-1}}/\sqrt{a_j} \le 1` and
:math:`g_j = f_j/(\sqrt{a_{j-1}}\sqrt{a_j})` come from the increasing sums
:math:`a_j = 1/c + \sum_{i \le j} f_i^2` of positive terms (no cancellation), and
each new entry is one :math:`b_jt - g_jk` of the old ones, so its rounding error is
a few units of the last place of the entries of :math:`U`, *relative to their size*.
(3) Every step is homogeneous: scaling :math:`U` by :math:`s` scales
:math:`\mathbf f` and :math:`\Sigma\mathbf x` by :math:`s` and :math:`1/c + v` by
:math:`s^2`, and leaves :math:`b_j` and :math:`g_j\,s^2` unchanged, so the
floating-point operations, hence their relative errors, do not depend on the scale
of :math:`\Sigma`: when CW under label noise drives :math:`\operatorname{tr}\Sigma`
to :math:`10^{-35}` (the entries of :math:`U` near :math:`10^{-18}`, far above the
underflow threshold :math:`10^{-308}`), the error relative to :math:`\Sigma` is what
it is at :math:`\Sigma = I`. The step that would exceed :math:`c\|\mathbf x\|^2 =
10^{250}` is not applied (see :class:`ConfidenceWeighted`), so after :math:`t`
rounds every eigenvalue of :math:`\Sigma` is at least about
:math:`1/(1/a + 10^{250}t)` and its square root stays a normal number. The tests
check a CW run under label noise, down to :math:`\operatorname{tr}\Sigma <
10^{-30}`, against the same rule computed with 60 significant digits
(``tests/test_second_order_stability.py``).
Every sum is added in one fixed order (no BLAS, no ``fastmath``), so the outputs
are the same on every CPU.
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
from ._linalg import covariance_from_cholesky, covariance_from_factor
from ._rowops import with_constant_feature
from ._validation import (
    check_bool,
    check_open_unit,
    check_positive_float,
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

#: SCW's variants, spelled as Wang, Zhao and Hoi (2012) spell them, and their rules.
_SCW_RULES = {"SCW-I": _SCW1, "SCW-II": _SCW2}


def _phi(confidence) -> float:
    """:math:`\\phi = \\Phi^{-1}(\\text{confidence})`, checked: the confidence lies in (1/2, 1)."""
    p = check_open_unit(confidence, "confidence")
    if p <= 0.5:
        raise ValueError(
            "confidence must be in (1/2, 1) so that phi = Phi^-1(confidence) > 0; "
            f"got {confidence!r}."
        )
    return float(norm.ppf(p))


class _GaussianLearner(LinearPredictorMixin, OnlineLearner):
    """Shared state and loop: the mean (``coef_``, ``intercept_``) and the covariance
    ``covariance_``, which starts at ``a I``."""

    #: Updates whenever the margin is below 1 (or a confidence level), also on
    #: separable data, where it need not ever stop: a last pass that updated says
    #: nothing about separability.
    _updates_mean_not_separable = False

    _rule = -1

    @property
    def _accepts_sparse(self) -> bool:
        """The diagonal learners read CSR in O(nnz); the full ones keep a d x d factor (dense only)."""
        return isinstance(self.diagonal, (bool, np.bool_)) and bool(self.diagonal)

    def _params(self) -> tuple[float, float]:  # pragma: no cover - abstract
        """The learner's two numbers for :func:`coefficients`, from its checked hyper-parameters."""
        raise NotImplementedError

    def _validate_params(self) -> None:
        self._check_common()
        check_positive_float(self.a, "a")
        check_bool(self.diagonal, "diagonal")
        self._params()

    def _init_state(self, n_features: int) -> None:
        self._intercept = bool(self.fit_intercept)
        k = n_features + self._intercept
        self._diagonal = bool(self.diagonal)
        # the square root of the covariance, Sigma_1 = a I: full, T = U' with
        # Sigma = U U' = T'T; diagonal, the vector t with Sigma = diag(t^2)
        s = math.sqrt(float(self.a))
        self._factor = np.full(k, s) if self._diagonal else s * np.eye(k)
        self._publish(np.zeros(k))

    @property
    def covariance_(self) -> np.ndarray:
        """:math:`\\Sigma`, shape (d, d), or its diagonal, shape (d,), with ``diagonal=True``."""
        if self._diagonal:
            return self._factor * self._factor
        return covariance_from_factor(self._factor)

    def _publish(self, mu: np.ndarray) -> None:
        """Rebind the mean and ``coef_`` (1, d), ``intercept_`` (1,) from it."""
        d = mu.shape[0] - self._intercept
        self._mu = mu
        self.coef_ = mu[None, :d].copy()
        self.intercept_ = np.array([mu[d] if self._intercept else 0.0])

    def _epoch(self, X, y):
        mu, S = self._mu.copy(), self._factor.copy()
        mistakes, updates = self._flags(X.shape[0])
        p, q = self._params()
        A = with_constant_feature(X) if self._intercept else X
        dense = gaussian_epoch_diagonal if self._diagonal else gaussian_epoch
        csr = gaussian_epoch_diagonal_csr if self._diagonal else None
        args = (y, mu, S, self._rule, p, q, mistakes, updates)
        self._run_loop(A, dense, csr, *args)
        self._factor = S
        self._publish(mu)
        return mistakes, updates


_COMMON = """
    a : float > 0, default=1.0
        The initial matrix: the covariance starts at :math:`\\Sigma_1 = a I`.
    diagonal : bool, default=False
        Keep a diagonal covariance (the diagonal of each precision update
        :math:`c\\,\\mathbf x\\mathbf x^\\top`): :math:`O(d)` per round instead of
        :math:`O(d^2)`, for high dimensions.
    fit_intercept : bool, default=False
        Learn a bias ``intercept_`` as the weight of a constant feature 1
        appended to every example (the mean and the covariance get one more
        coordinate). Changing it in the middle of a run (``partial_fit``) is a
        ``ValueError``.
    max_iter : int, default=1
        The most passes over the data :meth:`fit` makes.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The mean :math:`\\boldsymbol\\mu` (``coef_[0]``), without the coordinate
        of the constant feature.
    intercept_ : ndarray of shape (1,)
        The mean's coordinate of the constant feature (0.0 without
        ``fit_intercept``).
    covariance_ : ndarray of shape (d, d), or (d,) (its diagonal) with ``diagonal=True``
        :math:`\\Sigma` (one more row and column with ``fit_intercept``).
    trace_, mistakes_, n_updates_, n_iter_, converged_ : see :class:`olbook.Perceptron`.
"""

_EXAMPLE = """
    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import {name}
    >>> clf = {call}.fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    {counts}
    >>> clf.coef_.shape, clf.intercept_.shape
    ((1, 2), (1,))
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
"""


class AROW(_GaussianLearner):
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
        + _EXAMPLE.format(name="AROW", call="AROW(r=1.0)", counts="(1, 3)")
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
        self.r = r
        self.a = a
        self.diagonal = diagonal
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _params(self):
        return check_positive_float(self.r, "r"), 0.0


class NAROW(_GaussianLearner):
    __doc__ = (
        r"""NAROW (Orabona and Crammer, NIPS 2010): AROW with an adaptive regularization.

    :math:`r_t = v/(bv - 1)` when :math:`v > 1/b`; when :math:`v \le 1/b` the example
    is already well known (small variance) and there is no update.

    Parameters
    ----------
    b : float > 0, default=1.0
        The threshold :math:`b`: no update when the variance
        :math:`v = \mathbf x^\top\Sigma\mathbf x` is at most :math:`1/b`."""
        + _COMMON
        + _EXAMPLE.format(name="NAROW", call="NAROW()", counts="(1, 2)")
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
        self.b = b
        self.a = a
        self.diagonal = diagonal
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _params(self):
        return check_positive_float(self.b, "b"), 0.0


class NormalHerd(_GaussianLearner):
    __doc__ = (
        r"""Normal herding, NHerd (Crammer and Lee, NIPS 2010), with the full covariance.

    The mean moves as in AROW with :math:`r = 1/C`; the covariance is the one
    obtained by moving every weight vector of the Gaussian ("herding" it) with the
    same linear map, :math:`\Sigma \leftarrow \Sigma - \beta^2(v + 2/C)\Sigma\mathbf x\mathbf x^\top\Sigma`.

    Parameters
    ----------
    C : float > 0, default=1.0
        The aggressiveness :math:`C` (AROW's :math:`1/r`): larger, larger steps."""
        + _COMMON
        + _EXAMPLE.format(name="NormalHerd", call="NormalHerd()", counts="(1, 3)")
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
        self.C = C
        self.a = a
        self.diagonal = diagonal
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _params(self):
        return check_positive_float(self.C, "C"), 0.0


class ConfidenceWeighted(_GaussianLearner):
    __doc__ = (
        r"""Confidence-weighted learning (Dredze, Crammer and Pereira, ICML 2008), exact form.

    Per round: the Gaussian closest in KL divergence to the current one such
    that the current example is classified correctly with probability at least
    ``confidence`` (the papers' :math:`\eta`), i.e. :math:`m \ge \phi\sqrt{v}` with
    :math:`\phi = \Phi^{-1}(\text{confidence})` (the exact solution of Crammer,
    Dredze and Pereira, NIPS 2008).

    On data it cannot separate, CW's variance collapses: a mistake on an example
    of small variance :math:`v` multiplies the precision along it by about
    :math:`\phi^2 m^2/v`, so the precision grows doubly exponentially (the soft
    versions, :class:`SCW`, were made for this). olbook leaves the covariance as it
    is when one precision step :math:`c\|\mathbf x\|^2` would exceed ``1e250``,
    so the numbers stay finite; the mean keeps its updates.

    Parameters
    ----------
    confidence : float in (1/2, 1), default=0.9
        The probability that the current example is classified correctly,
        required of the updated Gaussian (the papers' :math:`\eta`)."""
        + _COMMON
        + _EXAMPLE.format(
            name="ConfidenceWeighted",
            call="ConfidenceWeighted(confidence=0.9)",
            counts="(1, 2)",
        )
    )
    _rule = _CW
    #: One pass of CW from the defaults reaches 0.805 training accuracy on
    #: scikit-learn's two-blob check data (0.90 with ``confidence=0.6``), against
    #: 0.965-0.975 for AROW and SCW with the same defaults: every update makes the
    #: current example meet the constraint m >= phi sqrt(v) exactly, however far
    #: it is on the wrong side, so the mean follows the last few noisy examples
    #: (the soft SCW caps that step by C).
    _poor_score = True

    def __init__(
        self,
        confidence: float = 0.9,
        a: float = 1.0,
        diagonal: bool = False,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.confidence = confidence
        self.a = a
        self.diagonal = diagonal
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _params(self):
        return _phi(self.confidence), 0.0


class SCW(_GaussianLearner):
    __doc__ = (
        r"""Soft confidence-weighted learning SCW-I and SCW-II (Wang, Zhao and Hoi, ICML 2012).

    CW's constraint becomes a penalty :math:`C\,\ell^\phi` (SCW-I) or
    :math:`C\,(\ell^\phi)^2` (SCW-II) of the loss
    :math:`\ell^\phi = \max(0, \phi\sqrt{v} - m)`, with
    :math:`\phi = \Phi^{-1}(\text{confidence})`.

    SCW-II's step is the paper's :math:`\alpha = \max\{0, (-(2mn + \phi^2 mv) + \gamma)/(2(n^2 + nv\phi^2))\}`
    with :math:`n = v + 1/(2C)` and :math:`\gamma = \phi\sqrt{\phi^2m^2v^2 + 4nv(n + v\phi^2)}`;
    the tests solve the per-round problem numerically and find this optimum. (LIBOL's
    ``SCW2.m`` writes ``v_t*2`` and ``phi*2`` for :math:`v^2` and :math:`\phi^2` inside
    :math:`\gamma`, which misses it.)

    Parameters
    ----------
    variant : {"SCW-I", "SCW-II"}, default="SCW-I"
        The paper's name of the variant: the penalty linear (SCW-I) or
        quadratic (SCW-II) in the loss.
    C : float > 0, default=1.0
        The aggressiveness :math:`C`, the cost of the loss (SCW-I: the cap on
        :math:`\alpha`).
    confidence : float in (1/2, 1), default=0.9
        The probability of a correct classification that the loss
        :math:`\ell^\phi` asks for (the paper's :math:`\eta`)."""
        + _COMMON
        + _EXAMPLE.format(name="SCW", call='SCW(variant="SCW-I")', counts="(1, 2)")
    )

    def __init__(
        self,
        variant: str = "SCW-I",
        C: float = 1.0,
        confidence: float = 0.9,
        a: float = 1.0,
        diagonal: bool = False,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.variant = variant
        self.C = C
        self.confidence = confidence
        self.a = a
        self.diagonal = diagonal
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    @property
    def _rule(self) -> int:
        """The rule of the variant (read after :meth:`_params` has checked it)."""
        return _SCW_RULES[self.variant]

    def _params(self):
        if not isinstance(self.variant, str) or self.variant not in _SCW_RULES:
            raise ValueError(
                f"variant must be one of {', '.join(map(repr, _SCW_RULES))}; "
                f"got {self.variant!r}."
            )
        return _phi(self.confidence), check_positive_float(self.C, "C")
