"""IELLIP against its rule written with the matrix A itself (LIBOL's IELLIP.m form)."""

import numpy as np
import pytest

import olbook
from olbook.ellipsoid import IELLIP


def _reference(X, y, a, decay, c):
    d = X.shape[1]
    w, A = np.zeros(d), a * np.eye(d)
    for x, t in zip(X, y, strict=True):
        m = t * (w @ x)
        if m <= 0:
            v = x @ A @ x
            if v > 0:
                g = t * x / np.sqrt(v)
                w = w + (1 - m) / np.sqrt(v) * (A @ g)
                Ag = A @ g
                A = (A - c * np.outer(Ag, Ag)) / (1 - c)
        c *= decay
    return w, A


@pytest.mark.parametrize(
    ("a", "decay", "c"), [(1.0, 0.3, 0.1), (0.5, 0.9, 0.5), (2.0, 1.0, 0.2)]
)
def test_matches_the_matrix_form(a, decay, c):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((150, 4))
    y = np.where(X[:, 0] - X[:, 2] + 0.4 * rng.standard_normal(150) > 0, 1.0, -1.0)
    clf = IELLIP(a=a, decay=decay, c=c).fit(X, y)
    w, A = _reference(X, y, a, decay, c)
    assert clf.coef_.shape == (1, 4) and clf.intercept_.shape == (1,)
    assert np.allclose(clf.coef_[0], w, rtol=1e-9, atol=1e-12)
    assert np.allclose(clf.ellipsoid_matrix_, A, rtol=1e-8, atol=1e-12)
    assert np.array_equal(clf.ellipsoid_matrix_, clf.ellipsoid_matrix_.T)
    assert clf.c_ == pytest.approx(c * decay**150, rel=1e-12, abs=1e-300)
    assert not hasattr(clf, "covariance_")  # covariance_ is the Gaussians' Sigma


def test_after_an_update_the_margin_is_one():
    x = np.array([[0.5, -1.0, 2.0]])
    clf = IELLIP().partial_fit(x, [1])
    assert float(clf.decision_function(x)[0]) == pytest.approx(1.0, rel=1e-14)


def test_bad_input():
    for bad in [
        IELLIP(a=0.0),
        IELLIP(decay=0.0),
        IELLIP(decay=1.5),
        IELLIP(fit_intercept=1),
        IELLIP(c=1.0),
        IELLIP(c=0.0),
    ]:
        with pytest.raises(ValueError):
            bad.fit(np.eye(2), [1, -1])
    clf = IELLIP().fit(np.array([[0.0, 0.0], [1.0, 1.0]]), [1, -1])
    with pytest.raises(ValueError, match="non-finite"):
        clf.partial_fit([[np.nan, 0.0]], [1])
    assert np.all(np.isfinite(clf.coef_)) and olbook.IELLIP is IELLIP
