"""olbook's perceptrons are scikit-learn's: Perceptron bitwise, AveragedPerceptron up to rounding.

olbook adds each score in its fixed blocked order (``olbook._rowops``), scikit-learn left to right;
the two scores can differ in the last bits, but the perceptron's weights are sums of the examples
it updated on, so they are equal to the bit whenever no score lies within rounding error of 0
(which decides the same updates): on every data set here, dyadic (olbook.data), integer or Gaussian.
The scores are compared up to rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import Perceptron as SkPerceptron
from sklearn.linear_model import SGDClassifier

import olbook
from olbook.data import make_noisy, make_separable

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _both_classes(y):
    y = np.asarray(y, dtype=float).copy()
    y[0], y[1] = 1.0, -1.0
    return y


def _datasets():
    for seed in range(3):
        rng = np.random.default_rng(100 + seed)
        yield (
            f"separable{seed}",
            *make_separable(50, 2 + seed, margin=0.02, radius=3.0, random_state=seed)[
                :2
            ],
        )
        yield (
            f"noisy{seed}",
            *make_noisy(60, 3 + seed, margin=0.1, flip=0.15, random_state=seed)[:2],
        )
        yield (
            f"gaussian{seed}",
            rng.standard_normal((70, 4 + seed)),
            _both_classes(rng.choice([-1.0, 1.0], 70)),
        )
        yield (
            f"integers{seed}",
            rng.integers(-6, 7, size=(50, 3 + seed)).astype(float),
            _both_classes(rng.choice([-1.0, 1.0], 50)),
        )


DATASETS = list(_datasets())
IDS = [d[0] for d in DATASETS]


@pytest.mark.parametrize(("name", "X", "y"), DATASETS, ids=IDS)
@pytest.mark.parametrize("epochs", [1, 2, 5, 20])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_perceptron_is_sklearn_perceptron(name, X, y, epochs, fit_intercept):
    ours = olbook.Perceptron(fit_intercept=fit_intercept, max_iter=epochs).fit(X, y)
    theirs = SkPerceptron(
        shuffle=False,
        max_iter=epochs,
        tol=None,
        eta0=1.0,
        alpha=0.0,
        fit_intercept=fit_intercept,
    ).fit(X, y)
    assert ours.coef_.shape == theirs.coef_.shape == (1, X.shape[1])
    assert np.array_equal(ours.coef_, theirs.coef_)
    assert np.array_equal(ours.intercept_, theirs.intercept_)
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    assert np.allclose(
        ours.decision_function(X), theirs.decision_function(X), rtol=1e-12, atol=1e-12
    )
    rng = np.random.default_rng(0)
    Xt = rng.standard_normal((30, X.shape[1])) * 3
    assert np.array_equal(ours.predict(Xt), theirs.predict(Xt))
    assert np.array_equal(ours.classes_, theirs.classes_)


@pytest.mark.parametrize(("name", "X", "y"), DATASETS, ids=IDS)
@pytest.mark.parametrize("epochs", [1, 2, 5, 20])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_averaged_is_sklearn_sgd_average(name, X, y, epochs, fit_intercept):
    ours = olbook.AveragedPerceptron(fit_intercept=fit_intercept, max_iter=epochs).fit(
        X, y
    )
    theirs = SGDClassifier(
        loss="perceptron",
        learning_rate="constant",
        eta0=1,
        penalty=None,
        average=True,
        shuffle=False,
        max_iter=epochs,
        tol=None,
        fit_intercept=fit_intercept,
    ).fit(X, y)
    assert ours.coef_.shape == theirs.coef_.shape and ours.intercept_.shape == (1,)
    assert np.allclose(ours.coef_, theirs.coef_, rtol=1e-10, atol=1e-12)
    assert np.allclose(ours.intercept_, theirs.intercept_, rtol=1e-10, atol=1e-12)
    assert np.allclose(
        ours.decision_function(X), theirs.decision_function(X), rtol=1e-9, atol=1e-9
    )
