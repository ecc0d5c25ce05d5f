"""Margins, radii, the Block-Novikoff bound and linear separability."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from conftest import xor_data
from hypothesis import assume, given, settings
from hypothesis import strategies as st

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


# --- the certificate's evidence, for every finite input (magnitudes 1e-300 ... 1e300) -----------


def _exact_scores(X, y, w, b):
    """y_i (w . x_i + b) in exact rational arithmetic (the floats as they are)."""
    wf = [Fraction(float(v)) for v in w]
    return [
        int(yi)
        * (
            sum(Fraction(float(a)) * c for a, c in zip(xi, wf, strict=True))
            + Fraction(b)
        )
        for xi, yi in zip(np.asarray(X, dtype=float), y, strict=True)
    ]


def _exact_farkas_defect(X, y, lam, scale, fit_intercept):
    """max_j |sum_i lam_i y_i (scale x_i, 1)_j| / sum_i lam_i, exactly (scale x_i unrounded)."""
    s = Fraction(scale)
    lf = [Fraction(float(v)) for v in lam]
    rows = [
        [int(yi) * s * Fraction(float(a)) for a in xi]
        + ([int(yi)] if fit_intercept else [])
        for xi, yi in zip(np.asarray(X, dtype=float), y, strict=True)
    ]
    cols = [
        sum(li * r[j] for li, r in zip(lf, rows, strict=True))
        for j in range(len(rows[0]))
    ]
    return max(abs(c) for c in cols) / sum(lf)


def _check_evidence(X, y, fit_intercept):
    """The certificate's evidence holds exactly; returns the certificate."""
    cert = olbook.separability_certificate(X, y, fit_intercept=fit_intercept)
    if cert.separable:
        assert np.all(np.isfinite(cert.w)) and np.isfinite(cert.b)
        if not fit_intercept:
            assert cert.b == 0.0
        assert (
            min(_exact_scores(X, y, cert.w, cert.b)) > 0
        )  # proved in the caller's units
    else:
        assert 0 < cert.residual <= 1e-9
        lam = cert.farkas
        assert np.all(lam >= 0)
        defect = _exact_farkas_defect(X, y, lam, cert.scale, fit_intercept)
        assert defect <= Fraction(cert.residual)  # the residual is rigorous
    return cert


def test_certificate_scaled_back_separator_is_proved_in_callers_units():
    # The review's input: proved on the data times 2**1021, then w = z * s overflowed to -inf.
    X, y = np.array([[3e-308], [3.3e-308]]), np.array([1, -1])
    cert = _check_evidence(X, y, True)
    assert cert.separable and cert.scale == 2.0**1021
    assert 0.5 <= np.max(np.abs(np.r_[cert.w, cert.b])) < 1.0
    # and the mirror image at the top of the range (w = z * s underflows there)
    cert = _check_evidence(np.array([[1.5e308], [1.6e308]]), y, True)
    assert cert.separable and cert.scale < 1


def test_residual_is_a_statement_about_the_scaled_data():
    # Without intercept, X near 1e30 with a relative gap of 1e-11 (the 1-D example of
    # 2.1 made homogeneous by a constant second coordinate 1e30).
    X = np.array([[1.0, 1.0], [1.0 + 1e-11, 1.0], [0.0, 1.0], [3.0, 1.0]]) * 1e30
    y = np.array([1, -1, 1, -1])
    cert = _check_evidence(X, y, False)
    assert not cert.separable and cert.scale == 2.0**-102
    # an exact separator, from the doubles as they are: w_1 = -2/gap, y_0 (w . x_0) = 1
    x1, x2 = Fraction(float(X[0, 0])), Fraction(float(X[1, 0]))
    c = Fraction(float(X[0, 1]))
    gap = x2 - x1
    w1 = -2 / gap
    w2 = (1 - w1 * x1) / c  # y_0 (w1 x1 + w2 c) = 1
    scores = [
        int(yi) * (w1 * Fraction(float(a)) + w2 * Fraction(float(b)))
        for (a, b), yi in zip(X, y, strict=True)
    ]
    assert min(scores) >= 1
    l1 = abs(w1) + abs(w2)
    assert l1 < Fraction(1, 10**18)  # about 4e-19 in the caller's units ...
    assert 1 / Fraction(cert.residual) > 10**12  # ... while 1/residual is about 1e12:
    assert l1 < 1 / Fraction(cert.residual)  # no bound on ||w||_1 in the caller's units
    # in the scaled units the guarantee holds: ||w / scale||_1 >= 1/residual
    assert l1 / Fraction(cert.scale) >= 1 / Fraction(cert.residual)


@st.composite
def _patterns(draw, max_rows=7):
    """(X0, y): 2..max_rows rows of 1..3 integers in [-6, 6], both labels present."""
    n = draw(st.integers(2, max_rows))
    d = draw(st.integers(1, 3))
    X0 = draw(
        st.lists(
            st.lists(st.integers(-6, 6), min_size=d, max_size=d), min_size=n, max_size=n
        )
    )
    y = draw(st.lists(st.sampled_from([-1, 1]), min_size=n, max_size=n))
    y[0], y[1] = 1, -1  # both labels present
    return np.array(X0, dtype=float), np.array(y)


@settings(max_examples=60)
@given(
    data=_patterns(),
    mantissa=st.floats(1.0, 2.0),
    # every magnitude, and the edges of the range (subnormals; 2**1021 and more as scale)
    exponent=st.one_of(
        st.integers(-320, 307), st.integers(-312, -305), st.integers(300, 307)
    ),
    fit_intercept=st.booleans(),
)
def test_certificate_evidence_at_every_magnitude(
    data, mantissa, exponent, fit_intercept
):
    """Small integer patterns times one factor from 1e-320 (subnormal) to 1e307.

    Separability does not depend on the factor; the certificate decides, and its
    evidence (a separator, or a Farkas vector and its residual) holds exactly.
    """
    X0, y = data
    factor = mantissa * 10.0**exponent
    X = X0 * factor
    assume(np.all(np.isfinite(X)))
    ref = olbook.separability_certificate(X0, y, fit_intercept=fit_intercept)
    cert = _check_evidence(X, y, fit_intercept)
    # the patterns are integers: separable or not with a margin far above the
    # tolerance, so the answer does not depend on the factor, wherever X0 * factor
    # is exact (rounding to subnormals can make it differ)
    if np.all(X / factor == X0):
        assert cert.separable == ref.separable


@settings(max_examples=60)
@given(
    data=_patterns(max_rows=6),
    exponents=st.lists(st.integers(-300, 300), min_size=3, max_size=3),
    fit_intercept=st.booleans(),
)
def test_certificate_evidence_with_mixed_magnitudes(data, exponents, fit_intercept):
    """Columns at different magnitudes (1e-300 beside 1e300): the answer may be
    "cannot decide" (ValueError), but whatever evidence is returned holds exactly."""
    X0, y = data
    X = X0 * (10.0 ** np.array(exponents[: X0.shape[1]], dtype=float))
    assume(np.all(np.isfinite(X)))
    try:
        _check_evidence(X, y, fit_intercept)
    except ValueError as err:
        assert "could not decide separability" in str(err)


def test_farkas_residual_covers_underflow():
    """Products that underflow: the computed A^T lam is 4 eta, the exact one 5.92 eta.

    Without the n*eta terms the bound would be the next double above 4 eta, 5 eta.
    """
    from olbook.margins import _ETA, _farkas_residual

    At = np.array([[6 * _ETA] * 4 + [-6 * _ETA] * 4])
    lam = np.array([1.49 / 6] * 4 + [0.01 / 6] * 4)
    exact = abs(
        sum(
            Fraction(float(a)) * Fraction(float(v))
            for a, v in zip(At[0], lam, strict=True)
        )
    ) / sum(Fraction(float(v)) for v in lam)
    assert exact > 5 * Fraction(_ETA)
    assert Fraction(_farkas_residual(At, lam)) >= exact


def test_margin_takes_a_learners_coef_and_intercept_as_they_are():
    """coef_ of shape (1, d) and intercept_ of shape (1,) (scikit-learn's) are w and b."""
    X, y, _ = olbook.data.make_separable(50, 3, margin=0.1, random_state=4)
    svm = olbook.SVM().fit(X, y)
    assert svm.coef_.shape == (1, 3) and svm.intercept_.shape == (1,)
    w, b = svm.coef_[0], svm.intercept_[0]
    assert olbook.margin(X, y, svm.coef_, svm.intercept_) == olbook.margin(X, y, w, b)
    bound = olbook.perceptron_bound(X, y, svm.coef_, svm.intercept_, fit_intercept=True)
    assert bound == olbook.perceptron_bound(X, y, w, b, fit_intercept=True)
    with pytest.raises(ValueError, match="intercept must be a number"):
        olbook.margin(X, y, w, np.array([b, b]))
    with pytest.raises(ValueError, match="finite"):
        olbook.margin(X, y, w, np.array([np.nan]))
