"""AdaGrad and coin betting as online linear classifiers (scikit-learn interface).

Book chapter 8: section 8.3 (:ref:`oco-sec-adagrad`) and section 8.4
(:ref:`oco-sec-coin-betting`). The game learners :class:`~olbook.oco.AdaGrad`
and :class:`~olbook.oco.CoinBetting` play points of R^d and are told
gradients; a linear classifier plays the weights ``w_t`` and is told an
example ``(x_t, y_t)``, whose loss ``ell(y_t w.x_t)`` has the gradient
``g_t = -c_t y_t x_t`` at ``w_t`` (``c_t = 1`` below margin 1 and 0 above it
for the hinge loss, ``c_t = 1 / (1 + exp(y_t w_t.x_t))`` for the logistic
loss: :class:`~olbook.oco.HingeLoss` and :class:`~olbook.oco.LogisticLoss`,
with the same arithmetic). The two classifiers here are those game learners
fed these gradients, round by round, with ``fit``/``partial_fit`` as
scikit-learn's ``SGDClassifier``:

* :class:`AdaGradClassifier`: diagonal AdaGrad (Duchi, Hazan & Singer 2011)
  on R^d from ``w_1 = 0``; each round runs
  :func:`olbook.oco.adagrad.adagrad_diagonal_rounds` on the round's gradient,
  so it plays the points of ``AdaGrad(np.zeros(d), eta, delta=delta)`` driven
  by :func:`~olbook.oco.gradient_feedback`, bit for bit;
* :class:`CoinBettingClassifier`: one Krichevsky–Trofimov bettor per
  coordinate (Orabona & Pál 2016), each the one-dimensional
  :class:`~olbook.oco.CoinBetting` from 0, bit for bit; no step size.

Every score is added in olbook's fixed order (:func:`olbook.row_score`), so
the outputs are the same on every CPU. With ``fit_intercept`` the bias is the
weight of a constant feature 1 (:func:`olbook._rowops.with_constant_feature`).

References: J. Duchi, E. Hazan and Y. Singer, "Adaptive subgradient methods
for online learning and stochastic optimization", JMLR 12, 2011; F. Orabona
and D. Pál, "Coin betting and parameter-free online learning", NeurIPS 2016.
"""

from __future__ import annotations

import numpy as np

from .._base import LinearPredictorMixin, OnlineLearner
from .._rowops import with_constant_feature
from .._validation import check_nonnegative_float, check_positive_float
from ._classifier_loops import (
    adagrad_classifier_epoch,
    adagrad_classifier_epoch_csr,
    kt_classifier_epoch,
    kt_classifier_epoch_csr,
    loss_slope,
)

__all__ = [
    "AdaGradClassifier",
    "CoinBettingClassifier",
    "loss_slope",
    "adagrad_classifier_epoch",
    "adagrad_classifier_epoch_csr",
    "kt_classifier_epoch",
    "kt_classifier_epoch_csr",
]

LOSSES = ("hinge", "logistic")


class _GradientLinearClassifier(LinearPredictorMixin, OnlineLearner):
    """Weights from 0 on the examples; a constant feature when ``fit_intercept``."""

    _accepts_sparse = True
    #: Both losses update also on separable data (the hinge loss below margin 1,
    #: the logistic loss at every round): no separability in the warning.
    _updates_mean_not_separable = False

    def _check_loss(self) -> bool:
        """Whether the loss is the logistic loss (after checking it)."""
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be 'hinge' or 'logistic'; got {self.loss!r}.")
        return self.loss == "logistic"

    def _init_state(self, n_features: int) -> None:
        self._bias_feature = bool(self.fit_intercept)
        self._publish(np.zeros(n_features + self._bias_feature))

    def _publish(self, w: np.ndarray) -> None:
        """Rebind ``coef_`` (1, d) and ``intercept_`` (1,) from the weights ``w``."""
        d = w.shape[0] - self._bias_feature
        self._w = w
        self.coef_ = w[None, :d].copy()
        self.intercept_ = np.array([w[d] if self._bias_feature else 0.0])

    @staticmethod
    def _sparse_input(A) -> bool:
        return not isinstance(A, np.ndarray)

    def _examples(self, X):
        return with_constant_feature(X) if self._bias_feature else X


class AdaGradClassifier(_GradientLinearClassifier):
    r"""Diagonal AdaGrad on the hinge or logistic loss of a linear classifier.

    Duchi, Hazan & Singer (2011); book section 8.3, :ref:`oco-sec-adagrad`.
    From :math:`\mathbf w_1 = \mathbf 0`, at round :math:`t` the gradient
    :math:`\mathbf g_t` of the loss of example :math:`t` at
    :math:`\mathbf w_t` updates, coordinate by coordinate,

    .. math::
        s_{t,i}^2 = s_{t-1,i}^2 + g_{t,i}^2, \qquad
        w_{t+1,i} = w_{t,i} - \frac{\eta\, g_{t,i}}{\delta + s_{t,i}}

    (a coordinate whose gradients have all been 0 does not move). This is
    :class:`olbook.oco.AdaGrad` on R^d started at 0 and driven by
    :func:`olbook.oco.gradient_feedback`, to the bit. Its regret against every
    ``u`` with :math:`\|\mathbf u - \mathbf w_t\|_\infty \le D` along the run
    is at most :math:`\sum_i (\delta + s_{T,i}) D^2/(2\eta) + \eta\,s_{T,i}`
    (:prf:ref:`oco-thm-adagrad`, the diagonal bound of Duchi, Hazan & Singer's
    theorem 5): one step size per coordinate, scaled by that coordinate's own
    gradients.

    A ``scipy.sparse`` CSR ``X`` is read in O(nnz) per pass
    (:func:`adagrad_classifier_epoch_csr`), with the bits of the dense loop.

    Parameters
    ----------
    loss : {"logistic", "hinge"}, default="logistic"
        The loss whose (sub)gradients AdaGrad is fed: ``ln(1 + exp(-y w.x))``
        or ``max(0, 1 - y w.x)``.
    eta : float > 0, default=1.0
        The step size: coordinate i moves by ``eta g_i / (delta + s_{t,i})``
        (scikit-learn's ``SGDClassifier`` calls a step size ``eta0``).
    delta : float >= 0, default=0.0
        Added to the diagonal of ``H_t = delta I + diag(s_t)``.
    fit_intercept : bool, default=False
        Learn a bias ``intercept_`` as the weight of a constant feature 1
        appended to every example (the rule is AdaGrad's on the augmented
        examples). Changing it in the middle of a run (``partial_fit``) is a
        ``ValueError``.
    max_iter : int, default=1
        The most passes over the data ``fit`` makes; ``fit`` stops after a
        pass in which every gradient was 0 (the hinge loss, every margin at
        least 1).

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The weights :math:`\mathbf w` (``coef_[0]``), scikit-learn's shape.
    intercept_ : ndarray of shape (1,)
        The bias (0.0 without ``fit_intercept``).
    sum_sq_gradients_ : ndarray of shape (n_features + fit_intercept,)
        :math:`s_{t,i}^2`, the sum of the squared gradients of coordinate i
        (the bias's last).
    trace_, mistakes_, n_updates_, n_iter_, converged_
        As in :class:`olbook.Perceptron`; an update is a round with a
        nonzero gradient.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook.oco import AdaGradClassifier
    >>> clf = AdaGradClassifier(loss="hinge", eta=0.5).fit(X, y)
    >>> clf.coef_  # round 1: each coordinate moves by eta = 0.5
    array([[0.5, 0.5]])
    >>> clf.mistakes_, clf.n_updates_
    (1, 1)
    >>> clf.predict(np.array([[1.0, 1.0], [-2.0, 0.0]]))
    array([ 1, -1])
    """

    def __init__(
        self,
        loss: str = "logistic",
        eta: float = 1.0,
        delta: float = 0.0,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.loss = loss
        self.eta = eta
        self.delta = delta
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _validate_params(self) -> None:
        self._check_loss()
        check_positive_float(self.eta, "eta (the step size)")
        check_nonnegative_float(self.delta, "delta")
        self._check_common()

    def _init_state(self, n_features: int) -> None:
        super()._init_state(n_features)
        self.sum_sq_gradients_ = np.zeros(self._w.shape[0])

    def _epoch(self, X, y):
        w, sq, A = self._w.copy(), self.sum_sq_gradients_.copy(), self._examples(X)
        mistakes, updates = self._flags(X.shape[0])
        eta, delta = float(self.eta), float(self.delta)
        args = (y, w, sq, eta, delta, self._check_loss())
        if self._sparse_input(A):
            loop = adagrad_classifier_epoch_csr
        else:  # the box R^d and the buffers of adagrad_diagonal_rounds
            d = w.shape[0]
            box = (np.full(d, -np.inf), np.full(d, np.inf))
            args += (*box, np.empty((1, d)), np.empty((1, d)), np.empty(1))
            loop = adagrad_classifier_epoch
        self._run_loop(A, loop, loop, *args, mistakes, updates)
        self._publish(w)
        self.sum_sq_gradients_ = sq
        return mistakes, updates


class CoinBettingClassifier(_GradientLinearClassifier):
    r"""Parameter-free linear classifier: one KT coin bettor per coordinate.

    Orabona & Pál (2016); book section 8.4, :ref:`oco-sec-coin-betting`.
    Coordinate j is a gambler with wealth :math:`\varepsilon` betting on the
    coins :math:`-g_{t,j}/L_j` (:math:`|g_{t,j}| \le |x_{t,j}| \le L_j`) with
    the Krichevsky–Trofimov fraction, as the one-dimensional
    :class:`olbook.oco.CoinBetting` from 0 with ``lipschitz`` :math:`L_j`:

    .. math::
        w_{t,j} = \frac{\theta_{t-1,j}}{t}\,\frac{\mathrm{Wealth}_{t-1,j}}{L_j},
        \quad \theta_{t,j} = -\frac{g_{1,j} + \dots + g_{t,j}}{L_j},
        \quad \mathrm{Wealth}_{t,j} = \mathrm{Wealth}_{t-1,j} - g_{t,j} w_{t,j}.

    There is no step size, and no bound to know in advance: the classifier
    sees :math:`\mathbf x_t` before it predicts, and a feature with
    :math:`|x_{t,j}| > L_j` first raises :math:`L_j` to :math:`|x_{t,j}|`,
    multiplying :math:`\theta_j` by :math:`L_{\mathrm{old}}/L_{\mathrm{new}}` (the
    same sum in the new units; a hint of the gradient's size before the
    round). While no feature exceeds its bound the classifier is the games of
    ``CoinBetting([0.0], lipschitz=L_j)``, bit for bit.

    Why raising :math:`L_j` keeps the KT guarantee (in exact arithmetic; one
    coordinate, index j dropped). Let :math:`F_t` be the KT potential of
    :prf:ref:`oco-lem-kt-potential`, even and increasing in
    :math:`|\theta|` on :math:`|\theta| \le t` (:math:`\ln\Gamma` is convex).
    (1) The KT step: if :math:`\mathrm{Wealth}_{t-1} \ge F_{t-1}(\theta)` for
    the :math:`\theta` the round bets with (:math:`|\theta| \le t - 1`) and
    the coin :math:`c = -g_t/L` lies in :math:`[-1, 1]`, then
    :math:`\mathrm{Wealth}_t = \mathrm{Wealth}_{t-1}(1 + c\theta/t) \ge
    F_t(\theta + c)`, since :math:`F_{t-1}(\theta)(1 + c\theta/t) \ge
    F_t(\theta + c)`: the defining property of a coin-betting potential in
    Orabona & Pál (2016), an equality at :math:`c = \pm 1`
    (:prf:ref:`oco-lem-kt-potential`), and the induction behind
    :prf:ref:`oco-thm-kt-wealth`. (2) The bound is raised before the bet, so
    :math:`|g_t| \le |x_{t,j}| \le L` and the coin is in :math:`[-1, 1]` (a
    coordinate whose features have all been 0 has the coin 0 for every
    :math:`L`, and bets 0).
    (3) A raise only moves :math:`\theta` towards 0, so
    :math:`\mathrm{Wealth}_{t-1} \ge F_{t-1}(\theta_{\mathrm{old}}) \ge
    F_{t-1}(\theta_{\mathrm{old}} L_{\mathrm{old}}/L_{\mathrm{new}})`: the
    hypothesis of (1) holds for the rescaled :math:`\theta` the round bets with, and by
    induction :math:`\mathrm{Wealth}_t \ge F_t(\theta_t)` at every round.
    (4) The factors telescope: a term :math:`-g_s/L_s` added at round s is
    multiplied by :math:`L_s/L_T` by the later raises, so
    :math:`\theta_T = -(g_1 + \dots + g_T)/L_T` with the final bound
    :math:`L_T = \max_t |x_{t,j}|` (the initial ``lipschitz`` if larger).
    (5) The learner's loss is :math:`\sum_t g_t w_t = \varepsilon -
    \mathrm{Wealth}_T`, so for every :math:`u`,
    :math:`\sum_t g_t(w_t - u) = \varepsilon - \mathrm{Wealth}_T +
    (L_T u)\theta_T \le \varepsilon + F_T^\ast(L_T u)`, the quantity that
    :prf:ref:`oco-lem-wealth-regret` and the proof of
    :prf:ref:`oco-thm-kt-regret` bound. Hence the linearized regret against
    every ``u`` is at most :math:`\sum_j`
    :func:`~olbook.oco.coin_betting.kt_regret_bound`
    :math:`(|u_j|, T, \varepsilon, L_{T,j})`, the bound of
    :prf:ref:`oco-thm-kt-regret` in one dimension per coordinate, as if the
    final bounds had been known from the start. Without the rescaling,
    :math:`\theta_T` would be :math:`-\sum_s g_s/L_s`, not
    :math:`-\sum_s g_s/L_T`, and (5) would not follow.
    ``tests/test_oco_classifiers.py`` checks (1) on a grid,
    :math:`\mathrm{Wealth}_t \ge F_t(\theta_t)` along a run whose bound
    doubles (an equality before it), and the regret bound.

    A ``scipy.sparse`` CSR ``X`` gives the bits of its dense rows
    (:func:`kt_classifier_epoch_csr`: the scores in O(nnz), the bets in O(d)
    per row, since every bet changes with ``t``).

    Parameters
    ----------
    loss : {"logistic", "hinge"}, default="logistic"
        The loss whose (sub)gradients are the coins: ``ln(1 + exp(-y w.x))``
        or ``max(0, 1 - y w.x)``.
    initial_wealth : float > 0, default=1.0
        The wealth epsilon each coordinate's bettor starts with (in the units
        of the losses).
    lipschitz : float > 0 or None, default=None
        The first bound L on every coordinate of the gradients
        (:math:`|g_{t,j}| \le |x_{t,j}|`), raised to a feature that exceeds
        it. ``None``: 0, i.e. each coordinate's bound is its largest
        :math:`|x_{t,j}|` so far. Changing it in the middle of a run
        (``partial_fit``) is a ``ValueError``.
    fit_intercept : bool, default=False
        Learn a bias ``intercept_`` as the weight of a constant feature 1
        appended to every example (the rule is the bettor's on the augmented
        examples). Changing it in the middle of a run (``partial_fit``) is a
        ``ValueError``.
    max_iter : int, default=1
        The passes over the data ``fit`` makes: all of them, since the bets
        change with ``t`` even when the gradients are 0.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The weights :math:`\mathbf w` (``coef_[0]``), scikit-learn's shape.
    intercept_ : ndarray of shape (1,)
        The bias (0.0 without ``fit_intercept``).
    wealth_ : ndarray of shape (n_features + fit_intercept,)
        Each coordinate's wealth :math:`\mathrm{Wealth}_{t,j}` (the bias's last).
    lipschitz_ : ndarray of shape (n_features + fit_intercept,)
        The bounds :math:`L_j` (the bias's last; 0 for a coordinate whose
        features have all been 0 with ``lipschitz=None``).
    t_ : int
        Rounds played (over all passes).
    trace_, mistakes_, n_updates_, n_iter_, converged_
        As in :class:`olbook.Perceptron`; an update is a round with a
        nonzero gradient.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [1.0, 0.0], [-1.0, 1.0]])
    >>> y = np.array([1, 1, -1])
    >>> from olbook.oco import CoinBettingClassifier
    >>> clf = CoinBettingClassifier(loss="hinge").fit(X, y)
    >>> clf.wealth_  # coordinate 0 won w_2 = 1/2 at round 2; round 3 has margin 1
    array([1.5, 1. ])
    >>> clf.coef_  # the next bet: theta_0 Wealth_0 / (t L) = 2 * 1.5 / 4
    array([[0.75, 0.  ]])
    """

    #: The bets change with t even when every gradient is 0: every pass counts.
    _stop_when_converged = False
    #: The first bound of every coordinate's games.
    _structural_params = ("fit_intercept", "lipschitz")

    def __init__(
        self,
        loss: str = "logistic",
        initial_wealth: float = 1.0,
        lipschitz: float | None = None,
        fit_intercept: bool = False,
        max_iter: int = 1,
        trace: bool = True,
    ):
        self.loss = loss
        self.initial_wealth = initial_wealth
        self.lipschitz = lipschitz
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.trace = trace

    def _validate_params(self) -> None:
        self._check_loss()
        check_positive_float(self.initial_wealth, "initial_wealth")
        if self.lipschitz is not None:
            check_positive_float(self.lipschitz, "lipschitz")
        self._check_common()

    def _init_state(self, n_features: int) -> None:
        super()._init_state(n_features)
        d = self._w.shape[0]
        self.wealth_ = np.full(d, float(self.initial_wealth))
        L = 0.0 if self.lipschitz is None else float(self.lipschitz)
        self.lipschitz_ = np.full(d, L)
        self._theta = np.zeros(d)
        self.t_ = 0

    def _epoch(self, X, y):
        A = self._examples(X)
        w, theta, wealth = self._w.copy(), self._theta.copy(), self.wealth_.copy()
        L = self.lipschitz_.copy()
        mistakes, updates = self._flags(X.shape[0])
        args = (y, w, theta, wealth, self.t_, L, self._check_loss())
        loops = (kt_classifier_epoch, kt_classifier_epoch_csr)
        (t,) = self._run_loop(A, *loops, *args, mistakes, updates)
        self._publish(w)
        self._theta, self.wealth_, self.lipschitz_, self.t_ = theta, wealth, L, int(t)
        return mistakes, updates
