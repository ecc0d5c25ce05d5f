"""The square-root covariance of the multiclass Gaussian learners stays accurate.

olbook keeps Sigma = U U' (``covariance="full"``, kD x kD) or S = U U' (``"shared"``,
D x D) and updates U by Carlson's square-root step, as the binary learners do
(``olbook.second_order``'s docstring gives the stability argument). Here MulticlassCW,
under label noise, drives its variance down by many orders of magnitude; its run
must match the same rule computed with 60 significant digits (mpmath, the precision
updated by addition and solved, which nothing cancels in at that precision).

* ``"shared"``: S collapses as a whole (precision steps c |x|^2 above 1e15,
  tr S < 1e-10), as the binary CW's Sigma.
* ``"full"``: no Kesler vector has a component along the D directions "the same
  weight in every class", so Sigma keeps the value a there and collapses on the
  span of the Kesler vectors only (their variances below 1e-15 a): a condition
  number above 1e15, beyond what a float64 matrix resolves. The learner's factor
  resolves it: the variance of every Kesler vector and the value a on the
  complement are accurate to about 1e-12, relative to each (measured: at most
  4e-12 over the four runs; the tolerance is 1e-10). ``covariance_``, formed as a
  float64 matrix, does not (its entries are of the order of a), and neither does the component of the means
  along "the same weight in every class" (zero in exact arithmetic; rounding errors
  of Sigma Delta of order 1e-16, multiplied by steps alpha of order 1/v): it adds
  the same score to every class, so no prediction depends on it. The test
  compares the means without it.
"""

import math

import numpy as np
import pytest
from scipy.stats import norm

from olbook import MulticlassCW
from olbook._linalg import factor_project
from olbook.multiclass_second_order import full_cov_epoch, shared_cov_epoch

mp = pytest.importorskip("mpmath")

K, D = 3, 3


def _stream(n, seed):
    """n rows, 3 classes by a random linear rule, 10 % of the labels changed."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, D))
    y = np.argmax(X @ rng.standard_normal((D, K)), 1)
    flip = rng.random(n) < 0.1
    y[flip] = (y[flip] + rng.integers(1, K, flip.sum())) % K
    return X, y


def _directions(X, y, form):
    """The vectors whose variance the learner reads: Kesler's vectors (full) or the
    rows (shared), for every row and every wrong class."""
    out = []
    for x, yi in zip(X, y.tolist(), strict=True):
        for s in range(K):
            if s == yi:
                continue
            if form == "shared":
                out.append(x.copy())
                continue
            z = np.zeros(K * D)
            z[yi * D : (yi + 1) * D] = x
            z[s * D : (s + 1) * D] = -x
            out.append(z)
    return out


def _mp_mcw(X, y, confidence, form):
    """MulticlassCW's rule with 60 digits: mistakes, updates, means, precision, and
    the largest precision step c |z|^2 (below the learner's cap of 1e250)."""
    with mp.workdps(60):
        phi = mp.sqrt(2) * mp.erfinv(2 * mp.mpf(confidence) - 1)
        size = D if form == "shared" else K * D
        kk, two = (K, 2) if form == "shared" else (1, 1)
        W = [[mp.mpf(0)] * D for _ in range(K)]
        P = mp.eye(size)  # the precision, a = 1
        mistakes, updates, top = [], [], mp.mpf(0)
        for row, yi in zip(X, y.tolist(), strict=True):
            x = [mp.mpf(float(t)) for t in row]
            sc = [mp.fsum(W[r][j] * x[j] for j in range(D)) for r in range(K)]
            pred = max(range(K), key=lambda r: (sc[r], -r))  # first on ties
            s = max((r for r in range(K) if r != yi), key=lambda r: (sc[r], -r))
            mistakes.append(pred != yi)
            m = sc[yi] - sc[s]
            if form == "shared":
                z = mp.matrix(x)
            else:
                z = mp.matrix(size, 1)
                for j in range(D):
                    z[yi * D + j], z[s * D + j] = x[j], -x[j]
            Sz = mp.lu_solve(P, z)
            v = two * (z.T * Sz)[0]
            # the binary CW step with v -> kk v, phi -> phi / sqrt(kk), times kk
            h = phi**2 / kk
            alpha = mp.mpf(0)
            if m < phi * mp.sqrt(v):
                root = mp.sqrt(m * m * h * h / 4 + v * phi**2 * (1 + h))
                alpha = max(mp.mpf(0), (-m * (1 + h / 2) + root) / (v * (1 + h)))
            updates.append(alpha > 0)
            if alpha > 0:
                t = alpha * v * phi / kk
                sqrt_u = 2 * v / (t + mp.sqrt(t * t + 4 * v))
                c = two * alpha * (phi / kk) / sqrt_u
                top = max(top, c * (z.T * z)[0])
                if form == "shared":
                    for j in range(D):
                        W[yi][j] += alpha * Sz[j]
                        W[s][j] -= alpha * Sz[j]
                else:
                    for r in range(K):
                        for j in range(D):
                            W[r][j] += alpha * Sz[r * D + j]
                P = P + c * z * z.T
        W = np.array([[float(w) for w in r] for r in W])
        return np.array(mistakes), np.array(updates), W, P, float(top)


def _quadratic_forms(Z, T=None, P=None):
    """z' Sigma z for each z: from the learner's factor (float) or the 60-digit
    precision (mp, Sigma = P^-1)."""
    if T is not None:
        f = np.empty(T.shape[0])
        return np.array([factor_project(T, np.ascontiguousarray(z), f) for z in Z])
    with mp.workdps(60):
        return np.array(
            [float((mp.matrix(z).T * mp.lu_solve(P, mp.matrix(z)))[0]) for z in Z]
        )


#: (form, rows, seed): the stream and how deep its collapse goes (measured:
#: the log10 of the largest precision step c |z|^2 of the run).
CASES = [("shared", 85, 1), ("shared", 75, 1), ("full", 330, 0), ("full", 330, 1)]


@pytest.mark.parametrize(("form", "n", "seed"), CASES)
def test_cw_under_label_noise_matches_60_digits(form, n, seed):
    X, y = _stream(n, seed)
    clf = MulticlassCW(confidence=0.9, covariance=form).fit(X, y)
    # the learner's state through its public loop, from Sigma = I: the same bits
    T, W = np.eye(D if form == "shared" else K * D), np.zeros((K, D))
    mis, upd = np.zeros(n, bool), np.zeros(n, bool)
    loop = shared_cov_epoch if form == "shared" else full_cov_epoch
    loop(X, y, W, T, 3, float(norm.ppf(0.9)), 0.0, mis, upd)
    assert np.array_equal(W, clf.coef_) and np.array_equal(upd, clf.trace_.updates)

    mistakes, updates, W_ref, P, top = _mp_mcw(X, y, 0.9, form)
    assert 1e15 < top < 1e250  # a deep collapse, never near the learner's cap
    assert np.array_equal(clf.trace_.mistakes, mistakes)
    assert np.array_equal(clf.trace_.updates, updates)
    Z = _directions(X[-60:], y[-60:], form)
    v, v_ref = _quadratic_forms(Z, T=T), _quadratic_forms(Z, P=P)
    err_v = float(np.max(np.abs(v - v_ref) / v_ref))
    if form == "full":
        # the means without their common part, the one that moves no score
        centred = clf.coef_ - clf.coef_.mean(axis=0)
        err_w = float(np.max(np.abs(centred - W_ref)) / np.max(np.abs(W_ref)))
        ones = [np.tile(np.eye(D)[j], K) / math.sqrt(K) for j in range(D)]
        err_a = float(np.max(np.abs(_quadratic_forms(ones, T=T) - 1.0)))
        # collapsed by 1e-15 and more on the Kesler vectors, a = 1 on the complement
        assert np.max(v_ref) < 1e-15
    else:
        err_w = float(np.max(np.abs(clf.coef_ - W_ref)) / np.max(np.abs(W_ref)))
        err_a = 0.0
        assert math.log10(np.trace(clf.covariance_)) < -10
    print(f"{form} n={n}: v {err_v:.1e}, means {err_w:.1e}, complement {err_a:.1e}")
    assert max(err_v, err_w, err_a) <= 1e-10
