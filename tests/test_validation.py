"""Input validation of every learner: clear ValueErrors, and a rejected call changes nothing."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import ALL_LEARNERS, ONLINE_LEARNERS, assert_same_state, snapshot
from sklearn.exceptions import DataConversionWarning, NotFittedError

import olbook


def _data(n=12, d=3, seed=0):
    X, y, _, _ = olbook.data.make_noisy(n, d, margin=0.1, flip=0.2, random_state=seed)
    return X, y


def _fitted(cls, seed=0):
    X, y = _data(seed=seed)
    est = cls().fit(X, y)
    return est, X, y


def _methods(cls):
    """The fitting methods each learner has."""
    return ["fit", "partial_fit"] if cls in ONLINE_LEARNERS else ["fit"]


FIT_CASES = [(cls, m) for cls in ALL_LEARNERS for m in _methods(cls)]
FIT_IDS = [f"{cls.__name__}.{m}" for cls, m in FIT_CASES]


# --------------------------------------------------------------------------- labels
@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
@pytest.mark.parametrize(
    "labels", [[0, 1], [1, 2], ["no", "yes"], [False, True], [-1.0, 0.0], [3.0, 7.0]]
)
def test_any_two_labels(cls, method, labels):
    """Any two labels, as scikit-learn takes them: classes_ sorted, classes_[1] is +1 inside,
    predictions in the original labels; the model is the one the labels -1/+1 give."""
    X, y = _data()
    classes = np.array(labels)
    kw = {"random_state": 0} if cls is olbook.Pocket else {}
    est = getattr(cls(**kw), method)(X, classes[(y > 0).astype(int)])
    ref = getattr(cls(**kw), method)(X, y)
    assert est.classes_.dtype == classes.dtype and np.array_equal(est.classes_, classes)
    assert ref.classes_.dtype == y.dtype and np.array_equal(ref.classes_, [-1, 1])
    assert np.array_equal(est.coef_, ref.coef_)
    pred = est.predict(X)
    assert pred.dtype == classes.dtype
    assert np.array_equal(pred, classes[(ref.predict(X) > 0).astype(int)])
    assert ref.predict(X).dtype == y.dtype


@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.float32, np.float64])
def test_classes_keep_the_labels_dtype(cls, method, dtype):
    """Labels -1/+1 of any numeric dtype: classes_ and predictions keep it (scikit-learn's rule)."""
    X, y = _data()
    kw = {"random_state": 0} if cls is olbook.Pocket else {}
    est = getattr(cls(**kw), method)(X, y.astype(dtype))
    assert est.classes_.dtype == dtype and np.array_equal(est.classes_, [-1, 1])
    assert est.predict(X).dtype == dtype


@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (
            [-1, 0, 1],
            r"Only binary classification is supported\. y has 3 classes \{-1, 0, 1\}",
        ),
        (
            ["a", "b", "c"],
            r"Only binary classification is supported\. y has 3 classes \['a', 'b', 'c'\]",
        ),
        ([0], "y has one class, 0; a binary classifier needs two classes"),
        ([-1.0, 0.5], "Unknown label type: 'continuous'"),
    ],
)
def test_bad_labels_named(cls, method, labels, message):
    X, _ = _data()
    y = np.resize(np.array(labels), X.shape[0])
    with pytest.raises(ValueError, match=message):
        getattr(cls(), method)(X, y)


@pytest.mark.parametrize("cls", ONLINE_LEARNERS, ids=lambda c: c.__name__)
def test_partial_fit_classes(cls):
    """The labels of a stream: -1/+1 one class at a time; others named once by classes=."""
    X, y = _data()
    est = cls().partial_fit(X[:3], np.ones(3))  # -1/+1 need no classes=
    assert np.array_equal(est.classes_, [-1, 1])
    with pytest.raises(
        ValueError, match="y has one class, 'b'; a binary classifier needs two"
    ):
        cls().partial_fit(X[:3], ["b"] * 3)
    est = cls().partial_fit(X[:3], ["b"] * 3, classes=["b", "a"])
    assert list(est.classes_) == ["a", "b"]
    est.partial_fit(X[3:], np.where(y[3:] > 0, "b", "a"), classes=["a", "b"])
    ref = cls().partial_fit(X[:3], np.ones(3)).partial_fit(X[3:], y[3:])
    assert np.array_equal(est.coef_, ref.coef_)
    before = snapshot(est)
    with pytest.raises(
        ValueError, match=r"y has labels \['c'\] that are not among the classes"
    ):
        est.partial_fit(X[:2], ["a", "c"])
    with pytest.raises(ValueError, match="is not the classes_"):
        est.partial_fit(X[:2], ["a", "b"], classes=["a", "c"])
    with pytest.raises(ValueError, match="Only binary classification is supported"):
        cls().partial_fit(X[:2], ["a", "b"], classes=["a", "b", "c"])
    assert_same_state(before, est)


@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
def test_nan_label_rejected(cls, method):
    X, y = _data()
    y = y.astype(float)
    y[3] = np.nan
    with pytest.raises(ValueError, match="y contains NaN or inf"):
        getattr(cls(), method)(X, y)


# --------------------------------------------------------------------------- X non-finite
@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
@pytest.mark.parametrize(
    ("value", "counts"),
    [
        (np.nan, "1 NaN and 0 inf"),
        (np.inf, "0 NaN and 1 inf"),
        (-np.inf, "0 NaN and 1 inf"),
    ],
)
@pytest.mark.parametrize("row", [0, 5, -1])
def test_nonfinite_X_rejected_in_fit(cls, method, value, counts, row):
    X, y = _data()
    X = X.copy()
    X[row, 1] = value
    with pytest.raises(ValueError, match="X contains non-finite values: " + counts):
        getattr(cls(), method)(X, y)


@pytest.mark.parametrize("cls", ALL_LEARNERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", ["predict", "decision_function"])
@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_nonfinite_X_rejected_in_predict(cls, method, value):
    est, X, _ = _fitted(cls)
    X = X.copy()
    X[-1, 0] = value
    with pytest.raises(ValueError, match="X contains non-finite values"):
        getattr(est, method)(X)


# --------------------------------------------------------------------------- shapes
@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
def test_shape_mismatch(cls, method):
    X, y = _data()
    with pytest.raises(
        ValueError,
        match=rf"shape mismatch: X has {X.shape[0]} examples but y has "
        rf"{X.shape[0] - 1} labels",
    ):
        getattr(cls(), method)(X, y[:-1])


@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
def test_one_dimensional_X(cls, method):
    X, y = _data()
    with pytest.raises(ValueError, match=r"X must be a 2-D array .* got 1-D"):
        getattr(cls(), method)(X[:, 0], y)


@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
def test_empty_X_and_y(cls, method):
    with pytest.raises(ValueError, match="X is empty: it has 0 examples"):
        getattr(cls(), method)(np.zeros((0, 3)), np.zeros(0))


@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
def test_empty_y_only(cls, method):
    X, _ = _data()
    with pytest.raises(ValueError, match="y is empty"):
        getattr(cls(), method)(X, [])


@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
def test_zero_features(cls, method):
    with pytest.raises(
        ValueError,
        match=r"X has 0 feature\(s\) \(shape=\(4, 0\)\) while a minimum of 1",
    ):
        getattr(cls(), method)(np.zeros((4, 0)), np.array([1.0, -1.0, 1.0, -1.0]))


@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
def test_non_numeric_X(cls, method):
    with pytest.raises(ValueError, match="X must be numeric"):
        getattr(cls(), method)([["a", "b"], ["c", "d"]], [1, -1])


@pytest.mark.parametrize("cls", ONLINE_LEARNERS, ids=lambda c: c.__name__)
def test_wrong_number_of_features_in_partial_fit(cls):
    est, X, y = _fitted(cls)
    with pytest.raises(
        ValueError,
        match=rf"X has 4 features, but {cls.__name__} is expecting 3 features",
    ):
        est.partial_fit(np.hstack([X, X[:, :1]]), y)


@pytest.mark.parametrize("cls", ALL_LEARNERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", ["predict", "decision_function"])
def test_wrong_number_of_features_in_predict(cls, method):
    est, X, _ = _fitted(cls)
    with pytest.raises(
        ValueError,
        match=rf"X has 2 features, but {cls.__name__} is expecting 3 features",
    ):
        getattr(est, method)(X[:, :2])


@pytest.mark.parametrize("cls", ALL_LEARNERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", ["predict", "decision_function"])
def test_unfitted_predict_raises_not_fitted(cls, method):
    X, _ = _data()
    with pytest.raises(NotFittedError, match="not fitted yet"):
        getattr(cls(), method)(X)


# --------------------------------------------------------------------------- hyper-parameters
@pytest.mark.parametrize(
    ("cls", "method"),
    [c for c in FIT_CASES if c[0] is not olbook.Pocket],
    ids=[i for i in FIT_IDS if not i.startswith("Pocket")],
)
@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3", None])
def test_bad_max_epochs(cls, method, bad):
    X, y = _data()
    with pytest.raises(ValueError, match=r"max_iter must be an integer >= 1"):
        getattr(cls(max_iter=bad), method)(X, y)


@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
@pytest.mark.parametrize("bad", ["yes", 1, 0, None])
def test_bad_fit_intercept(cls, method, bad):
    X, y = _data()
    with pytest.raises(ValueError, match=r"fit_intercept must be True or False"):
        getattr(cls(fit_intercept=bad), method)(X, y)


@pytest.mark.parametrize("bad", [-1, 2.5, True, "10"])
def test_pocket_bad_max_updates(bad):
    X, y = _data()
    with pytest.raises(ValueError, match=r"max_updates must be an integer >= 0"):
        olbook.Pocket(max_updates=bad).fit(X, y)


@pytest.mark.parametrize("bad", [-3, "x", 1.5, True])
def test_pocket_bad_random_state(bad):
    X, y = _data()
    with pytest.raises(
        ValueError,
        match=r"random_state must be None, a non-negative int or a numpy Generator",
    ):
        olbook.Pocket(random_state=bad).fit(X, y)


@pytest.mark.parametrize("cls", ONLINE_LEARNERS, ids=lambda c: c.__name__)
def test_numpy_hyperparameters_accepted(cls):
    """numpy integers and booleans are valid hyper-parameters."""
    X, y = _data()
    est = cls(max_iter=np.int64(1), fit_intercept=np.bool_(True)).fit(X, y)
    assert est.n_iter_ == 1


# --------------------------------------------------------------------------- state unchanged
def _nan_at(X, row):
    X = X.copy()
    X[row, -1] = np.nan
    return X


REJECTS = {
    "nan_last_row": lambda X, y: (_nan_at(X, -1), y),
    "nan_middle_row": lambda X, y: (_nan_at(X, X.shape[0] // 2), y),
    "inf_first_row": lambda X, y: (
        np.where(np.arange(X.shape[0])[:, None] == 0, np.inf, X),
        y,
    ),
    "labels_012": lambda X, y: (X, np.where(np.arange(y.size) % 3 == 0, 0.0, y)),
    "shape_mismatch": lambda X, y: (X, y[:-1]),
}


@pytest.mark.parametrize(("cls", "method"), FIT_CASES, ids=FIT_IDS)
@pytest.mark.parametrize("how", sorted(REJECTS))
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_rejected_call_leaves_state_unchanged(cls, method, how, fit_intercept):
    X, y = _data(n=30, seed=1)
    kw = {"random_state": 0} if cls is olbook.Pocket else {}
    est = cls(fit_intercept=fit_intercept, **kw)
    est.fit(X[:20], y[:20])
    if method == "partial_fit":
        est.partial_fit(X[20:25], y[20:25])  # a trace of two passes
    before = snapshot(est)
    Xbad, ybad = REJECTS[how](X[10:], y[10:])
    with pytest.raises(ValueError):
        getattr(est, method)(Xbad, ybad)
    assert_same_state(before, est)
    # ... and the learner carries on exactly like an untouched copy.
    twin = cls(fit_intercept=fit_intercept, **kw)
    twin.fit(X[:20], y[:20])
    if method == "partial_fit":
        twin.partial_fit(X[20:25], y[20:25])
        est.partial_fit(X[25:], y[25:])
        twin.partial_fit(X[25:], y[25:])
        assert np.array_equal(est.trace_.updates, twin.trace_.updates)
    assert np.array_equal(est.coef_, twin.coef_)
    assert est.intercept_ == twin.intercept_
    assert np.array_equal(est.predict(X), twin.predict(X))


@pytest.mark.parametrize("cls", ONLINE_LEARNERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("max_iter", [1, 3])
def test_rejected_multi_epoch_fit_leaves_state_unchanged(cls, max_iter):
    X, y = _data(n=30, seed=2)
    est = cls(max_iter=2).partial_fit(X, y)
    before = snapshot(est)
    est.max_iter = max_iter
    with pytest.raises(ValueError, match="non-finite"):
        est.fit(_nan_at(X, -1), y)
    est.max_iter = 2
    assert_same_state(before, est)


@pytest.mark.parametrize("cls", ONLINE_LEARNERS, ids=lambda c: c.__name__)
def test_rejected_wrong_features_partial_fit_leaves_state_unchanged(cls):
    est, X, y = _fitted(cls)
    before = snapshot(est)
    with pytest.raises(ValueError, match="features"):
        est.partial_fit(X[:, :2], y)
    assert_same_state(before, est)


@pytest.mark.parametrize("cls", ALL_LEARNERS, ids=lambda c: c.__name__)
def test_rejected_first_call_leaves_learner_unfitted(cls):
    X, y = _data()
    for method in _methods(cls):
        est = cls()
        params = snapshot(est)
        with pytest.raises(ValueError):
            getattr(est, method)(_nan_at(X, -1), y)
        assert_same_state(params, est)
        with pytest.raises(NotFittedError):
            est.predict(X)


@pytest.mark.parametrize("cls", ONLINE_LEARNERS, ids=lambda c: c.__name__)
def test_rejected_hyperparameter_leaves_state_unchanged(cls):
    est, X, y = _fitted(cls)
    before = snapshot(est)
    est.max_iter = 0
    with pytest.raises(ValueError, match="max_iter"):
        est.partial_fit(X, y)
    with pytest.raises(ValueError, match="max_iter"):
        est.fit(X, y)
    est.max_iter = 1
    assert_same_state(before, est)


def test_pocket_rejected_random_state_leaves_state_unchanged():
    est, X, y = _fitted(olbook.Pocket)
    before = snapshot(est)
    est.random_state = -3
    with pytest.raises(ValueError, match="random_state"):
        est.fit(X, y)
    est.random_state = None
    assert_same_state(before, est)


def test_normalized_zero_example_rejected_leaves_state_unchanged():
    X, y = _data()
    est = olbook.NormalizedPerceptron().fit(X, y)
    before = snapshot(est)
    Xz = X.copy()
    Xz[-1] = 0.0
    with pytest.raises(ValueError, match="example 11 is the zero vector"):
        est.partial_fit(Xz, y)
    assert_same_state(before, est)


# --------------------------------------------------------------------------- sklearn estimator API
@pytest.mark.parametrize("cls", ALL_LEARNERS, ids=lambda c: c.__name__)
def test_sklearn_api(cls):
    from sklearn.base import clone

    X, y = _data(n=40)
    kw = {"random_state": 0} if cls is olbook.Pocket else {}
    est = cls(fit_intercept=True, **kw)
    assert est.get_params()["fit_intercept"] is True
    est.fit(X, y)
    twin = clone(est)
    assert twin.get_params() == est.get_params()
    with pytest.raises(NotFittedError):
        twin.predict(X)
    assert np.array_equal(est.classes_, [-1.0, 1.0]) and est.classes_.dtype == np.int64
    pred = est.predict(X)
    assert set(np.unique(pred)) <= {-1.0, 1.0} and pred.dtype == np.int64
    assert est.score(X, y) == np.mean(pred == y)
    assert est.n_features_in_ == 3
    # labels given as a list of ints are accepted; a column vector with scikit-learn's warning
    est2 = clone(est).fit(X, y.astype(int).tolist())
    assert np.array_equal(est2.coef_, est.coef_)
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        est3 = clone(est).fit(X, y.reshape(-1, 1))
    assert np.array_equal(est3.coef_, est.coef_)


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_classes_given_to_partial_fit_keep_their_dtype(dtype):
    """partial_fit(classes=...) with labels -1/+1 of another dtype: classes_ keeps it."""
    X, y = _data()
    for cls in ONLINE_LEARNERS:
        est = cls().partial_fit(
            X[:3], y[:3].astype(dtype), classes=np.array([-1, 1], dtype)
        )
        assert est.classes_.dtype == dtype, cls
        assert est.predict(X).dtype == dtype, cls


def bad_eta(t):
    """A step-size schedule that fails at round 6."""
    if t > 5:
        raise ZeroDivisionError("a schedule that fails at round 6")
    return 0.1


def test_a_call_that_raises_anything_changes_nothing():
    """fit and partial_fit roll back on any exception, not only a ValueError: a step-size
    schedule that raises ZeroDivisionError in the middle of a pass leaves the learner as
    it was (fresh: not fitted; fitted: the same pickle)."""
    import pickle

    from sklearn.exceptions import NotFittedError

    X, y = _data()
    fresh = olbook.NORMA(eta=bad_eta)
    with pytest.raises(ZeroDivisionError):
        fresh.fit(X, y)
    assert not hasattr(fresh, "mistakes_")
    with pytest.raises(NotFittedError):
        fresh.predict(X)
    est = olbook.NORMA(eta=bad_eta).partial_fit(X[:4], y[:4])
    before = pickle.dumps(est)
    with pytest.raises(ZeroDivisionError):
        est.partial_fit(X, y)
    assert pickle.dumps(est) == before
