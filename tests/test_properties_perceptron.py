"""Chapter 1's mistake bounds of the perceptron as properties (hypothesis searches for a counterexample).

Bounds, as the book states them:

* Block--Novikoff (``perc-thm-novikoff``, with a bias ``perc-thm-novikoff-bias``):
  if ``||x_t|| <= R`` and a unit ``u`` has ``y_t u.x_t >= gamma > 0`` for every t,
  the perceptron started at 0, updating whenever ``y_t w.x_t <= 0``, makes
  ``M <= K <= (R/gamma)^2`` updates; with a bias, on ``(x, 1)``, the same with
  ``R^2 + 1`` and the margin of ``(u, b)/||(u, b)||``.
* Freund--Schapire (``perc-thm-nonseparable``): for any finite sequence, any unit
  ``u`` and any ``gamma > 0``, ``K <= ((R + D)/gamma)^2`` with
  ``D^2 = sum_t max(0, gamma - y_t u.x_t)^2`` over every round.
* Its hinge-loss form (``perc-cor-hinge``): for any ``w*``,
  ``K <= L + R||w*|| sqrt(L) + R^2 ||w*||^2``, ``L`` the hinge loss of ``w*`` on the
  update rounds.
* The normalized perceptron (``perc-sec-normalized``, the *Foundations of Data
  Science* draft): on the unit vectors ``x/||x||`` with margin ``delta``, after the
  first update at most ``1/delta^2 - 1`` more.

The data are small integers (or ``olbook.data``'s dyadic grid), so every score of
the perceptron is exact and the update count does not depend on rounding; the
strategies can produce the instances on which the bounds are attained (orthogonal
examples, every score an exact tie), and ``target`` steers the search towards
updates/bound close to 1. Each test's docstring names the mutation of its bound
that the search catches (checked by ``test_properties_mutations.py``).

Tolerance: a bound is compared with a relative slack of 1e-9. ``R`` and ``gamma``
come from at most a few dozen correctly rounded operations (sums of <= 7 products, a
square root, a division, a square), a relative error below 1e-14; the update
count is an integer, and where the bound is attained it equals that integer in
exact arithmetic, so rounding could put the computed bound 1 ulp below it. 1e-9
covers that and is far below every mutation (the smallest changes the bound by 1%).

Examples per property: the profile's (100 in "ci", 1000 in "thorough", tests/conftest.py).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, target
from hypothesis import strategies as st

import olbook
from olbook.data import (
    greedy_adversarial_order,
    make_orthogonal_worst_case,
    make_separable,
    make_shell,
)

SLACK = 1 + 1e-9


# ------------------------------------------------------------------ the bounds, as the book states them
# (module-level functions, so that test_properties_mutations.py can replace each by a wrong one)


def novikoff(R: float, gamma: float) -> float:
    """Block--Novikoff: (R/gamma)^2."""
    return (R / gamma) ** 2


def novikoff_bias(R: float, b: float, gamma: float) -> float:
    """Block--Novikoff with a bias (c = 1), unit u: (R^2 + 1)(1 + b^2)/gamma^2."""
    return (R * R + 1.0) * (1.0 + b * b) / gamma**2


def freund_schapire(R: float, D: float, gamma: float) -> float:
    """Freund--Schapire: ((R + D)/gamma)^2."""
    return ((R + D) / gamma) ** 2


def hinge_form(L: float, Rw: float) -> float:
    """The corollary: L + R||w*|| sqrt(L) + (R||w*||)^2."""
    return L + Rw * math.sqrt(L) + Rw**2


def normalized_after_first(delta: float) -> float:
    """The normalized perceptron: at most 1/delta^2 - 1 updates after the first."""
    return 1.0 / delta**2 - 1.0


def warm_up():
    """Compile the learners' numba loops, so that no example pays for it."""
    X, y = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([1.0, -1.0])
    for clf in (
        olbook.Perceptron(),
        olbook.Perceptron(fit_intercept=True),
        olbook.NormalizedPerceptron(),
    ):
        clf.fit(X, y)
    greedy_adversarial_order(X, y, np.array([1.0, -1.0]))


@pytest.fixture(autouse=True, scope="module")
def _compiled():
    warm_up()


def run_perceptron(X, y, *, fit_intercept=False, epochs=1):
    """The perceptron on (X, y), ``epochs`` passes (it stops after a pass without update)."""
    p = olbook.Perceptron(fit_intercept=fit_intercept, max_iter=epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", olbook.ConvergenceWarning)
        return p.fit(X, y)


# ------------------------------------------------------------------ strategies


@st.composite
def small_int_rows(draw, n_max=12, d_max=5):
    """(n, d) arrays of small integers, so that every score is exact. Half the time the rows
    are coordinate axes times one length c with random signs (orthogonal or parallel: the
    worst cases of the bounds, where every score of the perceptron is a tie); otherwise
    entries are zero half the time and in [-4, 4] else."""
    n, d = draw(st.integers(1, n_max)), draw(st.integers(1, d_max))
    if draw(st.booleans()):
        X, c = np.zeros((n, d)), draw(st.integers(1, 3))
        distinct = draw(st.booleans())  # distinct axes: mutually orthogonal rows
        axes = (
            draw(st.permutations(range(d)))[:n]
            if distinct
            else [draw(st.integers(0, d - 1)) for _ in range(n)]
        )
        for i, j in enumerate(axes):
            X[i, j] = c * draw(st.sampled_from([1, -1]))
        return X
    entry = st.one_of(st.just(0), st.integers(-4, 4))
    return np.array(
        draw(st.lists(st.lists(entry, min_size=d, max_size=d), min_size=n, max_size=n)),
        dtype=np.float64,
    )


def comparators(d):
    """A nonzero integer vector of length d; half the time with entries in {-1, 0, 1} (equal
    margins on axis-aligned data: the bounds are attained)."""
    entries = st.one_of(st.integers(-1, 1), st.integers(-3, 3))
    return st.lists(entries, min_size=d, max_size=d).map(
        lambda v: np.array(v if any(v) else [1, *v[1:]], dtype=np.float64)
    )


@st.composite
def separable_integer_problems(draw):
    """(X, y, u): integer rows, labels sign(u.x), rows with u.x = 0 dropped; u integer, nonzero."""
    X = draw(small_int_rows())
    u = draw(comparators(X.shape[1]))
    s = X @ u  # exact: small integers
    X = X[s != 0]
    assume(X.shape[0] > 0)
    y = np.where(X @ u > 0, 1.0, -1.0)
    return X, y, u


@st.composite
def grid_separable_problems(draw, fit_intercept=None, shell=None):
    """(X, y, u, b, fit_intercept) from olbook.data (dyadic grid), separable by (u, b) with a
    controlled margin and radius; the shell puts every example at the margin."""
    n = draw(st.integers(2, 40))
    d = draw(st.integers(2 if shell else 1, 6))
    R = draw(st.sampled_from([0.1, 0.25, 0.5, 1.0, 2.0, 20.0]) | st.floats(0.1, 20.0))
    ratio = draw(st.sampled_from([0.25, 0.5, 1.0]) | st.floats(0.05, 1.0))  # gamma / R
    seed = draw(st.integers(0, 2**32 - 1))
    shell = (draw(st.booleans()) if shell is None else shell) and d >= 2
    maker = make_shell if shell else make_separable
    X, y, u = maker(n, d, margin=ratio * R, radius=R, random_state=seed)
    fit_intercept = draw(st.booleans()) if fit_intercept is None else fit_intercept
    b = draw(st.sampled_from([0.0]) | st.floats(-3.0, 3.0)) if fit_intercept else 0.0
    # Shift along u: y (u.x' + b) = y u.x >= gamma, so (u, b) separates the shifted data.
    return X - b * u, y, u, b, fit_intercept


# ------------------------------------------------------------------ Block--Novikoff


@given(
    problem=separable_integer_problems(),
    epochs=st.integers(1, 20),
    perm_seed=st.integers(0, 2**32 - 1),
)
def test_novikoff_on_integer_data(problem, epochs, perm_seed):
    """K <= (R/gamma)^2 on separable integer data, any order, any number of passes.

    Catches: the bound without the square, R/gamma (orthogonal examples: K = k > sqrt k),
    and a constant 1% smaller (attained: K = (R/gamma)^2 on orthogonal examples).
    """
    X, y, u = problem
    order = np.random.default_rng(perm_seed).permutation(X.shape[0])
    mb = olbook.perceptron_bound(X, y, u)
    bound = novikoff(mb.radius, mb.margin)
    p = run_perceptron(X[order], y[order], epochs=epochs)
    target(p.n_updates_ / max(bound, 1e-9), label="updates / (R/gamma)^2")
    assert p.mistakes_ <= p.n_updates_ <= bound * SLACK
    if (
        epochs > mb.bound + 1
    ):  # the bound caps the updates, so the passes end with one without update
        assert p.converged_ and np.array_equal(p.predict(X), y)


@given(
    problem=grid_separable_problems(fit_intercept=True),
    epochs=st.integers(1, 30),
    perm_seed=st.integers(0, 2**32 - 1),
)
def test_novikoff_with_bias_on_grid_data(problem, epochs, perm_seed):
    """K <= (R^2 + 1)(1 + b^2)/gamma^2 with a bias (theorem perc-thm-novikoff-bias, c = 1), for a
    unit u with margin gamma, on olbook.data's separable data and shells, any order and passes.

    Catches: the bias bound without its ``+ 1`` on ``R^2`` (the shell at margin gamma with a
    bias: the intercept example adds 1 to every squared norm).
    """
    X, y, u, b, fit_intercept = problem
    order = np.random.default_rng(perm_seed).permutation(X.shape[0])
    mb = olbook.perceptron_bound(X, y, u, b, fit_intercept=fit_intercept)
    # the book's form, with (u, b) scaled to a unit u: margin(X, y, u, b) divides by ||u||
    R, b_unit, gamma = (
        olbook.radius(X),
        b / math.sqrt(float(u @ u)),
        olbook.margin(X, y, u, b),
    )
    # olbook's is the same
    assert np.isclose(mb.bound, (R * R + 1) * (1 + b_unit**2) / gamma**2, rtol=1e-9)
    bound = novikoff_bias(R, b_unit, gamma)
    p = run_perceptron(X[order], y[order], fit_intercept=fit_intercept, epochs=epochs)
    target(p.n_updates_ / max(bound, 1e-9), label="updates / bound")
    assert p.mistakes_ <= p.n_updates_ <= bound * SLACK
    if (
        epochs > mb.bound + 1
    ):  # the bound caps the updates, so the passes end with one without update
        assert p.converged_ and np.array_equal(p.predict(X), y)


@given(problem=grid_separable_problems(shell=True) | grid_separable_problems())
def test_novikoff_against_the_greedy_adversary(problem):
    """The greedy adversary of olbook.data (least progress, most growth) stays within (R/gamma)^2.

    Catches: a constant 10% smaller (on shells the adversary comes within a few percent).
    """
    X, y, u, b, fit_intercept = problem
    mb = olbook.perceptron_bound(X, y, u, b, fit_intercept=fit_intercept)
    if (
        fit_intercept
    ):  # the adversary plays on the augmented vectors (x, 1), separator (u, b)
        A = np.hstack([X, np.ones((X.shape[0], 1))])
        order = greedy_adversarial_order(A, y, np.append(u, b))
    else:
        order = greedy_adversarial_order(X, y, u)
    bound = novikoff(mb.radius, mb.margin)
    p = olbook.Perceptron(fit_intercept=fit_intercept).fit(X[order], y[order])
    target(p.n_updates_ / max(bound, 1e-9), label="updates / (R/gamma)^2")
    # the adversary only presents examples the perceptron gets wrong
    assert p.n_updates_ == len(order)
    assert p.mistakes_ <= p.n_updates_ <= bound * SLACK


@given(
    k=st.integers(1, 12),
    extra=st.integers(0, 3),
    R=st.floats(0.1, 10.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_novikoff_attained_on_orthogonal_examples(k, extra, R, seed):
    """On k orthogonal examples of length R the perceptron makes exactly (R/gamma)^2 = k updates.

    The bound is attained: catches any bound smaller than (R/gamma)^2 by more than the slack.
    """
    X, y, u = make_orthogonal_worst_case(k, k + extra, radius=R, random_state=seed)
    mb = olbook.perceptron_bound(X, y, u)
    bound = novikoff(mb.radius, mb.margin)
    assert np.isclose(bound, k, rtol=1e-9)
    p = run_perceptron(X, y, epochs=k + 2)
    assert p.converged_
    assert p.mistakes_ == p.n_updates_ == k
    assert p.n_updates_ <= bound * SLACK


# ------------------------------------------------------------------ Freund--Schapire and its hinge form


@st.composite
def orthogonal_worst_cases(draw):
    """(X, y, u): the book's worst case, k <= 6 orthogonal rows of one length c (distinct signed
    axes), arbitrary labels, and u = sum_t y_t x_t/c^2, so that y_t u.x_t = 1 on every row:
    every score of the perceptron (and of PA, ROMMA, SOP, AROW) is an exact 0, and the
    bounds of chapters 1 and 6 are attained or nearly so."""
    d = draw(st.integers(1, 6))
    k, c = draw(st.integers(1, d)), draw(st.integers(1, 3))
    X = np.zeros((k, d))
    for i, j in enumerate(draw(st.permutations(range(d)))[:k]):
        X[i, j] = c * draw(st.sampled_from([1.0, -1.0]))
    y = np.array(draw(st.lists(st.sampled_from([1.0, -1.0]), min_size=k, max_size=k)))
    return X, y, (y @ X) / c**2


@st.composite
def arbitrary_integer_sequences(draw):
    """(X, y, u, gamma): integer rows, an integer comparator u, labels sign(u.x) (+1 at 0) with
    an arbitrary subset flipped (so arbitrary labels), the sequence presented 1-4 times, and a
    margin gamma > 0, often a multiple >= 1 of the margin of u (where the bound is tightest).
    Half the time the worst case (``orthogonal_worst_cases``), presented once."""
    if draw(st.booleans()):
        X, y, u = draw(orthogonal_worst_cases())
        m = 1.0 / math.sqrt(float(u @ u))
        return X, y, u, m * draw(st.sampled_from([1.0, 1.25, 1.5, 2.0, 3.0]))
    X = draw(small_int_rows(n_max=10))
    u = draw(comparators(X.shape[1]))
    flip = np.array(
        draw(st.lists(st.booleans(), min_size=X.shape[0], max_size=X.shape[0]))
    )
    y = np.where(X @ u >= 0, 1.0, -1.0) * np.where(flip, -1.0, 1.0)
    passes = draw(st.integers(1, 4))
    gamma = draw(st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0]))
    m = float(np.min(y * (X @ u))) / math.sqrt(float(u @ u))
    if m > 0 and draw(
        st.booleans()
    ):  # or a multiple of the margin of u, where the bound is tightest
        gamma = m * draw(st.sampled_from([1.0, 1.25, 1.5, 2.0, 3.0]))
    return np.tile(X, (passes, 1)), np.tile(y, passes), u, gamma


@given(seq=arbitrary_integer_sequences())
def test_freund_schapire_on_arbitrary_sequences(seq):
    """K <= ((R + D)/gamma)^2 on any sequence, any comparator u, any gamma > 0.

    Catches: D dropped (Block--Novikoff on data that is not separable with margin gamma),
    and (R^2 + D^2)/gamma^2 in place of ((R + D)/gamma)^2 (orthogonal examples with gamma above
    their margin attain the true bound exactly, the mutated one is smaller).
    """
    X, y, u, gamma = seq
    bound_olbook, D = olbook.hinge_mistake_bound(X, y, u, gamma)
    R = olbook.radius(X)
    assert np.isclose(bound_olbook, ((R + D) / gamma) ** 2, rtol=1e-12)
    bound = freund_schapire(R, D, gamma)
    # one pass over the whole sequence: exactly its rounds
    p = olbook.Perceptron().fit(X, y)
    target(p.n_updates_ / max(bound, 1e-9), label="updates / ((R + D)/gamma)^2")
    assert p.mistakes_ <= p.n_updates_ <= bound * SLACK


@given(seq=arbitrary_integer_sequences(), scale=st.sampled_from([0.25, 0.5, 1.0, 2.0]))
def test_hinge_form_on_arbitrary_sequences(seq, scale):
    """K <= L + R||w*|| sqrt(L) + R^2 ||w*||^2, L the hinge loss of w* on the update rounds.

    Catches: the middle term dropped (orthogonal examples with w* = c u/gamma, c < 1: the
    bound k((1 - c) + c sqrt(1 - c) + c^2) is attained within a few percent, without the middle
    term it is below k).
    """
    X, y, u, _ = seq
    m = float(np.min(y * (X @ u)))
    w_star = scale * (u / m if m > 0 else u)  # u/m has y w*.x >= 1 where u separates
    p = olbook.Perceptron().fit(X, y)
    upd = p.trace_.updates
    L = math.fsum(np.maximum(0.0, 1.0 - y[upd] * (X[upd] @ w_star)))
    Rw = olbook.radius(X) * math.sqrt(float(w_star @ w_star))
    bound = hinge_form(L, Rw)
    target(p.n_updates_ / max(bound, 1.0), label="updates / hinge-form bound")
    # rounding: L and R||w*|| carry a relative error below 1e-14 (sums of small integers,
    # two square roots); the bound is compared with the same relative slack as the others.
    assert p.mistakes_ <= p.n_updates_ <= bound * SLACK


# ------------------------------------------------------------------ normalized perceptron


@given(
    problem=grid_separable_problems(),
    epochs=st.integers(1, 30),
    perm_seed=st.integers(0, 2**32 - 1),
)
def test_normalized_perceptron_within_inverse_delta_squared(problem, epochs, perm_seed):
    """After its first update, the normalized perceptron makes at most 1/delta^2 - 1 more,
    delta the margin of the unit vectors x/||x|| (so at most 1/delta^2 in all).

    Catches: 1/delta^2 - 2 (the ``- 1`` counted twice) on the shells, where every unit vector
    is at the margin.
    """
    X, y, u, b, fit_intercept = problem
    A = np.hstack([X, np.ones((X.shape[0], 1))]) if fit_intercept else X
    norms = np.linalg.norm(A, axis=1)
    assume(np.all(norms > 0.0))  # only zero without intercept; the learner rejects it
    delta = olbook.margin(
        A / norms[:, None], y, np.append(u, b) if fit_intercept else u
    )
    assert delta > 0
    order = np.random.default_rng(perm_seed).permutation(X.shape[0])
    npc = olbook.NormalizedPerceptron(fit_intercept=fit_intercept, max_iter=epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", olbook.ConvergenceWarning)
        npc.fit(X[order], y[order])
    bound = normalized_after_first(delta)
    target(
        (npc.n_updates_ - 1) / max(bound, 1.0), label="updates after the first / bound"
    )
    # delta is a margin of unit vectors (relative error < 1e-14); 1/delta^2 - 1 >= 0 may be 0
    # (delta = 1), so the slack is relative to 1/delta^2.
    assert npc.n_updates_ - 1 <= bound + 1e-9 / delta**2
