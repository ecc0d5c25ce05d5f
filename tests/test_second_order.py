"""AROW, NAROW, NormalHerd, CW, SCW and the second-order perceptron.

The closed forms of AROW, CW, SCW-I and SCW-II are checked against their
per-round problems solved numerically over (mu, Sigma = L L^T); changing a
constant of a closed form fails these tests.
"""

import math
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.stats import norm

import olbook
from olbook.second_order import (
    AROW,
    NAROW,
    SCW,
    ConfidenceWeighted,
    NormalHerd,
    SecondOrderPerceptron,
    coefficients,
)


def _kl(mu, S, mu0, S0):
    """KL(N(mu, S) || N(mu0, S0))."""
    S0i = np.linalg.inv(S0)
    d = mu.size
    diff = mu0 - mu
    return 0.5 * (
        np.log(np.linalg.det(S0) / np.linalg.det(S))
        + np.trace(S0i @ S)
        + diff @ S0i @ diff
        - d
    )


def _unpack(z, d):
    mu = z[:d]
    L = np.zeros((d, d))
    L[np.tril_indices(d)] = z[d : d + d * (d + 1) // 2]
    return mu, L @ L.T


def _instance(seed, d=2):
    rng = np.random.default_rng(seed)
    mu0 = rng.standard_normal(d) * 0.5
    B = rng.standard_normal((d, d))
    S0 = B @ B.T + 0.5 * np.eye(d)
    x = rng.standard_normal(d)
    y = 1.0 if rng.random() < 0.5 else -1.0
    return mu0, S0, x, y


def _solve(objective, constraints, mu0, S0, extra=0):
    d = mu0.size
    L0 = np.linalg.cholesky(S0)
    z0 = np.r_[mu0, L0[np.tril_indices(d)], np.ones(extra)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = minimize(
            objective,
            z0,
            constraints=constraints,
            method="trust-constr",
            options={"gtol": 1e-11, "xtol": 1e-13, "maxiter": 20000},
        )
    return _unpack(res.x, d)


def _closed_form(rule, mu0, S0, x, y, a, b):
    Sx = S0 @ x
    alpha, beta = coefficients(rule, y * (mu0 @ x), x @ Sx, a, b)
    return mu0 + alpha * y * Sx, S0 - beta * np.outer(Sx, Sx)


def _assert_close(got, want):
    assert np.allclose(got[0], want[0], atol=2e-4), (got[0], want[0])
    assert np.allclose(got[1], want[1], atol=2e-4), (got[1], want[1])


def _arow_round(seed, violated):
    mu0, S0, x, y = _instance(seed)
    if violated:  # margin y mu.x < 1: AROW updates
        mu0 = mu0 - (y * (mu0 @ x) - 0.5 + seed * 0.3) * y * x / (x @ x)
    else:  # margin >= 1
        mu0 = mu0 + (1.5 - y * (mu0 @ x)) * y * x / (x @ x)
    r = [0.3, 1.0, 2.5][seed % 3]
    d = mu0.size

    def obj(z):
        mu, S = _unpack(z, d)
        hinge = max(0.0, 1.0 - y * (mu @ x))
        return _kl(mu, S, mu0, S0) + (hinge**2 + x @ S @ x) / (2 * r)

    return mu0, S0, x, y, r, _solve(obj, [], mu0, S0)


@pytest.mark.parametrize("seed", range(5))
def test_arow_solves_its_round(seed):
    mu0, S0, x, y, r, want = _arow_round(seed, violated=True)
    assert y * (mu0 @ x) < 1
    _assert_close(_closed_form(0, mu0, S0, x, y, r, 0.0), want)


def test_arow_skips_the_covariance_term_at_margin_one():
    # With y mu.x >= 1 the exact minimizer of AROW's round objective still shrinks Sigma
    # (the term x' Sigma x / 2r), by the same beta = 1/(v + r); AROW, as published, does
    # not update at all. The book discusses this choice (chapter 5, part 2).
    mu0, S0, x, y, r, want = _arow_round(1, violated=False)
    assert coefficients(0, y * (mu0 @ x), x @ S0 @ x, r, 0.0) == (0.0, 0.0)
    Sx = S0 @ x
    beta = 1.0 / (x @ Sx + r)
    _assert_close((mu0, S0 - beta * np.outer(Sx, Sx)), want)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("kind", ["CW", "SCW-I", "SCW-II"])
def test_confidence_weighted_solve_their_rounds(seed, kind):
    mu0, S0, x, y = _instance(seed + 10)
    # a violated constraint: an update happens
    mu0 = -y * 0.2 * x / np.linalg.norm(x) + 0.1 * mu0
    phi = norm.ppf([0.6, 0.75, 0.9][seed % 3])
    C = [0.05, 0.5, 5.0][seed % 3]
    d = mu0.size
    n_par = d + d * (d + 1) // 2

    def loss(z):
        mu, S = _unpack(z, d)
        return phi * math.sqrt(x @ S @ x) - y * (mu @ x)

    if kind == "CW":
        want = _solve(
            lambda z: _kl(*_unpack(z, d), mu0, S0),
            [{"type": "ineq", "fun": lambda z: -loss(z)}],
            mu0,
            S0,
        )
        rule, b = 3, 0.0
    else:
        pen = (lambda xi: C * xi) if kind == "SCW-I" else (lambda xi: C * xi**2)
        want = _solve(
            lambda z: _kl(*_unpack(z[:n_par], d), mu0, S0) + pen(z[n_par]),
            [
                {"type": "ineq", "fun": lambda z: z[n_par] - loss(z[:n_par])},
                {"type": "ineq", "fun": lambda z: z[n_par]},
            ],
            mu0,
            S0,
            extra=1,
        )
        rule, b = (4 if kind == "SCW-I" else 5), C
    _assert_close(_closed_form(rule, mu0, S0, x, y, phi, b), want)


def test_no_update_when_the_margin_suffices():
    assert coefficients(0, 1.0, 2.0, 1.0, 0.0) == (0.0, 0.0)  # AROW at margin 1
    assert coefficients(1, 0.0, 0.5, 1.0, 0.0) == (0.0, 0.0)  # NAROW with v <= 1/b
    phi = norm.ppf(0.8)
    # CW: m = phi sqrt(v)
    assert coefficients(3, phi * 2.0, 4.0, phi, 0.0) == (
        0.0,
        0.0,
    )


def test_nherd_shrinks_as_herding():
    # Moving every weight vector of N(mu, S) by the same affine map gives Sigma' = A S A^T with
    # A = I - c S x x^T (c = 1/(v + 1/C)): that is S - beta^2 (v + 2/C) S x x^T S.
    mu0, S0, x, y = _instance(3)
    C = 0.7
    v = x @ S0 @ x
    c = 1.0 / (v + 1.0 / C)
    A = np.eye(2) - c * np.outer(S0 @ x, x)
    _, S1 = _closed_form(2, -y * x, S0, x, y, C, 0.0)
    assert np.allclose(S1, A @ S0 @ A.T, atol=1e-12)


@pytest.mark.parametrize(
    "make",
    [
        lambda: AROW(r=0.5),
        lambda: NAROW(b=5.0),
        lambda: NormalHerd(C=1.0),
        lambda: ConfidenceWeighted(confidence=0.8),
        lambda: SCW("SCW-I", C=1.0),
        lambda: SCW("SCW-II", C=1.0),
        lambda: SecondOrderPerceptron(),
    ],
)
def test_learners_run_and_stay_finite(make):
    X, y, _ = olbook.data.make_separable(300, 6, margin=0.05, random_state=2)
    clf = make().fit(X, y)
    assert np.all(np.isfinite(clf.coef_)) and clf.n_updates_ >= 1
    assert (
        set(np.unique(clf.predict(X))) <= {-1, 1} and clf.predict(X).dtype == np.int64
    )
    before = clf.coef_.copy()
    with pytest.raises(ValueError):
        clf.partial_fit(np.full((2, 6), np.nan), [1, -1])
    assert np.array_equal(clf.coef_, before)


def test_covariance_stays_positive_definite():
    X, y = olbook.data.load_binary("breast_cancer")
    X = (X - X.mean(0)) / X.std(0)
    for clf in [
        AROW(r=1.0),
        ConfidenceWeighted(confidence=0.9),
        SCW("SCW-II", C=1.0),
        NormalHerd(C=1.0),
    ]:
        clf.fit(X, y)
        eig = np.linalg.eigvalsh(clf.covariance_)
        assert eig.min() > 0, type(clf).__name__


def test_sop_prediction_is_the_sherman_morrison_form():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    y = np.where(X[:, 0] - X[:, 1] + 0.3 * rng.standard_normal(60) > 0, 1.0, -1.0)
    clf = SecondOrderPerceptron(a=0.5).partial_fit(X, y)
    S = X[clf.trace_.updates]  # the examples it erred on
    A = 0.5 * np.eye(4) + S.T @ S
    v = (y[clf.trace_.updates, None] * S).sum(0)
    assert np.allclose(clf.coef_, np.linalg.solve(A, v))


def test_bad_parameters():
    X, y = np.eye(2), [1, -1]
    for bad in [
        AROW(r=0.0),
        NAROW(b=-1.0),
        NormalHerd(C=0.0),
        ConfidenceWeighted(confidence=0.4),
        ConfidenceWeighted(confidence=1.0),
        SCW("SCW-III"),
        SCW("SCW-I", C=0.0),
        AROW(a=0.0),
        SecondOrderPerceptron(a=0.0),
    ]:
        with pytest.raises(ValueError):
            bad.fit(X, y)


@pytest.mark.parametrize(
    "make",
    [
        lambda d: AROW(r=0.7, diagonal=d),
        lambda d: NAROW(b=5.0, diagonal=d),
        lambda d: NormalHerd(C=0.8, diagonal=d),
        lambda d: ConfidenceWeighted(confidence=0.85, diagonal=d),
        lambda d: SCW("SCW-I", C=0.8, diagonal=d),
        lambda d: SCW("SCW-II", C=0.8, diagonal=d),
    ],
)
def test_diagonal_is_the_full_learner_on_axis_aligned_data(make):
    # Examples that each have a single nonzero coordinate keep the full covariance diagonal,
    # so the diagonal learner must make exactly the same updates.
    rng = np.random.default_rng(5)
    n, d = 200, 6
    X = np.zeros((n, d))
    X[np.arange(n), rng.integers(0, d, n)] = rng.uniform(0.5, 1.5, n) * rng.choice(
        [-1.0, 1.0], n
    )
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    full, diag = make(False).fit(X, y), make(True).fit(X, y)
    assert np.allclose(full.coef_, diag.coef_, rtol=1e-13, atol=0)
    assert np.allclose(np.diag(full.covariance_), diag.covariance_, rtol=1e-13, atol=0)
    assert np.array_equal(full.trace_.updates, diag.trace_.updates)


def test_diagonal_stays_positive_on_long_streams():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((100_000, 20))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(100_000) > 0, 1.0, -1.0)
    for clf in [
        AROW(diagonal=True),
        NormalHerd(diagonal=True),
        SCW("SCW-II", diagonal=True),
    ]:
        clf.fit(X, y)
        assert (
            clf.covariance_.shape == (20,)
            and clf.covariance_.min() > 0
            and np.all(np.isfinite(clf.coef_))
        )
    # its variance collapses (see its docstring)
    cw = ConfidenceWeighted(diagonal=True).fit(X, y)
    assert (
        np.all(np.isfinite(cw.coef_))
        and np.all(np.isfinite(cw._factor))
        and cw._factor.min() > 0
    )


def test_full_covariance_stays_symmetric_positive_definite_on_1e5_examples():
    rng = np.random.default_rng(7)
    X = rng.standard_normal((100_000, 10))
    y = np.where(X @ np.arange(1, 11) + 3 * rng.standard_normal(100_000) > 0, 1.0, -1.0)
    for clf in [
        AROW(r=1.0),
        SCW("SCW-I", C=1.0),
        SCW("SCW-II", C=1.0),
        NormalHerd(C=1.0),
        NAROW(b=2.0),
    ]:
        S = clf.fit(X, y).covariance_
        assert np.array_equal(S, S.T), type(clf).__name__
        assert np.linalg.eigvalsh(S).min() > 0, type(clf).__name__
    # the covariance's factor stays finite, triangular and nonsingular
    cw = ConfidenceWeighted(confidence=0.9).fit(X, y)
    T = cw._factor
    assert (
        np.all(np.isfinite(T))
        and np.array_equal(T, np.tril(T))
        and np.all(np.diag(T) > 0)
        and np.all(np.isfinite(cw.coef_))
    )
    S = cw.covariance_
    assert np.array_equal(S, S.T) and np.all(np.diag(S) > 0)


# --- the API of issue 23: names, shapes, fit_intercept, validation ------------------------

ALL_SECOND_ORDER = {
    "AROW": lambda: AROW(r=0.5, a=2.0),
    "NAROW": lambda: NAROW(b=2.0),
    "NormalHerd": lambda: NormalHerd(C=0.7),
    "CW": lambda: ConfidenceWeighted(confidence=0.8),
    "SCW-I": lambda: SCW("SCW-I", C=0.5, confidence=0.75),
    "SCW-II": lambda: SCW("SCW-II", C=0.5, confidence=0.75),
    "SOP": lambda: SecondOrderPerceptron(a=0.5),
    "IELLIP": lambda: olbook.IELLIP(a=2.0, decay=0.5, c=0.2),
}

#: Each parameter's meaning: its docstring entry contains the phrase (api of issue 23).
MEANINGS = {
    "confidence": "probability",
    "C": "aggressiveness",
    "a": "initial matrix",
    "r": "regularization",
    "b": "threshold",
    "decay": "decay",
    "c": "coefficient",
    "variant": "the paper's name of the variant",
    "max_iter": "passes",
}


@pytest.mark.parametrize("name", list(ALL_SECOND_ORDER))
def test_parameter_entries_state_their_meaning(name):
    from numpydoc.docscrape import ClassDoc

    cls = type(ALL_SECOND_ORDER[name]())
    entries = {p.name: " ".join(p.desc) for p in ClassDoc(cls)["Parameters"]}
    for param in cls().get_params():
        assert param in entries, (name, param)
        if param in MEANINGS:
            assert MEANINGS[param].lower() in entries[param].lower(), (name, param)


def test_old_names_are_gone():
    with pytest.raises(TypeError):
        ConfidenceWeighted(eta=0.9)
    with pytest.raises(TypeError):
        SCW(eta=0.9)
    with pytest.raises(TypeError):
        olbook.IELLIP(b=0.3)
    X, y = np.eye(2), [1, -1]
    for old in ("I", "II", "scw-i", "SCW1"):
        with pytest.raises(ValueError, match="'SCW-I', 'SCW-II'"):
            SCW(variant=old).fit(X, y)
    with pytest.raises(ValueError, match="confidence"):
        ConfidenceWeighted(confidence=0.5).fit(X, y)
    assert not hasattr(olbook.IELLIP().fit(X, y), "covariance_")


@pytest.mark.parametrize("name", list(ALL_SECOND_ORDER))
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_fitted_attributes_have_sklearn_shapes(name, fit_intercept):
    X, y = stream_with_offset(seed=3)
    clf = ALL_SECOND_ORDER[name]().set_params(fit_intercept=fit_intercept).fit(X, y)
    assert clf.coef_.shape == (1, X.shape[1]) and clf.coef_.dtype == np.float64
    assert clf.intercept_.shape == (1,) and clf.intercept_.dtype == np.float64
    assert (clf.intercept_[0] != 0.0) == fit_intercept
    scores = clf.decision_function(X)
    want = np.array([clf.coef_[0] @ x + clf.intercept_[0] for x in X])
    np.testing.assert_allclose(scores, want, rtol=1e-12, atol=1e-12)


def stream_with_offset(n=200, seed=0):
    """Separable by x_0 > 2 only: no line through the origin separates it."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 4.0, size=(n, 2))
    X = X[np.abs(X[:, 0] - 2.0) > 0.3]
    return X, np.where(X[:, 0] > 2.0, 1, -1)


@pytest.mark.parametrize("name", list(ALL_SECOND_ORDER))
def test_fit_intercept_is_a_constant_feature(name):
    """fit_intercept=True is the learner on X with a column of ones appended, to the bit."""
    X, y = stream_with_offset(seed=1)
    ones = np.hstack([X, np.ones((len(X), 1))])
    make = ALL_SECOND_ORDER[name]
    clf = make().set_params(fit_intercept=True, max_iter=3)
    ref = make().set_params(fit_intercept=False, max_iter=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
        ref.fit(ones, y)
    assert np.array_equal(clf.coef_[0], ref.coef_[0, :2])
    assert np.array_equal(clf.intercept_, ref.coef_[0, 2:])
    assert np.array_equal(clf.trace_.updates, ref.trace_.updates)
    for state in (
        "covariance_",
        "inverse_correlation_",
        "v_",
        "ellipsoid_matrix_",
        "c_",
    ):
        if hasattr(ref, state):
            assert np.array_equal(getattr(clf, state), getattr(ref, state)), state
    np.testing.assert_array_equal(clf.decision_function(X), ref.decision_function(ones))


@pytest.mark.parametrize("name", ["SOP", "IELLIP", "AROW"])
def test_fit_intercept_learns_a_bias(name):
    """On data separable only with an offset, the bias is what makes it right."""
    X, y = stream_with_offset(seed=2)
    make = ALL_SECOND_ORDER[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        biased = make().set_params(fit_intercept=True, max_iter=20).fit(X, y)
        through_origin = make().set_params(max_iter=20).fit(X, y)
    assert biased.intercept_[0] < 0 and through_origin.intercept_[0] == 0.0
    # x_0 > 2 <=> w_0 x_0 + b > 0 needs b / w_0 close to -2
    assert biased.score(X, y) >= 0.99 > through_origin.score(X, y)


@pytest.mark.parametrize("name", list(ALL_SECOND_ORDER))
def test_fit_intercept_cannot_change_mid_run(name):
    X, y = stream_with_offset(seed=4)
    clf = ALL_SECOND_ORDER[name]().partial_fit(X, y)
    before = {k: np.copy(v) for k, v in vars(clf).items() if isinstance(v, np.ndarray)}
    clf.set_params(fit_intercept=True)
    with pytest.raises(ValueError, match="fit_intercept"):
        clf.partial_fit(X, y)
    for k, v in before.items():
        assert np.array_equal(getattr(clf, k), v), k
    clf.fit(X, y)  # fit starts again with the new value
    assert clf.intercept_[0] != 0.0


@pytest.mark.parametrize("name", list(ALL_SECOND_ORDER))
def test_validation_writes_no_state_and_reads_at_learning_start(name):
    X, y = stream_with_offset(seed=5)
    clf = ALL_SECOND_ORDER[name]()
    fresh = dict(vars(clf))
    clf._validate_params()
    assert vars(clf) == fresh  # validation writes nothing
    clf.fit(X, y)
    fitted = {k: v for k, v in vars(clf).items()}
    clf._validate_params()
    assert vars(clf).keys() == fitted.keys()
    assert all(vars(clf)[k] is v for k, v in fitted.items())
    # a hyper-parameter set after construction is the one the learning reads
    first = sorted(set(clf.get_params()) & {"r", "b", "C", "confidence", "a", "c"})[0]
    value = {"confidence": 0.6, "c": 0.4}.get(first, 3.0)
    later = ALL_SECOND_ORDER[name]().set_params(**{first: value}).fit(X, y)
    direct = type(clf)(**{**clf.get_params(), first: value}).fit(X, y)
    assert np.array_equal(later.coef_, direct.coef_)
    assert not np.array_equal(later.coef_, clf.coef_)  # and it changes the learning
    # a bad value set after construction fails when learning starts, not before
    bad = ALL_SECOND_ORDER[name]().set_params(**{first: -1.0})
    with pytest.raises(ValueError, match=first):
        bad.fit(X, y)
