"""The self-tuned Forgetron: its invariant, its budget, and the rule written out in numpy."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import olbook
from olbook import kernels
from olbook.forgetron import Forgetron, forgetron_shrink


def reference(X, y, B, k):
    """The rule with numpy lists: add on a mistake, then shrink by the largest feasible phi and drop the oldest."""
    S, A, Q, M = [], [], 0.0, 0
    for x, t in zip(X, y, strict=True):
        f = sum(a * k(s[None], x[None])[0, 0] for s, a in zip(S, A, strict=True))
        if t * f <= 0:
            M += 1
            S.append(x)
            A.append(t)
            if len(A) > B:
                fr = sum(
                    a * k(s[None], S[0][None])[0, 0] for s, a in zip(S, A, strict=True)
                )
                sigma, yr = abs(A[0]), np.sign(A[0])
                # brute force: the largest phi in (0, 1] that fits
                phis = np.linspace(0, 1, 200001)[1:]
                ok = (
                    phis**2 * (sigma**2 - 2 * sigma * yr * fr)
                    + 2 * sigma * phis
                    + Q
                    - 15 / 32 * M
                    <= 1e-12
                )
                phi = phis[ok].max() if ok.any() else phis[0]
                A = [phi * a for a in A]
                e = sigma * phi
                Q += e * e + 2 * e - 2 * e * yr * (phi * fr)
                S, A = S[1:], A[1:]
    return np.array(S), np.array(A), Q


def test_matches_the_rule():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((250, 2))
    y = np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)
    k = kernels.gaussian(1.0)
    clf = Forgetron(budget=12, kernel=k).fit(X, y)
    S, A, Q = reference(X, y, 12, k)
    assert np.array_equal(clf.support_vectors_, S)
    # the brute-force phi is on a 1e-5 grid
    assert np.allclose(clf.dual_coef_[0], A, rtol=1e-4, atol=1e-6)
    assert clf.Q_ == pytest.approx(Q, rel=1e-3)


@settings(max_examples=40)
@given(
    seed=st.integers(0, 2**31),
    B=st.integers(1, 25),
    gamma=st.sampled_from([0.3, 1.0, 4.0]),
)
def test_invariant_and_budget(seed, B, gamma):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((150, 3))
    y = np.where(rng.random(150) < 0.5, 1.0, -1.0)
    clf = Forgetron(budget=B, kernel=kernels.gaussian(gamma)).fit(X, y)
    assert clf.dual_coef_.shape[1] <= B
    assert clf.Q_ <= 15 / 32 * clf.n_updates_ + 1e-9  # the self-tuning invariant
    assert np.all(np.abs(clf.dual_coef_[0]) <= 1.0 + 1e-12)


def test_shrink_is_the_largest_feasible_phi():
    def g(p, sigma, mu, Q, M):
        return p * p * (sigma**2 - 2 * sigma * mu) + 2 * sigma * p + Q - 15 / 32 * M

    for args in [
        (1.0, 0.3, 2.0, 10),
        (0.5, -2.0, 0.0, 3),
        (1.0, 0.5, 4.6, 10),
        (0.2, 3.0, 1.0, 4),
    ]:
        phi = forgetron_shrink(*args)
        assert 0 < phi <= 1
        if phi < 1:
            assert abs(g(phi, *args)) < 1e-9 and g(min(1.0, phi * 1.01), *args) > 0


def test_equals_the_kernel_perceptron_below_its_budget_and_bad_input():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((200, 2))
    y = np.where(X[:, 0] + X[:, 1] ** 2 > 0.5, 1.0, -1.0)
    a = Forgetron(budget=500).fit(X, y)
    b = olbook.KernelPerceptron().fit(X, y)
    assert np.array_equal(a.trace_.updates, b.trace_.updates) and np.array_equal(
        a.dual_coef_[0], b.dual_coef_[0]
    )
    with pytest.raises(ValueError, match="budget"):
        Forgetron(budget=0).fit(X, y)
    with pytest.raises(ValueError, match="non-finite"):
        a.partial_fit([[np.nan, 0.0]], [1])


def _largest_phi_by_bisection(sigma, mu, Q, M):
    """The paper's rule from its definition: the largest phi in (0, 1] with
    Q + psi(sigma phi, phi mu) <= 15 M / 32, psi(l, m) = l^2 + 2 l - 2 l m."""

    def fits(p):
        lam = sigma * p
        return Q + lam * lam + 2 * lam - 2 * lam * (p * mu) <= 15 * M / 32

    if fits(1.0):
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return lo


@pytest.mark.parametrize("B", [3, 8])
def test_each_shrink_is_the_bisection_of_the_definition_and_reaches_the_cap(B):
    rng = np.random.default_rng(B)
    X = rng.standard_normal((300, 2))
    y = np.where(rng.random(300) < 0.5, 1.0, -1.0)  # noise: many removals
    k = kernels.gaussian(1.0)
    clf = Forgetron(budget=B, kernel=k)
    clf.partial_fit(X[:1], y[:1], classes=[-1, 1])
    shrinks = 0
    for t in range(1, len(y)):
        S, A, Q, M = clf.support_vectors_, clf.dual_coef_[0], clf.Q_, clf.n_updates_
        clf.partial_fit(X[t : t + 1], y[t : t + 1])
        if clf.n_updates_ == M or A.size < B:
            continue
        S2, A2 = np.vstack([S, X[t : t + 1]]), np.append(A, y[t])
        mu = np.sign(A2[0]) * float(k(S2[:1], S2)[0] @ A2)
        phi = _largest_phi_by_bisection(abs(A2[0]), mu, Q, M + 1)
        assert abs(clf.dual_coef_[0][-1]) == pytest.approx(phi, rel=1e-9, abs=1e-12)
        if phi < 1:
            shrinks += 1
            assert clf.Q_ == pytest.approx(15 / 32 * (M + 1), rel=1e-9)
    assert shrinks >= 5


@pytest.mark.parametrize(
    "k",
    [
        kernels.gaussian(0.5),
        kernels.laplacian(0.7),
        kernels.polynomial(2, 1.0),
        kernels.linear,
    ],
    ids=repr,
)
def test_scores_and_shrinks_are_the_oldest_first_sums_to_the_bit(k):
    # the rule with the compiled shrink, every score added oldest first in Python
    # floats: the Forgetron's ring (budget + 1 slots, wrapping) must give the bits
    rng = np.random.default_rng(3)
    X = rng.standard_normal((160, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.standard_normal(160) > 0, 1.0, -1.0)
    B = 6
    clf = Forgetron(budget=B, kernel=k)
    clf.partial_fit(X[:70], y[:70], classes=[-1.0, 1.0])
    clf.partial_fit(X[70:], y[70:])

    def score(S, A, x):
        f = 0.0
        for s, a in zip(S, A, strict=True):
            f += a * kernels.kernel_value(*k.spec(), s[None], 0, x[None], 0)
        return f

    S, A, Q, M, upd = [], [], 0.0, 0.0, []
    for x, c in zip(X, y, strict=True):
        upd.append(c * score(S, A, x) <= 0.0)
        if not upd[-1]:
            continue
        M += 1.0
        S, A = S + [x], A + [c]
        if len(S) > B:
            fr = score(S, A, S[0])
            sigma, yr = abs(A[0]), (1.0 if A[0] > 0 else -1.0)
            phi = forgetron_shrink(sigma, yr * fr, Q, M)
            A = [a * phi for a in A]
            e = sigma * phi
            Q += e * e + 2.0 * e - 2.0 * e * yr * (phi * fr)
            S, A = S[1:], A[1:]
    assert sum(upd) > 3 * B
    assert np.array_equal(clf.trace_.updates, upd)
    assert np.array_equal(clf.support_vectors_, np.array(S))
    assert np.array_equal(clf.dual_coef_[0], A)
    assert clf.Q_ == Q
