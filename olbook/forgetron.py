r"""The self-tuned Forgetron (Dekel, Shalev-Shwartz and Singer, SIAM J. Comput. 37(5), 2008).

A kernel perceptron with at most ``budget`` stored examples. On a mistake
(:math:`y_t f(\mathbf x_t) \le 0`) the example enters with coefficient
:math:`y_t`; if that makes the budget overflow, every coefficient is first
multiplied by :math:`\phi_t \in (0, 1]` and then the *oldest* example
:math:`r` is removed. The shrink is chosen as the largest :math:`\phi` with

.. math:: Q + \psi(\sigma_r\phi,\ \phi\mu_r) \le \tfrac{15}{32} M,
          \qquad \psi(\lambda, \mu) = \lambda^2 + 2\lambda - 2\lambda\mu,

where :math:`\sigma_r` is the removed example's weight, :math:`\mu_r = y_r f'(\mathbf x_r)`
its margin under the hypothesis :math:`f'` after the new example was added,
:math:`M` the number of updates so far, this one included (the mistakes, a
tie :math:`y_t f(\mathbf x_t) = 0` counting as one: ``n_updates_``, not
``mistakes_``), and :math:`Q` the sum of the :math:`\psi` of earlier removals.
When :math:`\phi < 1` the cap is reached: :math:`Q = \tfrac{15}{32}M` after the
removal. The condition is the quadratic
:math:`a\phi^2 + b\phi + Q - \tfrac{15}{32}M \le 0` with
:math:`a = \sigma_r^2 - 2\sigma_r\mu_r`, :math:`b = 2\sigma_r`. This is the
"self-tuned" variant as Orabona's DOGMA library implements it
(``k_forgetron_st_train.m``), whose constant :math:`\tfrac{15}{32}` it uses.
The paper's mistake bound for this variant is stated in the book without
proof. Book section 7.4 (:ref:`kol-sec-budgets`), whose check recomputes
:math:`\phi` by bisection from the definition above.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._validation import check_positive_int
from .kernel_online import StoredExamplesLearner, row_is_finite, stored_score

__all__ = ["Forgetron", "forgetron_epoch", "forgetron_shrink"]


@numba.njit(cache=True)
def forgetron_shrink(sigma, mu, Q, M):
    """The largest :math:`\\phi \\in (0, 1]` with :math:`a\\phi^2 + b\\phi + Q - 15M/32 \\le 0`.

    ``sigma`` is the removed example's weight, ``mu`` its margin under the
    hypothesis with the new example, ``Q`` the damage so far and ``M`` the
    number of updates (this one included). Since ``Q <= 15 M / 32`` on entry,
    :math:`\\phi = 0` fits; when :math:`\\phi = 1` does not, the :math:`\\phi \\in [0, 1]`
    that fit form an interval :math:`[0, \\phi^\\star]` and the result is :math:`\\phi^\\star`.
    """
    a = sigma * sigma - 2.0 * sigma * mu
    b = 2.0 * sigma
    c = Q - 15.0 / 32.0 * M
    d = b * b - 4.0 * a * c
    if a > 0.0 or (a < 0.0 and d > 0.0 and (-b - math.sqrt(abs(d))) / (2.0 * a) > 1.0):
        return min(1.0, (-b + math.sqrt(max(d, 0.0))) / (2.0 * a))
    if a == 0.0:
        return min(1.0, -c / b)
    return 1.0


@numba.njit(cache=True)
def forgetron_epoch(X, y, SVT, beta, state, kspec, mistakes, updates, buf, oldest):
    """One pass of the self-tuned Forgetron; ``SVT``, ``beta``, ``state`` change in place.

    ``state = [count, head, Q, M]``; the stored examples are columns of ``SVT``,
    a ring of ``budget + 1`` slots, the oldest at ``head``. ``buf`` (length
    ``budget + 1``) and ``oldest`` (length ``d``) are scratch space. Returns -1,
    or the index of the first row holding a NaN or inf.
    """
    n, d = X.shape
    cap = SVT.shape[1]  # budget + 1
    code, p1, p2 = kspec
    count, head, Q, M = int(state[0]), int(state[1]), state[2], state[3]
    for i in range(n):
        if not row_is_finite(X, i):
            state[0], state[1], state[2], state[3] = count, head, Q, M
            return i
        # q = 0 scores x_i; q = 1, after an update overflows the budget, takes the
        # oldest example's margin under the new hypothesis (one call site: the
        # score is compiled once)
        for q in range(2):
            x = X[i] if q == 0 else oldest
            f = stored_score(code, p1, p2, SVT, beta, head, count, x, buf)
            if q == 1:  # shrink, then forget the oldest
                sigma = abs(beta[head])
                y_r = 1.0 if beta[head] > 0.0 else -1.0
                phi = forgetron_shrink(sigma, y_r * f, Q, M)
                for r in range(count):
                    beta[r] *= phi
                e = sigma * phi
                Q += e * e + 2.0 * e - 2.0 * e * y_r * (phi * f)
                head = head + 1 if head + 1 < cap else 0
                count -= 1
                break
            mistakes[i] = (f > 0.0) != (y[i] > 0.0)
            updates[i] = y[i] * f <= 0.0
            if not updates[i]:
                break
            M += 1.0
            slot = head + count - cap if head + count >= cap else head + count
            for k in range(d):
                SVT[k, slot] = X[i, k]
            beta[slot] = y[i]
            count += 1
            if count < cap:
                break
            for k in range(d):
                oldest[k] = SVT[k, head]
    state[0], state[1], state[2], state[3] = count, head, Q, M
    return -1


class Forgetron(StoredExamplesLearner):
    r"""The self-tuned Forgetron: a kernel perceptron that forgets its oldest example, gently.

    See the module docstring for the rule. Unlike the randomized budget
    perceptron (:class:`olbook.BudgetPerceptron`), it shrinks the whole
    hypothesis before it forgets, so that the removed example weighs little; the
    shrink keeps :math:`Q \le 15M/32`, the invariant of the paper's mistake bound.

    Parameters
    ----------
    budget : int >= 1, default=100
        The cap on the number of stored examples.
    kernel : olbook kernel, default=gaussian(1.0)
        The kernel :math:`k`, as for :class:`olbook.NORMA`.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes.

    Attributes
    ----------
    support_vectors_ : ndarray of shape (n_SV, n_features)
        The stored examples (``n_SV <= budget``), oldest first.
    dual_coef_ : ndarray of shape (1, n_SV)
        Their signed coefficients (each :math:`y_i`, shrunk by the later
        :math:`\phi_t`), as scikit-learn ``SVC``'s ``dual_coef_``.
    Q_ : float
        The accumulated :math:`\psi` of the removals (never above ``15/32 * n_updates_``).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    >>> y = np.array([1, -1, -1, 1])  # XOR: no line separates it
    >>> from olbook import Forgetron
    >>> from olbook.kernels import polynomial
    >>> clf = Forgetron(budget=4, kernel=polynomial(2), max_iter=5).fit(X, y)
    >>> clf.mistakes_
    3
    >>> clf.predict(X)
    array([ 1, -1, -1,  1])
    """

    #: With a full budget it may err for ever on data that is separable in the
    #: kernel's feature space: an update in the last pass says nothing about
    #: separability, only that max_iter was reached.
    _updates_mean_not_separable = False

    def __init__(
        self, budget: int = 100, kernel=None, max_iter: int = 1, trace: bool = True
    ):
        self.trace = trace
        self.budget = budget
        self.kernel = kernel
        self.max_iter = max_iter

    def _validate_params(self) -> None:
        check_positive_int(self.budget, "budget")
        self._check_kernel()
        self._check_common()

    def _init_state(self, n_features: int) -> None:
        cap = int(self.budget) + 1
        self._SVT, self._beta = np.zeros((n_features, cap)), np.zeros(cap)
        self._state = np.zeros(4)
        self._set_attributes()

    def _set_attributes(self) -> None:
        count, head = int(self._state[0]), int(self._state[1])
        order = (head + np.arange(count)) % self._SVT.shape[1]
        self._publish(self._SVT[:, order].T, self._beta[order])
        self.Q_ = float(self._state[2])

    def _epoch(self, X, y):
        n = X.shape[0]
        SVT, beta, state = self._SVT.copy(), self._beta.copy(), self._state.copy()
        mistakes, updates = self._flags(n)
        self._run_loop(
            X,
            forgetron_epoch,
            None,
            y,
            SVT,
            beta,
            state,
            self._kernel().spec(),
            mistakes,
            updates,
            np.empty(SVT.shape[1]),
            np.empty(SVT.shape[0]),
        )
        self._SVT, self._beta, self._state = SVT, beta, state
        self._set_attributes()
        return mistakes, updates
