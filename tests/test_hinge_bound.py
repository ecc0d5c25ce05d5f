"""Freund and Schapire's mistake bound ((R + D)/gamma)^2 for arbitrary (non-separable) sequences."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import reference_perceptron

import olbook
from olbook.data import (
    make_noisy,
    make_orthogonal_worst_case,
    make_separable,
    make_shell,
)


def test_hinge_mistake_bound_by_hand():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    y = np.array([1.0, 1.0, 1.0])
    # u = (2, 0) is divided by its norm: margins 1, 0, -1; gamma = 1/2 -> deviations 0, 1/2, 3/2.
    bound, D = olbook.hinge_mistake_bound(X, y, [2.0, 0.0], 0.5)
    assert np.isclose(D, np.sqrt(0.25 + 2.25), rtol=1e-15)
    assert np.isclose(bound, ((1.0 + np.sqrt(2.5)) / 0.5) ** 2, rtol=1e-15)
    assert isinstance(bound, float) and isinstance(D, float)
    # gamma = 2: deviations 1, 2, 3 -> D^2 = 14.
    bound, D = olbook.hinge_mistake_bound(X, y, [1.0, 0.0], 2.0)
    assert np.isclose(D**2, 14.0, rtol=1e-15) and np.isclose(
        bound, ((1.0 + np.sqrt(14.0)) / 2.0) ** 2, rtol=1e-15
    )


def test_matches_a_plain_numpy_formula():
    X, y, u, _ = make_noisy(300, 7, margin=0.05, flip=0.2, random_state=3)
    # any direction, not unit, not the separator
    w = np.random.default_rng(0).standard_normal(7)
    for gamma in [0.01, 0.3, 2.0]:
        d = np.maximum(0.0, gamma - y * (X @ w) / np.linalg.norm(w))
        R = np.sqrt(np.max(np.sum(X * X, axis=1)))
        bound, D = olbook.hinge_mistake_bound(X, y, w, gamma)
        assert np.isclose(D, np.sqrt(np.sum(d * d)), rtol=1e-12)
        assert np.isclose(
            bound, ((R + np.sqrt(np.sum(d * d))) / gamma) ** 2, rtol=1e-12
        )


def test_reduces_to_block_novikoff_when_D_is_zero():
    X, y, u = make_separable(80, 5, margin=0.1, random_state=1)
    gamma = olbook.margin(X, y, u)
    bound, D = olbook.hinge_mistake_bound(X, y, u, gamma)
    assert D == 0.0
    assert np.isclose(bound, olbook.perceptron_bound(X, y, u).bound, rtol=1e-15)
    # A smaller gamma keeps D = 0 and gives a larger bound; a larger one makes D > 0.
    assert olbook.hinge_mistake_bound(X, y, u, gamma / 2) == (
        pytest.approx(4 * bound, rel=1e-12),
        0.0,
    )
    assert olbook.hinge_mistake_bound(X, y, u, 1.5 * gamma)[1] > 0.0


def test_attained_on_the_orthogonal_worst_case():
    X, y, u = make_orthogonal_worst_case(25, random_state=0)
    bound, D = olbook.hinge_mistake_bound(X, y, u, olbook.margin(X, y, u))
    assert D == 0.0 and np.isclose(bound, 25.0, rtol=1e-12)
    assert olbook.Perceptron().fit(X, y).n_updates_ == 25


def test_every_round_counts_and_repeats_add_up():
    X, y, u, _ = make_noisy(100, 3, margin=0.1, flip=0.1, random_state=2)
    _, D1 = olbook.hinge_mistake_bound(X, y, u, 0.2)
    _, D3 = olbook.hinge_mistake_bound(np.tile(X, (3, 1)), np.tile(y, 3), u, 0.2)
    assert np.isclose(D3**2, 3 * D1**2, rtol=1e-12)
    # The order of the rounds does not matter (up to rounding in the sum).
    perm = np.random.default_rng(1).permutation(100)
    assert np.isclose(
        olbook.hinge_mistake_bound(X[perm], y[perm], u, 0.2)[1], D1, rtol=1e-12
    )


def test_tends_to_the_number_of_rounds_for_large_gamma():
    X, y, u, _ = make_noisy(50, 4, margin=0.1, flip=0.2, random_state=4)
    bound, _ = olbook.hinge_mistake_bound(X, y, u, 1e9)
    assert abs(bound / X.shape[0] - 1.0) < 1e-6


def test_invariant_to_the_scale_of_u():
    X, y, u, _ = make_noisy(60, 3, margin=0.1, flip=0.1, random_state=5)
    ref = olbook.hinge_mistake_bound(X, y, u, 0.15)
    for scale in [1e-3, 3.0, 1e6]:
        got = olbook.hinge_mistake_bound(X, y, scale * u, 0.15)
        assert np.allclose(got, ref, rtol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_the_bound_holds_on_noisy_data(seed):
    """The theorem: K <= ((R + D)/gamma)^2 for every gamma, every unit u, on the sequence actually seen."""
    rng = np.random.default_rng(seed)
    X, y, u, _ = make_noisy(
        120, 2 + seed, margin=0.05, flip=0.05 + 0.05 * seed, random_state=rng
    )
    epochs = 1 + seed
    _, _, _, updates, _ = reference_perceptron(
        X, y, epochs=epochs, stop_when_converged=False
    )
    K = int(updates.sum())
    X_seq, y_seq = np.tile(X, (epochs, 1)), np.tile(y, epochs)
    for v in [u, rng.standard_normal(X.shape[1])]:
        for gamma in np.geomspace(1e-3, 10.0, 25):
            assert K <= olbook.hinge_mistake_bound(X_seq, y_seq, v, gamma)[0]


def test_the_bound_holds_for_an_adversary_on_the_shell_with_flips():
    X, y, u = make_shell(400, 50, margin=0.1, random_state=0)
    order = olbook.data.greedy_adversarial_order(X, y, u)
    # examples the adversary never showed, shown once flipped
    flip = np.setdiff1d(np.arange(400), order)[:5]
    X_seq = np.vstack([X[order], X[flip], X])
    y_seq = np.concatenate([y[order], -y[flip], y])
    K = olbook.Perceptron().fit(X_seq, y_seq).n_updates_
    gamma = olbook.margin(X, y, u)
    bound, D = olbook.hinge_mistake_bound(X_seq, y_seq, u, gamma)
    # Clean rounds have margin exactly gamma (deviation 0), flipped ones -gamma (deviation 2 gamma).
    assert np.isclose(D, 2 * gamma * np.sqrt(5), rtol=1e-12)
    assert len(order) < K <= bound


def test_hinge_mistake_bound_rejects_bad_input():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    y = np.array([1.0, -1.0])
    with pytest.raises(ValueError, match="u is the zero vector"):
        olbook.hinge_mistake_bound(X, y, [0.0, 0.0], 0.1)
    with pytest.raises(ValueError, match="u has 3 entries but X has 2 features"):
        olbook.hinge_mistake_bound(X, y, [1.0, 0.0, 0.0], 0.1)
    with pytest.raises(ValueError, match="u contains NaN or inf"):
        olbook.hinge_mistake_bound(X, y, [np.inf, 0.0], 0.1)
    for bad in [0.0, -1.0, np.inf, np.nan, "0.1", True, None]:
        with pytest.raises(ValueError, match="gamma must be a finite number > 0"):
            olbook.hinge_mistake_bound(X, y, [1.0, 0.0], bad)
    with pytest.raises(ValueError, match=r"found \{0, 1\}"):
        olbook.hinge_mistake_bound(X, [0, 1], [1.0, 0.0], 0.1)
    with pytest.raises(ValueError, match="non-finite"):
        olbook.hinge_mistake_bound([[np.nan, 0.0], [0.0, 1.0]], y, [1.0, 0.0], 0.1)
    with pytest.raises(ValueError, match="shape mismatch"):
        olbook.hinge_mistake_bound(X, [1.0], [1.0, 0.0], 0.1)


def test_exported():
    assert "hinge_mistake_bound" in olbook.__all__
    assert "hinge_mistake_bound" in olbook.margins.__all__
    assert olbook.hinge_mistake_bound is olbook.margins.hinge_mistake_bound
