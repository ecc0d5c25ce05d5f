"""Margins, radii, the Block-Novikoff bound and linear separability."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import xor_data

import olbook
from olbook.data import load_binary, make_separable


def test_margin_is_min_over_examples_by_hand():
    X = np.array([[2.0, 0.0], [0.0, 1.0], [-3.0, 0.0]])
    y = np.array([1.0, 1.0, -1.0])
    w = np.array([1.0, 1.0])
    # functional margins 2, 1, 3 divided by |w| = sqrt 2: the minimum, 1/sqrt 2 (attained by example 1,
    # so an arg-min would give 1, not the margin).
    assert np.isclose(olbook.margin(X, y, w), 1 / np.sqrt(2), rtol=1e-15)
    # With intercept b=1: 3, 2, 2 -> 2/sqrt 2.
    assert np.isclose(olbook.margin(X, y, w, intercept=1.0), np.sqrt(2), rtol=1e-15)
    # A non-separating hyperplane has a negative margin: w=(-1,0) -> -2, 0, -3 -> -3.
    assert olbook.margin(X, y, [-1.0, 0.0]) == -3.0


@pytest.mark.parametrize("scale", [1e-6, 0.3, 1.0, 7.5, 1e8])
def test_margin_invariant_to_scaling(scale):
    X, y, u = make_separable(30, 4, margin=0.2, radius=2.0, random_state=0)
    assert np.isclose(
        olbook.margin(X, y, scale * u), olbook.margin(X, y, u), rtol=1e-12
    )
    assert np.isclose(
        olbook.margin(X, y, scale * u, scale * 0.1),
        olbook.margin(X, y, u, 0.1),
        rtol=1e-12,
    )
    # 0.2 rounded up to the grid
    assert 0.2 <= olbook.margin(X, y, u) < 0.2 + 2.0 * 2.0**-olbook.data.GRID_BITS


def test_margin_rejects_bad_input():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1.0, -1.0])
    with pytest.raises(ValueError, match="w is the zero vector"):
        olbook.margin(X, y, [0.0, 0.0])
    with pytest.raises(ValueError, match="w has 3 entries but X has 2 features"):
        olbook.margin(X, y, [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="w contains NaN or inf"):
        olbook.margin(X, y, [np.nan, 1.0])
    with pytest.raises(ValueError, match="intercept must be finite"):
        olbook.margin(X, y, [1.0, 0.0], np.inf)
    with pytest.raises(ValueError, match=r"found \{0, 1\}"):
        olbook.margin(X, [0, 1], [1.0, 0.0])


def test_radius():
    assert olbook.radius([[3.0, 4.0], [1.0, 0.0], [0.0, -6.0]]) == 6.0
    with pytest.raises(ValueError, match="2-D"):
        olbook.radius([1.0, 2.0])
    with pytest.raises(ValueError, match="non-finite"):
        olbook.radius([[np.nan, 1.0]])


def test_novikoff_bound():
    assert olbook.novikoff_bound(2.0, 0.5) == 16.0
    assert olbook.novikoff_bound(1.0, 1.0) == 1.0
    for bad in [0.0, -1.0, np.inf, np.nan, "1", True]:
        with pytest.raises(ValueError, match="must be a finite number > 0"):
            olbook.novikoff_bound(bad, 1.0)
        with pytest.raises(ValueError, match="must be a finite number > 0"):
            olbook.novikoff_bound(1.0, bad)


def test_perceptron_bound_by_hand():
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.5, 0.5]])
    y = np.array([1.0, -1.0, 1.0])
    # u=(2,0): R=1, margins 2, 2, 1 over |u|=2 -> gamma=1/2, bound 4.
    mb = olbook.perceptron_bound(X, y, [2.0, 0.0])
    assert isinstance(mb, olbook.MistakeBound)
    assert mb == (4.0, 1.0, 0.5)
    assert (mb.bound, mb.radius, mb.margin) == (4.0, 1.0, 0.5)
    # fit_intercept=True, b=0: augmented (x, 1); R^2 = 1 + 1, (u, 0) margin 1/2 -> bound 8.
    mb = olbook.perceptron_bound(X, y, [2.0, 0.0], fit_intercept=True)
    assert (
        np.isclose(mb.radius, np.sqrt(2))
        and np.isclose(mb.margin, 0.5)
        and np.isclose(mb.bound, 8.0)
    )
    # b = 0.5: margins (2.5, 1.5, 1.5) / sqrt(4.25) -> min 1.5/sqrt(4.25); bound 2 * 4.25 / 2.25.
    mb = olbook.perceptron_bound(X, y, [2.0, 0.0], 0.5, fit_intercept=True)
    assert np.isclose(mb.margin, 1.5 / np.sqrt(4.25)) and np.isclose(
        mb.bound, 2 * 4.25 / 2.25
    )


@pytest.mark.parametrize("seed", range(4))
def test_perceptron_bound_with_intercept_formula(seed):
    """For a unit u with margin gamma: (R^2 + 1)(1 + b^2) / gamma^2."""
    rng = np.random.default_rng(seed)
    b = rng.uniform(-2, 2)
    X, y, u = make_separable(40, 3, margin=0.1, random_state=seed)
    gamma = olbook.margin(X, y, u)  # 0.1 rounded up to the data's grid
    Xs = X - b * u  # y (u.x' + b) = y u.x >= gamma
    mb = olbook.perceptron_bound(Xs, y, u, b, fit_intercept=True)
    R = olbook.radius(Xs)
    assert np.isclose(mb.bound, (R**2 + 1) * (1 + b**2) / gamma**2, rtol=1e-10)
    assert np.isclose(mb.radius**2, R**2 + 1, rtol=1e-12)
    assert np.isclose(mb.margin, gamma / np.sqrt(1 + b**2), rtol=1e-10)
    # Without intercept on the unshifted data: (R/gamma)^2 with R = 1.
    assert np.isclose(
        olbook.perceptron_bound(X, y, u).bound,
        (olbook.radius(X) / gamma) ** 2,
        rtol=1e-10,
    )


def test_perceptron_bound_rejects():
    X, y, u = make_separable(20, 2, margin=0.2, random_state=0)
    with pytest.raises(ValueError, match="intercept != 0 gives no bound"):
        olbook.perceptron_bound(X, y, u, 0.3)
    with pytest.raises(
        ValueError, match=r"u does not separate the data: its margin is .* <= 0"
    ):
        olbook.perceptron_bound(X, y, -u)
    with pytest.raises(ValueError, match="u does not separate"):
        olbook.perceptron_bound(X, y, u, 5.0, fit_intercept=True)
    with pytest.raises(ValueError, match="zero vector"):
        olbook.perceptron_bound(X, y, np.zeros(2))
    with pytest.raises(ValueError, match="u has 3 entries"):
        olbook.perceptron_bound(X, y, np.ones(3))
    with pytest.raises(ValueError, match="intercept must be finite"):
        olbook.perceptron_bound(X, y, u, np.nan, fit_intercept=True)
    with pytest.raises(ValueError, match="fit_intercept must be True or False"):
        olbook.perceptron_bound(X, y, u, fit_intercept="yes")
    # A separator whose margin is exactly 0 (an example on the hyperplane).
    with pytest.raises(ValueError, match="does not separate"):
        olbook.perceptron_bound([[1.0, 0.0], [0.0, 1.0]], [1, -1], [1.0, 0.0])


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("seed", range(5))
def test_find_separator_separates(fit_intercept, seed):
    X, y, _ = make_separable(60, 1 + seed, margin=0.01, random_state=seed)
    if fit_intercept:
        X = X + 3.0  # u.(x + 3) - 3 u.1 = u.x: separable with an offset
    sep = olbook.find_separator(X, y, fit_intercept=fit_intercept)
    assert sep is not None
    w, b = sep
    assert w.shape == (X.shape[1],) and isinstance(b, float)
    assert olbook.margin(X, y, w, b) > 0
    assert np.all(y * (X @ w + b) >= 1 - 1e-7)  # the LP's normalization
    if not fit_intercept:
        assert b == 0.0
    assert olbook.is_linearly_separable(X, y, fit_intercept=True)


def test_find_separator_none():
    X, y = xor_data()
    assert olbook.find_separator(X, y) is None
    assert olbook.find_separator(X, y, fit_intercept=False) is None
    assert not olbook.is_linearly_separable(X, y)
    # 1-D: -1 at x=1, +1 at x=2: separable with intercept (x > 1.5), not through the origin.
    X1, y1 = np.array([[1.0], [2.0]]), np.array([-1.0, 1.0])
    w, b = olbook.find_separator(X1, y1)
    assert np.all(y1 * (X1 @ w + b) > 0)
    assert olbook.find_separator(X1, y1, fit_intercept=False) is None
    assert olbook.is_linearly_separable(X1, y1) and not olbook.is_linearly_separable(
        X1, y1, fit_intercept=False
    )


def test_separability_of_iris():
    X, y = load_binary("iris_setosa")
    assert olbook.is_linearly_separable(X, y)
    w, b = olbook.find_separator(X, y)
    assert olbook.margin(X, y, w, b) > 0
    X, y = load_binary("iris_versicolor_virginica")
    assert not olbook.is_linearly_separable(X, y)
    assert olbook.find_separator(X, y) is None


def test_find_separator_validates():
    with pytest.raises(ValueError, match="non-finite"):
        olbook.find_separator([[np.nan, 1.0], [1.0, 2.0]], [1, -1])
    with pytest.raises(ValueError, match=r"found \{0, 1\}"):
        olbook.is_linearly_separable([[0.0, 1.0], [1.0, 2.0]], [0, 1])


def test_module_and_function_names_do_not_clash():
    """``olbook.margin`` is the function; its module is ``olbook.margins``, so the book can show its source."""
    import inspect
    import types

    import olbook.margins

    assert isinstance(olbook.margins, types.ModuleType)
    assert olbook.margin is olbook.margins.margin
    assert "linprog" in inspect.getsource(olbook.margins.separability_certificate)


# --- what the separability LP decides, and its evidence -----------------------------------------


def test_certificate_proves_a_separator():
    X, y, _ = olbook.data.make_separable(300, 5, margin=0.05, random_state=0)
    cert = olbook.separability_certificate(X, y)
    assert cert.separable and cert.farkas is None
    s = y * (X @ cert.w + cert.b)
    assert s.min() > 0


def test_certificate_farkas_vector_for_xor():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    y = np.array([1, 1, -1, -1])
    cert = olbook.separability_certificate(X, y)
    assert not cert.separable and cert.residual < 1e-15
    lam = cert.farkas
    assert np.all(lam >= 0) and abs(lam.sum() - 1) < 1e-12
    A = y[:, None] * np.hstack([X, np.ones((4, 1))])
    # the residual bounds the certificate's defect
    assert np.abs(A.T @ lam).max() <= cert.residual


def test_tiny_margin_is_reported_with_its_tolerance():
    # Separable by a threshold between 1 and 1 + 1e-11 (the review's example); HiGHS calls it infeasible.
    X = np.array([[1.0], [1.0 + 1e-11], [0.0], [3.0]])
    y = np.array([1, -1, 1, -1])
    cert = olbook.separability_certificate(X, y)
    assert not cert.separable and 0 < cert.residual < 1e-10
    # what the residual claims: a true separator (w, b) = (-1, 1 + 5e-12), scaled to y f >= 1, has
    # l1 norm >= 1 / residual
    w, b = -1.0, 1.0 + 5e-12
    f = y * (w * X[:, 0] + b)
    assert f.min() > 0
    scale = 1.0 / f.min()
    assert scale * (abs(w) + abs(b)) >= 1.0 / cert.residual
    assert olbook.find_separator(X, y) is None


def test_certificate_rejects_bad_tol():
    with pytest.raises(ValueError, match="tol"):
        olbook.separability_certificate(np.eye(2), [1, -1], tol=0.0)
