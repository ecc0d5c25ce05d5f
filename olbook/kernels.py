r"""Kernels and Gram matrices (book section 2.5, :ref:`marg-sec-kernels`).

A kernel is a callable ``k(X, Y)`` that returns the Gram block
:math:`(k(\mathbf x_i, \mathbf y_j))_{ij}` of shape ``(n_X, n_Y)``:

* :data:`linear` -- :math:`\mathbf x^\top\mathbf y` (itself a kernel);
* :func:`polynomial` ``(degree, coef0)`` -- :math:`(\mathbf x^\top\mathbf y + c)^D`;
* :func:`gaussian` ``(gamma)`` -- :math:`e^{-\gamma\|\mathbf x-\mathbf y\|^2}`;
* :func:`laplacian` ``(gamma)`` -- :math:`e^{-\gamma\|\mathbf x-\mathbf y\|}`
  with the **Euclidean** norm (scikit-learn's ``laplacian_kernel`` uses the
  :math:`L_1` norm :math:`\|\mathbf x-\mathbf y\|_1`, so its values differ).

The factories return objects with a readable ``repr`` (``gaussian(gamma=0.5)``),
their parameters as attributes, and equality by parameters. :func:`gram`
builds a Gram matrix and :func:`is_psd` tests positive semi-definiteness
(Mercer's condition on a finite sample: a symmetric function is a kernel if and
only if all its Gram matrices are PSD, book section 2.5, :ref:`marg-sec-kernels`).

Numerics. Dot products and squared distances are computed by compiled loops
that add the coordinates in one fixed order (no BLAS, no ``fastmath``), so a
Gram matrix is the same to the bit on every CPU up to the last-place rounding
of ``exp``. Squared distances are sums of squared *differences*
:math:`\sum_k (x_k-y_k)^2`, not :math:`\|\mathbf x\|^2+\|\mathbf y\|^2-2\mathbf x^\top\mathbf y`:
they are never negative, have no cancellation, and are exactly 0 between equal
points, so ``gram(k, X)`` is exactly symmetric with an exact diagonal
(:math:`k(\mathbf x, \mathbf x) = 1` for the Gaussian and Laplacian kernels).

References
----------
B. E. Boser, I. M. Guyon, V. N. Vapnik, "A training algorithm for optimal margin
classifiers", COLT 1992. C. Cortes, V. Vapnik, "Support-vector networks",
Machine Learning 20(3), 1995.
"""

from __future__ import annotations

import numba
import numpy as np

from ._validation import (
    all_finite,
    check_nonnegative_float,
    check_positive_float,
    check_positive_int,
    check_X,
)

__all__ = [
    "Kernel",
    "linear",
    "polynomial",
    "gaussian",
    "laplacian",
    "gram",
    "is_psd",
    "default_psd_tol",
    "kernel_value",
    "expansion_value",
]


# --- compiled pairwise loops (fixed order of additions) -----------------------------------
@numba.njit(cache=True)
def _pairwise_dots(X, Y, symmetric):  # pragma: no cover - compiled
    n, m, d = X.shape[0], Y.shape[0], X.shape[1]
    out = np.empty((n, m))
    for i in range(n):
        start = i if symmetric else 0
        for j in range(start, m):
            s = 0.0
            for k in range(d):
                s += X[i, k] * Y[j, k]
            out[i, j] = s
            if symmetric:
                out[j, i] = s
    return out


@numba.njit(cache=True)
def _pairwise_exp(X, Y, symmetric, gamma, root):  # pragma: no cover - compiled
    """``exp(-gamma * s)``, ``s`` the squared distance (its square root if ``root``), in one pass.

    ``s`` is a sum of squared differences (never negative, exactly 0 for equal
    points); the symmetric case evaluates ``exp`` once per pair and sets the
    diagonal to exactly 1.
    """
    n, m, d = X.shape[0], Y.shape[0], X.shape[1]
    out = np.empty((n, m))
    for i in range(n):
        if symmetric:
            out[i, i] = 1.0
        start = i + 1 if symmetric else 0
        for j in range(start, m):
            s = 0.0
            for k in range(d):
                t = X[i, k] - Y[j, k]
                s += t * t
            v = np.exp(-gamma * (np.sqrt(s) if root else s))
            out[i, j] = v
            if symmetric:
                out[j, i] = v
    return out


@numba.njit(cache=True)
def kernel_value(code, p1, p2, X, i, Y, j):  # pragma: no cover - compiled
    """One kernel value :math:`k(X_i, Y_j)`, with the arithmetic of the Gram blocks.

    ``(code, p1, p2)`` is a kernel's :meth:`Kernel.spec`: 0 linear, 1 polynomial
    (degree, coef0), 2 Gaussian (gamma), 3 Laplacian (gamma). The online kernel
    learners of chapter 7 compute the same values with the same arithmetic, all
    stored terms of a round at once (``olbook.kernel_online.stored_score``).
    """
    d = X.shape[1]
    s = 0.0
    if code <= 1:
        for k in range(d):
            s += X[i, k] * Y[j, k]
        if code == 0:
            return s
        return (s + p2) ** p1
    for k in range(d):
        t = X[i, k] - Y[j, k]
        s += t * t
    return np.exp(-p1 * (np.sqrt(s) if code == 3 else s))


@numba.njit(cache=True)
def expansion_value(
    code, p1, p2, SV, coef, head, count, Y, j
):  # pragma: no cover - compiled
    """:math:`\\sum_r c_r k(\\mathbf s_r, Y_j)` over ``count`` stored terms, oldest first.

    The terms sit in the ring ``SV``/``coef`` (capacity ``SV.shape[0]``) from slot
    ``head`` on; ``(code, p1, p2)`` as in :func:`kernel_value`. The one score of the
    online kernel learners of chapter 7.
    """
    cap = SV.shape[0]
    f = 0.0
    for r in range(count):
        s = (head + r) % cap
        f += coef[s] * kernel_value(code, p1, p2, SV, s, Y, j)
    return f


def _check_pair(X, Y) -> tuple[np.ndarray, np.ndarray, bool]:
    """Check ``X`` (and ``Y``); ``symmetric`` is True when ``Y`` is None or the same object."""
    Xa = check_X(X)
    if Y is None or Y is X:
        return Xa, Xa, True
    Ya = check_X(Y, name="Y")
    if Ya.shape[1] != Xa.shape[1]:
        raise ValueError(
            f"X has {Xa.shape[1]} features but Y has {Ya.shape[1]}; a kernel needs both equal."
        )
    return Xa, Ya, False


def _checked_block(kernel, K: np.ndarray) -> np.ndarray:
    """Return ``K`` if all its entries are finite, else raise ``ValueError``."""
    if not all_finite(K):
        raise ValueError(
            f"kernel {kernel!r} gave non-finite values ({int(np.isnan(K).sum())} NaN, "
            f"{int(np.isinf(K).sum())} inf): the Gram matrix overflows float64 on this data."
        )
    return K


class Kernel:
    """Base class of olbook's kernels: ``k(X, Y=None)`` returns the Gram block.

    ``X`` has shape ``(n_X, d)`` and ``Y`` ``(n_Y, d)``; with ``Y=None`` the
    block is ``k(X, X)``, computed once per pair and mirrored (exactly
    symmetric). NaN or inf in either array raises ``ValueError``. Subclasses
    implement ``_block(X, Y, symmetric)`` on checked arrays and ``_params()``.
    """

    name = "kernel"

    def __call__(self, X, Y=None) -> np.ndarray:
        Xa, Ya, symmetric = _check_pair(X, Y)
        return _checked_block(self, self._block(Xa, Ya, symmetric))

    def _block(
        self, X: np.ndarray, Y: np.ndarray, symmetric: bool
    ) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _params(self) -> dict:
        return {}

    def spec(self) -> tuple[int, float, float]:
        """``(code, p1, p2)`` for :func:`kernel_value` (compiled learners take kernels this way)."""
        raise ValueError(
            f"{self!r} has no compiled form; use linear, polynomial, gaussian or laplacian."
        )

    def __repr__(self) -> str:
        params = self._params()
        if not params:
            return self.name
        return (
            f"{self.name}(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")"
        )

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._params() == self._params()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self._params().items())))


class _LinearKernel(Kernel):
    r""":math:`k(\mathbf x, \mathbf y) = \mathbf x^\top\mathbf y`."""

    name = "linear"

    def _block(self, X, Y, symmetric):
        return _pairwise_dots(X, Y, symmetric)

    def spec(self):
        return 0, 0.0, 0.0

    def __reduce__(self):
        return "linear"  # copies and pickles are the module's one instance


#: The linear kernel :math:`k(\mathbf x, \mathbf y) = \mathbf x^\top\mathbf y`
#: (a kernel callable itself, not a factory: ``linear(X, Y)``).
linear = _LinearKernel()


class _PolynomialKernel(Kernel):
    name = "polynomial"

    def __init__(self, degree: int, coef0: float):
        self.degree = degree
        self.coef0 = coef0

    def _params(self):
        return {"degree": self.degree, "coef0": self.coef0}

    def _block(self, X, Y, symmetric):
        return (_pairwise_dots(X, Y, symmetric) + self.coef0) ** self.degree

    def spec(self):
        return 1, float(self.degree), float(self.coef0)


def polynomial(degree: int = 2, coef0: float = 1.0) -> Kernel:
    r"""The polynomial kernel :math:`k(\mathbf x, \mathbf y) = (\mathbf x^\top\mathbf y + c)^D`.

    It equals :math:`\phi(\mathbf x)^\top\phi(\mathbf y)` for the embedding
    :math:`\phi` into the :math:`\binom{D+d}{d}` monomials of degree at most
    :math:`D` (each scaled by the square root of a multinomial coefficient times a
    power of :math:`c`), without ever forming :math:`\phi` (book section 2.5,
    :ref:`marg-sec-kernels`). scikit-learn's ``polynomial_kernel(X, Y, degree,
    gamma=1, coef0)`` is the same function.

    Parameters
    ----------
    degree : int, default=2
        :math:`D \ge 1`.
    coef0 : float, default=1.0
        :math:`c \ge 0`. (A negative :math:`c` does not give a kernel in general:
        for :math:`D = 2`, :math:`d = 1` and :math:`c = -1` the Gram matrix of
        the points 0 and 1 is :math:`\begin{pmatrix}1&1\\1&0\end{pmatrix}`, which
        has a negative eigenvalue.)

    Raises
    ------
    ValueError
        If ``degree`` is not an integer >= 1 or ``coef0`` is negative or not finite.
    """
    check_positive_int(degree, "degree")
    try:
        check_nonnegative_float(coef0, "coef0")
    except ValueError as exc:
        raise ValueError(
            f"{exc} (With coef0 < 0 the polynomial is not a kernel in general.)"
        ) from None
    return _PolynomialKernel(int(degree), float(coef0))


class _GaussianKernel(Kernel):
    name = "gaussian"
    _root = False  # exp(-gamma * distance^2); the Laplacian subclass takes the distance itself

    def __init__(self, gamma: float):
        self.gamma = gamma

    def _params(self):
        return {"gamma": self.gamma}

    def _block(self, X, Y, symmetric):
        return _pairwise_exp(X, Y, symmetric, self.gamma, self._root)

    def spec(self):
        return (3 if self._root else 2), float(self.gamma), 0.0


def gaussian(gamma: float = 1.0) -> Kernel:
    r"""The Gaussian (RBF) kernel :math:`k(\mathbf x, \mathbf y) = e^{-\gamma\|\mathbf x-\mathbf y\|^2}`.

    Positive semi-definite for every :math:`\gamma > 0` (Gram matrices of
    distinct points are even positive definite); book section 2.5,
    :ref:`marg-sec-kernels`, lemma 6.4 of the *Foundations of Data Science* draft
    :cite:p:`hopcroft2014foundationsdraft`. It is scikit-learn's ``rbf_kernel`` and
    ``SVC(kernel="rbf", gamma=gamma)`` with the same ``gamma``.

    Raises
    ------
    ValueError
        If ``gamma`` is not a finite number > 0.
    """
    return _GaussianKernel(check_positive_float(gamma, "gamma"))


class _LaplacianKernel(_GaussianKernel):
    name = "laplacian"
    _root = True


def laplacian(gamma: float = 1.0) -> Kernel:
    r"""The Laplacian kernel :math:`k(\mathbf x, \mathbf y) = e^{-\gamma\|\mathbf x-\mathbf y\|}`, Euclidean norm.

    Positive semi-definite for every :math:`\gamma > 0`: :math:`e^{-\gamma t}`
    for :math:`t = \|\mathbf x - \mathbf y\|` is :math:`e^{-\gamma\sqrt s}` with
    :math:`s = \|\mathbf x-\mathbf y\|^2`, and :math:`s \mapsto e^{-\gamma\sqrt s}`
    is completely monotone (Schoenberg 1938), whereas
    :math:`e^{-\gamma\|\mathbf x-\mathbf y\|^p}` is not a kernel for :math:`p > 2`
    (book section 2.5, :ref:`marg-sec-kernels`).

    Note: scikit-learn's ``sklearn.metrics.pairwise.laplacian_kernel`` uses the
    :math:`L_1` distance :math:`\sum_k |x_k - y_k|` (also a kernel, but a
    different function); olbook follows the *Foundations of Data Science* draft and uses the
    Euclidean norm.

    Raises
    ------
    ValueError
        If ``gamma`` is not a finite number > 0.
    """
    return _LaplacianKernel(check_positive_float(gamma, "gamma"))


def gram(kernel, X, Y=None) -> np.ndarray:
    """The Gram matrix :math:`K_{ij} = k(\\mathbf x_i, \\mathbf y_j)`, shape ``(n_X, n_Y)``.

    With ``Y=None``, :math:`K = (k(\\mathbf x_i, \\mathbf x_j))_{ij}` (square,
    exactly symmetric for olbook's kernels). ``kernel`` is any callable
    ``k(X, Y)`` returning the block; its result is checked for shape and
    finiteness.
    """
    if not callable(kernel):
        raise ValueError(
            f"kernel must be a callable k(X, Y) returning a Gram block; got {kernel!r}."
        )
    Xa, Ya, symmetric = _check_pair(X, Y)
    if isinstance(kernel, Kernel):
        return _checked_block(kernel, kernel._block(Xa, Ya, symmetric))
    K = np.ascontiguousarray(kernel(Xa, Ya), dtype=np.float64)
    if K.shape != (Xa.shape[0], Ya.shape[0]):
        raise ValueError(
            f"kernel {kernel!r} returned shape {K.shape}; expected {(Xa.shape[0], Ya.shape[0])}."
        )
    return _checked_block(kernel, K)


def default_psd_tol(K: np.ndarray, eigenvalues: np.ndarray | None = None) -> float:
    r"""The default tolerance of :func:`is_psd`: :math:`n\,\varepsilon\,\|K\|_2`.

    :math:`\varepsilon = 2^{-52}` is the float64 machine epsilon and
    :math:`\|K\|_2 = \max_i |\lambda_i|`. Justification: a backward-stable
    symmetric eigensolver (LAPACK's, behind :func:`numpy.linalg.eigvalsh`)
    returns the exact eigenvalues of :math:`K + E` with
    :math:`\|E\|_2 \le c\, n\,\varepsilon\,\|K\|_2`, so by Weyl's inequality
    each computed eigenvalue is within that distance of the true one; and the
    rounding of the entries themselves (relative :math:`\varepsilon` each) is a
    perturbation of norm at most :math:`\|E\|_F \le n\,\varepsilon \max|K_{ij}|
    \le n\,\varepsilon\,\|K\|_2`. A PSD matrix can therefore show a smallest
    eigenvalue of about :math:`-n\varepsilon\|K\|_2`, never much less.
    """
    if eigenvalues is None:
        eigenvalues = np.linalg.eigvalsh(K)
    scale = float(np.max(np.abs(eigenvalues))) if eigenvalues.size else 0.0
    return K.shape[0] * float(np.finfo(np.float64).eps) * scale


def is_psd(K, tol: float | None = None) -> bool:
    r"""Whether the square matrix ``K`` is symmetric positive semi-definite, up to ``tol``.

    ``K`` is accepted if every :math:`|K_{ij} - K_{ji}| \le` ``tol`` and the
    smallest eigenvalue of :math:`(K + K^\top)/2` (by
    :func:`numpy.linalg.eigvalsh`) is :math:`\ge -` ``tol``.

    Parameters
    ----------
    K : array_like of shape (n, n)
    tol : float, optional
        Default: :math:`n\,\varepsilon\,\|K\|_2`, the size of the rounding errors
        in the computed eigenvalues of a PSD matrix (see :func:`default_psd_tol`).
        A clearly non-PSD matrix (such as the Gram matrix of
        :math:`e^{-\|\mathbf x-\mathbf y\|^p}`, :math:`p > 2`, on suitable
        points) has a negative eigenvalue far below it.

    Raises
    ------
    ValueError
        If ``K`` is not a finite square 2-D array or ``tol`` is negative or not finite.
    """
    try:
        Ka = np.asarray(K, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"K must be a numeric square matrix ({exc}).") from None
    if Ka.ndim != 2 or Ka.shape[0] != Ka.shape[1]:
        raise ValueError(f"K must be a square 2-D matrix; got shape {Ka.shape}.")
    if Ka.shape[0] == 0:
        raise ValueError("K is empty (shape (0, 0)).")
    if not np.all(np.isfinite(Ka)):
        raise ValueError("K contains NaN or inf.")
    if tol is not None:
        check_nonnegative_float(tol, "tol")
    eig = np.linalg.eigvalsh((Ka + Ka.T) / 2.0)
    t = default_psd_tol(Ka, eig) if tol is None else float(tol)
    if float(np.max(np.abs(Ka - Ka.T))) > t:
        return False
    return bool(eig[0] >= -t)
