"""NORMA and the kernel perceptron against direct implementations of their definitions."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import olbook
from olbook import kernels
from olbook.kernel_online import NORMA, KernelPerceptron, decaying_eta


def direct_norma(X, y, k, eta, lam, loss, rho=1.0, nu=None, tau=None):
    """The recursion as written: every coefficient multiplied by (1 - eta lam) every round, O(t^2)."""
    S, A = [], []  # stored examples and coefficients, oldest first
    for t, (x, c) in enumerate(zip(X, y, strict=True)):
        e = eta(t + 1) if callable(eta) else eta
        f = sum(a * k(s[None, :], x[None, :])[0, 0] for s, a in zip(S, A, strict=True))
        if loss == "hinge":
            g = -c if c * f <= rho else 0.0
        elif loss == "logistic":
            g = -c / (1 + math.exp(c * f))
        else:
            g = f - c
        if nu is not None:
            rho += e * (-(1 - nu) if g != 0 else nu)
        A = [(1 - e * lam) * a for a in A]
        if g != 0:
            S.append(x)
            A.append(-e * g)
            if tau is not None and len(A) > tau:
                S, A = S[1:], A[1:]
    return np.array(S).reshape(-1, X.shape[1]), np.array(A), rho


def _data(seed, n=120, d=3):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize(
    ("loss", "nu", "tau"),
    [
        ("hinge", None, None),
        ("hinge", None, 15),
        ("hinge", 0.3, 20),
        ("logistic", None, None),
        ("squared", None, 10),
    ],
)
@pytest.mark.parametrize(
    "k", [kernels.gaussian(0.5), kernels.polynomial(2, 1.0), kernels.laplacian(1.0)]
)
def test_coefficients_equal_the_recursion(loss, nu, tau, k):
    X, y = _data(1)
    eta, lam = 0.3, 0.2
    clf = NORMA(kernel=k, eta=eta, lam=lam, loss=loss, nu=nu, budget=tau).fit(X, y)
    S, A, rho = direct_norma(X, y, k, eta, lam, loss, nu=nu, tau=tau)
    assert np.array_equal(clf.support_vectors_, S)
    assert np.allclose(clf.dual_coef_[0], A, rtol=1e-10, atol=1e-14)
    assert clf.rho_ == pytest.approx(rho, rel=1e-12)


def test_the_scale_is_folded_back_before_it_underflows():
    # eta lam = 0.5: the scale halves every round and would underflow after about 1100 rounds.
    X, y = _data(2, n=3000)
    clf = NORMA(kernel=kernels.gaussian(1.0), eta=1.0, lam=0.5, budget=8).fit(X, y)
    S, A, _ = direct_norma(
        X[-200:], y[-200:], kernels.gaussian(1.0), 1.0, 0.5, "hinge", tau=8
    )
    assert np.all(np.isfinite(clf.dual_coef_[0])) and clf.dual_coef_.shape[1] == 8
    # the last 8 terms are far too recent to feel the start: compare the final hypothesis
    f = clf.decision_function(X[:50])
    g = kernels.gram(kernels.gaussian(1.0), X[:50], S) @ A
    assert np.allclose(f, g, rtol=1e-9, atol=1e-12)


def test_kernel_perceptron_is_norma_at_lambda_zero_and_the_perceptron_for_linear():
    X, y, _ = olbook.data.make_separable(200, 4, margin=0.05, random_state=3)
    kp = KernelPerceptron(kernel=kernels.linear, max_iter=30).fit(X, y)
    p = olbook.Perceptron(max_iter=30).fit(X, y)
    assert np.array_equal(kp.trace_.updates, p.trace_.updates)
    X2, y2 = _data(4)
    g = kernels.gaussian(0.7)
    a = KernelPerceptron(kernel=g).fit(X2, y2)
    b = NORMA(kernel=g, eta=1.0, lam=0.0, rho=0.0, loss="hinge").fit(X2, y2)
    assert np.array_equal(a.trace_.updates, b.trace_.updates) and np.array_equal(
        a.dual_coef_[0], b.dual_coef_[0]
    )


def test_kernel_perceptron_mistake_bound_in_feature_space():
    # Labels from a function of known RKHS norm: u = sum_j c_j k(z_j, .), margin on the kept points.
    rng = np.random.default_rng(5)
    g = kernels.gaussian(2.0)
    Z = rng.uniform(-1, 1, (6, 2))
    c = rng.standard_normal(6)
    norm_u = math.sqrt(c @ kernels.gram(g, Z) @ c)
    X = rng.uniform(-1, 1, (4000, 2))
    s = kernels.gram(g, X, Z) @ c / norm_u
    keep = np.abs(s) > 0.05
    X, y = X[keep], np.where(s[keep] > 0, 1.0, -1.0)
    gamma = float(np.min(np.abs(s[keep])))
    clf = KernelPerceptron(kernel=g, max_iter=100).fit(X, y)
    # R = 1 for the Gaussian kernel
    assert clf.converged_ and clf.n_updates_ <= 1.0 / gamma**2


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**31),
    tau=st.integers(1, 40),
    eta=st.sampled_from([0.05, 0.2, 0.5]),
    lam=st.sampled_from([0.1, 0.5, 1.0]),
)
def test_truncation_error_never_exceeds_its_bound(seed, tau, eta, lam):
    X, y = _data(seed, n=80)
    g = kernels.gaussian(1.0)  # k(x, x) = 1: X = 1; the hinge's |l'| <= C = 1
    clf = NORMA(kernel=g, eta=eta, lam=lam).fit(X, y)
    rounds = np.flatnonzero(clf.trace_.updates)  # the round of each stored term
    t = X.shape[0] - 1
    old = rounds <= t - tau
    a = clf.dual_coef_[0][old]
    if a.size == 0:
        return
    K = kernels.gram(g, clf.support_vectors_[old])
    dist = math.sqrt(max(0.0, float(a @ K @ a)))
    bound = sum(eta * (1 - eta * lam) ** (t - i) for i in range(t - tau + 1))
    assert dist <= bound * (1 + 1e-9)
    # the geometric tail (strict in exact arithmetic)
    assert bound <= (1 - eta * lam) ** tau / lam * (1 + 1e-12)


def test_decaying_schedule_and_bad_input():
    X, y = _data(6, n=30)
    clf = NORMA(eta=decaying_eta(0.5), lam=0.5).fit(X, y)
    assert clf.t_ == 30 and np.all(np.isfinite(clf.dual_coef_[0]))
    for bad in [
        NORMA(eta=2.0, lam=0.5),
        NORMA(lam=-1.0),
        NORMA(budget=0),
        NORMA(eta=0.0),
        NORMA(loss="hinge2"),
        NORMA(nu=0.5, loss="logistic"),
        NORMA(kernel=lambda a, b: a @ b.T),
        NORMA(eta=lambda t: 3.0, lam=0.5),
    ]:
        with pytest.raises(ValueError):
            bad.fit(X, y)
    before = clf.dual_coef_[0].copy()
    with pytest.raises(ValueError, match="non-finite"):
        clf.partial_fit(np.full((2, 3), np.nan), [1, -1])
    with pytest.raises(ValueError, match="features"):
        clf.partial_fit(np.ones((2, 4)), [1, -1])
    assert np.array_equal(clf.dual_coef_[0], before) and clf.t_ == 30


def test_budget_perceptron_keeps_its_budget_and_equals_the_kernel_perceptron_below_it():
    from olbook.kernel_online import BudgetPerceptron

    X, y = _data(7, n=300)
    g = kernels.gaussian(1.0)
    big = BudgetPerceptron(budget=1000, kernel=g, random_state=0).fit(X, y)
    kp = KernelPerceptron(kernel=g).fit(X, y)
    # never full: the same run
    assert np.array_equal(big.trace_.updates, kp.trace_.updates)
    small = BudgetPerceptron(budget=10, kernel=g, random_state=0).fit(X, y)
    assert small.dual_coef_.shape[1] == 10 and set(np.abs(small.dual_coef_[0])) == {1.0}
    again = BudgetPerceptron(budget=10, kernel=g, random_state=0).fit(X, y)
    assert np.array_equal(
        small.dual_coef_[0], again.dual_coef_[0]
    )  # seeded: reproducible
    f = small.decision_function(X[:5])
    ref = kernels.gram(g, X[:5], small.support_vectors_) @ small.dual_coef_[0]
    assert np.allclose(f, ref, rtol=1e-12, atol=1e-14)
    with pytest.raises(ValueError, match="budget"):
        BudgetPerceptron(budget=0).fit(X, y)


def test_norma_with_decaying_eta_pickles_mid_stream():
    """decaying_eta is picklable, so a NORMA using it continues identically after a pickle."""
    import pickle

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    clf = olbook.NORMA(eta=decaying_eta(0.5), lam=0.5).partial_fit(X[:30], y[:30])
    copy = pickle.loads(pickle.dumps(clf))
    clf.partial_fit(X[30:], y[30:])
    copy.partial_fit(X[30:], y[30:])
    np.testing.assert_array_equal(clf.dual_coef_[0], copy.dual_coef_[0])
    np.testing.assert_array_equal(clf.trace_.mistakes, copy.trace_.mistakes)
    assert decaying_eta(0.5)(4) == 1.0 / (3.0 * 0.5 * 2.0)


# --- issue 23: one name per meaning, scikit-learn's shapes -----------------------------------


def test_budget_is_the_old_truncation_on_a_fixed_case():
    """NORMA(budget=6) gives, to the bit, what NORMA(truncation=6) gave before the rename."""
    rng = np.random.default_rng(2023)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1, -1)
    clf = NORMA(kernel=kernels.gaussian(0.7), eta=0.3, lam=0.05, rho=0.2, budget=6)
    clf.fit(X, y)
    # the values printed by the learner before the rename (parameter truncation=6)
    old = [
        -0.2739924764490422,
        0.27816495070968744,
        -0.28240096518749996,
        0.28670148749999996,
        0.2910675,
        0.3,
    ]
    assert np.array_equal(clf.dual_coef_, [old])
    assert np.array_equal(clf.support_vectors_, X[[33, 34, 35, 36, 37, 39]])
    assert (clf.n_updates_, clf.mistakes_) == (29, 14)
    assert clf.decision_function(X[:3]).sum() == -0.04819235071325291
    assert "truncation" not in NORMA().get_params()
    with pytest.raises(TypeError):
        NORMA(truncation=6)


def _kernel_learners():
    g = kernels.gaussian(0.8)
    return [
        NORMA(kernel=g, eta=0.3, lam=0.05, rho=0.5),
        NORMA(kernel=g, eta=0.3, lam=0.05, budget=7),
        NORMA(kernel=g, eta=decaying_eta(0.5), lam=0.5, loss="logistic", budget=9),
        KernelPerceptron(kernel=g, max_iter=2),
        olbook.BudgetPerceptron(budget=6, kernel=g, random_state=4),
        olbook.Forgetron(budget=6, kernel=g),
    ]


@pytest.mark.parametrize(
    "est",
    _kernel_learners(),
    ids=lambda e: " ".join(repr(e).split()).split(" at 0x")[0],
)
def test_dual_coef_has_svc_shape_and_no_alpha_(est):
    X, y = _data(8, n=80)
    with pytest.warns(UserWarning) if est.max_iter > 1 else _no_warning():
        est.fit(X, y)
    n_sv = est.support_vectors_.shape[0]
    assert est.support_vectors_.shape == (n_sv, X.shape[1])
    assert est.dual_coef_.shape == (1, n_sv) and n_sv > 0
    assert not hasattr(est, "alpha_")
    if getattr(est, "budget", None) is not None:
        assert n_sv <= est.budget
    # f(x) = sum_j dual_coef_[0, j] k(sv_j, x), as for scikit-learn's SVC
    ref = kernels.gram(est._kernel(), X[:9], est.support_vectors_) @ est.dual_coef_[0]
    np.testing.assert_allclose(
        est.decision_function(X[:9]), ref, rtol=1e-10, atol=1e-12
    )


class _no_warning:
    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_no_fitted_alpha_anywhere_in_olbook():
    """alpha_ is gone: no module of olbook sets a fitted attribute of that name."""
    import pathlib
    import re

    for path in pathlib.Path(olbook.__file__).parent.glob("*.py"):
        src = path.read_text(encoding="utf-8")
        assert not re.search(r"\balpha_\b", src), path.name
    X, y = _data(9, n=40)
    assert not hasattr(
        olbook.SVM(kernel=kernels.gaussian(1.0), C=1.0).fit(X, y), "alpha_"
    )


def test_the_kernel_perceptron_has_no_budget_parameter():
    assert "budget" not in KernelPerceptron().get_params()
    assert KernelPerceptron.budget is None  # NORMA's loop then keeps every term


@pytest.mark.parametrize(
    ("est", "separable_words"),
    [
        (NORMA(loss="squared", max_iter=2), False),
        (NORMA(loss="logistic", max_iter=2), False),
        (NORMA(loss="hinge", lam=0.01, max_iter=2), False),  # lam > 0 shrinks f
        (NORMA(loss="hinge", nu=0.5, lam=0.0, max_iter=2), False),  # rho grows
        (NORMA(loss="hinge", lam=0.0, max_iter=2), True),  # the margin perceptron
        (KernelPerceptron(kernel=kernels.linear, max_iter=2), True),
        (olbook.BudgetPerceptron(budget=2, random_state=0, max_iter=2), False),
        (olbook.Forgetron(budget=2, max_iter=2), False),
    ],
    ids=repr,
)
def test_separability_is_named_only_where_an_update_means_it(est, separable_words):
    """On separable data: 'may not be linearly separable' only where updates mean that."""
    X, y, _ = olbook.data.make_separable(300, 10, margin=0.001, random_state=1)
    with pytest.warns(olbook.ConvergenceWarning, match="max_iter reached") as rec:
        est.fit(X, y)
    text = " ".join(str(w.message) for w in rec)
    assert ("linearly separable" in text) == separable_words, text


@pytest.mark.parametrize("est", _kernel_learners(), ids=repr)
def test_every_kernel_learner_pickles_and_continues_identically(est):
    import pickle

    X, y = _data(10, n=90)
    est.set_params(max_iter=1)
    est.partial_fit(X[:40], y[:40])
    twin = pickle.loads(pickle.dumps(est))
    assert repr(twin) == repr(est)
    est.partial_fit(X[40:], y[40:])
    twin.partial_fit(X[40:], y[40:])
    assert np.array_equal(est.dual_coef_, twin.dual_coef_)
    assert np.array_equal(est.support_vectors_, twin.support_vectors_)
    assert np.array_equal(est.trace_.mistakes, twin.trace_.mistakes)
    # and the unfitted learner too (clone, grid search)
    assert repr(pickle.loads(pickle.dumps(est.__class__(**est.get_params())))) == repr(
        est
    )


@pytest.mark.parametrize("est", _kernel_learners(), ids=repr)
def test_validation_writes_no_state_and_reads_the_current_values(est):
    X, y = _data(11, n=50)
    before = dict(est.__dict__)
    est._validate_params()
    assert est.__dict__ == before  # validation writes nothing
    est.set_params(max_iter=0)  # accepted by __init__/set_params, refused at fit
    with pytest.raises(ValueError, match="max_iter"):
        est.fit(X, y)
    est.set_params(max_iter=1)
    if "budget" in est.get_params():
        est.set_params(budget=3)  # read when learning starts, not frozen in __init__
        assert est.fit(X, y).dual_coef_.shape[1] <= 3


def _oldest_first(k, S, A, x):
    """``sum_r A_r k(S_r, x)`` added term by term from the oldest, in Python floats.

    Each value is :func:`olbook.kernels.kernel_value`'s, whose arithmetic the
    learners use (the polynomial Gram block may round its power differently).
    """
    f = 0.0
    for s, a in zip(S, A, strict=True):
        f += a * kernels.kernel_value(*k.spec(), s[None], 0, x[None], 0)
    return f


_ALL_KERNELS = [
    kernels.gaussian(0.5),
    kernels.laplacian(0.7),
    kernels.polynomial(3, 1.0),
    kernels.linear,
]


@pytest.mark.parametrize("k", _ALL_KERNELS, ids=repr)
def test_kernel_perceptron_scores_are_the_oldest_first_sums_to_the_bit(k):
    # the compiled score (all stored terms at once, coordinate by coordinate) must
    # give the bits of the Gram blocks' values added oldest first: same updates,
    # same margins, on data whose scores are not exact
    X, y = _data(12, n=150, d=5)
    clf = KernelPerceptron(kernel=k)
    clf.partial_fit(X[:70], y[:70], classes=[-1.0, 1.0])
    clf.partial_fit(X[70:], y[70:])
    S, A, upd = [], [], []
    for x, c in zip(X, y, strict=True):
        f = _oldest_first(k, S, A, x)
        upd.append(c * f <= 0.0)
        if upd[-1]:
            S.append(x)
            A.append(c)
    assert np.array_equal(clf.trace_.updates, upd)
    assert np.array_equal(clf.support_vectors_, np.array(S))
    assert np.array_equal(clf.dual_coef_[0], A)


@pytest.mark.parametrize("k", _ALL_KERNELS, ids=repr)
def test_truncated_norma_wraps_its_ring_to_the_bit(k):
    # lam = 0 keeps the running scale at 1, so every stored coefficient is exactly
    # -eta * l'(y, f): with the logistic loss it carries the bits of the score f,
    # which the ring buffer of the budget (wrapping many times) must add oldest
    # first, as the direct rule does
    X, y = _data(13, n=160, d=8)
    eta, tau = 0.5, 7
    clf = NORMA(kernel=k, eta=eta, lam=0.0, loss="logistic", budget=tau)
    clf.partial_fit(X[:90], y[:90], classes=[-1.0, 1.0])
    clf.partial_fit(X[90:], y[90:])
    S, A, upd = [], [], []
    for x, c in zip(X, y, strict=True):
        m = c * _oldest_first(k, S, A, x)
        g = -c / (1.0 + math.exp(m)) if m < 700.0 else 0.0
        upd.append(g != 0.0)
        if upd[-1]:
            S, A = (S + [x])[-tau:], (A + [-eta * g])[-tau:]
    assert sum(upd) > 3 * tau  # the ring wrapped
    assert np.array_equal(clf.trace_.updates, upd)
    assert np.array_equal(clf.support_vectors_, np.array(S))
    assert np.array_equal(clf.dual_coef_[0], A)


@pytest.mark.parametrize("k", _ALL_KERNELS, ids=repr)
def test_budget_perceptron_evicts_and_scores_to_the_bit(k):
    X, y = _data(14, n=160, d=4)
    B = 6
    clf = olbook.BudgetPerceptron(budget=B, kernel=k, random_state=7).fit(X, y)
    draws = np.random.default_rng(7).random(len(y))
    S, A, upd = [], [], []
    for x, c, u in zip(X, y, draws, strict=True):
        f = _oldest_first(k, S, A, x)  # in slot order
        upd.append(c * f <= 0.0)
        if upd[-1]:
            if len(S) == B:
                r = min(int(u * B), B - 1)
                S[r], A[r] = S[-1], A[-1]
                S, A = S[:-1], A[:-1]
            S, A = S + [x], A + [c]
    assert sum(upd) > 3 * B  # evictions happened
    assert np.array_equal(clf.trace_.updates, upd)
    assert np.array_equal(clf.support_vectors_, np.array(S))
    assert np.array_equal(clf.dual_coef_[0], A)
