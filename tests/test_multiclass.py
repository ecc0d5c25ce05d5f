"""The multiclass perceptron and multiclass PA."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

import olbook
from olbook.multiclass import MulticlassPA, MulticlassPerceptron


def _reference(X, y, k, variant, C):
    """The update rule written out with numpy, one example at a time."""
    W = np.zeros((k, X.shape[1]))
    for x, c in zip(X, y, strict=True):
        s = W @ x
        wrong = [r for r in range(k) if r != c]
        best = max(wrong, key=lambda r: (s[r], -r))
        if variant is None:
            tau = 1.0 if s[c] <= s[best] else 0.0
        else:
            loss = max(0.0, 1 - (s[c] - s[best]))
            q = 2 * (x @ x)
            tau = (
                0.0
                if loss == 0 or q == 0
                else {
                    "PA": loss / q,
                    "PA-I": min(C, loss / q),
                    "PA-II": loss / (q + 0.5 / C),
                }[variant]
            )
        W[c] += tau * x
        W[best] -= tau * x
    return W


@pytest.mark.parametrize("variant", [None, "PA", "PA-I", "PA-II"])
def test_matches_the_rule(variant):
    rng = np.random.default_rng(0)
    X = rng.integers(-4, 5, size=(200, 6)) / 4.0  # dyadic: every score exact
    y = rng.integers(0, 4, size=200)
    clf = (
        MulticlassPerceptron()
        if variant is None
        else MulticlassPA(variant=variant, C=0.5)
    )
    clf.fit(X, y)
    assert np.allclose(
        clf.coef_, _reference(X, y, 4, variant, 0.5), rtol=1e-12, atol=1e-12
    )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_digits_and_labels():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    names = np.array(list("abcdefghij"))[y]
    clf = MulticlassPA(max_iter=3).fit(X, names)
    assert list(clf.classes_) == list("abcdefghij") and clf.coef_.shape == (10, 64)
    assert np.mean(clf.predict(X) == names) > 0.9
    per = MulticlassPerceptron().fit(X, y)
    assert per.n_updates_ >= per.mistakes_ > 0
    with pytest.raises(ValueError, match="not seen"):
        per.partial_fit(X[:2], [3, 11])
    assert per.n_iter_ == 1


def test_separable_mistake_bound():
    # Crammer and Singer's multiclass perceptron makes at most 2 (R/gamma)^2 mistakes when
    # some unit-norm matrix U separates with margin gamma: (U_y - U_r).x >= gamma.
    rng = np.random.default_rng(4)
    k, d = 3, 5
    U = rng.standard_normal((k, d))
    U /= np.sqrt((U**2).sum())
    X = rng.standard_normal((3000, d))
    S = X @ U.T
    order = np.sort(S, axis=1)
    keep = order[:, -1] - order[:, -2] > 0.15
    X, y = X[keep], S[keep].argmax(1)
    gamma = np.min(np.sort(X @ U.T, axis=1)[:, -1] - np.sort(X @ U.T, axis=1)[:, -2])
    R = np.sqrt((X**2).sum(1)).max()
    clf = MulticlassPerceptron(max_iter=200).fit(X, y)
    assert clf.converged_ and clf.mistakes_ <= 2 * (R / gamma) ** 2


def test_bad_input():
    with pytest.raises(ValueError, match="at least 2"):
        MulticlassPerceptron().fit(np.eye(3), [1, 1, 1])
    with pytest.raises(ValueError, match="variant"):
        MulticlassPA(variant="PA-3").fit(np.eye(3), [0, 1, 2])
    clf = MulticlassPA().fit(np.eye(3), [0, 1, 2])
    with pytest.raises(ValueError, match="non-finite"):
        clf.partial_fit([[np.nan, 0, 0]], [1])
    assert np.all(np.isfinite(clf.coef_)) and olbook.MulticlassPA is MulticlassPA


def test_validation_writes_no_state():
    """Checking the hyper-parameters reads them and sets nothing (scikit-learn's rule)."""
    import olbook

    clf = olbook.MulticlassPA(variant="PA-II", C=0.5)
    before = dict(vars(clf))
    clf._validate_params()
    assert vars(clf) == before


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: olbook.MulticlassPerceptron(**kw),
        lambda **kw: olbook.MulticlassPA(variant="PA-II", C=0.3, **kw),
    ],
)
def test_multiclass_fit_intercept_is_the_rule_on_a_constant_feature(make):
    """coef_ (k, d), intercept_ (k,): with fit_intercept the rule run on X with a column of
    ones, the last column of its weights being intercept_; predictions agree."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((90, 2)) + 3.0
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, 90)]
    ours = make(fit_intercept=True, max_iter=2).fit(X, y)
    ref = make(max_iter=2).fit(np.column_stack([X, np.ones(90)]), y)
    assert ours.coef_.shape == (3, 2) and ours.intercept_.shape == (3,)
    assert np.array_equal(ours.trace_.mistakes, ref.trace_.mistakes)
    assert np.array_equal(ours.coef_, ref.coef_[:, :2])
    assert np.array_equal(ours.intercept_, ref.coef_[:, 2])
    assert np.array_equal(
        ours.predict(X), ref.predict(np.column_stack([X, np.ones(90)]))
    )
    plain = make(max_iter=2).fit(X, y)
    assert np.array_equal(plain.intercept_, np.zeros(3))
