"""Margins, radii, linear separability and the perceptron's mistake bound.

Book: chapter 1, sections 1.3--1.5 (:prf:ref:`perc-thm-novikoff`, :ref:`perc-sec-bias`,
:ref:`perc-sec-separability`, :prf:ref:`perc-thm-nonseparable`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy.optimize import linprog

from ._rowops import row_dots, row_sqnorms
from ._validation import check_bool, check_positive_float, check_X, check_X_y

__all__ = [
    "margin",
    "radius",
    "novikoff_bound",
    "MistakeBound",
    "perceptron_bound",
    "hinge_mistake_bound",
    "find_separator",
    "is_linearly_separable",
    "separability_certificate",
    "SeparabilityCertificate",
]


def _as_vector(w, n_features: int, name: str) -> np.ndarray:
    """``w`` as a 1-D float64 array; a learner's ``coef_`` of shape (1, d) is its row."""
    wa = np.asarray(w, dtype=np.float64).ravel()
    if wa.shape[0] != n_features:
        raise ValueError(
            f"{name} has {wa.shape[0]} entries but X has {n_features} features."
        )
    if not np.all(np.isfinite(wa)):
        raise ValueError(f"{name} contains NaN or inf.")
    return wa


def _as_intercept(b) -> float:
    """``b`` as a finite float; a learner's ``intercept_`` of shape (1,) is its entry."""
    ba = np.asarray(b, dtype=np.float64)
    if ba.size != 1:
        raise ValueError(
            f"intercept must be a number; got an array of shape {ba.shape}."
        )
    value = float(ba.reshape(-1)[0])
    if not np.isfinite(value):
        raise ValueError("intercept must be finite.")
    return value


def margin(X, y, w, intercept: float = 0.0) -> float:
    r"""Geometric margin of the hyperplane :math:`\mathbf w^\top\mathbf x + b = 0` on ``(X, y)``.

    .. math:: \gamma = \min_i \frac{y_i(\mathbf w^\top \mathbf x_i + b)}{\|\mathbf w\|}

    Positive if and only if the hyperplane separates the data; then it is the
    distance from the hyperplane to the closest example. (A minimum over
    examples, not an arg-min: see "Notes on the sources", the *Foundations of Data Science* draft.)
    ``w`` and ``intercept`` may be a fitted learner's ``coef_`` (shape (1, d))
    and ``intercept_`` (shape (1,)) as they are.
    """
    Xa, ya = check_X_y(X, y)
    wa = _as_vector(w, Xa.shape[1], "w")
    norm = float(np.sqrt(row_sqnorms(wa[None, :])[0]))
    if norm == 0.0:
        raise ValueError(
            "w is the zero vector: it defines no hyperplane, so it has no margin."
        )
    b = _as_intercept(intercept)
    return float(np.min(ya * (row_dots(Xa, wa) + b)) / norm)


def radius(X) -> float:
    r"""Radius of the data: :math:`R = \max_i \|\mathbf x_i\|` (a ball about the origin)."""
    return float(np.sqrt(np.max(row_sqnorms(check_X(X)))))


def novikoff_bound(radius: float, margin: float) -> float:
    r"""The Block--Novikoff bound :math:`(R/\gamma)^2` on the perceptron's updates."""
    R = check_positive_float(radius, "radius")
    g = check_positive_float(margin, "margin")
    return (R / g) ** 2


class MistakeBound(NamedTuple):
    """A perceptron mistake bound and the radius and margin it was computed from."""

    bound: float
    radius: float
    margin: float


def perceptron_bound(
    X, y, u, intercept: float = 0.0, *, fit_intercept: bool = False
) -> MistakeBound:
    r"""The Block--Novikoff bound that holds for :class:`olbook.Perceptron` on ``(X, y)``.

    The separator :math:`(\mathbf u, b)` need not have unit norm; ``u`` and
    ``intercept`` may be a fitted learner's ``coef_`` (shape (1, d)) and
    ``intercept_`` (shape (1,)) as they are.

    * ``fit_intercept=False``: the perceptron's hyperplanes pass through the
      origin, so the separator must too (``intercept=0``):
      :math:`R = \max_i\|\mathbf x_i\|`, :math:`\gamma = \min_i y_i\mathbf u^\top\mathbf x_i/\|\mathbf u\|`.
    * ``fit_intercept=True``: the perceptron is the one without intercept run
      on :math:`\hat{\mathbf x} = (\mathbf x, 1)`, and
      :math:`\hat{\mathbf u} = (\mathbf u, b)` separates those; so
      :math:`\hat R^2 = \max_i \|\mathbf x_i\|^2 + 1` and
      :math:`\hat\gamma = \min_i y_i(\mathbf u^\top\mathbf x_i + b)/\sqrt{\|\mathbf u\|^2 + b^2}`.
      For a unit :math:`\mathbf u` with margin :math:`\gamma` this is
      :math:`(R^2 + 1)(1 + b^2)/\gamma^2`. Book: section 1.3, :ref:`perc-sec-bias`.

    Returns
    -------
    MistakeBound
        ``(bound, radius, margin)`` with the radius and margin of the setting used.

    Raises
    ------
    ValueError
        If the separator does not separate the data with a positive margin, or
        if ``intercept != 0`` while ``fit_intercept=False``.
    """
    Xa, ya = check_X_y(X, y)
    ua = _as_vector(u, Xa.shape[1], "u")
    fit_b = check_bool(fit_intercept, "fit_intercept")
    intercept = _as_intercept(intercept)
    if not fit_b and intercept != 0.0:
        raise ValueError(
            "a separator with intercept != 0 gives no bound for the perceptron without "
            "intercept (its hyperplanes pass through the origin); use fit_intercept=True."
        )
    if fit_b:
        Xh = np.hstack([Xa, np.ones((Xa.shape[0], 1))])
        uh = np.append(ua, intercept)
    else:
        Xh, uh = Xa, ua
    g = margin(Xh, ya, uh)
    if g <= 0.0:
        raise ValueError(f"u does not separate the data: its margin is {g:.3g} <= 0.")
    R = radius(Xh)
    return MistakeBound(novikoff_bound(R, g), R, g)


def hinge_mistake_bound(X, y, u, gamma: float) -> tuple[float, float]:
    r"""Freund and Schapire's bound :math:`((R + D)/\gamma)^2` on the perceptron's
    updates, and :math:`D`.

    The rows of ``(X, y)`` are the *sequence* the perceptron sees, in order,
    one row per round (present a data set twice: stack it twice). For a unit
    vector :math:`\mathbf u` (``u`` is divided by its norm) and any
    :math:`\gamma > 0`, the deviation of round :math:`t` is

    .. math:: d_t = \max(0,\ \gamma - y_t\,\mathbf u^\top\mathbf x_t),
       \qquad D = \Big(\sum_t d_t^2\Big)^{1/2},

    and the perceptron started at :math:`\mathbf w_1 = \mathbf 0` makes at most
    :math:`((R + D)/\gamma)^2` updates (hence mistakes) on the sequence, with
    :math:`R = \max_t\|\mathbf x_t\|`, whether or not the data is separable
    (Freund and Schapire, "Large margin classification using the perceptron
    algorithm", Machine Learning 37(3), 1999, Theorem 2; book section 1.5,
    :prf:ref:`perc-thm-nonseparable`). With :math:`D = 0` it is the Block--Novikoff
    bound :math:`(R/\gamma)^2`. The bound holds for every :math:`\gamma`;
    the best one is the minimum over :math:`\gamma`.

    Margins and norms are summed in the fixed order of
    :func:`olbook.row_dots` and :func:`olbook.row_sqnorms`, so
    the result is the same on every CPU.

    Parameters
    ----------
    X, y : array-like
        The sequence of examples, shape (T, n_features), and its labels in {-1, +1}.
    u : array-like
        The comparator, any nonzero vector of length ``n_features``.
    gamma : float
        :math:`\gamma > 0`.

    Returns
    -------
    (bound, D) : tuple of float

    Raises
    ------
    ValueError
        If ``u`` is zero or has the wrong length, or ``gamma`` is not a finite
        number > 0.
    """
    Xa, ya = check_X_y(X, y)
    ua = _as_vector(u, Xa.shape[1], "u")
    g = check_positive_float(gamma, "gamma")
    norm = float(np.sqrt(row_sqnorms(ua[None, :])[0]))
    if norm == 0.0:
        raise ValueError(
            "u is the zero vector: it is no comparator (it has no direction)."
        )
    d = np.maximum(0.0, g - ya * row_dots(Xa, ua) / norm)
    D = float(np.sqrt(row_sqnorms(d[None, :])[0]))
    R = radius(Xa)
    return ((R + D) / g) ** 2, D


class SeparabilityCertificate(NamedTuple):
    r"""What :func:`separability_certificate` found, with the evidence for it.

    Attributes
    ----------
    separable : bool
        True when ``w, b`` separate the data, *proved* in the caller's units:
        every :math:`y_i(\mathbf w^\top\mathbf x_i + b)`, evaluated on ``X``
        as given, exceeds the worst rounding error of its own floating-point
        evaluation (underflow included). False when the Farkas vector
        ``farkas`` shows that no hyperplane separates the rescaled data
        ``scale * X`` with :math:`\ell_1`-normalized margin larger than
        ``residual`` (and ``residual <= tol``): data separable only with a
        smaller margin is reported as not separable, to that tolerance.
    w, b : ndarray and float, or None
        The separator (``b = 0`` without intercept), when ``separable``. When
        ``scale != 1`` it is multiplied by the power of 2 that brings its
        largest entry into [1/2, 1) (any positive multiple of a separator
        separates).
    farkas : ndarray or None
        :math:`\boldsymbol\lambda \ge 0`, :math:`\sum_i\lambda_i = 1`, making
        :math:`\|\sum_i \lambda_i y_i (s\,\mathbf x_i, 1)\|_\infty` as small
        as the LP can (:math:`s` = ``scale``).
    residual : float
        A rigorous upper bound on that norm divided by
        :math:`\sum_i\lambda_i`, the rounding of its own evaluation included.
        It is a statement about the rescaled data: every
        :math:`(\mathbf w, b)` with :math:`y_i(\mathbf w^\top\mathbf x_i+b) \ge 1`
        for all :math:`i` has :math:`\|(\mathbf w/s, b)\|_1 \ge 1/\text{residual}`.
        For ``scale == 1`` (data whose largest entry lies in
        :math:`[2^{-20}, 2^{20}]`, every book example) this is
        :math:`\|(\mathbf w, b)\|_1 \ge 1/\text{residual}` in the caller's
        units; otherwise it bounds :math:`\|(\mathbf w/s, b)\|_1`, not
        :math:`\|(\mathbf w, b)\|_1` (for ``X`` near 1e30 with a relative gap of
        1e-11 an exact separator has :math:`\|\mathbf w\|_1` near 4e-19, and
        1/residual is near 2e11). NaN when ``separable``.
    scale : float
        The power of 2 :math:`s` by which ``X`` was multiplied before the LPs
        (1.0 for data of ordinary size).
    """

    separable: bool
    w: np.ndarray | None
    b: float | None
    farkas: np.ndarray | None
    residual: float
    scale: float = 1.0


_U = np.finfo(np.float64).eps / 2  # unit roundoff


def _gamma(k: int) -> float:
    r"""Higham's bound k u / (1 - k u) on the relative error of a k-term sum of products."""
    return k * _U / (1.0 - k * _U)


#: The smallest positive subnormal double: a product that underflows is off by at most half of it.
_ETA = math.ldexp(1.0, -1074)


def _proved_separator(A: np.ndarray, z: np.ndarray) -> bool:
    r"""Whether every (A z)_i > 0, with room for the rounding error of its evaluation.

    A k-term dot product computed in any order is within
    :math:`\gamma_k\sum_j|a_jz_j| + k\eta` of the exact value (Higham, *Accuracy and
    Stability of Numerical Algorithms*, (3.5), with :math:`\eta` for underflow); the
    error term is computed with :math:`\gamma_{k+2}` and :math:`2k\eta`, which covers
    the rounding of its own evaluation.
    """
    if not np.all(np.isfinite(z)):
        return False
    k = A.shape[1]
    s = row_dots(A, z)
    err = _gamma(k + 2) * row_dots(np.abs(A), np.abs(z)) + 2 * k * _ETA
    return bool(np.all(s > err))


def _in_caller_units(z: np.ndarray, s: float, fit_b: bool) -> np.ndarray:
    r"""The separator ``z`` of the scaled data ``s X`` as a separator of ``X``.

    ``z . (s x) = (s z) . x``, so the weights are multiplied by ``s`` (the
    intercept is not); the whole vector is then multiplied by the power of 2 that
    brings its largest entry into [1/2, 1), exponent by exponent with
    :func:`numpy.ldexp`, so that nothing overflows (``z * s`` alone can).
    """
    mant, expo = np.frexp(z)
    shift = np.full(z.shape, math.frexp(s)[1] - 1, dtype=np.int64)
    if fit_b:
        shift[-1] = 0
    expo = expo.astype(np.int64) + shift
    top = int(expo[mant != 0].max()) if np.any(mant != 0) else 0
    return np.ldexp(mant, expo - top)


#: Data whose largest entry lies outside [2**-_SCALE_BITS, 2**_SCALE_BITS] is scaled first.
_SCALE_BITS = 20


def _power_of_two_scale(Xa: np.ndarray) -> float:
    """1.0, or the power of 2 that brings the largest entry of badly scaled data into [1/2, 1).

    (Or the largest power of 2 that is a double, 2**1023, when the largest entry is
    subnormal, below 2**-1022.)

    The LP solver's tolerances are absolute (about 1e-7): data of magnitude 1e150 or
    1e-150 must be scaled first. Separability does not change when ``X`` is
    multiplied by ``s > 0``, and a power of 2 multiplies exactly unless an entry
    underflows (a separator ``w'`` of ``s X`` is ``w = s w'`` for ``X``). That
    ``w = s w'`` can overflow, and an underflowed entry of ``s X`` is not ``s``
    times the caller's entry, so :func:`separability_certificate` proves its
    separator again on ``X`` itself. Data of ordinary size (every book example)
    is left as it is.
    """
    top = float(np.max(np.abs(Xa)))
    if top == 0.0 or 2.0**-_SCALE_BITS <= top <= 2.0**_SCALE_BITS:
        return 1.0
    # a subnormal top would need 2**1024 or more, which is not a double: stop at 2**1023
    return math.ldexp(1.0, min(-math.frexp(top)[1], 1023))


def _augmented(
    X, y, fit_intercept, *, scale: bool = True
) -> tuple[np.ndarray, bool, float]:
    """The LP's rows ``y_i (s x_i, 1)`` (or ``y_i s x_i``), whether with intercept, and ``s``."""
    Xa, ya = check_X_y(X, y)
    fit_b = check_bool(fit_intercept, "fit_intercept")
    s = _power_of_two_scale(Xa) if scale else 1.0
    Xs = Xa * s if s != 1.0 else Xa
    A = ya[:, None] * (np.hstack([Xs, np.ones((Xs.shape[0], 1))]) if fit_b else Xs)
    return np.ascontiguousarray(A), fit_b, s


def _feasible_point(A: np.ndarray) -> np.ndarray | None:
    r"""HiGHS on the feasibility problem A z >= 1; the point it returns, or None if it says infeasible."""
    res = linprog(
        c=np.zeros(A.shape[1]),
        A_ub=-A,
        b_ub=-np.ones(A.shape[0]),
        bounds=[(None, None)] * A.shape[1],
        method="highs",
    )
    if res.status == 2:
        return None
    if res.status != 0:
        raise RuntimeError(f"linprog did not finish: {res.message}")
    return res.x


def separability_certificate(
    X, y, *, fit_intercept: bool = True, tol: float = 1e-9
) -> SeparabilityCertificate:
    r"""Decide linear separability and return the evidence.

    The evidence is a proved separator, or a Farkas vector.

    Separation :math:`y_i(\mathbf w^\top\mathbf x_i + b) > 0` for all :math:`i`
    is the linear feasibility problem :math:`A\mathbf z \ge \mathbf 1` (rows
    :math:`y_i(\mathbf x_i, 1)`, after scaling). By Farkas' lemma exactly one of
    two things exists: a separator :math:`\mathbf z`, or
    :math:`\boldsymbol\lambda \ge 0` with :math:`\sum\lambda_i = 1` and
    :math:`A^\top\boldsymbol\lambda = \mathbf 0`. HiGHS solves both programs
    in floating point, to its feasibility tolerance (about 1e-7), so its status
    alone proves nothing; this function checks what it returns:

    * a separator is accepted only if every score, computed on ``X`` as the
      caller gave it, exceeds the rounding error of its evaluation (Higham's
      :math:`\gamma_{d+2}` bound, plus underflow), which makes
      ``separable=True`` a proof for every finite input. Badly scaled data is
      multiplied by a power of 2, ``scale``, for the LP; its separator is
      then brought back to the caller's units without overflow and proved
      there. Where that proof fails (scores that underflow) the function
      raises instead of answering;
    * otherwise a second LP minimizes :math:`\|A^\top\boldsymbol\lambda\|_\infty`,
      and ``residual`` bounds it rigorously, the rounding of its own
      evaluation included: no separator of the data *as scaled for the LP*
      (``scale * X``) has :math:`\ell_1`-normalized margin above
      ``residual``, that is every :math:`(\mathbf w, b)` with
      :math:`y_i(\mathbf w^\top\mathbf x_i + b) \ge 1` has
      :math:`\|(\mathbf w/\text{scale}, b)\|_1 \ge 1/\text{residual}`.
      With ``scale == 1`` (every book example) that is
      :math:`\|(\mathbf w, b)\|_1` in the caller's units; with
      ``scale != 1`` it is not (for ``X`` near 1e30 an exact separator can
      have :math:`\|\mathbf w\|_1` near 1e-19). The answer is
      ``separable=False`` when ``residual <= tol``.

    Data separable only with a margin below about ``tol`` (or below HiGHS's
    tolerance) can therefore be called not separable, and it is said so in the
    result (book section 2.1, :ref:`marg-sec-lp`). Example: ``X = [[1], [1 + 1e-11],
    [0], [3]]``, ``y = [1, -1, 1, -1]`` is separable by a threshold between 1 and
    1 + 1e-11, but HiGHS declares the program infeasible.

    Raises
    ------
    ValueError
        If the LP finds no separator and the smallest residual is above ``tol``
        (the data is too badly scaled to decide), or if the separator it finds
        for the scaled data cannot be proved on ``X`` itself (its scores
        underflow).

    Examples
    --------
    >>> import olbook
    >>> cert = olbook.separability_certificate([[3e-308], [3.3e-308]], [1, -1])
    >>> cert.separable, bool(abs(cert.w[0]) < 1), cert.scale == 2.0**1021
    (True, True, True)
    >>> xor = olbook.separability_certificate(
    ...     [[0, 0], [1, 1], [0, 1], [1, 0]], [1, 1, -1, -1]
    ... )
    >>> xor.separable, bool(xor.residual < 1e-15)
    (False, True)
    """
    check_positive_float(tol, "tol")
    A, fit_b, s = _augmented(X, y, fit_intercept)
    z = _feasible_point(A)
    if z is not None and _proved_separator(A, z):
        # proved for s X; re-proved below for X itself, where it is returned
        if s == 1.0:
            zc, A1 = z, A
        else:
            zc = _in_caller_units(z, s, fit_b)
            A1 = _augmented(X, y, fit_intercept, scale=False)[0]
        if _proved_separator(A1, zc):
            w, b = (zc[:-1], float(zc[-1])) if fit_b else (zc, 0.0)
            return SeparabilityCertificate(True, w, b, None, float("nan"), s)
        raise ValueError(
            "could not decide separability: the LP found a separator of the data "
            f"scaled by {s:g}, but its scores on the data as given are not larger "
            "than their rounding error (underflow); rescale the data."
        )
    n, k = A.shape
    # min t s.t. -t <= A^T lam <= t, sum lam = 1, lam >= 0; variables (lam, t)
    At = np.ascontiguousarray(A.T)
    A_ub = np.block([[At, -np.ones((k, 1))], [-At, -np.ones((k, 1))]])
    res = linprog(
        c=np.r_[np.zeros(n), 1.0],
        A_ub=A_ub,
        b_ub=np.zeros(2 * k),
        A_eq=np.r_[np.ones(n), 0.0][None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * n + [(0, None)],
        method="highs",
    )
    if res.status != 0:
        raise RuntimeError(f"linprog did not finish: {res.message}")
    lam = np.clip(res.x[:n], 0.0, None)
    lam = lam / lam.sum()
    residual = _farkas_residual(At, lam)
    if residual > tol:
        raise ValueError(
            "could not decide separability: the LP found no separator that "
            "survives rounding, and its best Farkas vector leaves a residual of "
            f"{residual:.3g} > tol={tol:g} (rescale the data)."
        )
    return SeparabilityCertificate(False, None, None, lam, residual, s)


def _farkas_residual(At: np.ndarray, lam: np.ndarray) -> float:
    r"""A rigorous upper bound on :math:`\|A^\top\boldsymbol\lambda\|_\infty / \sum_i\lambda_i`.

    Column by column, the computed :math:`s_j = \mathrm{fl}(\sum_i a_{ij}\lambda_i)`
    and :math:`e_j = \mathrm{fl}(\sum_i |a_{ij}|\lambda_i)` satisfy
    :math:`|s_j - S_j| \le \gamma_n E_j + n\eta` and
    :math:`E_j \le (e_j + n\eta)/(1 - \gamma_n)` (Higham (3.5); :math:`\eta` for
    underflow), so :math:`|S_j| \le |s_j| + \gamma_{n+1}e_j + 3n\eta`. The entries
    of ``A`` are the rounded :math:`s\,y_i x_{ij}`, each within :math:`\eta` of the
    exact value (underflow when :math:`s < 1`), which adds at most
    :math:`\eta\sum_i\lambda_i \le n\eta`: :math:`4n\eta` in all.
    :math:`\sum_i\lambda_i` is at least :math:`\sigma(1 - u)` with
    :math:`\sigma` its correctly rounded value (:func:`math.fsum`). The quotient is
    evaluated in fewer than ten floating-point operations, each with relative error
    at most :math:`u`; the result is multiplied by :math:`1 + 64u` and rounded up
    to the next double, which covers them.
    """
    n = lam.shape[0]
    S = np.abs(row_dots(At, lam)) + _gamma(n + 1) * row_dots(np.abs(At), lam)
    top = float(S.max()) + 4 * n * _ETA
    sigma = math.fsum(lam.tolist()) * (1.0 - _U)
    return float(np.nextafter(top / sigma * (1.0 + 64 * _U), np.inf))


def find_separator(X, y, *, fit_intercept: bool = True):
    r"""A separating hyperplane ``(w, b)``, proved to separate, or ``None``.

    See :func:`separability_certificate`.

    Returns ``(w, b)`` (``b = 0.0`` when ``fit_intercept=False``) only when every
    :math:`y_i(\mathbf w^\top\mathbf x_i + b)` is positive beyond rounding
    error. ``None`` means: no hyperplane separates the data with
    :math:`\ell_1`-normalized margin above 1e-9; data separable only with a
    smaller margin is reported as ``None`` (book :ref:`perc-sec-separability` and
    :ref:`marg-sec-lp`).
    """
    cert = separability_certificate(X, y, fit_intercept=fit_intercept)
    return (cert.w, cert.b) if cert.separable else None


def is_linearly_separable(X, y, *, fit_intercept: bool = True) -> bool:
    r"""Whether some hyperplane (through the origin if ``fit_intercept=False``) separates ``(X, y)``.

    The answer of :func:`separability_certificate`: True is proved; False means no separator
    with :math:`\ell_1`-normalized margin above 1e-9.
    """
    return separability_certificate(X, y, fit_intercept=fit_intercept).separable
