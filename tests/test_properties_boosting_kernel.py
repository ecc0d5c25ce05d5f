"""AdaBoost's training-error bound (chapter 3) and NORMA's truncation error (chapter 7) as properties.

Bounds, as the book states them:

* AdaBoost (``boost-thm-adaboost``): if every round has ``0 < eps_t < 1/2``, the training
  error of ``H = sign(sum_t alpha_t h_t)`` (-1 at 0) is at most
  ``prod_t 2 sqrt(eps_t(1 - eps_t)) = prod_t sqrt(1 - 4 gamma_t^2) <= exp(-2 sum_t gamma_t^2)``,
  ``gamma_t = 1/2 - eps_t``; if every ``gamma_t >= gamma > 0``, the training error is 0 after
  any ``T > ln n/(2 gamma^2)`` rounds.
* NORMA's truncation (``kol-thm-truncation``): with ``sqrt(k(x, x)) <= X``, a constant step
  eta, ``eta lambda < 1``, ``q = 1 - eta lambda`` and every derivative ``|g_i| <= C``, the
  hypothesis f after t rounds and the same expansion without its terms ``i <= t - tau``
  (``1 <= tau < t``) satisfy
  ``||f - f_trunc|| <= sum_{i=1}^{t-tau} eta q^(t-i) C X = q^tau (1 - q^(t-tau)) C X/lambda
  < q^tau C X/lambda``.

AdaBoost runs with its default weak learner (the error-minimizing stump) on small integer
data with arbitrary labels, so that many stumps tie and rounds repeat; every prefix of the
rounds is checked. NORMA runs on the book's near-equality case (one example, repeated,
every round a margin error) perturbed by hypothesis (a jitter on a dyadic grid, flipped
labels, a smaller margin, the logistic loss); the distance in the RKHS is
``sqrt(a' K a)`` over the removed terms. Each test's docstring names the mutation of its
bound that the search catches (checked by ``test_properties_mutations.py``).

Tolerance: relative 1e-9. The training error is a multiple of 1/n, exact; the products
and sums of the bounds come from at most a few hundred correctly rounded operations
(relative error below 1e-13), and so does the RKHS norm (sums of at most 150^2 products
of kernel values in [0, 1], then a square root). The mutations move the bounds by a
factor of at least 1 + 1e-3.

Examples per property: the profile's (100 in "ci", 1000 in "thorough", tests/conftest.py).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, target
from hypothesis import strategies as st

import olbook
from olbook import NORMA, AdaBoost, WeakLearnerWarning
from olbook.kernels import gaussian, gram

REL = 1e-9


# ------------------------------------------------------------------ the bounds, as the book states them


def adaboost_bound(eps: np.ndarray) -> float:
    """prod_t 2 sqrt(eps_t (1 - eps_t))."""
    return math.prod(2 * math.sqrt(e * (1 - e)) for e in eps)


def adaboost_rounds_for_zero_error(n: int, gamma: float) -> float:
    """Training error 0 after any T > ln n/(2 gamma^2) rounds."""
    return math.log(n) / (2 * gamma**2)


def truncation_bound(
    eta: float, lam: float, C: float, X: float, t: int, tau: int
) -> float:
    """sum_{i=1}^{t-tau} eta (1 - eta lam)^(t-i) C X, the first (sharpest) form."""
    q = 1 - eta * lam
    return math.fsum(eta * q ** (t - i) * C * X for i in range(1, t - tau + 1))


def warm_up():
    """Compile the learners' numba loops, so that no example pays for it."""
    X, y = np.array([[0.0], [1.0], [2.0]]), np.array([1.0, -1.0, 1.0])
    AdaBoost(n_estimators=2).fit(X, y)
    for loss in ("hinge", "logistic"):
        NORMA(kernel=gaussian(1.0), loss=loss, budget=1).fit(X, y)


@pytest.fixture(autouse=True, scope="module")
def _compiled():
    warm_up()


# ------------------------------------------------------------------ AdaBoost


@st.composite
def boosting_problems(draw):
    """(X, y, T): n <= 16 points with 1-3 small integer features (many ties), arbitrary labels."""
    n, d = draw(st.integers(2, 16)), draw(st.integers(1, 3))
    X = np.array(
        draw(
            st.lists(
                st.lists(st.integers(0, 4), min_size=d, max_size=d),
                min_size=n,
                max_size=n,
            )
        ),
        dtype=np.float64,
    )
    y = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=n, max_size=n)))
    return X, y, draw(st.integers(1, 25))


@given(problem=boosting_problems())
def test_adaboost_training_error_bound(problem):
    """After every round t with 0 < eps_s < 1/2 for all s <= t, the training error is at most
    prod_s 2 sqrt(eps_s(1 - eps_s)) <= exp(-2 sum_s gamma_s^2); and 0 once
    t > ln n/(2 min_s gamma_s^2).

    Catches: prod_s 2 eps_s (step 3's factor without its square root) and
    prod_s sqrt(eps_s(1 - eps_s)) (the factor 2 dropped): on data the stumps cannot fit, with
    errors near 1/2, the training error exceeds either after a few rounds. (The last claim
    follows from the bound, exp(-2 T gamma^2) < 1/n; the search does not find the
    counterexample to a threshold ln n/(4 gamma^2), which needs many more rounds.)
    """
    X, y, T = problem
    n = len(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WeakLearnerWarning)
        try:
            ab = AdaBoost(n_estimators=T).fit(X, y)
        except (
            ValueError
        ):  # the first stump has error 1/2 (balanced labels no stump separates)
            assume(False)
    eps = ab.estimator_errors_
    worst = 0.0
    for t, F in enumerate(ab.staged_decision_function(X), start=1):
        if (
            not 0.0 < eps[t - 1] < 0.5
        ):  # the theorem's hypothesis (eps_t = 0: a perfect stump, the run stops)
            break
        err = float(np.mean(np.where(F > 0, 1.0, -1.0) != y))
        bound = adaboost_bound(eps[:t])
        gammas = 0.5 - eps[:t]
        assert math.isclose(
            bound, math.prod(math.sqrt(1 - 4 * g * g) for g in gammas), rel_tol=1e-12
        )
        assert bound <= math.exp(-2 * math.fsum(gammas**2)) * (1 + REL)
        worst = max(worst, err / max(bound, 1e-9))
        assert err <= bound * (1 + REL)
        if t > adaboost_rounds_for_zero_error(n, float(gammas.min())):
            assert err == 0.0
    target(worst, label="training error / bound")


# ------------------------------------------------------------------ NORMA's truncation


@st.composite
def norma_streams(draw):
    """(X, y, NORMA parameters, tau): t rounds near one point (a jitter of a few 2^-10 on 2
    coordinates, 0 being the repeated example), labels +1 with some flipped, the hinge loss with
    margin rho (rho = 1/lambda: every round a margin error) or the logistic loss."""
    t = draw(st.integers(2, 150))
    jitter = draw(st.integers(0, 64))
    offsets = np.array(
        draw(
            st.lists(
                st.tuples(st.integers(-jitter, jitter), st.integers(-jitter, jitter)),
                min_size=t,
                max_size=t,
            )
        ),
        dtype=np.float64,
    )
    X = np.array([0.5, 0.25]) + offsets / 2**10
    y = np.ones(t)
    for i in draw(st.lists(st.integers(0, t - 1), max_size=5)):
        y[i] = -1.0
    eta = draw(st.sampled_from([0.1, 0.5, 1.0]))
    lam = draw(st.sampled_from([0.01, 0.1, 0.5]))
    loss = draw(st.sampled_from(["hinge", "logistic"]))
    rho = draw(st.sampled_from([1 / lam, 0.5, 1.0, 0.0]))
    gamma = draw(st.sampled_from([0.5, 1.0, 4.0]))
    tau = draw(st.integers(1, t - 1))
    return X, y, dict(kernel=gaussian(gamma), eta=eta, lam=lam, loss=loss, rho=rho), tau


@given(stream=norma_streams())
def test_norma_truncation_error(stream):
    """||f - f_trunc|| <= sum_{i <= t - tau} eta q^(t-i) C X = q^tau(1 - q^(t-tau)) C X/lambda
    < q^tau C X/lambda, with the Gaussian kernel (X = 1) and the hinge or logistic loss (C = 1).

    Catches: q^(t-i+1) in place of q^(t-i) (on the repeated example every removed term points
    the same way with |g_i| = C: the distance equals the bound up to rounding).
    """
    X, y, params, tau = stream
    t = len(y)
    clf = NORMA(**params).fit(X, y)
    # the (1-based) round of each stored term, oldest first
    rounds = np.flatnonzero(clf.trace_.updates) + 1
    assert rounds.size == clf.dual_coef_.shape[1]
    removed = rounds <= t - tau
    a = np.ascontiguousarray(clf.dual_coef_[0][removed])
    K = (
        gram(params["kernel"], clf.support_vectors_[removed])
        if a.size
        else np.zeros((0, 0))
    )
    dist = (
        math.sqrt(
            max(0.0, float(olbook.row_dots(a[None, :], olbook.row_dots(K, a))[0]))
        )
        if a.size
        else 0.0
    )
    eta, lam, C, Xk = params["eta"], params["lam"], 1.0, 1.0  # k(x, x) = 1; |l'| <= 1
    q = 1 - eta * lam
    first = truncation_bound(eta, lam, C, Xk, t, tau)
    closed = q**tau * (1 - q ** (t - tau)) * C * Xk / lam
    assert math.isclose(first, closed, rel_tol=1e-9)
    # the last form exceeds the closed one by exactly q^t C X/lambda > 0 (strict in exact
    # arithmetic; in floating point q^t can vanish next to q^tau, so compare the difference)
    last = q**tau * C * Xk / lam
    assert math.isclose(
        last - closed, q**t * C * Xk / lam, rel_tol=1e-6, abs_tol=1e-12 * last
    )
    target(dist / max(first, 1e-9), label="distance / bound")
    assert dist <= first * (1 + REL)
