r"""The support vector machine: hard and soft margin, any kernel (book chapter 2).

Book chapter 2, sections 2.3 and 2.5 (:ref:`marg-sec-dual`,
:ref:`marg-sec-kernels`). The dual is solved by the SMO of :mod:`olbook._smo`.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from . import kernels as _kernels
from ._base import BinaryClassifierMixin, predict_from_scores
from ._kernel_cache import kernel_args, make_cache, precomputed_cache
from ._rowops import row_dots
from ._smo import coordinate_descent, intercept_from_gradient, smo, weight_sqnorm
from ._validation import (
    ConvergenceWarning,
    check_binary_targets,
    check_bool,
    check_positive_float,
    check_positive_int,
    check_X,
    record_feature_names,
)
from .margins import is_linearly_separable

__all__ = ["SVM", "separable_in_feature_space"]

#: Rows of the decision-function Gram block computed at a time (bounds the memory).
_CHUNK = 2048


def separable_in_feature_space(
    K: np.ndarray, y: np.ndarray, *, fit_intercept: bool = True
) -> bool:
    r"""Whether some :math:`f = \langle\mathbf w, \phi(\cdot)\rangle + b` has all :math:`y_i f(\mathbf x_i) \ge 1`.

    With ``fit_intercept=False``, :math:`b = 0`.

    By the representer argument (book section 2.5, :ref:`marg-sec-kernels`) only
    the part of :math:`\mathbf w` in the span of
    :math:`\phi(\mathbf x_1),\dots,\phi(\mathbf x_n)` changes the
    :math:`f(\mathbf x_i)`, so it suffices to search
    :math:`\mathbf w = \sum_j \beta_j\phi(\mathbf x_j)`: the data are
    separable in feature space if and only if the linear program
    :math:`y_i(\sum_j K_{ij}\beta_j + b) \ge 1` is feasible: the program of
    :func:`olbook.find_separator` with the rows of :math:`K` as examples,
    decided by :func:`olbook.is_linearly_separable` (HiGHS).

    A quick sufficient test comes first: if :math:`K` is positive definite,
    :math:`\boldsymbol\beta = K^{-1}\mathbf y` interpolates the labels, so the
    LP is feasible. :math:`K` is certified positive definite when a Cholesky
    factorization of :math:`K - sI` succeeds with
    :math:`s = 2n(n+1)\varepsilon\max_{ij}|K_{ij}|`, larger than Cholesky's
    backward error (Demmel 1989); for the Gaussian kernel on distinct,
    not too close points this skips the LP (which takes seconds for n = 2000).
    """
    n = K.shape[0]
    shift = (
        2.0 * n * (n + 1) * float(np.finfo(np.float64).eps) * float(np.max(np.abs(K)))
    )
    try:
        np.linalg.cholesky(K - shift * np.eye(n))
        return True
    except np.linalg.LinAlgError:
        pass
    # The rows of K are the features of this LP: it is find_separator's program on (K, y).
    return is_linearly_separable(K, y, fit_intercept=fit_intercept)


class SVM(BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
    r"""Support vector machine with a kernel; ``C=None`` is the hard margin.

    Hard margin (Boser, Guyon and Vapnik 1992): the maximum-margin separator

    .. math:: \min_{\mathbf w, b}\ \tfrac12\|\mathbf w\|^2 \quad\text{s.t.}\quad
              y_i(\langle\mathbf w, \phi(\mathbf x_i)\rangle + b) \ge 1 ;

    soft margin (Cortes and Vapnik 1995): add :math:`C\sum_i\xi_i`, with slacks
    :math:`\xi_i \ge 0` in the constraints (the hinge loss). Both are solved
    through the dual

    .. math:: \max_{\boldsymbol\alpha}\ \sum_i\alpha_i - \tfrac12\sum_{i,j}\alpha_i\alpha_j y_i y_j K_{ij}
              \quad\text{s.t.}\quad 0 \le \alpha_i \le C,\ \ \sum_i\alpha_i y_i = 0

    (:math:`C = \infty` for the hard margin), by SMO (Platt 1998) with the
    second-order working-set rule of Fan, Chen and Lin (2005), the rule of
    libsvm, until the KKT gap is below ``tol`` (see :mod:`olbook._smo`). As in
    libsvm, the Gram matrix :math:`K_{ij} = k(\mathbf x_i, \mathbf x_j)` is never
    formed whole: SMO asks for the columns of the two multipliers it changes,
    computed on demand and kept in an LRU cache of ``cache_size`` MB
    (:mod:`olbook._kernel_cache`), and with ``shrinking`` it sets aside the
    examples that stay at a bound. (A kernel that is not one of
    :mod:`olbook.kernels`' four, and the separability test of the hard margin,
    use the whole Gram matrix.) The classifier is

    .. math:: f(\mathbf x) = \sum_{i\in SV}\alpha_i y_i\, k(\mathbf x_i, \mathbf x) + b .

    With ``fit_intercept=False`` the separator passes through the origin
    (:math:`b = 0`, the program :math:`\min\|\mathbf w\|^2` s.t.
    :math:`y_i\mathbf w^\top\mathbf x_i \ge 1` of the *Foundations of Data Science* draft); the dual then
    loses the constraint :math:`\sum_i\alpha_i y_i = 0` and is solved one
    multiplier at a time (:func:`olbook._smo.coordinate_descent`).

    The result equals scikit-learn's ``SVC`` (same dual, same intercept rule;
    ``SVC(kernel="rbf", gamma=g)`` is ``kernels.gaussian(g)``, and a large ``C``
    emulates the hard margin) up to the two solvers' tolerances.

    Hard margin on data that cannot be separated raises ``ValueError`` before any
    optimization: separability is decided exactly by linear programming, with
    :func:`olbook.is_linearly_separable` for the linear kernel and
    :func:`separable_in_feature_space` (the LP in the span of the kernel) for
    the others. (The dual is unbounded on such data: SMO would run forever.)

    Book: section 2.3 (:ref:`marg-sec-dual`); kernels in section 2.5
    (:ref:`marg-sec-kernels`).

    Parameters
    ----------
    kernel : callable, default=olbook.kernels.linear
        A kernel ``k(X, Y)`` returning the Gram block, e.g. ``kernels.gaussian(0.5)``.
    C : float or None, default=None
        The aggressiveness: the penalty of the slacks, which caps every multiplier
        (:math:`\alpha_i \le C`); ``None`` is the hard margin (:math:`C = \infty`).
    tol : float, default=1e-6
        Stop when the KKT gap :math:`m(\boldsymbol\alpha) - M(\boldsymbol\alpha)`
        of Fan et al. is below ``tol`` (libsvm/SVC default to 1e-3). The gap is in
        the units of :math:`y f(\mathbf x)`, whose margin constraint is 1: it bounds
        how far any example is from satisfying the KKT conditions.
    fit_intercept : bool, default=True
        Learn the intercept :math:`b`; ``False`` fixes :math:`b = 0`.
    max_iter : int or None, default=None
        Cap on the SMO iterations (pair updates), scikit-learn ``SVC``'s meaning
        (not passes over the data, as for the online learners); ``None`` is
        libsvm's ``max(10**7, 100 n)``.
        Reaching it warns (``ConvergenceWarning``) with a soft margin and raises
        ``ValueError`` with the hard margin (its answer would not be the max-margin one).
    cache_size : float, default=200.0
        Megabytes of kernel columns kept between iterations (as ``SVC``'s
        ``cache_size``; olbook keeps float64 columns, libsvm float32). At least
        two columns are kept. The result does not depend on it, only the time.
    shrinking : bool, default=True
        Set aside the examples that cannot be part of a violating pair (libsvm's
        shrinking heuristic, as ``SVC``'s ``shrinking``); the optimality check at
        the end is over every example. Faster on large problems; the solution
        meets the same KKT tolerance, though not to the same bits as without.

    Attributes
    ----------
    support_ : ndarray of int, shape (n_SV,)
        Indices of the support vectors (:math:`\alpha_i > 0`), increasing.
    support_vectors_ : ndarray, shape (n_SV, n_features)
    dual_coef_ : ndarray, shape (1, n_SV)
        :math:`\alpha_i y_i` of the support vectors (as in ``SVC``).
    intercept_ : ndarray, shape (1,)
        :math:`b` (``intercept_[0]``; 0.0 with ``fit_intercept=False``), as in ``SVC``.
    coef_ : ndarray, shape (1, n_features)
        :math:`\mathbf w = \sum_i\alpha_i y_i\mathbf x_i` as its row
        (``w = clf.coef_[0]``, ``SVC``'s shape); linear kernel only
        (``AttributeError`` otherwise: :math:`\mathbf w` lives in feature space).
    margin_ : float
        :math:`1/\|\mathbf w\|` with :math:`\|\mathbf w\|^2 = \sum_{ij}\alpha_i\alpha_j y_i y_j K_{ij}`:
        the geometric margin in feature space (hard margin), the half-width of
        the margin band (soft margin); ``inf`` if :math:`\mathbf w = 0`.
    n_iter_ : int
        SMO iterations (pair updates; one multiplier at a time with
        ``fit_intercept=False``), scikit-learn ``SVC``'s meaning (``SVC`` gives
        it as an array with one entry per pair of classes, shape (1,) for two);
        not passes over the data, as ``n_iter_`` of the online learners.
    kkt_gap_ : float
        The final KKT gap :math:`m - M` (below ``tol`` unless ``max_iter`` was reached);
        with ``fit_intercept=False``, the largest KKT violation of a single multiplier.
    classes_ : ndarray of shape (2,)
        The two labels, sorted, in the labels' dtype.
    n_features_in_ : int

    References
    ----------
    B. E. Boser, I. M. Guyon, V. N. Vapnik, "A training algorithm for optimal
    margin classifiers", COLT 1992. C. Cortes, V. Vapnik, "Support-vector
    networks", Machine Learning 20(3), 1995. J. C. Platt, "Sequential minimal
    optimization", MSR-TR-98-14, 1998. R.-E. Fan, P.-H. Chen, C.-J. Lin,
    "Working set selection using second order information for training support
    vector machines", JMLR 6, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import SVM
    >>> clf = SVM().fit(X, y)  # hard margin, linear kernel
    >>> clf.support_  # the examples on the margin
    array([0, 2])
    >>> clf.predict(np.array([[1.0, 1.0], [-2.0, 0.0]]))
    array([ 1, -1])
    """

    def __init__(
        self,
        kernel=_kernels.linear,
        C: float | None = None,
        tol: float = 1e-6,
        fit_intercept: bool = True,
        max_iter: int | None = None,
        cache_size: float = 200.0,
        shrinking: bool = True,
    ):
        self.kernel = kernel
        self.C = C
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.cache_size = cache_size
        self.shrinking = shrinking

    def _validate_params(self) -> tuple[float, float, int | None]:
        if not callable(self.kernel):
            raise ValueError(
                f"kernel must be a callable k(X, Y), e.g. olbook.kernels.gaussian(0.5); got {self.kernel!r}."
            )
        C = np.inf if self.C is None else check_positive_float(self.C, "C")
        tol = check_positive_float(self.tol, "tol")
        check_bool(self.fit_intercept, "fit_intercept")
        max_iter = (
            None
            if self.max_iter is None
            else check_positive_int(self.max_iter, "max_iter")
        )
        check_positive_float(self.cache_size, "cache_size")
        check_bool(self.shrinking, "shrinking")
        return C, tol, max_iter

    def _compiled_spec(self) -> tuple[int, float, float] | None:
        """The kernel's ``(code, p1, p2)`` if it has a compiled form (columns on demand), else None."""
        if not isinstance(self.kernel, _kernels.Kernel):
            return None
        try:
            return self.kernel.spec()
        except ValueError:
            return None

    @property
    def _is_linear(self) -> bool:
        return (
            isinstance(self.kernel, _kernels.Kernel) and self.kernel == _kernels.linear
        )

    def fit(self, X, y):
        """Solve the dual on ``(X, y)`` (labels in {-1, +1}; both present if ``fit_intercept``).

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Invalid parameters or data; hard margin (``C=None``) on data that no
            separator (in the kernel's feature space) separates. The estimator is
            then left exactly as it was.
        """
        C, tol, max_iter = self._validate_params()
        Xa = check_X(X)
        ya, classes = check_binary_targets(y, n_samples=Xa.shape[0])
        fit_b = bool(self.fit_intercept)
        if fit_b and np.all(ya == ya[0]):
            raise ValueError(
                f"y has only one class, {classes[int(ya[0] > 0)]!r}; an SVM with an intercept needs "
                "examples of both classes."
            )
        hard = self.C is None
        spec = self._compiled_spec()
        # The Gram matrix is built only where it is needed whole: a kernel without a compiled
        # form, or the separability test of the hard margin (a Cholesky factorization or an LP).
        K = None
        if spec is None or (hard and not self._is_linear):
            K = _kernels.gram(self.kernel, Xa)
            if spec is None and np.max(np.abs(K - K.T)) > 1e-12 * np.max(np.abs(K)):
                raise ValueError(
                    f"kernel {self.kernel!r} gave a non-symmetric Gram matrix k(X, X); it is no kernel."
                )
        if K is not None:
            cache = precomputed_cache(K)
        else:
            cache = make_cache(spec, Xa, float(self.cache_size), repr(self.kernel))
        if hard:
            separable = (
                is_linearly_separable(Xa, ya, fit_intercept=fit_b)
                if self._is_linear
                else separable_in_feature_space(K, ya, fit_intercept=fit_b)
            )
            if not separable:
                raise ValueError(
                    f"the data are not separable by the kernel {self.kernel!r}"
                    f"{'' if fit_b else ' through the origin'} (decided by linear "
                    "programming: no separator with l1-normalized margin above 1e-9), so the "
                    "hard-margin SVM (C=None) has no solution; use a soft margin "
                    "with a finite C, e.g. SVM(C=1.0)."
                )
        n = Xa.shape[0]
        cap = max(10_000_000, 100 * n) if max_iter is None else max_iter
        alpha = np.zeros(n)
        G = -np.ones(n)  # gradient of 1/2 a'Qa - 1'a at a = 0
        kernel = kernel_args(cache)  # compiles the loops for this kernel only
        if fit_b:
            shrinking = bool(self.shrinking)
            n_iter, gap = smo(cache, ya, C, tol, cap, alpha, G, shrinking, *kernel)
        else:
            n_iter, gap = coordinate_descent(cache, ya, C, tol, cap, alpha, G, *kernel)
        if not (np.all(np.isfinite(alpha)) and np.all(np.isfinite(G))):
            raise ValueError(
                "SMO diverged (non-finite multipliers): the data are numerically not separable "
                "for the hard margin; use a finite C."
            )
        if n_iter >= cap and gap >= tol:
            message = f"SMO stopped after max_iter={cap} iterations with KKT gap {gap:.3g} > tol={tol:g}"
            if hard:
                raise ValueError(
                    message
                    + "; the hard-margin answer would be wrong (the data may be nearly "
                    "non-separable). Use a finite C or a larger max_iter."
                )
            warnings.warn(message + ".", ConvergenceWarning, stacklevel=2)
        support = np.flatnonzero(alpha > 0.0)
        coef = alpha[support] * ya[support]
        w2 = float(weight_sqnorm(alpha, G))
        # Everything is computed; only now is the state changed (a rejected call changes nothing).
        self.support_ = support
        self.support_vectors_ = Xa[support].copy()
        self.dual_coef_ = coef[None, :].copy()
        self.intercept_ = np.array(
            [float(intercept_from_gradient(alpha, ya, G, C)) if fit_b else 0.0]
        )
        self.margin_ = float(1.0 / np.sqrt(w2)) if w2 > 0.0 else np.inf
        self.n_iter_ = int(n_iter)
        self.kkt_gap_ = float(gap)
        self.classes_ = classes
        record_feature_names(self, X)
        self.n_features_in_ = Xa.shape[1]
        self._fit_kernel = self.kernel
        self._coef = self._primal_weights() if self._is_linear else None
        return self

    def _primal_weights(self) -> np.ndarray:
        """:math:`\\mathbf w = \\sum_s c_s \\mathbf x_s` as a row (shape (1, d)), added
        over the support vectors in order."""
        w = row_dots(np.ascontiguousarray(self.support_vectors_.T), self.dual_coef_[0])
        return w[None, :]

    def _check_fitted(self) -> None:
        check_is_fitted(self, "support_")

    @property
    def coef_(self) -> np.ndarray:
        """:math:`\\mathbf w` as the row of an array of shape (1, n_features) (linear kernel only)."""
        self._check_fitted()
        if self._coef is None:
            raise AttributeError(
                f"coef_ exists only for the linear kernel; this SVM was fitted with {self._fit_kernel!r}, "
                "whose w lives in feature space. Use dual_coef_ and support_vectors_ instead."
            )
        return self._coef

    def decision_function(self, X) -> np.ndarray:
        r""":math:`f(\mathbf x) = \sum_{s}\alpha_s y_s k(\mathbf x_s, \mathbf x) + b` for each row, shape (n,).

        Sums are added in a fixed order (the same bits on every CPU, up to the
        last-place rounding of ``exp`` in the Gaussian and Laplacian kernels).
        The kernel is :func:`olbook.kernels.gram`'s (libm ``exp``); training used
        the vectorized ``exp`` of :mod:`olbook._kernel_cache`, which agrees with it
        to about one unit in the last place.
        """
        self._check_fitted()
        Xa = check_X(X, n_features=self.n_features_in_, estimator=self)
        b = float(self.intercept_[0])
        if self._coef is not None:
            return row_dots(Xa, self._coef[0]) + b
        out = np.empty(Xa.shape[0])
        c = self.dual_coef_[0]
        for start in range(0, Xa.shape[0], _CHUNK):
            block = _kernels.gram(
                self._fit_kernel, Xa[start : start + _CHUNK], self.support_vectors_
            )
            out[start : start + _CHUNK] = row_dots(block, c)
        return out + b

    def predict(self, X) -> np.ndarray:
        """Predicted labels in {-1, +1} (a score of exactly 0 is predicted -1)."""
        return predict_from_scores(self.decision_function(X), self.classes_)
