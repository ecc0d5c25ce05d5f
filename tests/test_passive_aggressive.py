"""PA, PA-I, PA-II: the closed forms against the per-round problems, scikit-learn, and the bounds."""

import warnings

import numpy as np
import pytest
from conftest import started_at
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier

import olbook
from olbook.passive_aggressive import PassiveAggressive


def _per_round_optimum(w, x, y, variant, C):
    """Solve the round's problem numerically (SLSQP) over (w', xi)."""
    d = w.size

    def obj(z):
        v, xi = z[:d], z[d]
        pen = {"PA": 0.0, "PA-I": C * xi, "PA-II": C * xi**2}[variant]
        return 0.5 * np.sum((v - w) ** 2) + pen

    # loss <= xi
    cons = [{"type": "ineq", "fun": lambda z: z[d] - (1.0 - y * (z[:d] @ x))}]
    if variant == "PA":
        cons.append({"type": "eq", "fun": lambda z: z[d]})
    else:
        cons.append({"type": "ineq", "fun": lambda z: z[d]})
    with warnings.catch_warnings():
        # trust-constr's notes on its quasi-Newton updates
        warnings.simplefilter("ignore")
        res = minimize(
            obj,
            np.r_[w, 1.0],
            constraints=cons,
            method="trust-constr",
            options={"gtol": 1e-12, "xtol": 1e-14, "maxiter": 5000},
        )
    assert res.constr_violation < 1e-9
    return res.x[:d]


@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
@pytest.mark.parametrize("seed", range(6))
def test_closed_form_solves_the_round(variant, seed):
    rng = np.random.default_rng(seed)
    d = 4
    w, x = rng.standard_normal(d), rng.standard_normal(d)
    y = 1.0 if rng.random() < 0.5 else -1.0
    C = [0.05, 0.3, 2.0][seed % 3]
    clf = started_at(PassiveAggressive(variant=variant, C=C), w)  # one round from w
    clf.partial_fit(x[None, :], [y])
    expected = _per_round_optimum(w, x, y, variant, C)
    assert np.allclose(clf.coef_, expected, atol=1e-6), (clf.coef_, expected)


@pytest.mark.parametrize(("variant", "lr"), [("PA-I", "pa1"), ("PA-II", "pa2")])
@pytest.mark.parametrize("C", [0.01, 1.0])
@pytest.mark.parametrize("epochs", [1, 3])
def test_identical_to_scikit_learn(variant, lr, C, epochs):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((300, 12))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(300) > 0, 1.0, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = PassiveAggressive(variant=variant, C=C, max_iter=epochs).fit(X, y)
        sk = SGDClassifier(
            loss="hinge",
            learning_rate=lr,
            eta0=C,
            penalty=None,
            fit_intercept=False,
            shuffle=False,
            max_iter=epochs,
            tol=None,
        ).fit(X, y)
    if ours.converged_ and ours.n_iter_ < epochs:
        pytest.skip("converged before scikit-learn's fixed number of passes")
    # The same updates; the scores are added in olbook's blocked order and scikit-learn's
    # left-to-right order, so the weights agree up to the last bits (not to the bit).
    assert np.allclose(ours.coef_, sk.coef_.ravel(), rtol=1e-10, atol=1e-13)
    assert not np.array_equal(ours.coef_, np.zeros(12))


def test_updates_on_margin_violations_not_only_mistakes():
    X, y, _ = olbook.data.make_separable(400, 5, margin=0.05, random_state=1)
    clf = PassiveAggressive(variant="PA").fit(X, y)
    assert clf.n_updates_ > clf.mistakes_
    # every mistake is a violation
    assert np.all(clf.trace_.updates[clf.trace_.mistakes])


def test_pa_bound_separable():
    # Crammer et al. 2006, theorem 2: if u attains y u.x >= 1 on every example, PA has
    # sum_t loss_t^2 <= ||u||^2 R^2, so at most ||u||^2 R^2 mistakes.
    for seed in range(5):
        X, y, u = olbook.data.make_separable(
            300, 4, margin=0.1, radius=1.0, random_state=seed
        )
        gamma = olbook.margin(X, y, u)
        R = olbook.radius(X)
        clf = PassiveAggressive(variant="PA").fit(X, y)
        assert clf.mistakes_ <= (R / gamma) ** 2


def test_zero_example_and_bad_params():
    X = np.array([[0.0, 0.0], [1.0, 0.0]])
    clf = PassiveAggressive(variant="PA").fit(X, [1, -1])
    assert np.all(np.isfinite(clf.coef_)) and not clf.trace_.updates[0]
    for bad in [
        dict(variant="PA-III"),
        dict(C=0.0),
        dict(C=float("nan")),
        dict(max_iter=0),
    ]:
        with pytest.raises(ValueError):
            PassiveAggressive(**bad).fit(X, [1, -1])
    with pytest.raises(ValueError, match="non-finite"):
        clf.partial_fit([[np.nan, 1.0]], [1])
    assert clf.n_iter_ == 1  # unchanged by the rejected call
