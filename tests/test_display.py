"""olbook.fmt, olbook.show_source and the small public helpers the chapters share."""

import math

import numpy as np
import pytest

import olbook
from olbook.boosting import odd_ceil, round_gain
from olbook.perceptron import weight_history
from olbook.vc import sauer_shelah


def test_fmt_prints_and_refuses_a_rounding_tie():
    assert olbook.fmt(2.0 / 3.0) == "0.667"
    assert olbook.fmt(-1.23449, digits=2) == "-1.23"
    for tie in (0.0005, 1.2345, -2.5):
        with pytest.raises(ValueError, match="rounding tie"):
            olbook.fmt(tie, digits=3 if tie != -2.5 else 0)
    with pytest.raises(ValueError, match="finite"):
        olbook.fmt(float("nan"))


def test_show_source_is_the_running_code_highlighted():
    code = olbook.show_source(olbook.perceptron.perceptron_epoch)  # a numba dispatcher
    text = code.data if hasattr(code, "data") else code
    assert text.startswith("@numba.njit") and "def perceptron_epoch(" in text
    assert "highlight" in code._repr_html_()


def test_odd_ceil_scalar_and_array():
    assert [odd_ceil(t) for t in (0.5, 1, 1.01, 2, 4.2, 5, 6)] == [1, 1, 3, 3, 5, 5, 7]
    assert all(isinstance(odd_ceil(t), int) for t in (2, 2.5))
    assert np.array_equal(
        odd_ceil(np.array([4.0, 5.0, 6.0, 6.5])), [5.0, 5.0, 7.0, 7.0]
    )


def test_round_gain_is_positive_exactly_below_its_threshold():
    for g in (0.05, 0.1, 0.3):
        eps_star = 2 * g / (0.5 - g) ** 2
        assert round_gain(0.999 * eps_star, g) > 0 > round_gain(1.001 * eps_star, g)
    assert round_gain(0.2, 0.1) == pytest.approx(
        0.5 * math.log(1.2) - math.log(1.08), rel=1e-15
    )


def test_sauer_shelah():
    assert sauer_shelah(10, 2) == 1 + 10 + 45
    assert sauer_shelah(5, 5) == sauer_shelah(5, 9) == 32
    with pytest.raises(ValueError):
        sauer_shelah(-1, 2)


def test_weight_history_replays_the_run():
    X, y, _ = olbook.data.make_separable(80, 5, margin=0.05, random_state=3)
    clf = olbook.Perceptron(max_iter=100).fit(X, y)
    idx, W = weight_history(X, y, clf.trace_)
    assert idx.size == clf.n_updates_ == W.shape[0] > 3
    assert np.array_equal(W[-1], clf.coef_[0])  # bit for bit: same order of additions
    for k in range(1, idx.size):  # the k-th update is made on an example w_k gets wrong
        assert y[idx[k]] * olbook.row_dots(X[idx[k]][None, :], W[k - 1])[0] <= 0.0
