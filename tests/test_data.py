"""Data generators: exact geometry, determinism, argument checks, and the real data sets."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn import datasets

import olbook
from olbook.data import (
    REAL_DATASETS,
    greedy_adversarial_order,
    load_binary,
    make_noisy,
    make_orthogonal_worst_case,
    make_separable,
    make_shell,
    random_unit_vector,
)


def _grid_step(R):
    return 2.0 ** (np.floor(np.log2(R)) - olbook.data.GRID_BITS)


def _assert_on_grid(X, R):
    step = _grid_step(R)
    assert np.all(X / step == np.round(X / step)), (
        "not every coordinate is a multiple of the grid step"
    )
    assert (
        R / 2.0 ** (olbook.data.GRID_BITS + 1) < step <= R / 2.0**olbook.data.GRID_BITS
    )


# --------------------------------------------------------------------------- make_separable
@pytest.mark.parametrize(
    ("n", "d", "gamma", "R"),
    [
        (2, 1, 0.5, 1.0),
        (10, 1, 0.01, 3.0),
        (50, 2, 0.1, 1.0),
        (100, 5, 0.03, 7.0),
        (20, 30, 0.2, 0.5),
        (5, 3, 1.0, 1.0),
    ],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_make_separable_exact_geometry(n, d, gamma, R, seed):
    X, y, u = make_separable(n, d, margin=gamma, radius=R, random_state=seed)
    step = _grid_step(R)
    assert X.shape == (n, d) and y.shape == (n,) and u.shape == (d,)
    # a signed coordinate axis
    assert np.count_nonzero(u) == 1 and np.linalg.norm(u) == 1.0
    _assert_on_grid(X, R)
    # Radius: at most R, and within sqrt(d) grid steps of it.
    assert R - np.sqrt(d) * step < olbook.radius(X) <= R
    # Margin: gamma rounded up to the grid, exactly (u is an axis: y u.x is one coordinate).
    g = olbook.margin(X, y, u)
    assert g == np.ceil(gamma / step) * step and gamma <= g < gamma + step
    assert np.all(y * (X @ u) >= gamma)
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert olbook.is_linearly_separable(X, y, fit_intercept=False)


def test_grid_makes_every_score_exact():
    # On grid data the perceptron's scores are exact, so BLAS, the fixed order and the
    # reversed order give the same bits, and so do all their decisions.
    X, y, _ = make_shell(400, 60, margin=0.05, radius=3.0, random_state=4)
    # weight vectors of 400 updates, exact on the grid
    W = np.cumsum(y[:, None] * X, axis=0)
    for w in W[::37]:
        s = X @ w
        assert np.array_equal(s, olbook._rowops.row_dots(X, w))
        assert np.array_equal(
            s, olbook._rowops.row_dots(X[:, ::-1].copy(), w[::-1].copy())
        )


def test_make_separable_deterministic():
    a = make_separable(30, 4, margin=0.1, random_state=5)
    b = make_separable(30, 4, margin=0.1, random_state=5)
    c = make_separable(30, 4, margin=0.1, random_state=6)
    for p, q in zip(a, b, strict=True):
        assert np.array_equal(p, q)
    assert not np.array_equal(a.X, c.X)
    d = make_separable(30, 4, margin=0.1, random_state=np.random.default_rng(5))
    assert np.array_equal(a.X, d.X)
    X, y, u = a  # unpacks as a triple
    assert X is a.X and y is a.y and u is a.u


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_samples": 1, "n_features": 2, "margin": 0.1}, "n_samples must be >= 2"),
        (
            {"n_samples": 0, "n_features": 2, "margin": 0.1},
            "n_samples must be an integer >= 1",
        ),
        (
            {"n_samples": 2.5, "n_features": 2, "margin": 0.1},
            "n_samples must be an integer",
        ),
        (
            {"n_samples": 10, "n_features": 0, "margin": 0.1},
            "n_features must be an integer >= 1",
        ),
        (
            {"n_samples": 10, "n_features": 2, "margin": 0.0},
            "margin must be a finite number > 0",
        ),
        (
            {"n_samples": 10, "n_features": 2, "margin": -0.1},
            "margin must be a finite number > 0",
        ),
        (
            {"n_samples": 10, "n_features": 2, "margin": np.nan},
            "margin must be a finite number > 0",
        ),
        (
            {"n_samples": 10, "n_features": 2, "margin": 2.0},
            "margin must not exceed radius",
        ),
        (
            {"n_samples": 10, "n_features": 2, "margin": 0.1, "radius": -1.0},
            "radius must be a finite number > 0",
        ),
        (
            {"n_samples": 10, "n_features": 2, "margin": 0.1, "random_state": -1},
            "random_state must be None",
        ),
        (
            {"n_samples": 10, "n_features": 2, "margin": 0.1, "random_state": "x"},
            "random_state must be None",
        ),
    ],
)
def test_make_separable_rejects(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_separable(**kwargs)


def test_random_unit_vector():
    v = random_unit_vector(7, 3)
    assert v.shape == (7,) and np.isclose(np.linalg.norm(v), 1.0)
    assert np.array_equal(v, random_unit_vector(7, 3))
    assert random_unit_vector(1, 0)[0] in (-1.0, 1.0)
    with pytest.raises(ValueError, match="n_features"):
        random_unit_vector(0)


# --------------------------------------------------------------------------- make_shell
@pytest.mark.parametrize(
    ("n", "d", "gamma", "R"), [(2, 2, 0.5, 1.0), (40, 3, 0.1, 2.0), (80, 20, 0.05, 1.0)]
)
@pytest.mark.parametrize("seed", [0, 1])
def test_make_shell_every_point_on_shell(n, d, gamma, R, seed):
    X, y, u = make_shell(n, d, margin=gamma, radius=R, random_state=seed)
    assert X.shape == (n, d)
    step = _grid_step(R)
    _assert_on_grid(X, R)
    norms = np.linalg.norm(X, axis=1)
    assert np.all(norms <= R) and np.all(norms > R - np.sqrt(d) * step)
    g = np.ceil(gamma / step) * step
    # every progress exactly equal: no rounding decides the adversary
    assert np.all(y * (X @ u) == g)
    assert olbook.margin(X, y, u) == g and gamma <= g < gamma + step
    assert set(np.unique(y)) == {-1.0, 1.0}
    X2, _, _ = make_shell(n, d, margin=gamma, radius=R, random_state=seed)
    assert np.array_equal(X, X2)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((10, 1), r"n_features.*>= 2"),
        ((1, 3), r"n_samples.*>= 2"),
        ((10, 3, 2.0), "margin must not exceed radius"),
    ],
)
def test_make_shell_rejects(args, match):
    n, d, *g = args
    with pytest.raises(ValueError, match=match):
        make_shell(n, d, margin=g[0] if g else 0.1)


# --------------------------------------------------------------------------- worst case
@pytest.mark.parametrize(("k", "d", "R"), [(1, None, 1.0), (4, None, 2.0), (6, 9, 0.5)])
def test_orthogonal_worst_case_geometry(k, d, R):
    X, y, u = make_orthogonal_worst_case(k, d, radius=R, random_state=0)
    assert X.shape == (k, d or k)
    assert np.all(y == 1.0)
    assert np.allclose(X @ X.T, R**2 * np.eye(k), atol=1e-12)
    assert np.isclose(olbook.margin(X, y, u), R / np.sqrt(k), rtol=1e-12)
    assert np.isclose(olbook.perceptron_bound(X, y, u).bound, k, rtol=1e-12)
    # Novikoff: never more than k updates.
    assert olbook.Perceptron().fit(X, y).n_updates_ <= k


def test_orthogonal_worst_case_rejects():
    with pytest.raises(ValueError, match="n_features must be >= n_mistakes"):
        make_orthogonal_worst_case(5, 3)
    with pytest.raises(ValueError, match="n_mistakes must be an integer >= 1"):
        make_orthogonal_worst_case(0)


def test_orthogonal_worst_case_k_mistakes_any_order():
    failures = []
    for seed in range(10):
        k = 3 + seed % 6
        X, y, u = make_orthogonal_worst_case(
            k, k + seed % 3, radius=1.0 + seed, random_state=seed
        )
        for rep in range(3):
            order = np.random.default_rng(100 * seed + rep).permutation(k)
            p = olbook.Perceptron().fit(X[order], y[order])
            if not (p.mistakes_ == k and p.n_updates_ == k):
                failures.append((seed, k, rep, p.mistakes_, p.n_updates_))
    assert not failures, failures


# --------------------------------------------------------------------------- greedy order
@pytest.mark.parametrize("maker", ["separable", "shell"])
@pytest.mark.parametrize("seed", range(6))
def test_greedy_order_every_round_updates(maker, seed):
    d = 2 + seed
    if maker == "shell":
        X, y, u = make_shell(40, d, margin=0.15, radius=1.5, random_state=seed)
    else:
        X, y, u = make_separable(40, d, margin=0.05, random_state=seed)
    order = greedy_adversarial_order(X, y, u)
    assert order.dtype.kind == "i" and order.min() >= 0 and order.max() < X.shape[0]
    p = olbook.Perceptron().fit(X[order], y[order])
    assert p.n_updates_ == len(order)
    assert np.all(p.trace_.updates)
    # The adversary stops when nothing is misclassified: the final w separates.
    assert np.all(y * (X @ p.coef_[0]) > 0)
    assert len(order) <= olbook.perceptron_bound(X, y, u).bound


def test_greedy_order_max_rounds_and_checks():
    X, y, u = make_shell(40, 10, margin=0.05, random_state=0)
    full = greedy_adversarial_order(X, y, u)
    assert len(full) > 3
    assert np.array_equal(greedy_adversarial_order(X, y, u, max_rounds=3), full[:3])
    with pytest.raises(ValueError, match="u has 3 entries but X has 10 features"):
        greedy_adversarial_order(X, y, np.ones(3))
    with pytest.raises(ValueError, match="max_rounds must be an integer >= 1"):
        greedy_adversarial_order(X, y, u, max_rounds=0)


def test_greedy_first_pick_is_least_progress():
    # w = 0: every example is a "mistake" (y w.x = 0). Progress y u.x: 3, 1, 2 -> example 1 first.
    X = np.array([[3.0, 0.0], [1.0, 0.5], [-2.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0])
    order = greedy_adversarial_order(X, y, np.array([1.0, 0.0]))
    assert order[0] == 1


@pytest.mark.parametrize("seed", range(3))
def test_greedy_picks_largest_growth_on_the_shell(seed):
    # On the shell every progress is equal, so every pick must be a violated example of largest growth.
    X, y, u = make_shell(300, 40, margin=0.08, random_state=seed)
    order = greedy_adversarial_order(X, y, u)
    w = np.zeros(X.shape[1])
    sq = np.einsum("ij,ij->i", X, X)
    for i in order:
        ywx = y * (X @ w)
        growth = np.where(ywx <= 0, sq + 2 * ywx, -np.inf)
        assert growth[i] == growth.max()
        w += y[i] * X[i]
    assert len(order) >= 0.9 * olbook.perceptron_bound(X, y, u).bound


def test_greedy_tolerance_groups_near_equal_progress():
    # Progress 1 and 1 + 1e-12 count as equal under the default tol; then growth decides (example 1: larger norm).
    X = np.array([[1.0, 0.1], [1.0 + 1e-12, 0.9]])
    y = np.array([1.0, 1.0])
    u = np.array([1.0, 0.0])
    assert greedy_adversarial_order(X, y, u)[0] == 1
    assert greedy_adversarial_order(X, y, u, tol=0.0)[0] == 0
    for bad in (-1.0, np.nan, "a"):
        with pytest.raises(ValueError, match="tol must be"):
            greedy_adversarial_order(X, y, u, tol=bad)


def test_greedy_order_agrees_with_perceptron_near_ties():
    failures = []
    for d in (4, 8, 16):
        for p, q, r in itertools.permutations(range(d), 3):
            a = np.zeros(d)
            a[p], a[q], a[r] = 1e16, 1.0, -1e16
            X = np.vstack([a, np.ones(d)])
            y = np.array([1.0, 1.0])
            order = greedy_adversarial_order(X, y, np.ones(d))
            per = olbook.Perceptron().fit(X[order], y[order])
            if per.n_updates_ != len(order):
                failures.append(
                    (d, (p, q, r), order.tolist(), per.trace_.updates.tolist())
                )
    assert not failures, failures[:5]


# --------------------------------------------------------------------------- noisy
@pytest.mark.parametrize(
    ("n", "flip"), [(10, 0.0), (10, 0.25), (40, 0.1), (33, 0.5), (7, 1.0), (20, 0.3)]
)
def test_make_noisy_flips_exactly(n, flip):
    X, y, u, flipped = make_noisy(n, 3, margin=0.1, flip=flip, random_state=4)
    clean = make_separable(n, 3, margin=0.1, random_state=4)
    assert np.array_equal(X, clean.X) and np.array_equal(u, clean.u)
    assert flipped.dtype == bool and flipped.sum() == round(flip * n)
    assert np.array_equal(y[flipped], -clean.y[flipped])
    assert np.array_equal(y[~flipped], clean.y[~flipped])
    assert np.array_equal(y * (X @ u) < 0, flipped)


@pytest.mark.parametrize("bad", [-0.1, 1.5, np.nan, True])
def test_make_noisy_rejects(bad):
    with pytest.raises(ValueError, match=r"flip must be a number in \[0, 1\]"):
        make_noisy(10, 2, margin=0.1, flip=bad)


# --------------------------------------------------------------------------- real data
def _expected(name):
    """Shapes and positive counts computed directly from scikit-learn's loaders."""
    if name == "breast_cancer":
        t = datasets.load_breast_cancer().target
        return (t.size, 30), int(np.sum(t == 0))
    if name == "iris_setosa":
        t = datasets.load_iris().target
        return (150, 4), int(np.sum(t == 0))
    if name == "iris_versicolor_virginica":
        t = datasets.load_iris().target
        return (100, 4), int(np.sum(t == 1))
    if name == "wine":
        t = datasets.load_wine().target
        return (178, 13), int(np.sum(t == 0))
    if name == "digits_3_vs_8":
        t = datasets.load_digits().target
        return (int(np.sum((t == 3) | (t == 8))), 64), int(np.sum(t == 3))
    raise AssertionError(name)


@pytest.mark.parametrize("name", sorted(REAL_DATASETS))
def test_load_binary(name):
    X, y = load_binary(name)
    shape, n_pos = _expected(name)
    assert X.shape == shape and y.shape == (shape[0],)
    assert X.dtype == np.float64 and X.flags.c_contiguous
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert int(np.sum(y == 1)) == n_pos
    assert np.all(np.isfinite(X))
    # the shape in the description agrees
    assert f"{shape[0]} x {shape[1]}" in REAL_DATASETS[name]
    # usable by every learner
    assert olbook.Perceptron().fit(X, y).trace_.n_rounds == shape[0]


@pytest.mark.parametrize("name", sorted(REAL_DATASETS))
def test_load_binary_standardize(name):
    raw, y0 = load_binary(name)
    X, y = load_binary(name, standardize=True)
    assert np.array_equal(y, y0)
    varying = raw.std(axis=0) > 0
    assert np.allclose(X.mean(axis=0), 0.0, atol=1e-10)
    assert np.allclose(X.std(axis=0)[varying], 1.0, rtol=1e-10)
    assert np.all(X[:, ~varying] == 0.0)
    if name == "digits_3_vs_8":
        assert (~varying).any()  # some pixels are constant: left at 0


def test_load_binary_unknown():
    with pytest.raises(
        ValueError, match=r"unknown data set 'mnist'; choose one of \['breast_cancer'"
    ):
        load_binary("mnist")
