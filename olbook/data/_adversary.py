"""An adversarial order of the examples that makes the perceptron err often (book section 1.3)."""

from __future__ import annotations

import numba
import numpy as np

from .._rowops import row_score, row_sqnorms
from .._validation import check_positive_int, check_X_y


@numba.njit(cache=True)
def _greedy_order(X, y, u, sqnorm, max_rounds, tol):  # pragma: no cover - compiled
    n, d = X.shape
    w = np.zeros(d)
    order = np.empty(max_rounds, dtype=np.int64)
    progress = np.empty(n)
    scale = 0.0
    for i in range(n):
        s, _ = row_score(u, X, i)
        progress[i] = y[i] * s
        scale = max(scale, abs(progress[i]))
    violated = np.empty(n, dtype=np.bool_)
    growth = np.empty(n)
    rounds = 0
    while rounds < max_rounds:
        # Pass 1: which examples does the perceptron get wrong, and the least progress among them.
        least = np.inf
        for i in range(n):
            f, _ = row_score(w, X, i)  # the perceptron's own score, to the last bit
            ywx = y[i] * f
            violated[i] = ywx <= 0.0
            growth[i] = sqnorm[i] + 2.0 * ywx  # ||w + y x||^2 - ||w||^2
            if violated[i] and progress[i] < least:
                least = progress[i]
        # Pass 2: among the violated examples within tol of the least progress, the largest growth.
        best = -1
        for i in range(n):
            if (
                violated[i]
                and progress[i] <= least + tol * scale
                and (best < 0 or growth[i] > growth[best])
            ):
                best = i
        if best < 0:
            break
        for j in range(d):
            w[j] += y[best] * X[best, j]
        order[rounds] = best
        rounds += 1
    return order[:rounds]


def greedy_adversarial_order(
    X, y, u, *, max_rounds: int = 100_000, tol: float = 1e-9
) -> np.ndarray:
    r"""A sequence of example indices chosen to make the perceptron err often.

    An adversary that knows the separator :math:`\mathbf u` replays the
    perceptron (start at 0, update :math:`\mathbf w \leftarrow \mathbf w + y\mathbf x`
    when :math:`y\,\mathbf w^\top\mathbf x \le 0`). At every round it
    presents, among the examples the perceptron gets wrong, one that makes the
    least progress towards :math:`\mathbf u` (smallest
    :math:`y\,\mathbf u^\top \mathbf x`) and, among those, the one that makes
    :math:`\|\mathbf w\|^2` grow most (largest
    :math:`\|\mathbf x\|^2 + 2y\,\mathbf w^\top\mathbf x`). These are the two
    quantities of the Block--Novikoff proof (book section 1.3): the adversary
    makes both of its inequalities as tight as it can (little progress, much
    growth), the first one first.

    Progress values within ``tol * max_i |y_i u^T x_i|`` of the least count as
    equal, so that rounding errors do not make the choice; remaining ties go to
    the first index. On :func:`make_shell` data every progress is exactly the
    same, so the adversary picks by growth alone. Every sum is added in the
    fixed order of :func:`olbook._rowops.row_score`, so the sequence is the
    same on every CPU.

    Every round of the returned sequence is an update, so feeding
    ``X[order], y[order]`` to :class:`olbook.Perceptron` in one pass
    reproduces ``len(order)`` updates. It ends when no example is
    misclassified any more (or after ``max_rounds``).

    Parameters
    ----------
    X, y : array-like
        The data, labels in {-1, +1}.
    u : array-like
        A separator (need not have unit norm).
    max_rounds : int, default=100_000
    tol : float, default=1e-9
        Relative tolerance of "least progress", ``0 <= tol``.

    Returns
    -------
    numpy.ndarray of int
        The indices, in the order the adversary presents them (repeats allowed).
    """
    Xa, ya = check_X_y(X, y)
    ua = np.asarray(u, dtype=np.float64).ravel()
    if ua.shape[0] != Xa.shape[1]:
        raise ValueError(
            f"u has {ua.shape[0]} entries but X has {Xa.shape[1]} features."
        )
    if not np.all(np.isfinite(ua)):
        raise ValueError("u contains NaN or inf.")
    m = check_positive_int(max_rounds, "max_rounds")
    if not (
        isinstance(tol, (int, float, np.floating, np.integer))
        and np.isfinite(tol)
        and tol >= 0
    ):
        raise ValueError(f"tol must be a finite number >= 0; got {tol!r}.")
    return _greedy_order(Xa, ya, ua, row_sqnorms(Xa), m, float(tol))
