"""Chapter 6's mistake and loss bounds as properties (hypothesis searches for a counterexample).

Bounds, as the book states them (R = max_t ||x_t||, l_t = max(0, 1 - y_t w_t.x_t) the
learner's hinge loss before its update, l*_t = max(0, 1 - y_t u.x_t) the comparator's):

* PA on separable data (``olc-thm-pa-separable``): if ``y_t u.x_t >= 1`` for every t,
  ``sum_t l_t^2 <= ||u||^2 R^2``, and at most ``||u||^2 R^2`` mistakes.
* PA-I (``olc-thm-pa1``): for every u and C > 0, R > 0,
  ``sum_t min(C l_t, l_t^2/R^2) <= ||u||^2 + 2C sum_t l*_t`` and
  ``M <= max(R^2, 1/C)(||u||^2 + 2C sum_t l*_t)``.
* PA-II (``olc-thm-pa2``): ``sum_t l_t^2 <= (R^2 + 1/(2C))(||u||^2 + 2C sum_t (l*_t)^2)``,
  and the mistakes too.
* ROMMA (``olc-thm-romma``): if ``y_t u.x_t >= 1``, at most ``R^2 ||u||^2`` mistakes
  (ROMMA and aggressive ROMMA; the perceptron too, by Block--Novikoff).
* The second-order perceptron (``olc-thm-sop-bound``): with M its updates (mistakes and
  ties), X_M their examples, lambda_i the eigenvalues of X_M X_M^T and
  L(u) the hinge loss of u on the updates,
  ``M <= L(u) + sqrt((a||u||^2 + u'X_M X_M'u) sum_i ln(1 + lambda_i/a))``.
* AROW (``olc-thm-arow-bound``): with A its update rounds (m_t < 1), M mistakes
  (a score 0 included), U = |A| - M margin errors, g_t = max(0, 1 - y_t u.x_t),
  ``M <= sqrt((r/a ||u||^2 + u'X_A X_A'u)(ln det(I + (a/r) X_A X_A') + U)) + sum_A g_t - U``.

The data are small integers (shared strategies of ``test_properties_perceptron``): axis
rows of one length are the orthogonal examples on which the book's checks find these
bounds attained or nearly so; labels are sign(u.x) with an arbitrary subset flipped;
the comparator is an integer vector times a scale. ``target`` steers towards
measured/bound close to 1. Each test's docstring names the mutation of its bound
that the search catches (checked by ``test_properties_mutations.py``).

Tolerance: after its first update a learner's weights are not integers, so its scores
carry rounding errors; every proof step loses at most a relative 1e-15 per round.
A bound is compared with a relative slack of 1e-9 plus an absolute 1e-9 per round
(the learners' losses and counts are of order 1 per round); the mutations move the
bounds by more than 10%.

Examples per property: the profile's (100 in "ci", 1000 in "thorough", tests/conftest.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, target
from hypothesis import strategies as st
from test_properties_perceptron import (
    comparators,
    orthogonal_worst_cases,
    small_int_rows,
)

import olbook

CLASSES = [-1, 1]


def slack(bound: float, T: int) -> float:
    """The bound plus the tolerance of the module docstring."""
    return bound * (1 + 1e-9) + 1e-9 * T


# ------------------------------------------------------------------ the bounds, as the book states them


def pa_separable_bound(u2: float, R2: float) -> float:
    return u2 * R2


def pa1_loss_bound(u2: float, C: float, sum_lstar: float) -> float:
    return u2 + 2 * C * sum_lstar


def pa1_mistake_bound(R2: float, C: float, u2: float, sum_lstar: float) -> float:
    return max(R2, 1 / C) * (u2 + 2 * C * sum_lstar)


def pa2_bound(R2: float, C: float, u2: float, sum_lstar2: float) -> float:
    return (R2 + 1 / (2 * C)) * (u2 + 2 * C * sum_lstar2)


def romma_bound(u2: float, R2: float) -> float:
    return R2 * u2


def sop_bound(L: float, a: float, u2: float, uXXu: float, sum_log: float) -> float:
    return L + math.sqrt((a * u2 + uXXu) * sum_log)


def arow_bound(
    r: float, a: float, u2: float, uXXu: float, logdet: float, U: int, sum_g: float
) -> float:
    return math.sqrt((r / a * u2 + uXXu) * (logdet + U)) + sum_g - U


def warm_up():
    """Compile the learners' numba loops, so that no example pays for it."""
    X, y = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1.0, -1.0])
    for clf in (
        olbook.PassiveAggressive(variant="PA"),
        olbook.ROMMA(),
        olbook.ROMMA(aggressive=True),
        olbook.SecondOrderPerceptron(),
        olbook.AROW(),
    ):
        clf.fit(X, y)


@pytest.fixture(autouse=True, scope="module")
def _compiled():
    warm_up()


def hinge_losses(clf, X, y):
    """Feed (X, y) one example at a time (partial_fit); the hinge loss of each round before its update."""
    out = np.empty(X.shape[0])
    for i in range(X.shape[0]):
        f = 0.0 if i == 0 else float(clf.decision_function(X[i : i + 1])[0])
        out[i] = max(0.0, 1.0 - y[i] * f)
        clf.partial_fit(X[i : i + 1], y[i : i + 1], classes=CLASSES)
    return out


def sqnorm(v) -> float:
    return math.fsum(np.asarray(v) ** 2)


@st.composite
def streams(draw, separable):
    """(X, y, u): integer rows presented 1-3 times; labels sign(u.x); separable: rows with
    u.x = 0 dropped and u scaled so that min_t y_t u.x_t = 1; otherwise labels +1 at u.x = 0,
    an arbitrary subset flipped, and u times a scale in {1/4, 1/2, 1, 2}.

    Half the time, the book's worst case instead (``orthogonal_worst_cases``: orthogonal rows
    of one length, u with margin exactly 1 on each) with u times a scale (1 if separable),
    one pass."""
    if draw(st.booleans()):
        X, y, u = draw(orthogonal_worst_cases())
        return (
            X,
            y,
            u * (1.0 if separable else draw(st.sampled_from([1.0, 0.5, 0.25, 2.0]))),
        )
    X = draw(small_int_rows(n_max=10))
    u = draw(comparators(X.shape[1]))
    s = X @ u
    if separable:
        X = X[s != 0]
        assume(X.shape[0] > 0)
        y = np.where(X @ u > 0, 1.0, -1.0)
        u = u / float(np.min(y * (X @ u)))  # y u.x >= 1, with equality somewhere
    else:
        flip = np.array(
            draw(st.lists(st.booleans(), min_size=X.shape[0], max_size=X.shape[0]))
        )
        y = np.where(s >= 0, 1.0, -1.0) * np.where(flip, -1.0, 1.0)
        u = u * draw(st.sampled_from([0.25, 0.5, 1.0, 2.0]))
    passes = draw(st.integers(1, 3))
    return np.tile(X, (passes, 1)), np.tile(y, passes), u


# ------------------------------------------------------------------ passive-aggressive


@given(stream=streams(separable=True))
def test_pa_separable(stream):
    """sum_t l_t^2 <= ||u||^2 R^2 and M <= ||u||^2 R^2 when y_t u.x_t >= 1 for every t.

    Catches: ||u|| R in place of ||u||^2 R^2 (orthogonal examples of length R with
    u = sum_t y_t x_t/R^2: every loss is 1, and sum l_t^2 = k = ||u||^2 R^2).
    """
    X, y, u = stream
    R2 = float(np.max(np.sum(X * X, axis=1)))
    clf = olbook.PassiveAggressive(variant="PA")
    losses = hinge_losses(clf, X, y)
    bound = pa_separable_bound(sqnorm(u), R2)
    target(math.fsum(losses**2) / max(bound, 1e-9), label="sum l^2 / bound")
    assert math.fsum(losses**2) <= slack(bound, len(y))
    assert clf.mistakes_ <= slack(bound, len(y))


@given(
    stream=streams(separable=False), C=st.sampled_from([0.1, 0.25, 0.5, 1.0, 2.0, 4.0])
)
def test_pa1_any_data(stream, C):
    """sum_t min(C l_t, l_t^2/R^2) <= ||u||^2 + 2C sum l*_t and
    M <= max(R^2, 1/C)(||u||^2 + 2C sum l*_t), for every comparator u.

    Catches: ``C sum l*_t`` in place of ``2C sum l*_t``, and min(R^2, 1/C) in place of
    max(R^2, 1/C) (orthogonal examples with u = (1/2) sum_t y_t x_t/R^2, C = 1/2).
    """
    X, y, u = stream
    R2 = float(np.max(np.sum(X * X, axis=1)))
    assume(R2 > 0)
    clf = olbook.PassiveAggressive(variant="PA-I", C=C)
    losses = hinge_losses(clf, X, y)
    sum_lstar = math.fsum(np.maximum(0.0, 1.0 - y * (X @ u)))
    lhs = math.fsum(np.minimum(C * losses, losses**2 / R2))
    loss_bound = pa1_loss_bound(sqnorm(u), C, sum_lstar)
    mistake_bound = pa1_mistake_bound(R2, C, sqnorm(u), sum_lstar)
    target(lhs / max(loss_bound, 1e-9), label="lhs / loss bound")
    target(clf.mistakes_ / max(mistake_bound, 1e-9), label="mistakes / bound")
    assert lhs <= slack(loss_bound, len(y))
    assert clf.mistakes_ <= slack(mistake_bound, len(y))


@given(stream=streams(separable=False), C=st.sampled_from([1 / 6, 0.25, 0.5, 1.5, 4.0]))
def test_pa2_any_data(stream, C):
    """sum_t l_t^2 <= (R^2 + 1/(2C))(||u||^2 + 2C sum (l*_t)^2), and M at most the same.

    Catches: the 1/(2C) dropped (tight for every C on orthogonal examples with
    u_i = 2CR/(1 + 2CR^2): C = 1/2, R = 1 gives the scale 1/2 of the strategy).
    """
    X, y, u = stream
    R2 = float(np.max(np.sum(X * X, axis=1)))
    clf = olbook.PassiveAggressive(variant="PA-II", C=C)
    losses = hinge_losses(clf, X, y)
    sum_lstar2 = math.fsum(np.maximum(0.0, 1.0 - y * (X @ u)) ** 2)
    bound = pa2_bound(R2, C, sqnorm(u), sum_lstar2)
    target(math.fsum(losses**2) / max(bound, 1e-9), label="sum l^2 / bound")
    assert math.fsum(losses**2) <= slack(bound, len(y))
    assert clf.mistakes_ <= slack(bound, len(y))


@given(stream=streams(separable=True), aggressive=st.booleans())
def test_romma_and_perceptron_mistake_bound(stream, aggressive):
    """ROMMA (aggressive or not) and the perceptron make at most R^2 ||u||^2 mistakes when
    y_t u.x_t >= 1.

    Catches: R ||u|| in place of R^2 ||u||^2 (orthogonal examples: k mistakes, R||u|| = sqrt k).
    """
    X, y, u = stream
    bound = romma_bound(sqnorm(u), float(np.max(np.sum(X * X, axis=1))))
    for clf in (olbook.ROMMA(aggressive=aggressive), olbook.Perceptron()):
        clf.partial_fit(X, y, classes=CLASSES)
        target(
            clf.mistakes_ / max(bound, 1e-9),
            label=f"{type(clf).__name__} mistakes / bound",
        )
        assert clf.mistakes_ <= slack(bound, len(y))


# ------------------------------------------------------------------ second order


def _quadratic_terms(X, y, u, upd):
    """u'X X'u over the rows ``upd`` and the hinge losses of u on them."""
    S = X[upd]
    su = S @ u  # small integers times a dyadic scale: exact
    return math.fsum(su**2), np.maximum(0.0, 1.0 - y[upd] * su), S


@given(stream=streams(separable=False), a=st.sampled_from([0.25, 1.0, 4.0, 16.0]))
def test_second_order_perceptron_mistake_bound(stream, a):
    """M <= L(u) + sqrt((a||u||^2 + u'X_M X_M'u) sum_i ln(1 + lambda_i/a)) for every u, M the
    updates (mistakes and ties), X_M their examples.

    Catches: the a||u||^2 term dropped (orthogonal examples of length R, u = sum q_i/R: the
    bound is k sqrt((1 + a/R^2) ln(1 + R^2/a)), and without the term k sqrt(ln(1 + R^2/a)) < k
    for R^2/a < e - 1).
    """
    X, y, u = stream
    clf = olbook.SecondOrderPerceptron(a=a)
    clf.partial_fit(X, y, classes=CLASSES)
    upd = clf.trace_.updates
    M = int(upd.sum())
    uXXu, hinge, S = _quadratic_terms(X, y, u, upd)
    lam = np.clip(np.linalg.eigvalsh(S.T @ S), 0.0, None) if M else np.zeros(X.shape[1])
    bound = sop_bound(
        math.fsum(hinge), a, sqnorm(u), uXXu, math.fsum(np.log1p(lam / a))
    )
    target(M / max(bound, 1.0), label="updates / bound")
    assert clf.mistakes_ <= M <= slack(bound, len(y))


@given(
    stream=streams(separable=False),
    r=st.sampled_from([1 / 64, 0.25, 1.0, 4.0, 16.0, 64.0]),
    a=st.sampled_from([0.5, 1.0, 2.0]),
)
def test_arow_mistake_bound(stream, r, a):
    """M <= sqrt((r/a ||u||^2 + u'X_A X_A'u)(ln det(I + (a/r) X_A X_A') + U)) + sum_A g_t - U
    for every u, A the update rounds, U the margin errors among them.

    Catches: the r/a ||u||^2 term dropped (orthogonal examples: the bound is
    k sqrt((1 + r/(aR^2)) ln(1 + aR^2/r)), nearly k for large r, and without the term it is
    k sqrt(ln(1 + aR^2/r)) < k).
    """
    X, y, u = stream
    clf = olbook.AROW(r=r, a=a)
    clf.partial_fit(X, y, classes=CLASSES)
    upd, mis = clf.trace_.updates, clf.trace_.mistakes
    assert not np.any(mis & ~upd)  # a mistake is an update (m <= 0 < 1)
    M, U = int(mis.sum()), int((upd & ~mis).sum())
    uXXu, g, S = _quadratic_terms(X, y, u, upd)
    # ln det(I + (a/r) S'S) from the eigenvalues of the symmetric S'S (clipped at 0 against rounding)
    lam = (
        np.clip(np.linalg.eigvalsh(S.T @ S), 0.0, None)
        if upd.any()
        else np.zeros(X.shape[1])
    )
    bound = arow_bound(
        r, a, sqnorm(u), uXXu, math.fsum(np.log1p(a / r * lam)), U, math.fsum(g)
    )
    target(M / max(bound, 1.0), label="mistakes / bound")
    assert M <= slack(bound, len(y))
