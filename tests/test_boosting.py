"""Tests of olbook.boosting (book chapter 3)."""

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import AdaBoostClassifier

from olbook import AdaBoost, Boosting, DecisionStump, WeakLearnerWarning
from olbook.boosting import stump_errors


def brute_force_min_error(X, y, w):
    """Minimum weighted error over every feature, every threshold between data values, both signs."""
    best = np.inf
    for j in range(X.shape[1]):
        vals = np.unique(X[:, j])
        thetas = np.concatenate([[vals[0] - 1.0], (vals[:-1] + vals[1:]) / 2])
        for theta, s in itertools.product(thetas, (1, -1)):
            pred = np.where(X[:, j] > theta, s, -s)
            best = min(
                best, sum(wi for wi, p, yi in zip(w, pred, y, strict=True) if p != yi)
            )
    return best


@settings(max_examples=60)
@given(
    n=st.integers(1, 12),
    d=st.integers(1, 3),
    seed=st.integers(0, 10_000),
)
def test_stump_equals_brute_force(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, d)).astype(float)  # many equal values
    y = rng.choice([-1, 1], size=n)
    w = rng.integers(1, 9, size=n).astype(float)  # integer weights: exact sums
    stump = DecisionStump(tie_tol=0).fit(X, y, sample_weight=w)
    pred = stump.predict(X)
    err = float(np.sum(w[pred != y]))
    assert err == brute_force_min_error(X, y, w)
    assert stump.error_ == pytest.approx(err / w.sum())


def test_stump_tie_rule_first_feature_lowest_threshold():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    y = np.array([-1, -1, 1, 1])
    s = DecisionStump().fit(X, y)
    assert (s.feature_, s.threshold_, s.polarity_, s.error_) == (0, 1.5, 1, 0.0)
    # two equally good thresholds on one feature: the lower one wins
    s = DecisionStump().fit(np.arange(5.0)[:, None], np.array([-1, 1, -1, 1, 1]))
    assert (s.threshold_, s.polarity_) == (0.5, 1)


def test_stump_constant_feature_and_constant_stump():
    X = np.ones((5, 1))
    y = np.array([1, 1, 1, -1, 1])
    s = DecisionStump().fit(X, y)
    assert s.threshold_ == -np.inf and s.polarity_ == 1
    np.testing.assert_array_equal(s.predict(X), np.ones(5))


def test_stump_threshold_between_adjacent_floats():
    a = 1.0
    b = np.nextafter(a, 2.0)
    s = DecisionStump().fit(np.array([[a], [b]]), np.array([-1, 1]))
    np.testing.assert_array_equal(s.predict(np.array([[a], [b]])), [-1, 1])


def test_stump_errors_cumsum_rows():
    X = np.array([[2.0], [0.0], [1.0]])
    y = np.array([1.0, -1.0, 1.0])
    w = np.array([1.0, 2.0, 4.0])
    _, _, err = stump_errors(X, y, w)
    # rows: everything +, threshold after 0, after 1, (row 3 unused)
    np.testing.assert_array_equal(err[:3, 0, 0], [2.0, 0.0, 4.0])
    np.testing.assert_array_equal(err[:3, 0, 1], [5.0, 7.0, 3.0])
    assert np.isinf(err[3, 0]).all()


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, np.where(y == 1, 1, -1)


def test_sklearn_samme_with_olbook_stump_equals_adaboost(cancer):
    X, y = cancer
    ours = AdaBoost(n_estimators=60).fit(X, y)
    sk = AdaBoostClassifier(estimator=DecisionStump(), n_estimators=60).fit(X, y)
    assert len(ours.estimators_) == len(sk.estimators_) == 60
    np.testing.assert_array_equal(2 * ours.estimator_weights_, sk.estimator_weights_)
    for a, b in zip(ours.staged_predict(X), sk.staged_predict(X), strict=True):
        np.testing.assert_array_equal(a, b)
    for h1, h2 in zip(ours.estimators_, sk.estimators_, strict=True):
        assert (h1.feature_, h1.threshold_, h1.polarity_) == (
            h2.feature_,
            h2.threshold_,
            h2.polarity_,
        )


def test_adaboost_training_error_bound(cancer):
    X, y = cancer
    ab = AdaBoost(n_estimators=40).fit(X, y)
    e = ab.estimator_errors_
    bound = np.cumprod(2 * np.sqrt(e * (1 - e)))
    train = np.array([np.mean(p != y) for p in ab.staged_predict(X)])
    assert np.all(train <= bound + 1e-12)
    assert np.all(bound <= np.exp(-2 * np.cumsum((0.5 - e) ** 2)) + 1e-12)


def test_boosting_weights_and_vote(cancer):
    X, y = cancer
    b = Boosting(n_estimators=11, epsilon=0.25).fit(X, y)
    assert len(b.estimators_) == 11
    # the total weight grows by 1 + eps * err_t each round (dyadic weights: exact)
    growth = np.diff(b.log_weight_totals_)
    np.testing.assert_allclose(growth, np.log1p(0.25 * b.estimator_errors_), rtol=1e-12)
    votes = np.sum([h.predict(X) for h in b.estimators_], axis=0)
    np.testing.assert_array_equal(b.predict(X), np.where(votes > 0, 1, -1))


def test_boosting_large_weights_rescaled():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)  # xor: stumps stay weak
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WeakLearnerWarning)
        b = Boosting(n_estimators=2001, epsilon=1.0).fit(X, y)
    assert np.all(np.isfinite(b.log_weight_totals_))


def test_weak_learner_warning_and_error():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([1, -1, -1, 1])

    class Bad(DecisionStump):
        def predict(self, X):
            return -super().predict(X)

    with pytest.raises(ValueError, match="cannot start"):
        AdaBoost(n_estimators=3, estimator=Bad()).fit(X, y)
    with pytest.warns(WeakLearnerWarning, match=">= 1/2"):
        Boosting(n_estimators=3, estimator=Bad()).fit(X, y)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Boosting(n_estimators=4), "odd"),
        (lambda: Boosting(n_estimators=0), "n_estimators"),
        (lambda: Boosting(epsilon=0.0), "epsilon"),
        (lambda: Boosting(epsilon=-1.0), "epsilon"),
        (lambda: Boosting(epsilon=float("nan")), "epsilon"),
        (lambda: AdaBoost(n_estimators=0), "n_estimators"),
        (lambda: DecisionStump(tie_tol=-1.0), "tie_tol"),
        (lambda: DecisionStump(tie_tol="a"), "tie_tol"),
    ],
)
def test_bad_parameters(make, match):
    X = np.array([[0.0], [1.0]])
    y = np.array([-1, 1])
    with pytest.raises(ValueError, match=match):
        make().fit(X, y)


@pytest.mark.parametrize("cls", [DecisionStump, Boosting, AdaBoost])
def test_bad_data(cls):
    X = np.array([[0.0], [1.0], [2.0]])
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        cls().fit(X, np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="one class"):
        cls().fit(X, np.array([0, 0, 0]))
    with pytest.raises(ValueError, match="non-finite"):
        cls().fit(np.array([[0.0], [np.nan], [1.0]]), np.array([-1, 1, 1]))
    with pytest.raises(ValueError, match="non-finite"):
        cls().fit(np.array([[0.0], [np.inf], [1.0]]), np.array([-1, 1, 1]))


@pytest.mark.parametrize(
    "w", [[1.0, -1.0, 1.0], [0.0, 0.0, 0.0], [1.0, np.nan, 1.0], [1.0, 1.0]]
)
def test_bad_sample_weight(w):
    with pytest.raises(ValueError, match="sample_weight"):
        DecisionStump().fit(
            np.array([[0.0], [1.0], [2.0]]), np.array([-1, 1, 1]), sample_weight=w
        )


@pytest.mark.parametrize("cls", [DecisionStump, Boosting, AdaBoost])
def test_rejected_call_leaves_state_unchanged(cls):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    est = cls().fit(X, y) if cls is DecisionStump else cls(n_estimators=5).fit(X, y)
    before = {
        k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in vars(est).items()
    }
    pred = est.predict(X)
    with pytest.raises(ValueError):
        est.fit(X, np.zeros(30))
    with pytest.raises(ValueError):
        est.predict(np.ones((2, 4)))
    for k, v in vars(est).items():
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(v, before[k])
        else:
            assert v is before[k] or v == before[k]
    np.testing.assert_array_equal(est.predict(X), pred)
