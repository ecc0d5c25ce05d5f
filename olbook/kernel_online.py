r"""Online learning with kernels: NORMA and the kernel perceptron (book chapter 7).

Kivinen, Smola and Williamson, "Online learning with kernels", IEEE Transactions
on Signal Processing 52(8), 2004. The hypothesis is an expansion
:math:`f = \sum_i \alpha_i k(\mathbf x_i, \cdot)` in the reproducing kernel Hilbert
space of :math:`k`; one step of stochastic gradient descent on the instantaneous
regularized risk :math:`\ell(y_t, f(\mathbf x_t)) + \tfrac{\lambda}{2}\|f\|^2` is

.. math:: f \leftarrow (1 - \eta_t\lambda) f - \eta_t\,\ell'(y_t, f(\mathbf x_t))\,k(\mathbf x_t, \cdot),

that is: every coefficient shrinks by :math:`1 - \eta_t\lambda`, and the new
example enters with :math:`\alpha_t = -\eta_t\ell'(y_t, f(\mathbf x_t))` (when that
is not 0). olbook keeps one running scale :math:`s` with
:math:`\alpha_i = s\beta_i`, so the shrink costs :math:`O(1)`, not one multiplication
per stored term; the scale is folded back into the :math:`\beta_i` before it
underflows. With ``budget=tau`` only the last :math:`\tau` terms are kept
(truncation, in a ring buffer), so a step costs :math:`O(\tau d)` however long the
stream.

Every kernel learner here (and :class:`olbook.Forgetron`) exposes its hypothesis
as scikit-learn's ``SVC`` does: ``support_vectors_`` of shape (n_SV, d), the
stored examples, and ``dual_coef_`` of shape (1, n_SV), their signed coefficients
(:math:`\alpha_i` of the expansion; :math:`y_i\alpha_i` in the SVM's notation).

Losses (``y`` in {-1, +1}): ``"hinge"`` with margin :math:`\rho`,
:math:`\ell = \max(0, \rho - yf)`, whose subgradient :math:`-y` is taken when
:math:`yf \le \rho` (as the perceptron counts a tie); with ``nu`` the margin is
learned as in NORMA\ :sub:`ν`: :math:`\rho \leftarrow \rho - \eta_t(1-\nu)` after a margin
error, :math:`\rho \leftarrow \rho + \eta_t\nu` otherwise; ``"logistic"``,
:math:`\ell = \ln(1 + e^{-yf})`; ``"squared"``, :math:`\ell = \tfrac12(y - f)^2`
(least squares on the labels).

Scores come from :func:`stored_score`, whose kernel values have the arithmetic of
:func:`olbook.kernels.kernel_value` and of :mod:`olbook.kernels`' Gram blocks, and
every sum runs over the stored terms from the oldest to the newest: the outputs are
the same on every CPU. The stored examples are kept as the columns of a
``(d, capacity)`` array, so that one round computes the dot products (or squared
distances) to all of them in vectorized loops that leave every sum in its order.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable

import numba
import numpy as np
from sklearn.utils.validation import check_is_fitted

from . import kernels as _kernels
from ._base import OnlineLearner
from ._rowops import row_dots
from ._validation import (
    check_nonnegative_float,
    check_open_unit,
    check_positive_float,
    check_positive_int,
    check_rng,
    check_X,
)

__all__ = [
    "NORMA",
    "KernelPerceptron",
    "BudgetPerceptron",
    "StoredExamplesLearner",
    "norma_epoch",
    "budget_epoch",
    "decaying_eta",
]

_LOSSES = ("hinge", "logistic", "squared", "perceptron")
#: Fold the running scale into the coefficients when it falls below this.
_MIN_SCALE = 1e-100


class _DecayingEta:
    """The schedule ``t -> 1/(3 lam sqrt(t))``: picklable, and printed as it is written."""

    __slots__ = ("lam",)

    def __init__(self, lam: float) -> None:
        self.lam = lam

    def __call__(self, t: int) -> float:
        return 1.0 / (3.0 * self.lam * math.sqrt(t))

    def __repr__(self) -> str:
        return f"decaying_eta({self.lam!r})"

    def __eq__(self, other) -> bool:
        return type(other) is _DecayingEta and other.lam == self.lam

    def __hash__(self) -> int:
        return hash(("decaying_eta", self.lam))

    def __reduce__(self):
        return (_DecayingEta, (self.lam,))


def decaying_eta(lam: float) -> Callable[[int], float]:
    r"""The schedule :math:`\eta_t = 1/(3\lambda\sqrt t)` of the notes on kernel online
    learning.

    A function of the (1-based) round ``t``. It is an object of a module class,
    not a lambda, so that a learner using it can be pickled and cloned, and its
    ``repr`` is ``decaying_eta(lam)``, the call that made it (so a learner's
    ``repr`` shows it, and is the same in every process).
    """
    lam = check_positive_float(lam, "lam")
    return _DecayingEta(lam)


@numba.njit(cache=True, inline="always")
def row_is_finite(X, i):
    """Whether row ``i`` of ``X`` holds no NaN and no inf.

    ``0 * x`` is 0 for a finite ``x`` and NaN otherwise; the sum of these is 0
    exactly when the row is finite.
    """
    z = 0.0
    for k in range(X.shape[1]):
        z += X[i, k] * 0.0
    return z == 0.0


@numba.njit(cache=True, inline="always")
def stored_score(code, p1, p2, SVT, coef, head, count, x, buf):
    """The score :math:`\\sum_r c_r k(\\mathbf s_r, \\mathbf x)`, oldest term first.

    The stored examples are the *columns* of ``SVT`` (shape ``(d, capacity)``), a
    ring from slot ``head`` on, with coefficients ``coef``; ``(code, p1, p2)`` is
    the kernel's :meth:`olbook.kernels.Kernel.spec`. The arithmetic is that of
    :func:`olbook.kernels.kernel_value` and the Gram blocks: each dot product or
    squared distance adds its coordinates in increasing order, and the terms are
    added oldest first, so the score has the same bits on every CPU. The dot
    products (squared distances) of all stored terms are built together in
    ``buf`` (one entry per slot), one coordinate at a time: a loop over
    contiguous slots, which the compiler vectorizes without changing any sum.
    """
    d, cap = SVT.shape
    # the slots head..head+count-1, or all of them when the ring wraps around (a
    # slot holding no term, filled with zeros or an old example, is not added)
    lo, hi = (head, head + count) if head + count <= cap else (0, cap)
    for b in range(lo, hi, 512):  # blocks of slots: a block of buf stays in cache
        e = min(b + 512, hi)
        for s in range(b, e):
            buf[s] = 0.0
        if code <= 1:
            for k in range(d):
                xk = x[k]
                for s in range(b, e):
                    buf[s] += SVT[k, s] * xk
        else:
            for k in range(d):
                xk = x[k]
                for s in range(b, e):
                    t = SVT[k, s] - xk
                    buf[s] += t * t
    f = 0.0
    s = head
    for _ in range(count):
        v = buf[s]
        if code == 1:
            v = (v + p2) ** p1
        elif code == 2:
            v = np.exp(-p1 * v)
        elif code == 3:
            v = np.exp(-p1 * np.sqrt(v))
        f += coef[s] * v
        s = s + 1 if s + 1 < cap else 0
    return f


@numba.njit(cache=True)
def norma_epoch(
    X, y, SVT, beta, state, etas, kspec, lam, loss, nu, mistakes, updates, buf
):
    """One pass of NORMA; the buffer ``SVT``/``beta`` and ``state`` change in place.

    ``state = [count, head, scale, rho]``: ``count`` terms are stored (the
    columns of ``SVT``), the oldest at slot ``head`` of the ring (capacity
    ``SVT.shape[1]``); :math:`\\alpha_i = s\\beta_i`.
    ``loss`` is 0 hinge, 1 logistic, 2 squared, 3 perceptron (update when
    ``y f <= 0``, step 1). ``nu < 0`` keeps the margin ``rho`` fixed.
    ``buf`` (length ``SVT.shape[1]``) is scratch space for :func:`stored_score`.
    Returns -1, or the index of the first row holding a NaN or inf.
    """
    n, d = X.shape
    cap = SVT.shape[1]
    code, p1, p2 = kspec
    count, head, scale, rho = int(state[0]), int(state[1]), state[2], state[3]
    for i in range(n):
        if not row_is_finite(X, i):
            state[0], state[1], state[2], state[3] = count, head, scale, rho
            return i
        f = scale * stored_score(code, p1, p2, SVT, beta, head, count, X[i], buf)
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        eta = etas[i]
        if loss == 0:
            g = -y[i] if y[i] * f <= rho else 0.0
        elif loss == 1:
            m = y[i] * f
            g = -y[i] / (1.0 + math.exp(m)) if m < 700.0 else 0.0
        elif loss == 2:
            g = f - y[i]
        else:
            g = -y[i] if y[i] * f <= 0.0 else 0.0
        if loss == 0 and nu >= 0.0:
            rho += eta * (-(1.0 - nu) if g != 0.0 else nu)
        scale *= 1.0 - eta * lam
        updates[i] = g != 0.0
        if updates[i]:
            slot = head + count - cap if head + count >= cap else head + count
            if count == cap:  # budget full: the newest replaces the oldest
                slot = head
                head = head + 1 if head + 1 < cap else 0
            else:
                count += 1
            for k in range(d):
                SVT[k, slot] = X[i, k]
            beta[slot] = -eta * g / scale
        if scale < _MIN_SCALE:
            s = head
            for _ in range(count):
                beta[s] *= scale
                s = s + 1 if s + 1 < cap else 0
            scale = 1.0
    state[0], state[1], state[2], state[3] = count, head, scale, rho
    return -1


class StoredExamplesLearner(OnlineLearner):
    """Shared code of the kernel learners that keep ``support_vectors_`` and ``dual_coef_``.

    The fitted hypothesis has scikit-learn ``SVC``'s attributes and shapes:
    ``support_vectors_`` (n_SV, n_features), the stored examples, and
    ``dual_coef_`` (1, n_SV), their signed coefficients :math:`\\alpha_j`, so that
    :math:`f(\\mathbf x) = \\sum_j \\alpha_j k(\\mathbf x_j, \\mathbf x)`
    (``dual_coef_[0]`` is the vector of the :math:`\\alpha_j`).

    ``kernel`` (an olbook kernel, default ``gaussian(1.0)``) is checked at fit time;
    ``decision_function`` sums :math:`\\alpha_j k(\\mathbf x_j, \\mathbf x)` over the
    stored examples in their order, with :func:`olbook.row_dots`.
    """

    def _kernel(self):
        return _kernels.gaussian(1.0) if self.kernel is None else self.kernel

    def _check_fitted(self) -> None:
        check_is_fitted(self, "dual_coef_")

    def _publish(self, support_vectors: np.ndarray, coefs: np.ndarray) -> None:
        """Set ``support_vectors_`` and ``dual_coef_`` (copies) from the stored terms."""
        self.support_vectors_ = np.array(support_vectors, dtype=np.float64, order="C")
        self.dual_coef_ = np.array(coefs, dtype=np.float64).reshape(1, -1)

    def _check_kernel(self) -> None:
        k = self._kernel()
        if not isinstance(k, _kernels.Kernel):
            raise ValueError(
                f"kernel must be one of olbook.kernels' kernels; got {k!r}."
            )
        k.spec()

    def decision_function(self, X) -> np.ndarray:
        """:math:`f(\\mathbf x) = \\sum_j \\alpha_j k(\\mathbf x_j, \\mathbf x)` over the stored examples."""
        self._check_fitted()
        Xa = check_X(X, n_features=self.n_features_in_, estimator=self)
        if self.dual_coef_.size == 0:
            return np.zeros(Xa.shape[0])
        return row_dots(
            _kernels.gram(self._kernel(), Xa, self.support_vectors_), self.dual_coef_[0]
        )


class NORMA(StoredExamplesLearner):
    r"""NORMA, online learning with kernels (Kivinen, Smola and Williamson 2004; book chapter 7).

    Parameters
    ----------
    kernel : olbook kernel, default=gaussian(1.0)
        :data:`olbook.kernels.linear`, :func:`~olbook.kernels.polynomial`,
        :func:`~olbook.kernels.gaussian` or :func:`~olbook.kernels.laplacian`.
    eta : float > 0 or callable, default=0.1
        The step size :math:`\eta_t`: a constant, or a function of the (1-based)
        round ``t`` counted over every call (e.g. :func:`decaying_eta`).
    lam : float >= 0, default=0.01
        The regularization :math:`\lambda`; every step needs :math:`\eta_t\lambda < 1`.
    loss : {"hinge", "logistic", "squared"}, default="hinge"
        The loss :math:`\ell(y, f(\mathbf x))` whose regularized risk each step
        descends (see the module docstring).
    rho : float >= 0, default=1.0
        The margin of the hinge loss (its starting value with ``nu``).
    nu : float in (0, 1), optional
        Learn the margin as NORMA\ :sub:`ν` does (hinge loss only).
    budget : int >= 1, optional
        The cap on the number of stored examples: only the last ``budget`` terms
        of the expansion are kept (truncation, book section 7.2); ``None`` keeps
        every term. The same meaning as :class:`BudgetPerceptron`'s and
        :class:`olbook.Forgetron`'s ``budget``, which differ in *which* example
        they discard.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes.

    Attributes
    ----------
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The stored examples, oldest first.
    dual_coef_ : ndarray of shape (1, n_SV)
        Their coefficients :math:`\alpha_i` (the running scale applied), signed,
        as scikit-learn ``SVC``'s ``dual_coef_``: ``dual_coef_[0]`` is
        :math:`\boldsymbol\alpha`.
    rho_ : float
        The current margin.
    t_ : int
        Rounds played.
    trace_, mistakes_, n_updates_, n_iter_, converged_ : as in :class:`olbook.Perceptron`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    >>> y = np.array([1, -1, -1, 1])  # XOR: no line separates it
    >>> from olbook import NORMA
    >>> from olbook.kernels import gaussian
    >>> clf = NORMA(kernel=gaussian(1.0), eta=0.5, lam=0.01, max_iter=5).fit(X, y)
    >>> clf.predict(X)
    array([ 1, -1, -1,  1])
    """

    _loss_code = None

    @property
    def _updates_mean_not_separable(self) -> bool:
        """Whether updates in a last pass say the data may not be separable.

        Only for the hinge loss with a fixed margin and no regularization
        (``lam=0``, ``nu=None``): NORMA is then the perceptron with margin
        :math:`\\rho` in the kernel's feature space, which stops updating on data
        separable there. The logistic and squared losses update on (nearly)
        every round; with ``lam > 0`` every term shrinks each round and with
        ``nu`` the margin grows between errors, so the updates may go on for
        ever on separable data: ``fit`` then warns only that ``max_iter`` was
        reached (the base class reads this switch).
        """
        return self.loss == "hinge" and self.nu is None and float(self.lam) == 0.0

    def __init__(
        self,
        kernel=None,
        eta=0.1,
        lam: float = 0.01,
        loss: str = "hinge",
        rho: float = 1.0,
        nu: float | None = None,
        budget: int | None = None,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.trace = trace
        self.kernel = kernel
        self.eta = eta
        self.lam = lam
        self.loss = loss
        self.rho = rho
        self.nu = nu
        self.budget = budget
        self.max_iter = max_iter

    def _validate_params(self) -> None:
        self._check_kernel()
        if self.loss not in _LOSSES[:3]:
            raise ValueError(f"loss must be one of {_LOSSES[:3]}; got {self.loss!r}.")
        lam = check_nonnegative_float(self.lam, "lam")
        check_nonnegative_float(self.rho, "rho")
        if self.nu is not None:
            check_open_unit(self.nu, "nu")
            if self.loss != "hinge":
                raise ValueError(
                    f"nu={self.nu!r} (a learned margin) needs loss='hinge'; "
                    f"got loss={self.loss!r}."
                )
        if self.budget is not None:
            check_positive_int(self.budget, "budget")
        self._check_common()
        if not callable(self.eta):
            eta = check_positive_float(self.eta, "eta")
            if eta * lam >= 1.0:
                raise ValueError(
                    f"eta * lam must be < 1 (the decay factor 1 - eta*lam must be > 0); "
                    f"got eta={self.eta!r}, lam={self.lam!r}."
                )

    def _etas(self, t0: int, n: int) -> np.ndarray:
        if not callable(self.eta):
            return np.full(n, float(self.eta))
        etas = np.array(
            [self.eta(t) for t in range(t0 + 1, t0 + n + 1)], dtype=np.float64
        )
        bad = ~np.isfinite(etas) | (etas <= 0) | (etas * float(self.lam) >= 1.0)
        if np.any(bad):
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"eta({t0 + k + 1}) = {etas[k]!r}: a step must be finite, > 0 and "
                f"have eta*lam < 1 (lam={self.lam!r})."
            )
        return etas

    def _init_state(self, n_features: int) -> None:
        self._SVT = np.zeros((n_features, 0))  # the stored examples are its columns
        self._beta = np.zeros(0)
        self._state = np.array([0.0, 0.0, 1.0, float(self.rho)])
        self.t_ = 0
        self._set_attributes()

    def _order(self) -> np.ndarray:
        """The slots of the stored terms, oldest first."""
        count, head = int(self._state[0]), int(self._state[1])
        cap = self._SVT.shape[1]
        return (head + np.arange(count)) % cap if cap else np.zeros(0, dtype=np.int64)

    def _set_attributes(self) -> None:
        order = self._order()
        self._publish(self._SVT[:, order].T, self._beta[order] * self._state[2])
        self.rho_ = float(self._state[3])

    def _loss(self) -> int:
        return _LOSSES.index(self.loss) if self._loss_code is None else self._loss_code

    def _epoch(self, X, y):
        n, d = X.shape
        etas = self._etas(self.t_, n)
        count, head = int(self._state[0]), int(self._state[1])
        cap_now = self._SVT.shape[1]
        cap = count + n if self.budget is None else int(self.budget)
        order = (
            (head + np.arange(count)) % cap_now
            if cap_now
            else np.zeros(0, dtype=np.int64)
        )
        # a smaller budget keeps the newest
        keep = order[-cap:] if count > cap else order
        SVT = np.zeros((d, cap))
        beta = np.zeros(cap)
        SVT[:, : keep.size], beta[: keep.size] = self._SVT[:, keep], self._beta[keep]
        state = self._state.copy()
        state[0], state[1] = keep.size, 0
        mistakes, updates = self._flags(n)
        nu = -1.0 if self.nu is None else float(self.nu)
        self._run_loop(
            X,
            norma_epoch,
            None,
            y,
            SVT,
            beta,
            state,
            etas,
            self._kernel().spec(),
            float(self.lam),
            self._loss(),
            nu,
            mistakes,
            updates,
            np.empty(cap),
        )
        self._SVT, self._beta, self._state, self.t_ = SVT, beta, state, self.t_ + n
        self._set_attributes()
        return mistakes, updates

    def decision_function(self, X) -> np.ndarray:
        """:math:`f(\\mathbf x) = \\sum_i \\alpha_i k(\\mathbf x_i, \\mathbf x)`, summed oldest first."""
        self._check_fitted()
        Xa = check_X(X, n_features=self.n_features_in_, estimator=self)
        if self.dual_coef_.size == 0:
            return np.zeros(Xa.shape[0])
        K = _kernels.gram(self._kernel(), Xa, self.support_vectors_)
        # the loop's order and scale
        return row_dots(K, self._beta[self._order()]) * self._state[2]

    def rkhs_norm(self) -> float:
        """:math:`\\|f\\| = \\sqrt{\\boldsymbol\\alpha^\\top K\\boldsymbol\\alpha}` of the current hypothesis."""
        self._check_fitted()
        if self.dual_coef_.size == 0:
            return 0.0
        K = _kernels.gram(self._kernel(), self.support_vectors_)
        a = np.ascontiguousarray(self.dual_coef_[0])
        return math.sqrt(max(0.0, float(row_dots(a[None, :], row_dots(K, a))[0])))


class KernelPerceptron(NORMA):
    r"""The kernel perceptron: the perceptron in the feature space of a kernel (book chapter 7).

    :math:`f = \sum_i y_i k(\mathbf x_i, \cdot)` over the rounds with
    :math:`y_i f(\mathbf x_i) \le 0` (a tie counts, as in chapter 1). It is NORMA
    with :math:`\lambda = 0`, :math:`\eta = 1` and the perceptron's update rule;
    with the linear kernel it makes the updates of :class:`olbook.Perceptron`.

    It has no ``budget``: every example it errs on is stored
    (:class:`BudgetPerceptron` and :class:`olbook.Forgetron` are the kernel
    perceptron with a budget, NORMA's ``budget`` keeps the newest terms).

    Parameters
    ----------
    kernel : olbook kernel, default=gaussian(1.0)
        The kernel :math:`k`, as for :class:`NORMA`.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes.

    Attributes
    ----------
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The examples it erred on (a tie counts), oldest first.
    dual_coef_ : ndarray of shape (1, n_SV)
        Their labels :math:`y_i`, the coefficients of the expansion.
    trace_, mistakes_, n_updates_, n_iter_, converged_ : as in :class:`olbook.Perceptron`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    >>> y = np.array([1, -1, -1, 1])  # XOR: no line separates it
    >>> from olbook import KernelPerceptron
    >>> from olbook.kernels import polynomial
    >>> clf = KernelPerceptron(kernel=polynomial(2), max_iter=5).fit(X, y)
    >>> clf.mistakes_
    3
    >>> clf.predict(X)
    array([ 1, -1, -1,  1])
    """

    _loss_code = 3

    # NORMA's other hyper-parameters, fixed (class attributes, not parameters); no
    # budget: every example it errs on is stored (BudgetPerceptron and Forgetron cap it)
    eta, lam, loss, rho, nu, budget = 1.0, 0.0, "hinge", 0.0, None, None

    def __init__(self, kernel=None, max_iter: int = 1, trace: bool = True):
        self.trace = trace
        self.kernel = kernel
        self.max_iter = max_iter


@numba.njit(cache=True)
def budget_epoch(X, y, SVT, alpha, state, draws, kspec, mistakes, updates, buf):
    """One pass of the randomized budget perceptron.

    ``SVT``, ``alpha`` and ``state`` change in place.

    ``state = [count]``; the stored examples are the first ``count`` columns of
    ``SVT``, whose capacity ``SVT.shape[1]`` is the budget. On a mistake
    (``y f <= 0``) with a full budget, the term at slot ``floor(draws[i] * count)``
    is removed (the last slot moves into it), then ``(x, y)`` is stored with
    coefficient ``y``. ``buf`` (length ``B``) is scratch space for
    :func:`stored_score`. Returns -1, or the index of the first row holding a NaN
    or inf.
    """
    n, d = X.shape
    B = SVT.shape[1]
    code, p1, p2 = kspec
    count = int(state[0])
    for i in range(n):
        if not row_is_finite(X, i):
            state[0] = count
            return i
        f = stored_score(code, p1, p2, SVT, alpha, 0, count, X[i], buf)
        mistakes[i] = (f > 0.0) != (y[i] > 0.0)
        updates[i] = y[i] * f <= 0.0
        if updates[i]:
            if count == B:
                r = min(int(draws[i] * count), count - 1)
                for k in range(d):
                    SVT[k, r] = SVT[k, count - 1]
                alpha[r] = alpha[count - 1]
                count -= 1
            for k in range(d):
                SVT[k, count] = X[i, k]
            alpha[count] = y[i]
            count += 1
    state[0] = count
    return -1


class BudgetPerceptron(StoredExamplesLearner):
    r"""The randomized budget perceptron (Cavallanti, Cesa-Bianchi and Gentile, Machine Learning 69, 2007).

    The kernel perceptron with at most ``budget`` stored examples: when a
    mistake finds the budget full, one stored example chosen uniformly at random
    is discarded before the new one is added (``policy="random"``, the only one
    implemented).

    Parameters
    ----------
    budget : int >= 1, default=100
        The cap on the number of stored examples.
    kernel : olbook kernel, default=gaussian(1.0)
        The kernel :math:`k`, as for :class:`NORMA`.
    policy : {"random"}, default="random"
        Which stored example a mistake with a full budget evicts: one chosen
        uniformly at random.
    random_state : None, int or numpy Generator
        The seed of the random evictions.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes.

    Attributes
    ----------
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The stored examples (``n_SV <= budget``), in their slots' order.
    dual_coef_ : ndarray of shape (1, n_SV)
        Their coefficients, the labels :math:`y_i` (signed, as ``SVC``'s).
    trace_, mistakes_, n_updates_, n_iter_, converged_ : as in :class:`olbook.Perceptron`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    >>> y = np.array([1, -1, -1, 1])  # XOR: no line separates it
    >>> from olbook import BudgetPerceptron
    >>> from olbook.kernels import polynomial
    >>> clf = BudgetPerceptron(budget=4, kernel=polynomial(2), random_state=0, max_iter=5).fit(X, y)
    >>> clf.predict(X)
    array([ 1, -1, -1,  1])
    """

    #: With a full budget it may err for ever on data that is separable in the
    #: kernel's feature space (it discards what it would need): an update in the
    #: last pass says nothing about separability, only that max_iter was reached.
    _updates_mean_not_separable = False

    def __init__(
        self,
        budget: int = 100,
        kernel=None,
        policy: str = "random",
        random_state=None,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.trace = trace
        self.budget = budget
        self.kernel = kernel
        self.policy = policy
        self.random_state = random_state
        self.max_iter = max_iter

    def _validate_params(self) -> None:
        check_positive_int(self.budget, "budget")
        self._check_kernel()
        if self.policy != "random":
            raise ValueError(f"policy must be 'random'; got {self.policy!r}.")
        check_rng(self.random_state)
        self._check_common()

    def _init_state(self, n_features: int) -> None:
        B = int(self.budget)
        self._SVT, self._alpha = np.zeros((n_features, B)), np.zeros(B)
        self._count = 0
        self._rng = check_rng(self.random_state)
        self._publish(self._SVT[:, :0].T, self._alpha[:0])

    def _epoch(self, X, y):
        n = X.shape[0]
        SVT, alpha, state = (
            self._SVT.copy(),
            self._alpha.copy(),
            np.array([float(self._count)]),
        )
        # rebound on success: a rejected call draws nothing
        rng = copy.deepcopy(self._rng)
        draws = rng.random(n)
        mistakes, updates = self._flags(n)
        self._run_loop(
            X,
            budget_epoch,
            None,
            y,
            SVT,
            alpha,
            state,
            draws,
            self._kernel().spec(),
            mistakes,
            updates,
            np.empty(SVT.shape[1]),
        )
        self._SVT, self._alpha, self._count, self._rng = SVT, alpha, int(state[0]), rng
        self._publish(SVT[:, : self._count].T, alpha[: self._count])
        return mistakes, updates
