"""LIBOL's first-order multiclass family: each rule against a plain-numpy reference written
from its paper, each per-round update against a numerical optimum of its problem, the
mistake bound of Crammer and Singer's ultraconservative family, CSR input and chunks.

Learners: :class:`olbook.MulticlassPerceptron` (sharing "max", "uniform",
"proportional"; Crammer and Singer, JMLR 3, 2003), :class:`olbook.MulticlassPA` (PA,
PA-I, PA-II; Crammer et al., JMLR 7, 2006), :class:`olbook.MulticlassROMMA` (plain
and aggressive; Li and Long 2002 on Kesler's construction) and
:class:`olbook.MulticlassOGD` (both schedules; Zinkevich 2003 on the multiclass hinge).

The references score with ``W @ x`` (numpy's order, not olbook's fixed order) and
write each update as the paper writes it, so they agree with olbook to rounding: the
states are compared to 1e-12 relative, the mistakes and updates of every round
exactly (no score of these data comes within 1e-9 of a tie, except the ties of the
first rounds, which are exact).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

import olbook
from olbook.multiclass import multiclass_epoch
from olbook.multiclass_margin import multiclass_romma_epoch

K, D = 4, 3


# --------------------------------------------------------------------------- references
def _augment(X, fit_intercept):
    X = np.asarray(X, dtype=float)
    return np.hstack([X, np.ones((len(X), 1))]) if fit_intercept else X


def _rival(scores, y):
    """The highest-scoring wrong class, the first one on ties."""
    others = np.where(np.arange(len(scores)) == y, -np.inf, scores)
    return int(np.argmax(others))


def ref_perceptron_round(W, x, y, sharing):
    """Crammer and Singer (2003), the additive ultraconservative family, one round."""
    scores = W @ x
    E = [r for r in range(len(W)) if r != y and scores[r] >= scores[y]]
    if not E:
        return False
    W[y] += x
    if sharing == "max":
        W[_rival(scores, y)] -= x
    else:
        gaps = np.array([scores[r] - scores[y] for r in E])
        share = (
            gaps / gaps.sum()
            if sharing == "proportional" and gaps.sum() > 0
            else np.full(len(E), 1.0 / len(E))
        )
        for r, tau in zip(E, share, strict=True):
            W[r] -= tau * x
    return True


def ref_pa_round(W, x, y, variant, C):
    """Crammer et al. (2006), section 8, the max-loss multiclass update, one round."""
    scores = W @ x
    s = _rival(scores, y)
    loss = max(0.0, 1.0 - (scores[y] - scores[s]))
    q = 2.0 * (x @ x)  # ||Delta||^2
    if loss == 0.0 or q == 0.0:
        return False
    tau = {"PA": loss / q, "PA-I": min(C, loss / q), "PA-II": loss / (q + 1 / (2 * C))}
    W[y] += tau[variant] * x
    W[s] -= tau[variant] * x
    return True


def ref_romma_round(W, x, y, aggressive):
    """Li and Long (2002)'s ROMMA on Kesler's stacked vector, one round.

    The shortest V with V.Delta >= 1 and V.W >= |W|^2: V = Delta/|Delta|^2 if that is
    feasible (always from W = 0), else the point where both constraints bind,
    V = c W + e Delta from the 2x2 system of the two equalities.
    """
    scores = W @ x
    s = _rival(scores, y)
    m = scores[y] - scores[s]
    if not (m < 1.0 if aggressive else m <= 0.0) or not x.any():
        return False
    delta = np.zeros_like(W)
    delta[y], delta[s] = x, -x
    w, dv = W.ravel(), delta.ravel()
    ww, q = w @ w, dv @ dv
    if ww == 0.0 or m >= q * ww:
        W[:] = delta / q
        return True
    # c ww + e m = ww (V.W = |W|^2) and c m + e q = 1 (V.Delta = 1)
    c, e = np.linalg.solve([[ww, m], [m, q]], [ww, 1.0])
    W[:] = c * W + e * delta
    return True


def ref_ogd_round(W, x, y, eta_t):
    """Zinkevich's OGD on the multiclass hinge max(0, 1 - (w_y - w_s).x), one round."""
    scores = W @ x
    s = _rival(scores, y)
    if 1.0 - (scores[y] - scores[s]) <= 0.0:
        return False
    W[y] += eta_t * x
    W[s] -= eta_t * x
    return True


def reference_run(rule, X, y, k, passes, fit_intercept, t0=0):
    """Every round: predict the argmax (first on ties), then apply ``rule``."""
    A = _augment(X, fit_intercept)
    W = np.zeros((k, A.shape[1]))
    mistakes, updates, t = [], [], t0
    for _ in range(passes):
        for x, yi in zip(A, y, strict=True):
            t += 1
            mistakes.append(int(np.argmax(W @ x)) != yi)
            updates.append(rule(W, x, yi, t))
    return W, np.array(mistakes), np.array(updates)


CONFIGS = [
    ("perceptron-max", lambda: olbook.MulticlassPerceptron(sharing="max")),
    ("perceptron-uniform", lambda: olbook.MulticlassPerceptron(sharing="uniform")),
    (
        "perceptron-proportional",
        lambda: olbook.MulticlassPerceptron(sharing="proportional"),
    ),
    ("PA", lambda: olbook.MulticlassPA(variant="PA", C=0.37)),
    ("PA-I", lambda: olbook.MulticlassPA(variant="PA-I", C=0.05)),
    ("PA-II", lambda: olbook.MulticlassPA(variant="PA-II", C=0.37)),
    ("ROMMA", lambda: olbook.MulticlassROMMA()),
    ("aROMMA", lambda: olbook.MulticlassROMMA(aggressive=True)),
    ("OGD-sqrt", lambda: olbook.MulticlassOGD(eta=0.3, schedule="inv_sqrt")),
    ("OGD-const", lambda: olbook.MulticlassOGD(eta=0.3, schedule="constant")),
]
NAMES = [name for name, _ in CONFIGS]
MAKE = dict(CONFIGS)


def reference_rule(name):
    if name.startswith("perceptron"):
        sharing = name.split("-")[1]
        return lambda W, x, y, t: ref_perceptron_round(W, x, y, sharing)
    if name.startswith("PA"):
        C = 0.05 if name == "PA-I" else 0.37
        return lambda W, x, y, t: ref_pa_round(W, x, y, name, C)
    if name.endswith("ROMMA"):
        return lambda W, x, y, t: ref_romma_round(W, x, y, name == "aROMMA")
    eta, decay = 0.3, name == "OGD-sqrt"
    return lambda W, x, y, t: ref_ogd_round(
        W, x, y, eta / math.sqrt(t) if decay else eta
    )


def noisy_data(n=80, d=D, k=K, seed=0):
    """Gaussian classes around k random means, 15% of the labels redrawn."""
    rng = np.random.default_rng(seed)
    means = rng.normal(size=(k, d)) * 1.5
    y = rng.integers(0, k, size=n)
    X = means[y] + rng.normal(size=(n, d))
    flip = rng.random(n) < 0.15
    y[flip] = rng.integers(0, k, size=flip.sum())
    return X, y


def _close(A, B):
    scale = max(1.0, float(np.abs(B).max()))
    return float(np.abs(A - B).max()) <= 1e-12 * scale


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_rule_matches_the_papers_reference(name, fit_intercept):
    """Three passes of ``fit`` (no early stop: the data are noisy) against the reference:
    the same mistakes and updates at every round, weights to 1e-12 relative."""
    X, y = noisy_data()
    est = MAKE[name]().set_params(max_iter=3, fit_intercept=fit_intercept).fit(X, y)
    W, mistakes, updates = reference_run(
        reference_rule(name), X, y, K, 3, fit_intercept
    )
    assert est.n_iter_ == 3
    np.testing.assert_array_equal(est.trace_.mistakes, mistakes)
    np.testing.assert_array_equal(est.trace_.updates, updates)
    coef = (
        np.hstack([est.coef_, est.intercept_[:, None]]) if fit_intercept else est.coef_
    )
    assert _close(coef, W), np.abs(coef - W).max()
    if not fit_intercept:
        assert not est.intercept_.any()
    if name.startswith("OGD"):
        assert est.t_ == 3 * len(y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", NAMES)
def test_chunks_and_sparse_give_the_bits_of_one_pass(name):
    """partial_fit over uneven chunks (string labels, classes given first) and a CSR X
    give, bit for bit, the state, trace and scores of fit with one pass per call."""
    X, y = noisy_data(seed=1)
    X[np.abs(X) < 0.6] = 0.0  # zeros that CSR does not store
    labels = np.array(["ant", "bee", "cat", "dog"])[y]
    ref = MAKE[name]().set_params(max_iter=1).fit(X, labels)
    twice = MAKE[name]().set_params(max_iter=2).fit(X, labels)
    chunked = MAKE[name]()
    for _ in range(2):
        for a, b in ((0, 7), (7, 8), (8, 50), (50, 80)):
            chunked.partial_fit(
                X[a:b], labels[a:b], classes=["ant", "bee", "cat", "dog"]
            )
    assert chunked.coef_.tobytes() == twice.coef_.tobytes()
    np.testing.assert_array_equal(chunked.trace_.updates, twice.trace_.updates)
    if name.startswith("OGD"):
        assert chunked.t_ == twice.t_ == 2 * len(y)
    for fit_intercept in (False, True):
        dense = MAKE[name]().set_params(max_iter=2, fit_intercept=fit_intercept)
        sparse = MAKE[name]().set_params(max_iter=2, fit_intercept=fit_intercept)
        dense.fit(X, labels)
        sparse.fit(sp.csr_matrix(X), labels)
        assert sparse.coef_.tobytes() == dense.coef_.tobytes()
        assert sparse.intercept_.tobytes() == dense.intercept_.tobytes()
        np.testing.assert_array_equal(sparse.trace_.mistakes, dense.trace_.mistakes)
        np.testing.assert_array_equal(sparse.trace_.updates, dense.trace_.updates)
        assert (
            sparse.decision_function(sp.csr_matrix(X)).tobytes()
            == dense.decision_function(X).tobytes()
        )
        np.testing.assert_array_equal(
            sparse.predict(sp.csr_matrix(X)), dense.predict(X)
        )
    assert ref.classes_.tolist() == ["ant", "bee", "cat", "dog"]


@pytest.mark.parametrize("name", NAMES)
def test_sparse_nan_is_rejected_and_state_kept(name):
    X, y = noisy_data(n=20, seed=2)
    est = MAKE[name]().fit(X, y)
    before = est.coef_.copy()
    bad = sp.csr_matrix(np.array([[0.0, np.nan, 1.0]]))
    with pytest.raises(ValueError):
        est.partial_fit(bad, [1])
    assert est.coef_.tobytes() == before.tobytes()


# ------------------------------------------------------------------ the sharing forms
def test_sharing_forms_on_a_hand_worked_round():
    """W with scores (1, 3, 2, 0.5) on x = e_1, true class 0: E = {1, 2} (class 3 scores
    below the true class); max moves only class 1, uniform gives 1/2 each, proportional
    (3 - 1) / 3 and (2 - 1) / 3."""
    X = np.array([[1.0, 0.0, 0.0]])
    W0 = np.zeros((4, 3))
    W0[:, 0] = [1.0, 3.0, 2.0, 0.5]
    expect = {
        "max": [1.0, -1.0, 0.0, 0.0],
        "uniform": [1.0, -0.5, -0.5, 0.0],
        "proportional": [1.0, -2.0 / 3.0, -1.0 / 3.0, 0.0],
    }
    for code, sharing in enumerate(("max", "uniform", "proportional")):
        W = W0.copy()
        flags = np.empty(1, dtype=bool), np.empty(1, dtype=bool)
        multiclass_epoch(X, np.array([0]), W, -1, 1.0, *flags, np.empty(4), code)
        np.testing.assert_allclose(
            W[:, 0] - W0[:, 0], expect[sharing], rtol=0, atol=1e-15
        )
        assert flags[1][0] and flags[0][0]


def test_a_tie_won_by_the_true_class_is_an_update_of_every_form():
    """The paper's error set holds the classes scoring >= the true one: at the first
    round all scores are 0, the prediction (class 0) is right, and still every form
    updates; the proportional shares, all gaps 0, fall back to uniform."""
    X = np.array([[1.0, 2.0, 0.0]])
    for sharing in ("max", "uniform", "proportional"):
        est = olbook.MulticlassPerceptron(sharing=sharing)
        est.partial_fit(X, [0], classes=[0, 1, 2, 3])
        assert est.mistakes_ == 0 and est.n_updates_ == 1
        moved = -est.coef_[1:, 1]
        assert moved.sum() == 2.0
        expect = [2.0, 0.0, 0.0] if sharing == "max" else [2.0 / 3.0] * 3
        np.testing.assert_allclose(moved, expect, rtol=0, atol=1e-15)


# ------------------------------------------------------- per-round optimum (scipy)
def _instances(n, rng, want):
    """Random rounds (W, x, y) with k=4, d=3 whose margin m satisfies ``want(m, W, x)``."""
    out = []
    while len(out) < n:
        W = rng.normal(size=(K, D)) * rng.choice([0.02, 0.3, 1.0])
        x = rng.normal(size=D)
        y = int(rng.integers(K))
        scores = W @ x
        s = _rival(scores, y)
        if want(scores[y] - scores[s], W, x):
            out.append((W, x, y, s))
    return out


def _one_round(epoch, W, x, y, before, after=()):
    """One call of a compiled loop on the single round (x, y) from W (a copy)."""
    W1 = W.copy()
    flags = np.empty(1, dtype=bool), np.empty(1, dtype=bool)
    epoch(x[None, :], np.array([y]), W1, *before, *flags, np.empty(K), *after)
    return W1


def _pa_optimum(W, x, y, s, variant, C):
    """argmin 1/2 |V - W|^2 (+ C xi, + C xi^2) s.t. (v_y - v_s).x >= 1 - xi (xi >= 0)."""
    n = W.size
    z = np.zeros(n + 1)
    z[y * D : (y + 1) * D], z[s * D : (s + 1) * D] = x, -x
    z[n] = 0.0 if variant == "PA" else 1.0

    def objective(v):
        dv = v[:n] - W.ravel()
        pen = {"PA": 0.0, "PA-I": C * v[n], "PA-II": C * v[n] ** 2}[variant]
        dxi = {"PA": 0.0, "PA-I": C, "PA-II": 2 * C * v[n]}[variant]
        return 0.5 * dv @ dv + pen, np.r_[dv, dxi]

    cons = [{"type": "ineq", "fun": lambda v: z @ v - 1.0, "jac": lambda v: z}]
    if variant == "PA-I":
        e = np.eye(n + 1)[n]
        cons.append({"type": "ineq", "fun": lambda v: v[n], "jac": lambda v: e})
    res = minimize(
        objective,
        np.r_[W.ravel(), 0.0],
        jac=True,
        method="SLSQP",
        constraints=cons,
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert res.status in (0, 8), res.message  # 8: converged to the limit of ftol
    return res.x[:n].reshape(W.shape)


def _romma_optimum(W, x, y, s):
    """argmin 1/2 |V|^2 s.t. V.Delta >= 1 and V.W >= |W|^2 (Li and Long's relaxation)."""
    delta = np.zeros_like(W)
    delta[y], delta[s] = x, -x
    dv, w = delta.ravel(), W.ravel()
    cons = [
        {"type": "ineq", "fun": lambda v: dv @ v - 1.0, "jac": lambda v: dv},
        {"type": "ineq", "fun": lambda v: w @ v - w @ w, "jac": lambda v: w},
    ]
    res = minimize(
        lambda v: (0.5 * v @ v, v),
        w.copy(),
        jac=True,
        method="SLSQP",
        constraints=cons,
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    assert res.status in (0, 8), res.message  # 8: converged to the limit of ftol
    return res.x.reshape(W.shape)


#: the largest |olbook - numerical optimum| per rule, filled by the tests below and
#: printed in their assertion messages (and by ``-s``).
LARGEST_GAP: dict[str, float] = {}


@pytest.mark.parametrize("variant", ["PA", "PA-I", "PA-II"])
def test_pa_step_is_the_per_round_optimum(variant):
    """40 random rounds with a positive loss (k=4, d=3), C log-uniform in [0.01, 3]:
    olbook's one-round update equals SLSQP's solution of the round's problem."""
    rng = np.random.default_rng(11)
    worst, clipped = 0.0, 0
    for W, x, y, s in _instances(40, rng, lambda m, W, x: m < 0.95):
        C = 10 ** rng.uniform(-2, 0.5)
        clipped += (1 - (W[y] - W[s]) @ x) / (2 * x @ x) > C
        code = ("PA", "PA-I", "PA-II").index(variant)
        got = _one_round(multiclass_epoch, W, x, y, (code, C), (0,))
        worst = max(
            worst, float(np.abs(got - _pa_optimum(W, x, y, s, variant, C)).max())
        )
    LARGEST_GAP[f"multiclass {variant}"] = worst
    print(f"multiclass {variant}: largest |olbook - SLSQP| = {worst:.2e}")
    assert worst < 1e-6, f"{variant}: largest difference {worst:.3e}"
    assert 5 <= clipped <= 35  # both sides of PA-I's cap are exercised


@pytest.mark.parametrize("aggressive", [False, True])
def test_romma_step_is_the_per_round_optimum(aggressive):
    """40 random violated rounds: olbook's one-round update equals SLSQP's shortest V
    with V.Delta >= 1 and V.W >= |W|^2; the aggressive rounds include ones where only
    the margin constraint binds (m >= 2|x|^2 |W|^2)."""
    rng = np.random.default_rng(12 + aggressive)

    def want(m, W, x):
        return m < 1.0 if aggressive else m <= 0.0

    def only_margin(m, W, x):  # the margin constraint alone binds
        return 2 * (x @ x) * np.sum(W**2) <= m < 1.0

    rounds = _instances(40, rng, want)
    if aggressive:
        rounds += _instances(10, rng, only_margin)
    worst, margin_only = 0.0, 0
    for W, x, y, s in rounds:
        got = _one_round(multiclass_romma_epoch, W, x, y, (aggressive,))
        m = (W[y] - W[s]) @ x
        margin_only += m >= 2 * (x @ x) * np.sum(W**2)
        worst = max(worst, float(np.abs(got - _romma_optimum(W, x, y, s)).max()))
    label = "aggressive ROMMA" if aggressive else "ROMMA"
    LARGEST_GAP[f"multiclass {label}"] = worst
    print(f"multiclass {label}: largest |olbook - SLSQP| = {worst:.2e}")
    assert worst < 1e-6, f"{label}: largest difference {worst:.3e}"
    if aggressive:
        assert margin_only >= 10, margin_only


# ------------------------------------------------------------ the mistake bound
def separable_data(n, d, k, gamma, seed):
    """Points whose best class under a random unit-norm W* leads by >= gamma."""
    rng = np.random.default_rng(seed)
    Wstar = rng.normal(size=(k, d))
    Wstar /= np.sqrt(np.sum(Wstar**2))
    X = rng.normal(size=(40 * n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    S = X @ Wstar.T
    top = np.sort(S, axis=1)
    keep = top[:, -1] - top[:, -2] >= gamma
    X, y = X[keep][:n], S[keep][:n].argmax(axis=1)
    return X, y, Wstar


@pytest.mark.parametrize("sharing", ["max", "uniform", "proportional"])
def test_ultraconservative_mistake_bound(sharing):
    """Crammer and Singer (2003): on a sequence with |x| <= R classified with margin
    gamma by a unit-norm W*, every additive ultraconservative algorithm makes at most
    2 R^2 / gamma^2 mistakes. Checked to convergence on 10 orders, and through the
    proof's two invariants after every update: <W*, W> >= U gamma (progress) and
    |W|_F^2 <= 2 U R^2 (growth, from <W, Z_t> <= 0 and |Z_t|^2 <= 2 |x|^2)."""
    X, y, Wstar = separable_data(400, 6, 5, 0.12, seed=3)
    S = X @ Wstar.T
    gamma = np.min(
        S[np.arange(len(y)), y] - np.where(np.eye(5)[y] > 0, -np.inf, S).max(1)
    )
    R2 = float(np.max(np.sum(X**2, axis=1)))
    bound = 2 * R2 / gamma**2
    rng = np.random.default_rng(5)
    most = 0
    for _ in range(10):
        order = rng.permutation(len(y))
        est = olbook.MulticlassPerceptron(sharing=sharing, max_iter=500)
        est.fit(X[order], y[order])
        assert est.converged_
        assert est.mistakes_ <= est.n_updates_ <= bound, (est.n_updates_, bound)
        most = max(most, est.n_updates_)
    step = olbook.MulticlassPerceptron(sharing=sharing)
    W_prev = np.zeros((5, 6))
    for i in range(len(y)):
        step.partial_fit(X[i : i + 1], y[i : i + 1], classes=range(5))
        Z = step.coef_ - W_prev
        if Z.any():
            assert np.sum(W_prev * Z) <= 1e-9  # ultraconservative: <W, Z> <= 0
            assert np.sum(Z**2) <= 2 * X[i] @ X[i] + 1e-9
            assert np.sum(Wstar * Z) >= gamma - 1e-9
            U = step.n_updates_
            assert np.sum(Wstar * step.coef_) >= U * gamma - 1e-9
            assert np.sum(step.coef_**2) <= 2 * U * R2 + 1e-9
        W_prev = step.coef_.copy()
    print(f"{sharing}: at most {most} updates, bound {bound:.1f}")
    assert most >= 0.1 * bound  # the data are not trivially easy for the bound


def test_the_bound_is_attained_for_two_classes():
    """The d orthogonal examples e_i with two classes: every round ties at 0, so every
    form updates d times, and 2 R^2 / gamma^2 = d (W* with rows -+e_i/sqrt(2d))."""
    d = 12
    y = np.arange(d) % 2
    X = np.eye(d)
    for sharing in ("max", "uniform", "proportional"):
        est = olbook.MulticlassPerceptron(sharing=sharing, max_iter=5).fit(X, y)
        Wstar = np.vstack([(y == 0) * 1.0, (y == 1) * 1.0]) - 0.5
        gamma = 1.0 / np.sqrt(np.sum(Wstar**2))
        assert est.n_updates_ == d == round(2 * 1.0 / gamma**2)


@pytest.mark.parametrize(
    "make",
    [
        lambda: olbook.MulticlassOGD(eta=0.5, schedule="constant"),
        lambda: olbook.MulticlassPA(variant="PA"),
        lambda: olbook.MulticlassROMMA(aggressive=True),
    ],
)
def test_margin_exactly_one_is_no_update(make):
    """Two classes, x = e_1 twice: the first round (scores tied at 0) moves the rows to
    +-x/2, a margin of exactly 1, where the hinge loss and its subgradient are 0 (OGD,
    PA) and aggressive ROMMA's constraint holds: the second round is no update."""
    est = make()
    x = np.array([[1.0, 0.0]])
    est.partial_fit(x, [0], classes=[0, 1])
    np.testing.assert_array_equal(est.coef_, [[0.5, 0.0], [-0.5, 0.0]])
    est.partial_fit(x, [0])
    assert est.n_updates_ == 1
