"""The pocket algorithm: the perceptron for data that is not linearly separable
(book chapter 1, section 1.5, :ref:`perc-sec-pocket`).
"""

from __future__ import annotations

import numba
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from ._base import BinaryClassifierMixin, LinearPredictorMixin
from ._rowops import row_score
from ._validation import (
    check_binary_targets,
    check_bool,
    check_nonnegative_int,
    check_rng,
    check_X,
    record_feature_names,
)

__all__ = ["Pocket", "pocket_run"]


@numba.njit(cache=True)
def pocket_run(X, y, fit_intercept, draws, w, pocket_w):
    """Run the pocket algorithm; ``w`` and ``pocket_w`` are filled in place.

    Both have length d+1, the bias last.

    Iteration t: count the training errors of the current w_t; if it makes
    fewer than the pocket, put w_t in the pocket; stop if w_t has no
    PLA-mistake (y f <= 0); otherwise pick one of those mistakes at random
    (``draws[t]`` in [0, 1)) and update w_{t+1} = w_t + y x.
    Returns (errors of each w_t, pocket errors after each t, number of updates).
    """
    n, d = X.shape
    T = draws.shape[0]
    errors = np.empty(T + 1, dtype=np.int64)
    pocket_errors = np.empty(T + 1, dtype=np.int64)
    violators = np.empty(n, dtype=np.int64)
    best = n + 1
    t = 0
    while True:
        n_err = 0
        n_viol = 0
        for i in range(n):
            f, _ = row_score(w, X, i)
            if fit_intercept:
                f += w[d]
            if (f > 0.0) != (y[i] > 0.0):
                n_err += 1
            if y[i] * f <= 0.0:
                violators[n_viol] = i
                n_viol += 1
        errors[t] = n_err
        if n_err < best:
            best = n_err
            for j in range(w.shape[0]):  # pocket_w[:] = w, quicker to compile
                pocket_w[j] = w[j]
        pocket_errors[t] = best
        if n_viol == 0 or t == T:
            break
        k = violators[min(int(draws[t] * n_viol), n_viol - 1)]
        for j in range(d):
            w[j] += y[k] * X[k, j]
        if fit_intercept:
            w[d] += y[k]
        t += 1
    return errors[: t + 1], pocket_errors[: t + 1], t


class Pocket(
    BinaryClassifierMixin, LinearPredictorMixin, ClassifierMixin, BaseEstimator
):
    r"""The pocket algorithm: run PLA, keep in the pocket the best weights seen so far.

    Starting from :math:`\mathbf w_0 = \mathbf 0`, each iteration picks a
    random example the current weights get wrong (:math:`y\,f(\mathbf x) \le 0`),
    updates :math:`\mathbf w_{t+1} = \mathbf w_t + y\mathbf x`, and counts the
    training errors of :math:`\mathbf w_{t+1}`; if they are fewer than those of
    the pocket weights :math:`\hat{\mathbf w}`, then
    :math:`\hat{\mathbf w} \leftarrow \mathbf w_{t+1}`. After ``max_updates``
    updates (or when the data is separated) it returns :math:`\hat{\mathbf w}`.

    **Which pocket.** This is the variant taught in H.-T. Lin's *Machine
    Learning Foundations* (his lecture notes, ``lin2013foundations`` in the book's
    references), which evaluates the whole training set after every update.
    Gallant (1990) instead keeps the weights with the
    longest *run* of consecutive correct classifications of randomly drawn
    examples, and his "pocket algorithm with ratchet" also demands that the
    new pocket weights classify more training examples correctly. The variant
    here is the ratchet test alone, applied after every update: the pocket's
    training error never increases, at a cost of one pass over the data per
    update. Book: section 1.5 (:ref:`perc-sec-pocket`).

    Parameters
    ----------
    max_updates : int, default=1000
        Maximum number of PLA updates (not passes: ``max_iter`` counts passes in
        the online learners, and each update here costs a pass over the data).
    fit_intercept : bool, default=False
        Learn a bias :math:`\hat b` (the weight of a constant feature 1 appended to
        every example).
    random_state : None, int or numpy.random.Generator
        Seeds the choice of the misclassified example at every iteration.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        The pocket weights :math:`\hat{\mathbf w}` (``coef_[0]``), as
        scikit-learn's binary linear models.
    intercept_ : ndarray of shape (1,)
        The pocket bias :math:`\hat b` (0 when ``fit_intercept=False``).
    last_coef_ : ndarray of shape (1, n_features)
        The PLA weights at the end.
    last_intercept_ : ndarray of shape (1,)
    errors_ : ndarray of int, shape ``(n_updates_ + 1,)``
        Training errors of :math:`\mathbf w_0, \mathbf w_1, \dots`.
    pocket_errors_ : ndarray of int
        Training errors of the pocket after each iteration (non-increasing).
    n_updates_ : int
        The PLA updates made, at most ``max_updates`` (the online learners'
        name for their number of updates).

    References
    ----------
    S. I. Gallant, "Perceptron-based learning algorithms", IEEE Transactions on
    Neural Networks 1(2), 1990.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 1.0], [1.0, 3.0], [-1.0, -2.0], [-3.0, -1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> from olbook import Pocket
    >>> X_noisy = np.vstack([X, [[2.0, 2.0]]])
    >>> y_noisy = np.append(y, -1)  # one point on the wrong side: not separable
    >>> clf = Pocket(max_updates=50, random_state=0).fit(X_noisy, y_noisy)
    >>> int(clf.pocket_errors_[-1])  # training errors of the pocket weights
    1
    >>> clf.predict(X_noisy)
    array([ 1,  1, -1, -1,  1])
    """

    def __init__(
        self, max_updates: int = 1000, fit_intercept: bool = False, random_state=None
    ):
        self.max_updates = max_updates
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    def fit(self, X, y):
        """Run the pocket algorithm on ``(X, y)``; returns ``self``."""
        T = check_nonnegative_int(self.max_updates, "max_updates")
        fit_b = check_bool(self.fit_intercept, "fit_intercept")
        rng = check_rng(self.random_state)
        Xa = check_X(X)
        ya, classes = check_binary_targets(y, n_samples=Xa.shape[0])
        d = Xa.shape[1]
        draws = rng.random(T)
        w = np.zeros(d + 1)
        pocket_w = np.zeros(d + 1)
        errors, pocket_errors, n_updates = pocket_run(Xa, ya, fit_b, draws, w, pocket_w)
        self.coef_ = pocket_w[None, :d].copy()
        self.intercept_ = pocket_w[d:].copy()
        self.last_coef_ = w[None, :d].copy()
        self.last_intercept_ = w[d:].copy()
        self.errors_ = errors.copy()
        self.pocket_errors_ = pocket_errors.copy()
        self.n_updates_ = int(n_updates)
        record_feature_names(self, X)
        self.n_features_in_ = d
        self.classes_ = classes
        return self
