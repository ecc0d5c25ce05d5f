"""Every online learner against a plain-numpy reference of its paper's rule.

Each reference below is the update as the paper (and the book section) states
it, written in a few lines of numpy with no olbook code: the covariance learners
update the covariance itself (not olbook's Cholesky factor of the precision),
the kernel learners keep a Python list of terms. The learner and its reference
see the same stream at *non-default* hyper-parameters, and after every round the
reference's prediction is compared with the learner's mistake, and at the end the
whole state (weights, intercept, covariance, stored examples, decision values).
A learner that ignores a hyper-parameter, drops a normalisation, shrinks its
covariance by the wrong amount or discards the wrong example fails here.

The streams are small random Gaussian data with label noise, so that every rule
updates often, in both directions; no score is within 1e-9 of a decision
threshold (checked), so that the order of the additions cannot change a count.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

import olbook
from olbook.kernels import gaussian

RTOL = 1e-9

# the streams are noisy on purpose: the perceptrons' "may not be separable" is expected
pytestmark = pytest.mark.filterwarnings("ignore:.*max_iter reached:UserWarning")


def stream(n=60, d=4, seed=0, noise=0.2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    u = rng.normal(size=d)
    y = np.where(X @ u + 0.3 > 0, 1, -1)
    flip = rng.random(n) < noise
    return X, np.where(flip, -y, y)


def augment(X, fit_intercept):
    return np.hstack([X, np.ones((len(X), 1))]) if fit_intercept else X


def far(value, threshold, what):
    """An exact tie (from zero weights) is the same in any order; a near one is not."""
    assert value == threshold or abs(value - threshold) > 1e-9, (
        f"{what}: a near-tie makes the test fragile"
    )


def assert_state(clf, w, mistakes, updates, fit_intercept=False):
    coef, intercept = np.ravel(clf.coef_), np.ravel(clf.intercept_)  # (1, d), (1,)
    w_clf = np.append(coef, intercept) if fit_intercept else coef
    np.testing.assert_allclose(w_clf, w, rtol=RTOL, atol=1e-12)
    np.testing.assert_array_equal(clf.trace_.mistakes, mistakes)
    np.testing.assert_array_equal(clf.trace_.updates, updates)


# --- first order -------------------------------------------------------------------------


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_perceptron(fit_intercept):
    X, y = stream(seed=1)
    Z = augment(X, fit_intercept)
    w = np.zeros(Z.shape[1])
    mis, upd = [], []
    for _ in range(2):
        for x, t in zip(Z, y, strict=True):
            f = w @ x
            far(f, 0.0, "perceptron score")
            mis.append((f > 0) != (t > 0))
            upd.append(t * f <= 0)
            if t * f <= 0:
                w = w + t * x
    clf = olbook.Perceptron(fit_intercept=fit_intercept, max_iter=2).fit(X, y)
    assert_state(clf, w, mis, upd, fit_intercept)


@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_passive_aggressive(variant, fit_intercept):
    """Crammer et al. (2006), Figure 1: tau = l/|x|^2, min(C, l/|x|^2), l/(|x|^2 + 1/(2C))."""
    C = 0.3
    X, y = stream(seed=2)
    Z = augment(X, fit_intercept)
    w = np.zeros(Z.shape[1])
    mis, upd = [], []
    for x, t in zip(Z, y, strict=True):
        f = w @ x
        loss = max(0.0, 1.0 - t * f)
        s = x @ x
        tau = {
            "PA": loss / s,
            "PA-I": min(C, loss / s),
            "PA-II": loss / (s + 1 / (2 * C)),
        }
        mis.append((f > 0) != (t > 0))
        upd.append(loss > 0)
        w = w + tau[variant] * t * x
    clf = olbook.PassiveAggressive(variant=variant, C=C, fit_intercept=fit_intercept)
    assert_state(clf.fit(X, y), w, mis, upd, fit_intercept)


@pytest.mark.parametrize("aggressive", [False, True])
def test_romma(aggressive):
    """Li and Long (2002): the shortest v with v.w >= |w|^2 and y v.x >= 1."""
    X, y = stream(seed=3)
    w = np.zeros(X.shape[1])
    mis, upd = [], []
    for x, t in zip(X, y, strict=True):
        f = w @ x
        mis.append((f > 0) != (t > 0))
        violated = t * f < 1 if aggressive else t * f <= 0
        upd.append(bool(violated))
        if not violated:
            continue
        only_margin = t * x / (x @ x)  # the shortest v with y v.x >= 1
        if w @ w == 0 or only_margin @ w >= w @ w:
            w = only_margin
            continue
        # both constraints active: v = c w + d x solves v.w = |w|^2, y v.x = 1
        G = np.array([[w @ w, w @ x], [w @ x, x @ x]])
        c, d = np.linalg.solve(G, [w @ w, t])
        w = c * w + d * x
    clf = olbook.ROMMA(aggressive=aggressive).fit(X, y)
    assert_state(clf, w, mis, upd)


def test_alma():
    """Gentile (2001), ALMA_2: unit-norm x, gamma_k = B/sqrt(k), eta_k = C/sqrt(k),
    update when y w.x <= (1 - alpha) gamma_k, then project onto the unit ball."""
    alpha, B, C = 0.7, 1.5, 0.8
    X, y = stream(seed=4)
    X = X * np.linspace(0.5, 3.0, len(X))[:, None]  # norms far from 1
    w = np.zeros(X.shape[1])
    k = 1
    mis, upd = [], []
    for x, t in zip(X, y, strict=True):
        xn = x / np.linalg.norm(x)
        m = t * (w @ xn)
        far(m, (1 - alpha) * B / math.sqrt(k), "ALMA margin")
        mis.append((w @ x > 0) != (t > 0))
        upd.append(m <= (1 - alpha) * B / math.sqrt(k))
        if upd[-1]:
            w = w + C / math.sqrt(k) * t * xn
            w = w / max(1.0, np.linalg.norm(w))
            k += 1
    clf = olbook.ALMA(alpha=alpha, B=B, eta=C).fit(X, y)
    assert_state(clf, w, mis, upd)


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
@pytest.mark.parametrize("schedule", ["inv_sqrt", "constant"])
def test_ogd_classifier(loss, schedule):
    """Zinkevich (2003) on the hinge or logistic loss: w <- w - eta_t grad."""
    eta0 = 0.3
    X, y = stream(seed=5)
    w = np.zeros(X.shape[1])
    mis, upd = [], []
    for t, (x, lab) in enumerate(zip(X, y, strict=True), start=1):
        m = lab * (w @ x)
        eta = eta0 / math.sqrt(t) if schedule == "inv_sqrt" else eta0
        grad = -lab * x * (float(m < 1) if loss == "hinge" else 1 / (1 + math.exp(m)))
        mis.append((w @ x > 0) != (lab > 0))
        upd.append(bool(np.any(grad != 0)))
        w = w - eta * grad
    clf = olbook.OGDClassifier(loss=loss, eta=eta0, schedule=schedule).fit(X, y)
    assert_state(clf, w, mis, upd)


# --- second order: the covariance itself, updated as the papers write it ----------------


def arow_coefficients(m, v, r):
    """AROW (Crammer, Kulesza and Dredze 2009): beta = 1/(v + r), alpha = (1 - m) beta."""
    beta = 1 / (v + r)
    return (1 - m) * beta, beta


def narow_coefficients(m, v, b):
    """NAROW (Orabona and Crammer 2010): AROW with r = v/(bv - 1) when v > 1/b, else none."""
    if v <= 1 / b:
        return 0.0, 0.0
    return arow_coefficients(m, v, v / (b * v - 1))


def nherd_coefficients(m, v, C):
    """NHerd (Crammer and Lee 2010), full: Sigma <- Sigma - Sx x'S (v + 2/C)/(v + 1/C)^2."""
    return (1 - m) / (v + 1 / C), (v + 2 / C) / (v + 1 / C) ** 2


def cw_coefficients(m, v, phi, C=None, variant=None):
    """CW (Crammer, Dredze and Pereira 2008) and SCW-I/II (Wang, Zhao and Hoi 2012),
    in the SCW paper's notation: psi = 1 + phi^2/2, zeta = 1 + phi^2."""
    psi, zeta = 1 + phi**2 / 2, 1 + phi**2
    if variant == "II":
        n = v + 1 / (2 * C)
        gamma = phi * math.sqrt(phi**2 * m**2 * v**2 + 4 * n * v * (n + v * phi**2))
        alpha = max(
            0.0, (-(2 * m * n + phi**2 * m * v) + gamma) / (2 * (n**2 + n * v * phi**2))
        )
    else:
        alpha = max(
            0.0,
            (-m * psi + math.sqrt(m**2 * phi**4 / 4 + v * phi**2 * zeta)) / (v * zeta),
        )
        if variant == "I":
            alpha = min(C, alpha)
    u = (-alpha * v * phi + math.sqrt(alpha**2 * v**2 * phi**2 + 4 * v)) ** 2 / 4
    beta = alpha * phi / (math.sqrt(u) + v * alpha * phi)
    return alpha, beta


def run_gaussian(X, y, a, coefficients, needs_update, diagonal):
    """mu += alpha y Sigma x; Sigma -= beta Sigma x x' Sigma (full), or, diagonal, the
    precision's diagonal grows by that of c x x', c = beta/(1 - beta v) (Sherman-Morrison)."""
    d = X.shape[1]
    mu, S = np.zeros(d), a * np.eye(d)
    mis, upd = [], []
    for x, t in zip(X, y, strict=True):
        Sx = S @ x
        m, v = t * (mu @ x), x @ Sx
        mis.append((mu @ x > 0) != (t > 0))
        alpha, beta = coefficients(m, v) if needs_update(m, v) else (0.0, 0.0)
        upd.append(alpha != 0 or beta != 0)
        mu = mu + alpha * t * Sx
        if diagonal:
            c = beta / (1 - beta * v)
            S = np.diag(1 / (1 / np.diag(S) + c * x * x))
        else:
            S = S - beta * np.outer(Sx, Sx)
    return mu, S, mis, upd


def hinge_family(m, v):
    return m < 1


def confidence_family(phi):
    return lambda m, v: m < phi * math.sqrt(v)


GAUSSIANS = {
    "AROW": (
        lambda: olbook.AROW(r=0.5, a=2.0),
        lambda m, v: arow_coefficients(m, v, 0.5),
        hinge_family,
    ),
    "NAROW": (
        lambda: olbook.NAROW(b=1.5, a=2.0),
        lambda m, v: narow_coefficients(m, v, 1.5),
        hinge_family,
    ),
    "NHerd": (
        lambda: olbook.NormalHerd(C=0.7, a=2.0),
        lambda m, v: nherd_coefficients(m, v, 0.7),
        hinge_family,
    ),
    "CW": (
        lambda: olbook.ConfidenceWeighted(confidence=0.8, a=2.0),
        lambda m, v: cw_coefficients(m, v, norm.ppf(0.8)),
        confidence_family(norm.ppf(0.8)),
    ),
    "SCW-I": (
        lambda: olbook.SCW(variant="SCW-I", C=0.3, confidence=0.75, a=2.0),
        lambda m, v: cw_coefficients(m, v, norm.ppf(0.75), 0.3, "I"),
        confidence_family(norm.ppf(0.75)),
    ),
    "SCW-II": (
        lambda: olbook.SCW(variant="SCW-II", C=0.3, confidence=0.75, a=2.0),
        lambda m, v: cw_coefficients(m, v, norm.ppf(0.75), 0.3, "II"),
        confidence_family(norm.ppf(0.75)),
    ),
}


@pytest.mark.parametrize("name", list(GAUSSIANS))
@pytest.mark.parametrize("diagonal", [False, True])
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_gaussian_learners(name, diagonal, fit_intercept):
    make, coefficients, needs_update = GAUSSIANS[name]
    X, y = stream(n=50, seed=6)
    Z = augment(X, fit_intercept)
    clf = make().set_params(diagonal=diagonal, fit_intercept=fit_intercept).fit(X, y)
    mu, S, mis, upd = run_gaussian(Z, y, 2.0, coefficients, needs_update, diagonal)
    assert sum(upd) >= 10, "the stream must exercise the update"
    assert_state(clf, mu, mis, upd, fit_intercept)
    cov = clf.covariance_
    np.testing.assert_allclose(
        cov, np.diag(S) if diagonal else S, rtol=1e-8, atol=1e-12
    )


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_second_order_perceptron(fit_intercept):
    """Cesa-Bianchi, Conconi and Gentile (2005): sign(v'(aI + SS' + xx')^{-1} x)."""
    a = 0.5
    X, y = stream(seed=7)
    Z = augment(X, fit_intercept)
    d = Z.shape[1]
    A, v = a * np.eye(d), np.zeros(d)
    mis, upd = [], []
    for x, t in zip(Z, y, strict=True):
        f = v @ np.linalg.solve(A + np.outer(x, x), x)
        far(f, 0.0, "SOP score")
        mis.append((f > 0) != (t > 0))
        upd.append(t * f <= 0)
        if t * f <= 0:
            A, v = A + np.outer(x, x), v + t * x
    clf = olbook.SecondOrderPerceptron(a=a, fit_intercept=fit_intercept).fit(X, y)
    assert_state(clf, np.linalg.solve(A, v), mis, upd, fit_intercept)


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_iellip(fit_intercept):
    """IELLIP as LIBOL's IELLIP.m: on y w.x <= 0, w += (1 - y w.x) y A x / v and
    A <- (A - c A g g' A)/(1 - c), g = y x/sqrt(v); c <- decay c after every round."""
    a, decay, c0 = 2.0, 0.5, 0.2
    c = c0
    X, y = stream(seed=8)
    Z = augment(X, fit_intercept)
    d = Z.shape[1]
    w, A = np.zeros(d), a * np.eye(d)
    mis, upd = [], []
    for x, t in zip(Z, y, strict=True):
        f = w @ x
        mis.append((f > 0) != (t > 0))
        upd.append(t * f <= 0)
        if t * f <= 0:
            v = x @ A @ x
            w = w + (1 - t * f) * t * (A @ x) / v
            Ag = A @ (t * x / math.sqrt(v))
            A = (A - c * np.outer(Ag, Ag)) / (1 - c)
        c *= decay
    clf = olbook.IELLIP(a=a, decay=decay, c=c0, fit_intercept=fit_intercept).fit(X, y)
    assert_state(clf, w, mis, upd, fit_intercept)
    np.testing.assert_allclose(clf.ellipsoid_matrix_, A, rtol=1e-8)
    assert clf.c_ == pytest.approx(c, rel=1e-12)


# --- multiclass --------------------------------------------------------------------------


@pytest.mark.parametrize("variant", [None, "PA", "PA-I", "PA-II"])
def test_multiclass(variant):
    """Crammer and Singer's max-score perceptron; Crammer et al. (2006), section 7:
    tau = l/(2|x|^2), min(C, l/(2|x|^2)), l/(2|x|^2 + 1/(2C)) for the pair (y, s)."""
    C, k = 0.4, 4
    rng = np.random.default_rng(9)
    X = rng.normal(size=(80, 3))
    y = np.argmax(X @ rng.normal(size=(3, k)) + 0.8 * rng.normal(size=(80, k)), axis=1)
    W = np.zeros((k, 3))
    mis, upd = [], []
    for x, t in zip(X, y, strict=True):
        f = W @ x
        s = max((r for r in range(k) if r != t), key=lambda r: f[r])  # first on ties
        mis.append(int(np.argmax(f)) != t)
        if variant is None:
            tau = 1.0 if f[t] <= f[s] else 0.0
        else:
            loss, q = max(0.0, 1 - (f[t] - f[s])), 2 * (x @ x)
            tau = {
                "PA": loss / q,
                "PA-I": min(C, loss / q),
                "PA-II": loss / (q + 1 / (2 * C)),
            }[variant]
        upd.append(tau > 0)
        W[t] += tau * x
        W[s] -= tau * x
    clf = (
        olbook.MulticlassPerceptron()
        if variant is None
        else olbook.MulticlassPA(variant=variant, C=C)
    )
    clf.fit(X, y)
    np.testing.assert_allclose(clf.coef_, W, rtol=RTOL, atol=1e-12)
    np.testing.assert_array_equal(clf.trace_.mistakes, mis)
    np.testing.assert_array_equal(clf.trace_.updates, upd)


# --- kernels: a list of terms --------------------------------------------------------------


def k_gauss(gamma):
    return lambda a, b: math.exp(-gamma * float(np.sum((a - b) ** 2)))


@pytest.mark.parametrize(
    ("loss", "nu", "budget"),
    [
        ("hinge", None, None),
        ("hinge", 0.3, None),
        ("hinge", None, 7),
        ("logistic", None, None),
        ("squared", None, None),
    ],
)
def test_norma(loss, nu, budget):
    """Kivinen, Smola and Williamson (2004): f <- (1 - eta lam) f - eta l'(f(x), y) k(x, .);
    the hinge loss max(0, rho - y f) (NORMA_nu: rho -= eta(1 - nu) on an update, else
    rho += eta nu); with a budget only the last terms are kept (truncation)."""
    eta, lam, rho, gamma = 0.3, 0.05, 0.5, 0.7
    X, y = stream(n=50, d=2, seed=10)
    kern = k_gauss(gamma)
    terms = []  # [x, coefficient], oldest first
    mis = []
    for x, t in zip(X, y, strict=True):
        f = sum(c * kern(z, x) for z, c in terms)
        mis.append((f > 0) != (t > 0))
        if loss == "hinge":
            far(t * f, rho, "NORMA margin")
            g = -t if t * f <= rho else 0.0
            if nu is not None:
                rho += eta * (-(1 - nu) if g != 0 else nu)
        elif loss == "logistic":
            g = -t / (1 + math.exp(t * f))
        else:
            g = f - t
        terms = [[z, (1 - eta * lam) * c] for z, c in terms]
        if g != 0:
            terms.append([x, -eta * g])
        if budget is not None:
            terms = terms[-budget:]
    clf = olbook.NORMA(
        kernel=gaussian(gamma),
        eta=eta,
        lam=lam,
        loss=loss,
        rho=0.5,
        nu=nu,
        budget=budget,
    ).fit(X, y)
    np.testing.assert_array_equal(clf.trace_.mistakes, mis)
    np.testing.assert_array_equal(clf.support_vectors_, [z for z, _ in terms])
    np.testing.assert_allclose(
        clf.dual_coef_, [[c for _, c in terms]], rtol=RTOL, atol=1e-12
    )
    grid = np.random.default_rng(11).normal(size=(20, 2))
    ref = [sum(c * kern(z, q) for z, c in terms) for q in grid]
    np.testing.assert_allclose(clf.decision_function(grid), ref, rtol=1e-9, atol=1e-12)
    if nu is not None:
        assert clf.rho_ == pytest.approx(rho, rel=1e-12)


def test_kernel_perceptron():
    X, y = stream(n=50, d=2, seed=12)
    kern = k_gauss(1.0)
    terms, mis, upd = [], [], []
    for _ in range(2):
        for x, t in zip(X, y, strict=True):
            f = sum(c * kern(z, x) for z, c in terms)
            far(f, 0.0, "kernel perceptron score")
            mis.append((f > 0) != (t > 0))
            upd.append(t * f <= 0)
            if t * f <= 0:
                terms.append((x, t))
    clf = olbook.KernelPerceptron(kernel=gaussian(1.0), max_iter=2).fit(X, y)
    np.testing.assert_array_equal(clf.trace_.mistakes, mis)
    np.testing.assert_array_equal(clf.trace_.updates, upd)
    np.testing.assert_array_equal(clf.support_vectors_, [z for z, _ in terms])
    np.testing.assert_array_equal(clf.dual_coef_, [[c for _, c in terms]])


def test_budget_perceptron():
    """Cavallanti, Cesa-Bianchi and Gentile (2007), the randomized budget perceptron: on
    a mistake with a full budget a stored example chosen uniformly at random is discarded
    (the example in slot floor(u count), the last slot moving into it), then the new
    one is stored. u comes from the learner's generator, one draw per round."""
    budget, seed = 5, 3
    X, y = stream(n=60, d=2, seed=13, noise=0.3)
    kern = k_gauss(1.0)
    draws = np.random.default_rng(seed).random(len(X))
    slots, mis, upd = [], [], []
    for x, t, u in zip(X, y, draws, strict=True):
        f = sum(c * kern(z, x) for z, c in slots)
        far(f, 0.0, "budget perceptron score")
        mis.append((f > 0) != (t > 0))
        upd.append(t * f <= 0)
        if t * f <= 0:
            if len(slots) == budget:
                r = min(int(u * len(slots)), len(slots) - 1)
                slots[r] = slots[-1]
                slots.pop()
            slots.append((x, t))
    assert sum(upd) > 2 * budget, "the budget must overflow many times"
    clf = olbook.BudgetPerceptron(
        budget=budget, kernel=gaussian(1.0), random_state=seed
    )
    clf.fit(X, y)
    np.testing.assert_array_equal(clf.trace_.mistakes, mis)
    np.testing.assert_array_equal(clf.support_vectors_, [z for z, _ in slots])
    np.testing.assert_array_equal(clf.dual_coef_, [[c for _, c in slots]])


def test_forgetron():
    """Dekel, Shalev-Shwartz and Singer (2008), the self-tuned Forgetron: on a mistake
    (y f <= 0) the example enters with coefficient y and M grows by one; when that
    exceeds the budget, every coefficient is multiplied by the largest phi in (0, 1]
    with Q + psi(sigma phi, phi mu) <= 15 M / 32, psi(l, m) = l^2 + 2 l - 2 l m (sigma
    the oldest example's |coefficient|, mu its margin under the hypothesis with the new
    example), Q grows by that psi and the oldest example is removed. phi is found here
    by bisection on that definition, not by the learner's closed form."""
    budget = 4
    X, y = stream(n=70, d=2, seed=14, noise=0.3)
    kern = k_gauss(0.8)
    terms, mis, upd = [], [], []  # [x, coefficient], oldest first
    Q, M, shrinks = 0.0, 0, 0
    for x, t in zip(X, y, strict=True):
        f = sum(c * kern(z, x) for z, c in terms)
        far(f, 0.0, "Forgetron score")
        mis.append((f > 0) != (t > 0))
        upd.append(t * f <= 0)
        if t * f > 0:
            continue
        M += 1
        terms.append([x, float(t)])
        if len(terms) > budget:
            z_r, c_r = terms[0]
            mu = np.sign(c_r) * sum(c * kern(z, z_r) for z, c in terms)
            sigma = abs(c_r)

            def excess(phi, sigma=sigma, mu=mu, Q=Q, M=M):
                lam_ = sigma * phi
                return Q + lam_**2 + 2 * lam_ - 2 * lam_ * (phi * mu) - 15 / 32 * M

            if excess(1.0) <= 0:
                phi = 1.0
            else:
                lo, hi = 0.0, 1.0  # excess(0) = Q - 15 M / 32 <= 0 < excess(1)
                for _ in range(80):
                    mid = (lo + hi) / 2
                    lo, hi = (mid, hi) if excess(mid) <= 0 else (lo, mid)
                phi = lo
                shrinks += 1
            Q += (sigma * phi) ** 2 + 2 * sigma * phi - 2 * sigma * phi * (phi * mu)
            terms = [[z, phi * c] for z, c in terms[1:]]
    assert shrinks > 5, "phi < 1 must occur"
    clf = olbook.Forgetron(budget=budget, kernel=gaussian(0.8)).fit(X, y)
    np.testing.assert_array_equal(clf.trace_.mistakes, mis)
    np.testing.assert_array_equal(clf.trace_.updates, upd)
    np.testing.assert_array_equal(clf.support_vectors_, [z for z, _ in terms])
    np.testing.assert_allclose(
        clf.dual_coef_, [[c for _, c in terms]], rtol=RTOL, atol=1e-12
    )
    assert clf.Q_ == pytest.approx(Q, rel=RTOL)
