"""Tests of olbook.kernels: values against scikit-learn and the definitions, symmetry,
positive semi-definiteness, is_psd, validation."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics.pairwise import (
    euclidean_distances,
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
)

from olbook import kernels

KERNELS = [
    kernels.linear,
    kernels.polynomial(3, 1.0),
    kernels.polynomial(2, 0.0),
    kernels.gaussian(0.5),
    kernels.laplacian(2.0),
]


def _data(seed, n=30, m=11, d=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(m, d))


def test_repr_attributes_equality():
    assert repr(kernels.linear) == "linear"
    g = kernels.gaussian(0.5)
    assert repr(g) == "gaussian(gamma=0.5)" and g.gamma == 0.5
    p = kernels.polynomial(3, 1)
    assert (
        repr(p) == "polynomial(degree=3, coef0=1.0)"
        and p.degree == 3
        and p.coef0 == 1.0
    )
    assert repr(kernels.laplacian(2)) == "laplacian(gamma=2.0)"
    assert (
        g == kernels.gaussian(0.5)
        and g != kernels.gaussian(0.25)
        and g != kernels.laplacian(0.5)
    )
    assert len({g, kernels.gaussian(0.5)}) == 1
    assert copy.deepcopy(kernels.linear) is kernels.linear
    assert pickle.loads(pickle.dumps(kernels.linear)) is kernels.linear
    assert pickle.loads(pickle.dumps(p)) == p


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_values_match_sklearn_and_definitions(seed):
    X, Y = _data(seed)
    np.testing.assert_allclose(
        kernels.linear(X, Y), linear_kernel(X, Y), rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(
        kernels.polynomial(3, 1.0)(X, Y),
        polynomial_kernel(X, Y, degree=3, gamma=1.0, coef0=1.0),
        rtol=1e-12,
    )
    np.testing.assert_allclose(
        kernels.gaussian(0.7)(X, Y), rbf_kernel(X, Y, gamma=0.7), rtol=1e-12
    )
    lap = kernels.laplacian(0.7)(X, Y)
    np.testing.assert_allclose(
        lap, np.exp(-0.7 * euclidean_distances(X, Y)), rtol=1e-12
    )
    # scikit-learn's laplacian_kernel uses the L1 distance: a different function.
    assert np.max(np.abs(lap - laplacian_kernel(X, Y, gamma=0.7))) > 1e-2
    # By the definition, pair by pair.
    i, j = 3, 5
    diff = X[i] - Y[j]
    assert kernels.gaussian(0.7)(X, Y)[i, j] == pytest.approx(
        np.exp(-0.7 * diff @ diff), rel=1e-14
    )
    assert lap[i, j] == pytest.approx(np.exp(-0.7 * np.sqrt(diff @ diff)), rel=1e-14)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_gram_symmetric_and_block_consistent(kernel):
    X, Y = _data(3)
    K = kernels.gram(kernel, X)
    assert K.shape == (30, 30)
    assert np.array_equal(K, K.T)  # exactly
    assert np.array_equal(K, kernel(X))
    # the mirrored and the full loop agree to the bit
    assert np.array_equal(K, kernel(X, X))
    assert np.array_equal(kernels.gram(kernel, X, Y), kernel(X, Y))
    assert np.array_equal(kernel(X, Y), kernel(Y, X).T)


def test_exact_diagonal_and_no_negative_distances():
    # Large coordinates with tiny differences: the expansion |x|^2 + |y|^2 - 2 x.y
    # would cancel catastrophically (and can go negative); differences do not.
    base = np.full((5, 2), 1e8)
    X = base + np.arange(5)[:, None] * 1e-6
    for k in (kernels.gaussian(3.0), kernels.laplacian(3.0)):
        K = k(X)
        assert np.array_equal(np.diag(K), np.ones(5))
        assert np.all(K <= 1.0) and np.all(K > 0.0)
        assert np.all(np.diff(K[0]) < 0)  # farther points, smaller kernel values
    np.testing.assert_allclose(
        kernels.gaussian(1.0)(X[:1], X[1:2]),
        np.exp(-1.0 * 2 * (1e-6 * 1.0) ** 2),
        rtol=1e-8,
    )


@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 40),
    d=st.integers(1, 5),
    gamma=st.floats(0.01, 10.0),
    degree=st.integers(1, 4),
)
def test_gram_matrices_are_psd(seed, n, d, gamma, degree):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    for k in (
        kernels.gaussian(gamma),
        kernels.laplacian(gamma),
        kernels.polynomial(degree, 1.0),
        kernels.linear,
    ):
        assert kernels.is_psd(kernels.gram(k, X)), k


def test_is_psd_detects_non_psd():
    # exp(-|x - y|^p) for p > 2 is no kernel: five equally spaced points on a line.
    x = np.array([[0.0], [0.5], [1.0], [1.5], [2.0]])
    D = np.abs(x - x.T)
    for p in (3, 4):
        K = np.exp(-(D**p))
        assert np.linalg.eigvalsh(K)[0] < -0.1
        assert not kernels.is_psd(K)
    assert kernels.is_psd(np.exp(-(D**2)))
    assert kernels.is_psd(np.exp(-D))
    # A small negative eigenvalue, far above rounding, is detected.
    Q, _ = np.linalg.qr(np.random.default_rng(0).normal(size=(6, 6)))
    K = Q @ np.diag([5.0, 3.0, 1.0, 1.0, 0.5, -1e-6]) @ Q.T
    assert not kernels.is_psd((K + K.T) / 2)
    # Not symmetric.
    assert not kernels.is_psd(np.array([[1.0, 0.5], [0.0, 1.0]]))
    # Singular PSD matrices with rounding-level negative eigenvalues pass the default tolerance ...
    X = np.random.default_rng(1).normal(size=(50, 3))
    K = X @ X.T  # rank 3
    assert np.linalg.eigvalsh(K)[0] < 1e-10
    assert kernels.is_psd(K)
    # ... but not a zero tolerance, if rounding made an eigenvalue negative.
    assert kernels.is_psd(K, tol=0.0) == bool(np.linalg.eigvalsh(K)[0] >= 0.0)
    assert kernels.default_psd_tol(K) == pytest.approx(
        50 * np.finfo(float).eps * np.linalg.eigvalsh(K)[-1]
    )


def test_polynomial_negative_coef0_is_not_a_kernel():
    # the reason coef0 < 0 is rejected: the Gram matrix of 0 and 1 for (xy - 1)^2.
    x = np.array([[0.0], [1.0]])
    assert not kernels.is_psd((x @ x.T - 1.0) ** 2)


@pytest.mark.parametrize(
    ("factory", "kwargs", "match"),
    [
        (kernels.polynomial, {"degree": 0}, "degree"),
        (kernels.polynomial, {"degree": 2.5}, "degree"),
        (kernels.polynomial, {"degree": True}, "degree"),
        (kernels.polynomial, {"coef0": -1.0}, "coef0"),
        (kernels.polynomial, {"coef0": np.nan}, "coef0"),
        (kernels.gaussian, {"gamma": 0.0}, "gamma"),
        (kernels.gaussian, {"gamma": -1.0}, "gamma"),
        (kernels.gaussian, {"gamma": np.inf}, "gamma"),
        (kernels.gaussian, {"gamma": np.nan}, "gamma"),
        (kernels.gaussian, {"gamma": "1"}, "gamma"),
        (kernels.laplacian, {"gamma": 0}, "gamma"),
    ],
)
def test_invalid_parameters(factory, kwargs, match):
    with pytest.raises(ValueError, match=match):
        factory(**kwargs)


@pytest.mark.parametrize("kernel", KERNELS, ids=repr)
def test_invalid_data(kernel):
    X, Y = _data(4)
    bad = X.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        kernel(bad)
    bad[2, 1] = np.inf
    with pytest.raises(ValueError, match="non-finite"):
        kernel(X, bad)
    with pytest.raises(ValueError, match="features"):
        kernel(X, Y[:, :2])
    with pytest.raises(ValueError, match="2-D"):
        kernel(X[0])


def test_gram_with_a_custom_callable_and_errors():
    X, Y = _data(5)
    K = kernels.gram(lambda A, B: (A @ B.T) ** 2, X, Y)
    np.testing.assert_allclose(K, linear_kernel(X, Y) ** 2)
    with pytest.raises(ValueError, match="shape"):
        kernels.gram(lambda A, B: A @ A.T, X, Y)
    with pytest.raises(ValueError, match="non-finite"):
        kernels.gram(lambda A, B: np.full((A.shape[0], B.shape[0]), np.nan), X, Y)
    with pytest.raises(ValueError, match="callable"):
        kernels.gram("rbf", X)


@pytest.mark.parametrize(
    ("K", "tol", "match"),
    [
        (np.ones((2, 3)), None, "square"),
        (np.ones(3), None, "square"),
        (np.array([[1.0, np.nan], [np.nan, 1.0]]), None, "NaN"),
        (np.eye(2), -1.0, "tol"),
        (np.eye(2), np.nan, "tol"),
        (np.zeros((0, 0)), None, "empty"),
    ],
)
def test_is_psd_validation(K, tol, match):
    with pytest.raises(ValueError, match=match):
        kernels.is_psd(K, tol=tol)


def test_overflow_is_rejected():
    X = np.array([[1e200, 0.0], [0.0, 1.0]])
    for k in (kernels.linear, kernels.polynomial(3, 1.0)):
        with pytest.raises(ValueError, match="overflows"):
            k(X)
        with pytest.raises(ValueError, match="overflows"):
            kernels.gram(k, X)
    # values in (0, 1]: no overflow
    assert np.all(np.isfinite(kernels.gaussian(1.0)(X)))


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 60),
    rank=st.integers(1, 8),
    scale=st.floats(1e-3, 1e3),
)
def test_is_psd_on_random_low_rank_and_indefinite_matrices(seed, n, rank, scale):
    rng = np.random.default_rng(seed)
    B = scale * rng.normal(size=(n, rank))
    K = B @ B.T  # PSD, singular when rank < n: rounding makes tiny negative eigenvalues
    assert kernels.is_psd(K)
    # Shift the spectrum down by 1e-6 of its norm: clearly not PSD (some eigenvalue was <= 0
    # before the shift when rank < n; otherwise take the smallest eigenvalue below zero).
    lam = np.linalg.eigvalsh(K)
    shift = lam[0] + 1e-6 * lam[-1]
    assert not kernels.is_psd(K - shift * np.eye(n))
