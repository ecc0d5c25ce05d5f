"""Boosting: weighted decision stumps, the (1+eps) re-weighting of the *Foundations of Data Science*
draft (Hopcroft and Kannan, section 6.4) and AdaBoost
(book chapter 3, :ref:`boost-chapter`).

* :class:`DecisionStump` -- the weak learner: the exact best weighted threshold
  on one feature (section 3.1, :ref:`boost-sec-weak`);
* :class:`Boosting` -- multiply the weights of the mistakes by ``1 + epsilon``,
  majority vote of ``n_estimators`` (odd) hypotheses (section 3.2,
  :ref:`boost-sec-reweight`);
* :class:`AdaBoost` -- Freund and Schapire's AdaBoost (1997) with hypothesis
  weights ``alpha_t = ln((1 - eps_t) / eps_t) / 2`` (section 3.4,
  :ref:`boost-sec-adaboost`).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from ._base import BinaryClassifierMixin, predict_from_scores
from ._validation import (
    check_binary_targets,
    check_positive_float,
    check_positive_int,
    check_X,
    record_feature_names,
)

__all__ = [
    "AdaBoost",
    "Boosting",
    "DecisionStump",
    "WeakLearnerWarning",
    "odd_ceil",
    "round_gain",
    "stump_errors",
]


def odd_ceil(t):
    """The smallest odd integer >= ``t`` (elementwise for an array).

    The (1+eps) boosting of section 3.2 takes a majority vote of an odd number of
    hypotheses, so that the vote has no tie. A scalar gives an ``int``, an array an
    array of floats holding integers.

    Examples
    --------
    >>> odd_ceil(4.2), odd_ceil(5), odd_ceil(6)
    (5, 5, 7)
    """
    if np.ndim(t) == 0:
        c = math.ceil(t)
        return int(c + (c % 2 == 0))
    c = np.ceil(np.asarray(t, dtype=np.float64))
    return c + (c % 2 == 0)


def round_gain(epsilon, gamma):
    r"""The exact per-round gain :math:`D = \tfrac12\ln(1+\varepsilon) - \ln(1+\varepsilon(\tfrac12-\gamma))`.

    Section 3.2 (:ref:`boost-sec-reweight`, :prf:ref:`boost-thm-exact`) shows that when
    every weak hypothesis has weighted error at most :math:`\tfrac12 - \gamma`, the
    majority vote of :math:`T` (odd) rounds of the (1+eps) boosting errs on at most
    :math:`n e^{-TD}/\sqrt{1+\varepsilon}` of the :math:`n` training examples, so
    none once :math:`TD + \tfrac12\ln(1+\varepsilon) > \ln n`; :math:`D > 0` iff
    :math:`\varepsilon < 2\gamma/(\tfrac12-\gamma)^2`. Elementwise for arrays
    (``np.log1p``).
    """
    eps = np.asarray(epsilon, dtype=np.float64)
    g = np.asarray(gamma, dtype=np.float64)
    out = 0.5 * np.log1p(eps) - np.log1p(eps * (0.5 - g))
    return float(out) if out.ndim == 0 else out


class WeakLearnerWarning(UserWarning):
    """A weak hypothesis has weighted error >= 1/2: it is no better than a coin."""


def _check_data(X, y, estimator=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Examples, labels as -1/+1 and ``classes_`` (any two labels; see ``check_binary_targets``).

    ``estimator`` is an ensemble's weak learner, checked first.
    """
    _check_estimator(estimator)
    Xa = check_X(X)
    ya, classes = check_binary_targets(y, n_samples=Xa.shape[0])
    return Xa, ya, classes


def _check_sample_weight(sample_weight, n: int) -> np.ndarray:
    """Return the weights as a float64 copy, or raise ``ValueError``."""
    if sample_weight is None:
        return np.ones(n)
    try:
        w = np.array(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"sample_weight must be numeric ({exc})") from None
    if w.shape != (n,):
        raise ValueError(
            f"sample_weight must have shape ({n},), one weight per example; got {w.shape}."
        )
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or inf.")
    if np.any(w < 0):
        raise ValueError(f"sample_weight must be >= 0; its minimum is {w.min()!r}.")
    if not w.sum() > 0:
        raise ValueError(
            "sample_weight sums to zero: at least one example needs a positive weight."
        )
    return w


def stump_errors(X: np.ndarray, y: np.ndarray, w: np.ndarray):
    """Weighted errors of every stump ``h(x) = s if x[j] > theta else -s``.

    Sort each column once; a threshold between the k-th and (k+1)-th sorted
    values puts the first k+1 examples on the ``-s`` side. With ``P_k`` and
    ``N_k`` the cumulative weights of the positive and negative examples among
    them, the error of ``s = +1`` is ``P_k + (N - N_k)`` and that of ``s = -1``
    is ``W`` minus it. ``np.cumsum`` adds in a fixed order, so the errors are
    the same on every CPU. Returns ``(order, xs, err)``: the sort permutation
    of each column, the sorted columns, and ``err`` of shape ``(n + 1, d, 2)``
    (row 0: every example on the ``+s`` side; column pair: ``s = +1, -1``).
    Rows ``k + 1`` where ``xs[k] == xs[k + 1]`` are not thresholds: they are ``inf``.
    """
    n, d = X.shape
    order = np.argsort(X, axis=0, kind="stable")
    xs = np.take_along_axis(X, order, axis=0)
    wpos = np.where(y > 0, w, 0.0)[order]
    wneg = np.where(y > 0, 0.0, w)[order]
    P = np.zeros((n + 1, d))
    N = np.zeros((n + 1, d))
    np.cumsum(wpos, axis=0, out=P[1:])
    np.cumsum(wneg, axis=0, out=N[1:])
    err = np.empty((n + 1, d, 2))
    err[..., 0] = P + (N[-1] - N)
    err[..., 1] = N + (P[-1] - P)
    err[1:n][xs[:-1] == xs[1:]] = np.inf  # no threshold between equal values
    err[n] = np.inf  # everything on the -s side: the same stump as row 0 with -s
    return order, xs, err


class DecisionStump(BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
    """The best weighted decision stump ``h(x) = s if x[j] > theta else -s`` (s = +-1).

    ``fit`` finds the exact minimum of the weighted error over every feature
    ``j``, every threshold between two consecutive distinct values of that
    feature (and below all of them) and both signs ``s``, by sorting each
    column and taking cumulative sums (:func:`stump_errors`): O(n d log n).
    Book section 3.1 (:ref:`boost-sec-weak`); a weak learner in the sense of
    the weighted Definition 6.2 of Hopcroft and Kannan's draft.

    Tie rule: every stump whose weighted error is within ``tie_tol * sum(w)`` of
    the minimum counts as best, and the first one wins in the order (feature
    ``j``, then threshold from low to high, then ``s = +1`` before ``-1``).
    The tolerance makes the choice independent of the last bits of the
    weights (which may differ between CPUs after ``exp`` and ``log``).

    Parameters
    ----------
    tie_tol : float, default=1e-9
        Relative tolerance of the tie rule; ``0`` takes the exact first minimum.

    Attributes
    ----------
    feature_, threshold_, polarity_ : int, float, int
        ``j``, ``theta`` (the midpoint of two consecutive values, ``-inf`` for
        the constant stump) and ``s``.
    error_ : float
        Weighted error of the stump divided by ``sum(sample_weight)``.
    classes_ : ndarray of shape (2,)
        The two labels, sorted (int64 ``[-1, 1]`` for -1/+1); ``classes_[1]`` is +1 inside.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import DecisionStump
    >>> stump = DecisionStump().fit(X, y)
    >>> stump.feature_, stump.threshold_, stump.polarity_
    (0, 0.0, 1)
    >>> stump.predict(X)
    array([ 1,  1, -1, -1])
    """

    def __init__(self, tie_tol: float = 1e-9):
        self.tie_tol = tie_tol

    def fit(self, X, y, sample_weight=None) -> DecisionStump:
        """Fit the best stump for ``sample_weight`` (default: all 1); any two labels."""
        try:
            tol = float(self.tie_tol)
        except (TypeError, ValueError):
            tol = float("nan")
        if not (np.isfinite(tol) and tol >= 0):
            raise ValueError(
                f"tie_tol must be a finite number >= 0; got {self.tie_tol!r}."
            )
        Xa, ya, classes = _check_data(X, y)
        w = _check_sample_weight(sample_weight, Xa.shape[0])
        order, xs, err = stump_errors(Xa, ya, w)
        total = float(np.sum(w))
        flat = err.transpose(1, 0, 2).ravel()  # order: feature, threshold, sign
        best = flat <= flat.min() + tol * total
        j, k, s = np.unravel_index(
            int(np.argmax(best)), (err.shape[1], err.shape[0], 2)
        )
        if k == 0:
            theta = -np.inf
        else:
            lo, hi = xs[k - 1, j], xs[k, j]
            theta = lo + (hi - lo) / 2.0
            if not (lo <= theta < hi):
                theta = lo
        self.feature_ = int(j)
        self.threshold_ = float(theta)
        self.polarity_ = 1 if s == 0 else -1
        self.error_ = float(err[k, j, s]) / total
        self.classes_ = classes
        record_feature_names(self, X)
        self.n_features_in_ = Xa.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        """``s`` where ``x[j] > theta``, else ``-s`` (floats +-1; :meth:`predict` gives int labels)."""
        check_is_fitted(self, "feature_")
        Xa = check_X(X, n_features=self.n_features_in_, estimator=self)
        return (
            np.where(Xa[:, self.feature_] > self.threshold_, 1.0, -1.0) * self.polarity_
        )

    def predict(self, X) -> np.ndarray:
        """The labels -1 / +1 (as ints, like ``classes_``)."""
        return predict_from_scores(self.decision_function(X), self.classes_)


def _check_estimator(estimator) -> None:
    """The weak learner must be a classifier whose ``fit`` takes ``sample_weight``."""
    if estimator is None:
        return
    if not (
        hasattr(estimator, "get_params")
        and hasattr(estimator, "predict")
        and has_fit_parameter(estimator, "sample_weight")
    ):
        raise ValueError(
            "estimator must be a scikit-learn classifier whose fit takes sample_weight "
            f"(e.g. DecisionStump()); got {estimator!r}."
        )


def _weak_fit(estimator, X, y, w):
    """Fit a clone of ``estimator`` (default: :class:`DecisionStump`) with weights ``w``."""
    h = DecisionStump() if estimator is None else clone(estimator)
    h.fit(X, y, sample_weight=w)
    pred = np.where(np.asarray(h.predict(X), dtype=np.float64) > 0, 1.0, -1.0)
    return h, pred


class _Ensemble(BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
    """Shared prediction code: ``decision_function = sum_t alpha_t h_t(x)``, added in round order."""

    def _votes(self, X) -> np.ndarray:
        check_is_fitted(self, "estimators_")
        Xa = check_X(X, n_features=self.n_features_in_, estimator=self)
        H = np.empty((len(self.estimators_), Xa.shape[0]))
        for t, h in enumerate(self.estimators_):
            H[t] = np.where(np.asarray(h.predict(Xa), dtype=np.float64) > 0, 1.0, -1.0)
        # sequential over rounds
        return np.cumsum(self.estimator_weights_[:, None] * H, axis=0)

    def staged_decision_function(self, X):
        """Yield the score ``sum_{s <= t} alpha_s h_s(x)`` after each round t."""
        yield from self._votes(X)

    def staged_predict(self, X):
        """Yield the prediction after each round (``-1`` where the score is ``<= 0``)."""
        for f in self._votes(X):
            yield predict_from_scores(f, self.classes_)

    def decision_function(self, X) -> np.ndarray:
        return self._votes(X)[-1]

    def predict(self, X) -> np.ndarray:
        return predict_from_scores(self.decision_function(X), self.classes_)


class Boosting(_Ensemble):
    """Boosting as in the *Foundations of Data Science* draft (6.4): mistakes' weights times ``1 + epsilon``.

    Round 1 calls the weak learner with every weight 1; after round t the
    examples its hypothesis misclassified have their weight multiplied by
    ``1 + epsilon``; the output is the unweighted majority vote of the
    ``n_estimators`` hypotheses (odd, so no tie). Book section 3.2
    (:ref:`boost-sec-reweight`); the algorithm of section 6.4 of Hopcroft and
    Kannan's draft (*Foundations of Data Science*), after Schapire (1990).

    Weights are updated by repeated multiplication (one IEEE rounding per
    round, the same on every CPU; exact when ``1 + epsilon`` and the weights
    are short dyadic numbers) and rescaled by an exact power of 2 when they grow
    past ``2**500``.

    Parameters
    ----------
    n_estimators : int, default=101
        The number of rounds T (odd, so that the majority vote has no tie).
    epsilon : float, default=0.1
        The re-weighting factor is ``1 + epsilon``; must be > 0.
    estimator : classifier with ``sample_weight``, optional
        The weak learner (cloned each round). Default: :class:`DecisionStump`.

    Attributes
    ----------
    estimators_ : list of the T hypotheses
    estimator_weights_ : ndarray, all 1 (the unweighted vote)
    estimator_errors_ : ndarray of shape (T,)
        The weighted error (fraction of the total weight) of each hypothesis:
        the trace of the weak-learning edge ``gamma_t = 1/2 - error``.
    log_weight_totals_ : ndarray of shape (T + 1,)
        ``ln`` of the total weight before each round and at the end
        (``log_weight_totals_[0] == ln n``).

    Warns
    -----
    WeakLearnerWarning
        If some round's weighted error is >= 1/2 (the analysis then does not
        apply; the algorithm still runs all rounds).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import Boosting
    >>> clf = Boosting(n_estimators=3).fit(X, y)
    >>> clf.predict(X)
    array([ 1,  1, -1, -1])
    """

    def __init__(self, n_estimators: int = 101, epsilon: float = 0.1, estimator=None):
        self.n_estimators = n_estimators
        self.epsilon = epsilon
        self.estimator = estimator

    def fit(self, X, y) -> Boosting:
        """Run the T rounds on ``(X, y)``; any two labels (``classes_[1]`` is +1)."""
        T = check_positive_int(self.n_estimators, "n_estimators")
        if T % 2 == 0:
            raise ValueError(
                "n_estimators must be odd so that the majority vote has "
                f"no tie; got {T}."
            )
        eps = check_positive_float(self.epsilon, "epsilon")
        Xa, ya, classes = _check_data(X, y, self.estimator)
        n = Xa.shape[0]
        factor = 1.0 + eps
        w = np.ones(n)
        shift = 0  # the true weights are w * 2**shift
        hyps, errs, log_totals = [], np.empty(T), np.empty(T + 1)
        log_totals[0] = np.log(n)
        for t in range(T):
            h, pred = _weak_fit(self.estimator, Xa, ya, w)
            wrong = pred != ya
            errs[t] = math.fsum(w[wrong]) / math.fsum(w)  # correctly rounded sums
            hyps.append(h)
            w = np.where(wrong, w * factor, w)
            if w.max() > 2.0**500:
                w *= 2.0**-500
                shift += 500
            log_totals[t + 1] = math.log(math.fsum(w)) + shift * math.log(2.0)
        bad = int(np.sum(errs >= 0.5))
        if bad:
            warnings.warn(
                f"the weak learner had weighted error >= 1/2 in {bad} of {T} rounds "
                "(no edge gamma > 0); the boosting guarantee does not apply.",
                WeakLearnerWarning,
                stacklevel=2,
            )
        self.estimators_ = hyps
        self.estimator_weights_ = np.ones(T)
        self.estimator_errors_ = errs
        self.log_weight_totals_ = log_totals
        self.classes_ = classes
        record_feature_names(self, X)
        self.n_features_in_ = Xa.shape[1]
        return self


class AdaBoost(_Ensemble):
    """AdaBoost (Freund and Schapire 1997) for labels -1 and +1.

    Round t fits the weak learner to the normalized weights ``D_t``, with
    weighted error ``eps_t``; the hypothesis gets the weight
    ``alpha_t = ln((1 - eps_t) / eps_t) / 2`` and the weights of its mistakes
    are multiplied by ``(1 - eps_t) / eps_t = exp(2 alpha_t)``, then all are
    normalized. The output is ``sign(sum_t alpha_t h_t(x))`` (``-1`` at 0).
    Book section 3.4 (:ref:`boost-sec-adaboost`).

    The arithmetic is that of scikit-learn's ``AdaBoostClassifier`` (SAMME,
    Zhu et al. 2009, whose hypothesis weight ``ln((1 - eps)/eps)`` is exactly
    ``2 alpha_t``): the same weight update ``exp(log D + 2 alpha * wrong)``,
    normalization by ``np.sum`` and clipping at machine epsilon, so that with
    ``estimator=DecisionStump()`` both produce the same stumps and the same
    staged predictions.

    If ``eps_t == 0`` the hypothesis is perfect: it is kept with weight 1/2
    (scikit-learn's weight 1 in its units) and boosting stops. If ``eps_t >= 1/2`` it is
    discarded, a :class:`WeakLearnerWarning` is issued and boosting stops (an
    error if it happens in round 1).

    Parameters
    ----------
    n_estimators : int, default=50
        The number of rounds T.
    estimator : classifier with ``sample_weight``, optional
        The weak learner (cloned each round). Default: :class:`DecisionStump`.

    Attributes
    ----------
    estimators_, estimator_weights_ (the alpha_t), estimator_errors_ (the eps_t)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import AdaBoost
    >>> clf = AdaBoost(n_estimators=3).fit(X, y)
    >>> clf.predict(X)
    array([ 1,  1, -1, -1])
    """

    def __init__(self, n_estimators: int = 50, estimator=None):
        self.n_estimators = n_estimators
        self.estimator = estimator

    def fit(self, X, y) -> AdaBoost:
        """Run at most ``n_estimators`` rounds on ``(X, y)``; any two labels."""
        T = check_positive_int(self.n_estimators, "n_estimators")
        Xa, ya, classes = _check_data(X, y, self.estimator)
        n = Xa.shape[0]
        D = np.ones(n)
        D /= D.sum()
        tiny = np.finfo(np.float64).eps
        hyps, alphas, errs = [], [], []
        for t in range(T):
            D = np.clip(D, tiny, None)
            h, pred = _weak_fit(self.estimator, Xa, ya, D)
            wrong = pred != ya
            eps_t = float(np.mean(np.average(wrong, weights=D, axis=0)))
            if eps_t <= 0:
                hyps.append(h)
                alphas.append(0.5)
                errs.append(0.0)
                break
            if eps_t >= 0.5:
                if t == 0:
                    raise ValueError(
                        "the weak learner's first hypothesis has weighted error "
                        f"{eps_t:.4f} >= 1/2; "
                        "AdaBoost cannot start."
                    )
                warnings.warn(
                    f"round {t + 1}: weighted error {eps_t:.4f} >= 1/2; "
                    f"boosting stopped after {t} rounds.",
                    WeakLearnerWarning,
                    stacklevel=2,
                )
                break
            two_alpha = float(np.log((1.0 - eps_t) / eps_t))
            hyps.append(h)
            alphas.append(two_alpha / 2.0)
            errs.append(eps_t)
            if t < T - 1:
                D = np.exp(np.log(D) + two_alpha * wrong)
                D /= np.sum(D)
        self.estimators_ = hyps
        self.estimator_weights_ = np.array(alphas)
        self.estimator_errors_ = np.array(errs)
        self.classes_ = classes
        record_feature_names(self, X)
        self.n_features_in_ = Xa.shape[1]
        return self
