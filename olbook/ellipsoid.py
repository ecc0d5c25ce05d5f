r"""The second-order perceptron and the improved ellipsoid method IELLIP (book sections 6.3-6.4).

* :class:`SecondOrderPerceptron` -- Cesa-Bianchi, Conconi and Gentile, "A
  second-order perceptron algorithm", SIAM J. Comput. 34(3), 2005;
* :class:`IELLIP` -- the improved ellipsoid method of Yang, Jin and Ye, "Online
  learning by ellipsoid method", ICML 2009, as LIBOL implements it
  (``IELLIP.m``, Hoi, Wang and Zhao, JMLR 2014).

Both keep a positive definite matrix through rank-one Cholesky updates of its
inverse (see :mod:`olbook.second_order`); every sum in a fixed order.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._base import LinearPredictorMixin, OnlineLearner
from ._linalg import covariance_from_cholesky, rank_one_update, solve_with_factor
from ._rowops import row_score
from ._validation import (
    check_open_unit,
    check_positive_float,
    check_positive_int,
    non_finite_error,
)

__all__ = ["SecondOrderPerceptron", "IELLIP", "sop_epoch", "iellip_epoch"]


@numba.njit(cache=True)
def sop_epoch(X, y, w, M, a, mistakes, updates):
    r"""One pass of the second-order perceptron; ``w`` and ``M`` change in place.

    ``w`` is the sum of :math:`y\mathbf x` over the mistakes.

    ``M`` is the inverse of
    :math:`A = aI + \sum_{\text{mistakes}} \mathbf x\mathbf x^\top`.
    The prediction uses :math:`(A + \mathbf x\mathbf x^\top)^{-1}`, i.e.
    ``M - M x x' M / (1 + x' M x)`` (Sherman-Morrison); only a mistake makes it
    permanent.
    """
    n, d = X.shape
    Mx = np.empty(d)
    for i in range(n):
        _, nonfinite = row_score(w, X, i)
        if nonfinite != 0.0:
            return i
        for j in range(d):
            Mx[j], _ = row_score(X[i], M, j)
        v, _ = row_score(Mx, X, i)
        wMx = 0.0
        for j in range(d):
            wMx += w[j] * Mx[j]
        f = wMx / (1.0 + v)  # w' (M - M x x' M / (1 + v)) x, by Sherman-Morrison
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        updates[i] = y[i] * f <= 0.0
        if updates[i]:
            for j in range(d):
                w[j] += y[i] * X[i, j]
            c = 1.0 / (1.0 + v)
            for j in range(d):
                for k in range(d):
                    M[j, k] -= c * Mx[j] * Mx[k]
    return -1


class SecondOrderPerceptron(LinearPredictorMixin, OnlineLearner):
    r"""The second-order perceptron (Cesa-Bianchi, Conconi and Gentile, SIAM Journal on Computing 34(3), 2005).

    Predicts :math:`\operatorname{sign}(\mathbf v^\top(aI + S S^\top + \mathbf x\mathbf x^\top)^{-1}\mathbf x)`,
    where :math:`S` holds the examples of the past mistakes (updates) and
    :math:`\mathbf v = \sum y\mathbf x` over them; a mistake (or a tie) adds the
    example to :math:`S`. By Sherman-Morrison
    :math:`(A + \mathbf x\mathbf x^\top)^{-1}\mathbf x = A^{-1}\mathbf x/(1 + \mathbf x^\top A^{-1}\mathbf x)`,
    so the prediction has the sign of :math:`\mathbf v^\top A^{-1}\mathbf x` with
    :math:`A = aI + SS^\top`: ``coef_`` is :math:`A^{-1}\mathbf v` and ``predict`` is the
    algorithm's prediction.

    Parameters
    ----------
    a : float > 0, default=1.0
    max_iter : int, default=1

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import SecondOrderPerceptron
    >>> clf = SecondOrderPerceptron().fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 1)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
    """

    def __init__(self, a: float = 1.0, max_iter: int = 1, trace: bool = True):
        self.trace = trace
        self.a, self.max_iter = a, max_iter

    def _validate_params(self) -> None:
        check_positive_float(self.a, "a")
        check_positive_int(self.max_iter, "max_iter")

    def _init_state(self, n_features: int) -> None:
        self.v_ = np.zeros(n_features)
        self.inverse_correlation_ = np.eye(n_features) / float(self.a)
        self._split()

    def _split(self) -> None:
        M, v = self.inverse_correlation_, self.v_
        self.coef_ = np.array([row_score(v, M, j)[0] for j in range(v.shape[0])])
        self.intercept_ = 0.0

    def _epoch(self, X, y):
        n = X.shape[0]
        w, M = self.v_.copy(), self.inverse_correlation_.copy()
        mistakes = np.empty(n, dtype=np.bool_)
        updates = np.empty(n, dtype=np.bool_)
        if sop_epoch(X, y, w, M, float(self.a), mistakes, updates) >= 0:
            raise non_finite_error(X)
        self.v_, self.inverse_correlation_ = w, M
        self._split()
        return mistakes, updates


@numba.njit(cache=True)
def iellip_epoch(X, y, w, R, c0, b, mistakes, updates):
    """One pass of IELLIP; ``w`` and ``R`` change in place.

    ``R`` is ``L'``, the transpose of the Cholesky factor ``L`` of the inverse of ``A``
    (see :mod:`olbook._linalg`).

    On a mistake (``y w.x <= 0``) with ``v = x' A x > 0``: ``g = y x / sqrt(v)``,
    ``w += (1 - y w.x) / sqrt(v) * A g`` and ``A <- (A - c A g g' A) / (1 - c)``, i.e.
    ``A^{-1} <- (1 - c) A^{-1} + c g g'``. The constant ``c`` is multiplied by ``b``
    after every round (LIBOL's schedule). Returns ``(c, bad_row)``.
    """
    n, d = X.shape
    z = np.empty(d)
    Ax = np.empty(d)
    g = np.empty(d)
    c = c0
    for i in range(n):
        f, nonfinite = row_score(w, X, i)
        if nonfinite != 0.0:
            return c, i
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        updates[i] = False
        if y[i] * f <= 0.0:
            v = solve_with_factor(R, X[i], z, Ax)
            if v > 0.0:
                step = (1.0 - y[i] * f) / v
                for j in range(d):
                    w[j] += step * y[i] * Ax[j]
                s = math.sqrt(1.0 - c)
                for j in range(d):
                    g[j] = math.sqrt(c) * y[i] * X[i, j] / math.sqrt(v)
                    for k in range(j, d):
                        R[j, k] *= s
                rank_one_update(R, g)  # (1 - c) A^{-1} + c g g'
                updates[i] = True
        c *= b
    return c, -1


class IELLIP(LinearPredictorMixin, OnlineLearner):
    r"""The improved ellipsoid method IELLIP (Yang, Jin and Ye, ICML 2009), as in LIBOL.

    The learner keeps an ellipsoid of hypotheses, centre :math:`\mathbf w` and
    matrix :math:`A` (starting at :math:`aI`). On a mistake it moves the centre by
    :math:`(1 - y\mathbf w^\top\mathbf x)\,A\mathbf x\,y/v`, :math:`v = \mathbf x^\top A\mathbf x`
    (after the move :math:`y\mathbf w^\top\mathbf x = 1`), and shrinks the ellipsoid
    along :math:`\mathbf x`: :math:`A \leftarrow (A - c\,A\mathbf g\mathbf g^\top A)/(1-c)`
    with :math:`\mathbf g = y\mathbf x/\sqrt v`. The constant :math:`c` decays,
    :math:`c \leftarrow bc`, after every round. This is LIBOL's ``IELLIP.m`` (its
    defaults :math:`a = 1, b = 0.3, c = 0.1`), including its schedule of :math:`c`;
    the book states no bound for it (section 6.4). A tie (:math:`\mathbf w^\top\mathbf x = 0`)
    counts as a mistake, as for the perceptron.

    Parameters
    ----------
    a : float > 0, default=1.0
    b : float in (0, 1], default=0.3
        Decay of ``c`` per round.
    c : float in (0, 1), default=0.1
    max_iter : int, default=1

    Attributes
    ----------
    c_ : float
        The current ``c``.
    covariance_ : ndarray of shape (d, d)
        The matrix :math:`A` of the ellipsoid.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import IELLIP
    >>> clf = IELLIP().fit(X, y)
    >>> clf.mistakes_, clf.n_updates_
    (1, 1)
    >>> X_new = np.array([[1.0, 1.0], [-2.0, 0.0]])
    >>> clf.predict(X_new)
    array([ 1, -1])
    """

    def __init__(
        self,
        a: float = 1.0,
        b: float = 0.3,
        c: float = 0.1,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.trace = trace
        self.a, self.b, self.c, self.max_iter = a, b, c, max_iter

    def _validate_params(self) -> None:
        check_positive_float(self.a, "a")
        if self.b != 1.0:
            check_open_unit(self.b, "b")
        check_open_unit(self.c, "c")
        check_positive_int(self.max_iter, "max_iter")

    def _init_state(self, n_features: int) -> None:
        self.coef_ = np.zeros(n_features)
        self.intercept_ = 0.0
        self._L = np.eye(n_features) / math.sqrt(float(self.a))
        self.c_ = float(self.c)

    @property
    def covariance_(self) -> np.ndarray:
        """The ellipsoid's matrix :math:`A`, shape (d, d), from the factor of its inverse."""
        return covariance_from_cholesky(self._L)

    def _epoch(self, X, y):
        n = X.shape[0]
        w, L = self.coef_.copy(), self._L.copy()
        mistakes = np.empty(n, dtype=np.bool_)
        updates = np.empty(n, dtype=np.bool_)
        c, bad = iellip_epoch(X, y, w, L, self.c_, float(self.b), mistakes, updates)
        if bad >= 0:
            raise non_finite_error(X)
        self.coef_, self._L, self.c_ = w, L, float(c)
        return mistakes, updates
