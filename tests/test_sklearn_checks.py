"""Every olbook estimator is run through scikit-learn's own estimator checks.

The game learners (experts, OCO) get the same by hand at the end: ``predict``
changes nothing, ``reset`` returns to the initial state, and a learner pickled
mid-stream continues identically.

The estimators are found by introspection (every public class of ``olbook``
that is a scikit-learn estimator), so a new learner is checked without
editing this file. A check that an estimator fails *by design* is listed in
``EXPECTED_FAILURES`` with the reason; anything else that fails is a bug.
"""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.utils.estimator_checks import parametrize_with_checks
from test_bad_input import GAMES, make_game, play, state

import olbook


def public_estimator_classes() -> list[type]:
    """Every public, concrete scikit-learn estimator class that ``olbook`` exports."""
    found = []
    for name in sorted(olbook.__all__):
        obj = getattr(olbook, name)
        if (
            inspect.isclass(obj)
            and issubclass(obj, BaseEstimator)
            and not inspect.isabstract(obj)
        ):
            found.append(obj)
    oco = olbook.oco  # its scikit-learn classifiers (AdaGrad, coin betting)
    for name in sorted(oco.__all__):
        obj = getattr(oco, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            found.append(obj)
    return found


#: Non-default parameters for the checks, each with its reason.
PARAMS = {
    # The hard margin (the default, C=None) has no solution on data that is not
    # separable, which most of scikit-learn's check data is: it raises ValueError by
    # design (book section 2.2). The soft margin is checked instead.
    olbook.SVM: {"C": 1.0},
}


def instances() -> list[BaseEstimator]:
    return [cls(**PARAMS.get(cls, {})) for cls in public_estimator_classes()]


_ZERO_ROWS = (
    "the normalized perceptron scales every example to unit norm and refuses the zero vector "
    "with a ValueError (documented in its docstring); this check's data has all-zero rows"
)

#: check name -> reason, per estimator class: the documented design decisions.
EXPECTED_FAILURES: dict[type, dict[str, str]] = {
    olbook.NormalizedPerceptron: {
        "check_estimators_dtypes": _ZERO_ROWS,
        "check_estimator_sparse_array": _ZERO_ROWS,
        "check_estimator_sparse_matrix": _ZERO_ROWS,
        "check_estimator_sparse_tag": _ZERO_ROWS,
    },
}


def test_poor_score_is_declared_where_the_algorithm_scores_lower():
    """ROMMA, CW and IELLIP carry scikit-learn's ``poor_score`` tag (the checks run with
    a lower bar) instead of an expected failure that would skip them; the tag is
    honest: after one pass from the defaults they do not score above the check's 0.83
    on its data, where the perceptron, PA and AROW score above 0.95."""
    from sklearn.datasets import make_blobs
    from sklearn.preprocessing import StandardScaler
    from sklearn.utils import shuffle

    # the binary problem of scikit-learn's check_classifiers_train
    X, y = make_blobs(n_samples=300, random_state=0)
    X, y = shuffle(X, y, random_state=7)
    X = StandardScaler().fit_transform(X)
    X, y = X[y != 2], y[y != 2]
    for cls in (olbook.ROMMA, olbook.ConfidenceWeighted, olbook.IELLIP):
        assert cls().__sklearn_tags__().classifier_tags.poor_score, cls
        # the check asks for accuracy > 0.83 (ROMMA reaches exactly 0.83)
        assert cls().fit(X, y).score(X, y) <= 0.83, cls
    for cls in (olbook.Perceptron, olbook.PassiveAggressive, olbook.AROW):
        assert not cls().__sklearn_tags__().classifier_tags.poor_score, cls
        assert cls().fit(X, y).score(X, y) > 0.95, cls


def expected_failed_checks(estimator) -> dict[str, str]:
    return EXPECTED_FAILURES.get(type(estimator), {})


def test_every_estimator_is_found():
    names = {cls.__name__ for cls in public_estimator_classes()}
    assert {
        "Perceptron",
        "Pocket",
        "SVM",
        "AdaBoost",
        "MulticlassPA",
        "NORMA",
        "Forgetron",
    } <= names
    assert len(names) >= 25


@pytest.mark.parametrize("est", instances(), ids=lambda e: type(e).__name__)
def test_feature_names_of_a_dataframe(est):
    """scikit-learn's check_dataframe_column_names_consistency, which
    parametrize_with_checks does not yield in scikit-learn 1.9: feature_names_in_ from a
    DataFrame, and other names (also reordered, or fewer) a ValueError in predict,
    decision_function, score and partial_fit."""
    import warnings

    from sklearn.utils.estimator_checks import check_dataframe_column_names_consistency

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the learners' ConvergenceWarnings
        check_dataframe_column_names_consistency(type(est).__name__, est)


@parametrize_with_checks(instances(), expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def _breast_cancer():
    # bundled with scikit-learn: no network
    from sklearn.datasets import (
        load_breast_cancer,
    )
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("est", instances(), ids=lambda e: type(e).__name__)
def test_scikit_learn_data_and_cross_validation(est):
    """scikit-learn's data sets (labels 0/1 here) and cross_val_score, without re-encoding."""
    from sklearn.model_selection import cross_val_score

    X, y = _breast_cancer()
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    scores = cross_val_score(est, X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.6), scores
    fitted = est.fit(X, y)
    assert np.array_equal(fitted.classes_, [0, 1]) and fitted.classes_.dtype == y.dtype
    pred = fitted.predict(X)
    assert pred.dtype == y.dtype and set(np.unique(pred)) <= {0, 1}
    # strings sorted the other way round: the learner sees -y, and (from zero, with no tie)
    # learns the opposite weights: the same predictions
    names = np.array(["benign", "malignant"])[1 - y]
    by_name = type(est)(**est.get_params()).fit(X, names)
    assert list(by_name.classes_) == ["benign", "malignant"]
    assert np.array_equal(by_name.predict(X) == "malignant", pred == 0)


# iris is not separable
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    "cls",
    [
        olbook.MulticlassPerceptron,
        olbook.MulticlassPA,
        olbook.MulticlassROMMA,
        olbook.MulticlassOGD,
    ],
)
def test_multiclass_on_iris(cls):
    from sklearn.datasets import load_iris
    from sklearn.model_selection import cross_val_score

    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    assert np.all(cross_val_score(cls(max_iter=5), X, names, cv=3) > 0.5)
    est = cls().fit(X, names)
    assert list(est.classes_) == ["setosa", "versicolor", "virginica"]
    assert set(est.predict(X)) <= set(names)


# ------------------------------------------------------------------ the game learners, by hand
# Halving, Weighted Majority, Hedge and OGD are no scikit-learn estimators (they play a
# repeated game: reset, predict, update, run); they get the checks that apply, by hand.
@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.__name__)
def test_game_predict_reset_pickle(cls):
    """predict changes nothing; reset returns to the initial state; a pickled game continues identically."""
    game, kind = make_game(cls)
    initial = state(game.reset())
    play(game, kind, rounds=6, seed=1)
    mid = state(game)
    p = game.predict()
    game.predict()
    assert state(game) == mid and np.array_equal(p, game.predict())
    copy = pickle.loads(pickle.dumps(game))
    assert state(copy) == mid
    play(game, kind, rounds=7, seed=2)
    play(copy, kind, rounds=7, seed=2)
    assert state(copy) == state(game)
    for f in ("loss", "regret") if kind == "experts" else ("points", "gradients"):
        assert np.array_equal(getattr(copy.trace_, f), getattr(game.trace_, f))
    game.reset()
    assert state(game) == initial
    assert game.n_rounds_ == 0 and len(game.trace_) == 0
