"""The square-root covariance of the Gaussian learners stays accurate as it collapses.

olbook keeps Sigma = U U' and updates U by Carlson's square-root step
(``olbook.second_order``'s docstring gives the stability argument). Here CW, under
label noise, drives tr Sigma below 1e-40; its run must match the same rule computed
with 60 significant digits (mpmath, Sigma as a full matrix updated by subtraction,
which is exact enough at that precision) and keep Sigma symmetric positive definite.
"""

import math

import numpy as np
import pytest

import olbook
from olbook._linalg import (
    carlson_downdate,
    covariance_from_factor,
    factor_project,
)

mp = pytest.importorskip("mpmath")


def _mp_cw(X, y, confidence):
    """CW's exact rule (Crammer, Dredze and Pereira, 2008) with 60 digits."""
    with mp.workdps(60):
        phi = mp.sqrt(2) * mp.erfinv(2 * mp.mpf(confidence) - 1)
        d = X.shape[1]
        mu, S = mp.matrix(d, 1), mp.eye(d)
        psi, zeta = 1 + phi**2 / 2, 1 + phi**2
        mistakes, updates = [], []
        for row, t in zip(X, y, strict=True):
            x = mp.matrix([mp.mpf(float(v)) for v in row])
            f = (mu.T * x)[0]
            Sx = S * x
            v = (x.T * Sx)[0]
            m = t * f
            mistakes.append((f > 0) != (t > 0))
            alpha = mp.mpf(0)
            if m < phi * mp.sqrt(v):
                root = mp.sqrt(m * m * phi**4 / 4 + v * phi**2 * zeta)
                alpha = max(mp.mpf(0), (-m * psi + root) / (v * zeta))
            updates.append(alpha > 0)
            if alpha > 0:
                su = (-alpha * v * phi + mp.sqrt(alpha**2 * v**2 * phi**2 + 4 * v)) / 2
                beta = alpha * phi / (su + v * alpha * phi)
                mu = mu + alpha * t * Sx
                S = S - beta * Sx * Sx.T
        trace = sum(S[i, i] for i in range(d))
        return (
            np.array(mistakes),
            np.array(updates),
            np.array([float(mu[i]) for i in range(d)]),
            np.array([[float(S[i, j]) for j in range(d)] for i in range(d)]),
            float(mp.log10(trace)),
        )


def test_cw_under_label_noise_matches_60_digits_as_the_trace_collapses():
    rng = np.random.default_rng(3)
    n, d = 650, 5
    X = rng.standard_normal((n, d))
    y = np.where(X @ np.arange(1.0, d + 1) > 0, 1.0, -1.0)
    y[rng.random(n) < 0.1] *= -1  # 10 % flipped labels
    clf = olbook.ConfidenceWeighted(confidence=0.9).fit(X, y)
    mistakes, updates, mu, S, log_tr = _mp_cw(X, y, 0.9)
    got = clf.covariance_
    # the collapse the book shows (section 6.4), deeper
    assert log_tr < -40 and math.log10(np.trace(got)) < -40
    assert np.array_equal(clf.trace_.mistakes, mistakes)
    assert np.array_equal(clf.trace_.updates, updates)
    # relative to the size of each: measured 9e-15 and 2e-14
    assert np.max(np.abs(clf.coef_[0] - mu)) <= 1e-12 * np.max(np.abs(mu))
    assert np.max(np.abs(got - S)) <= 1e-12 * np.max(np.abs(S))
    v_got = np.einsum("ij,jk,ik->i", X, got, X)
    v_ref = np.einsum("ij,jk,ik->i", X, S, X)
    assert np.max(np.abs(v_got - v_ref) / v_ref) <= 1e-12
    # symmetric positive definite, its shape resolved after the collapse
    assert np.array_equal(got, got.T)
    eig = np.linalg.eigvalsh(got / np.trace(got))
    eig_ref = np.linalg.eigvalsh(S / np.trace(S))
    assert eig.min() > 0.01 and np.allclose(eig, eig_ref, rtol=1e-10, atol=0)


def test_carlson_step_is_the_covariance_downdate():
    rng = np.random.default_rng(0)
    for d in (1, 3, 8, 17):
        B = rng.standard_normal((d, d))
        S0 = B @ B.T + 0.1 * np.eye(d)
        U = np.linalg.cholesky(S0[::-1, ::-1])[::-1, ::-1]  # upper, U U' = S0
        T = np.ascontiguousarray(U.T)
        x, c = rng.standard_normal(d), 10.0 ** rng.uniform(-3, 3)
        f, K, K2, wb, wg = (np.empty(d) for _ in range(5))
        v = factor_project(T, x, f)
        assert math.isclose(v, x @ S0 @ x, rel_tol=1e-12)
        T2 = T.copy()
        carlson_downdate(T2, f, 1.0 / c, K2, wb, wg, False)  # Sigma x only
        assert np.array_equal(T2, T)
        carlson_downdate(T, f, 1.0 / c, K, wb, wg, True)
        Sx = S0 @ x
        assert np.array_equal(K, K2) and np.allclose(K, Sx, rtol=1e-12, atol=0)
        want = S0 - c / (1 + c * v) * np.outer(Sx, Sx)  # (S0^-1 + c x x')^-1
        assert np.allclose(covariance_from_factor(T), want, rtol=1e-10, atol=1e-12)
        assert np.array_equal(T, np.tril(T))


@pytest.mark.parametrize("diagonal", [False, True])
def test_an_increment_that_underflows_to_zero_leaves_the_covariance(diagonal):
    # NHerd at |x| ~ 1e150: beta^2 (v + 2/C) underflows, so c = 0 while alpha > 0
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) * 1e150
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    clf = olbook.NormalHerd(diagonal=diagonal).fit(X, y)
    S = clf.covariance_
    assert clf.n_updates_ > 0 and np.all(np.isfinite(clf.coef_))
    assert np.all(np.isfinite(S)) and np.all(np.diag(S) > 0 if not diagonal else S > 0)
