"""Fixed-order arithmetic: olbook's scores are the left-to-right sums, and its results are the same
under another BLAS kernel and numba's generic CPU (the second setting of ``make test``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import olbook
from olbook._rowops import row_dots, row_score, row_sqnorms, rowwise_dots


def _left_to_right(a, b) -> float:
    s = 0.0
    for p, q in zip(a.tolist(), b.tolist(), strict=True):
        s += p * q  # Python floats: one IEEE rounding per operation, in this order
    return s


@pytest.mark.parametrize("d", [1, 3, 17, 64, 101])
def test_row_score_is_the_left_to_right_sum(d):
    rng = np.random.default_rng(d)
    X = rng.standard_normal((25, d)) * 10.0 ** rng.integers(-8, 8, size=(25, d))  # rounding matters here
    w = rng.standard_normal(d)
    dots, sq = row_dots(X, w), row_sqnorms(X)
    for i in range(X.shape[0]):
        f, nonfinite = row_score(w, X, i)
        assert f == _left_to_right(w, X[i]) == dots[i]
        assert nonfinite == 0.0
        assert sq[i] == _left_to_right(X[i], X[i])


@pytest.mark.parametrize("m", [1, 3, 17, 100])
def test_rowwise_dots_are_the_left_to_right_sums(m):
    rng = np.random.default_rng(m)
    A = rng.standard_normal((30, m)) * 10.0 ** rng.integers(-8, 8, size=(30, m))
    B = rng.standard_normal((30, m))
    out = rowwise_dots(A, B)
    assert [float(v) for v in out] == [_left_to_right(A[t], B[t]) for t in range(30)]


def test_row_score_flags_non_finite_rows():
    X = np.array([[1.0, 2.0], [np.nan, 0.0], [np.inf, 1.0], [-np.inf, 0.0]])
    flags = [row_score(np.ones(2), X, i)[1] for i in range(4)]
    assert flags[0] == 0.0 and all(np.isnan(flags[1:]))


def test_decision_function_uses_the_fixed_order():
    X, y = olbook.data.load_binary("breast_cancer", standardize=True)
    clf = olbook.Perceptron(max_iter=1).fit(X, y)  # one pass: no ConvergenceWarning
    expected = np.array([_left_to_right(clf.coef_, x) for x in X]) + clf.intercept_
    assert np.array_equal(clf.decision_function(X), expected)


_SCRIPT = textwrap.dedent(
    """
    import json, numpy as np, olbook
    X, y, u = olbook.data.make_shell(300, 40, margin=0.06, random_state=3)
    order = olbook.data.greedy_adversarial_order(X, y, u)
    Xr, yr = olbook.data.load_binary("breast_cancer", standardize=True)
    norm = olbook.NormalizedPerceptron(max_iter=5).fit(Xr, yr)
    avg = olbook.AveragedPerceptron(max_iter=5, fit_intercept=True).fit(Xr, yr)
    voted = olbook.VotedPerceptron(max_iter=2).fit(Xr, yr)
    print(json.dumps({
        "X": X.tobytes().hex(), "order": order.tolist(),
        "norm": [norm.coef_.tobytes().hex(), norm.trace_.updates.tolist(), norm.decision_function(Xr).tobytes().hex()],
        "avg": [avg.coef_.tobytes().hex(), avg.intercept_, avg.decision_function(Xr).tobytes().hex()],
        "voted": voted.decision_function(Xr).tobytes().hex(),
        "margin": olbook.margin(Xr, yr, avg.coef_, avg.intercept_), "radius": olbook.radius(Xr),
    }))
    """
)


def _run(env_extra: dict[str, str]) -> dict:
    env = {**os.environ, **env_extra}
    out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_same_bits_under_another_blas_kernel_and_generic_cpu():
    native = _run({})
    other = _run({"OPENBLAS_CORETYPE": "Prescott", "NUMBA_CPU_NAME": "generic"})
    assert len(native["order"]) > 100
    for key in native:
        assert native[key] == other[key], f"{key} differs between the two CPU settings"
