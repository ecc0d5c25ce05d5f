"""The property tests are sharp: with a wrong bound, hypothesis finds a counterexample.

Each case replaces one bound function of a ``test_properties_*`` module by a mutation
(a dropped factor, a changed constant, a missing term) and runs the property tests that
use it; the search must fail. A property that still passed with a weaker-than-stated
bound would not test the book's constant. The mutations are those named in the tests'
docstrings.
"""

from __future__ import annotations

import math

import pytest
import test_properties_boosting_kernel as pbk
import test_properties_experts as pex
import test_properties_linear as plin
import test_properties_perceptron as pper
from hypothesis import Phase, settings

#: (module, bound function, mutation, property tests that must then fail)
MUTATIONS = {
    "novikoff: R/gamma, not squared": (
        pper,
        "novikoff",
        lambda R, g: R / g,
        ["test_novikoff_on_integer_data"],
    ),
    "novikoff: 1% smaller": (
        pper,
        "novikoff",
        lambda R, g: 0.99 * (R / g) ** 2,
        [
            "test_novikoff_on_integer_data",
            "test_novikoff_attained_on_orthogonal_examples",
        ],
    ),
    "novikoff: 10% smaller, against the greedy adversary": (
        pper,
        "novikoff",
        lambda R, g: 0.9 * (R / g) ** 2,
        ["test_novikoff_against_the_greedy_adversary"],
    ),
    "novikoff with bias: R^2 instead of R^2 + 1": (
        pper,
        "novikoff_bias",
        lambda R, b, g: R * R * (1.0 + b * b) / g**2,
        ["test_novikoff_with_bias_on_grid_data"],
    ),
    "freund-schapire: D dropped": (
        pper,
        "freund_schapire",
        lambda R, D, g: (R / g) ** 2,
        ["test_freund_schapire_on_arbitrary_sequences"],
    ),
    "freund-schapire: (R^2 + D^2)/gamma^2": (
        pper,
        "freund_schapire",
        lambda R, D, g: (R * R + D * D) / g**2,
        ["test_freund_schapire_on_arbitrary_sequences"],
    ),
    "hinge form: middle term dropped": (
        pper,
        "hinge_form",
        lambda L, a: L + a * a,
        ["test_hinge_form_on_arbitrary_sequences"],
    ),
    "normalized: 1/delta^2 - 2": (
        pper,
        "normalized_after_first",
        lambda d: 1.0 / d**2 - 2.0,
        ["test_normalized_perceptron_within_inverse_delta_squared"],
    ),
    "halving: floor(ln m)": (
        pex,
        "halving_bound",
        lambda m: math.floor(math.log(m)),
        ["test_halving_at_most_floor_log2_m"],
    ),
    "halving: floor(log2 m) - 1": (
        pex,
        "halving_bound",
        lambda m: math.floor(math.log2(m)) - 1,
        ["test_halving_at_most_floor_log2_m"],
    ),
    "weighted majority: denominator 1 - beta": (
        pex,
        "wm_bound",
        lambda L, m, b: (L * math.log(1 / b) + math.log(m)) / (1 - b),
        ["test_weighted_majority_mistake_bound"],
    ),
    "hedge fixed: eta T/16": (
        pex,
        "hedge_fixed_bound",
        lambda m, eta, T: math.log(m) / eta + eta * T / 16,
        ["test_hedge_fixed_rate_regret"],
    ),
    "hedge fixed: ln m/(2 eta)": (
        pex,
        "hedge_fixed_bound",
        lambda m, eta, T: math.log(m) / (2 * eta) + eta * T / 8,
        ["test_hedge_fixed_rate_regret"],
    ),
    "hedge anytime: 10% smaller": (
        pex,
        "hedge_anytime_bound",
        lambda m, T: 0.9 * ANYTIME(m, T),
        ["test_hedge_anytime_regret_at_every_prefix"],
    ),
    "hedge doubling: 10% smaller": (
        pex,
        "hedge_doubling_bound",
        lambda m, T: 0.9 * DOUBLING(m, T),
        ["test_hedge_doubling_trick_regret_at_every_prefix"],
    ),
    "hedge small loss: denominator eta": (
        pex,
        "hedge_small_loss_bound",
        lambda L, m, eta: (eta * L + math.log(m)) / eta,
        ["test_hedge_small_loss_bound"],
    ),
    "hedge corollary: + ln m dropped": (
        pex,
        "hedge_corollary_bound",
        lambda Lt, m: math.sqrt(2 * Lt * math.log(m)),
        ["test_hedge_small_loss_corollary"],
    ),
    "ogd: D^2/(4 eta)": (
        pex,
        "ogd_fixed_bound",
        lambda D, G, eta, T: D * D / (4 * eta) + eta * G * G * T / 2,
        ["test_ogd_regret"],
    ),
    "ogd: eta G^2 T/4": (
        pex,
        "ogd_fixed_bound",
        lambda D, G, eta, T: D * D / (2 * eta) + eta * G * G * T / 4,
        ["test_ogd_regret"],
    ),
    "pa separable: ||u|| R": (
        plin,
        "pa_separable_bound",
        lambda u2, R2: math.sqrt(u2 * R2),
        ["test_pa_separable"],
    ),
    "pa-i loss form: C sum l* (factor 2 dropped)": (
        plin,
        "pa1_loss_bound",
        lambda u2, C, s: u2 + C * s,
        ["test_pa1_any_data"],
    ),
    "pa-i mistakes: min(R^2, 1/C)": (
        plin,
        "pa1_mistake_bound",
        lambda R2, C, u2, s: min(R2, 1 / C) * (u2 + 2 * C * s),
        ["test_pa1_any_data"],
    ),
    "pa-ii: 1/(2C) dropped": (
        plin,
        "pa2_bound",
        lambda R2, C, u2, s: R2 * (u2 + 2 * C * s),
        ["test_pa2_any_data"],
    ),
    "romma: R ||u||": (
        plin,
        "romma_bound",
        lambda u2, R2: math.sqrt(u2 * R2),
        ["test_romma_and_perceptron_mistake_bound"],
    ),
    "second-order perceptron: a||u||^2 dropped": (
        plin,
        "sop_bound",
        lambda L, a, u2, q, s: L + math.sqrt(q * s),
        ["test_second_order_perceptron_mistake_bound"],
    ),
    "arow: r/a ||u||^2 dropped": (
        plin,
        "arow_bound",
        lambda r, a, u2, q, ld, U, g: math.sqrt(q * (ld + U)) + g - U,
        ["test_arow_mistake_bound"],
    ),
    "adaboost: prod 2 eps_t (no square root)": (
        pbk,
        "adaboost_bound",
        lambda eps: math.prod(2 * e for e in eps),
        ["test_adaboost_training_error_bound"],
    ),
    "adaboost: prod sqrt(eps_t(1 - eps_t)) (factor 2 dropped)": (
        pbk,
        "adaboost_bound",
        lambda eps: math.prod(math.sqrt(e * (1 - e)) for e in eps),
        ["test_adaboost_training_error_bound"],
    ),
    "norma truncation: q^(t-i+1)": (
        pbk,
        "truncation_bound",
        lambda eta, lam, C, X, t, tau: math.fsum(
            eta * (1 - eta * lam) ** (t - i + 1) * C * X for i in range(1, t - tau + 1)
        ),
        ["test_norma_truncation_error"],
    ),
}
ANYTIME, DOUBLING = pex.hedge_anytime_bound, pex.hedge_doubling_bound


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_mutated_bound_is_caught(name, monkeypatch):
    module, function, mutated, tests = MUTATIONS[name]
    module.warm_up()  # compile before the first example, as the module's own fixture does
    monkeypatch.setattr(module, function, mutated)
    for test in tests:
        fn = getattr(module, test)
        # A counterexample is all we need: no shrinking, most of the time of a failing search.
        # (The settings of a @given test are this attribute of the test; monkeypatch restores it.)
        current = getattr(fn, "_hypothesis_internal_use_settings", settings.default)
        found = settings(current, phases=[Phase.generate, Phase.target])
        monkeypatch.setattr(
            fn, "_hypothesis_internal_use_settings", found, raising=False
        )
        with pytest.raises(AssertionError):
            fn()
