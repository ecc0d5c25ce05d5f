"""One name, one meaning: every hyper-parameter of every olbook learner means one thing.

``MEANINGS`` is the table of the book's conventions: each parameter name, what it
means, and a pattern that each learner's numpydoc entry for that name must match.
The test fails when

* a learner takes a parameter the table does not know (a new name must be
  entered once, with its one meaning), or
* a learner's docstring entry for a known name does not say the table's meaning
  (two learners using one name for two things: the second's entry does not
  match), or
* a learner has no entry for a parameter it takes.

A fitted attribute's name also means one thing (``FITTED``): checked on fitted
learners at the end.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest
from numpydoc.docscrape import NumpyDocString
from sklearn.base import BaseEstimator

import olbook
from olbook._base import GameLearner, OnlineLearner
from olbook._multiclass_base import MulticlassLearner

#: name -> (meaning, pattern its docstring entry must match, case-insensitive).
MEANINGS: dict[str, tuple[str, str]] = {
    "eta": ("the step size (a number, or a schedule where allowed)", r"step size"),
    "confidence": ("a probability of a correct classification", r"probability"),
    "C": ("aggressiveness: the slack cost / cap on the step", r"aggressiveness"),
    "a": ("the learner's second-order matrix starts at a I", r"initial matrix"),
    "r": ("AROW's regularization", r"regularization"),
    "b": ("NAROW's threshold: no update when v <= 1/b", r"threshold"),
    "decay": ("IELLIP's decay of c per round", r"decay"),
    "c": ("IELLIP's coefficient of the ellipsoid's shrink", r"coefficient"),
    "budget": ("the cap on the number of stored examples", r"stored examples"),
    "variant": ("the variant, spelled as its paper spells it", r"variant"),
    "fit_intercept": ("learn a bias (intercept)", r"bias|intercept"),
    "max_iter": (
        "the most passes over the data fit makes (the SVM: SMO iterations, as SVC)",
        r"passes|SMO iterations",
    ),
    "max_updates": ("the Pocket's cap on PLA updates", r"updates"),
    "trace": ("keep the per-round record trace_", r"per-round record"),
    "kernel": ("the kernel k(x, x')", r"kernel"),
    "random_state": ("the seed of the learner's random choices", r"seed|random"),
    "loss": ("the loss function the learner minimizes", r"loss"),
    "schedule": ("how the step size changes with the round", r"step|sqrt|constant"),
    "lam": ("the regularization lambda", r"regularization"),
    "nu": ("NORMA_nu's fraction (learns the margin)", r"margin|nu"),
    "rho": ("the margin of the hinge loss", r"margin"),
    "p": ("the norm of ALMA_p", r"norm"),
    "alpha": ("ALMA's accuracy: the fraction of the margin it may give up", r"margin"),
    "B": ("ALMA's scale of the margin asked for", r"margin"),
    "beta": ("Weighted Majority's penalty factor", r"factor"),
    "n_experts": ("the number of experts", r"experts"),
    "horizon": ("the number of rounds T", r"rounds|\bT\b"),
    "bounded": ("require losses in [0, 1]", r"\[0, 1\]"),
    "diameter": ("the diameter of the feasible set", r"diameter"),
    "lipschitz": ("the bound on the gradient norms", r"gradient"),
    "projection": ("the projection onto the feasible set", r"proj"),
    "x0": ("the first point", r"first point"),
    "diagonal": ("keep a diagonal covariance", r"diagonal"),
    "covariance": (
        "the form of a multiclass Gaussian's covariance: full or shared by the classes",
        r"form of the covariance",
    ),
    "aggressive": ("ROMMA's aggressive variant", r"update"),
    "sharing": (
        "how an ultraconservative update shares -x among the wrong classes",
        r"share",
    ),
    "policy": ("which stored example the budget perceptron evicts", r"evict|remov"),
    "n_estimators": ("the number of boosting rounds T", r"rounds|\bT\b"),
    "estimator": ("the weak learner", r"weak learner"),
    "epsilon": ("Boosting's re-weighting factor 1 + epsilon", r"factor"),
    "tol": ("the SVM's stopping tolerance (scikit-learn SVC's)", r"stop"),
    "tie_tol": ("DecisionStump's tolerance of its tie rule", r"tie rule"),
    "cache_size": ("megabytes of kernel columns kept", r"megabytes"),
    "shrinking": ("set aside examples that cannot violate", r"set aside"),
    "dim": ("the dimension d of the points an OCO learner plays", r"dimension"),
    "feasible_set": (
        "the feasible set K of an OCO learner (None: R^d)",
        r"feasible set|R\^d",
    ),
    "regularizer": ("FTRL's regularizer R", r"regularizer"),
    "mirror_map": (
        "OMD's regularizer R, whose gradient is the mirror map",
        r"mirror map",
    ),
    "delta": ("AdaGrad's delta, added to the diagonal of H_t", r"diagonal"),
    "initial_wealth": ("the wealth a coin-betting learner starts with", r"wealth"),
    "gamma": ("ONS's gamma: the Newton step is (1/gamma) A_t^{-1} g_t", r"Newton step"),
    "strong_convexity": (
        "lambda, the modulus of strong convexity of the losses",
        r"modulus of strong convexity",
    ),
}


def learner_classes() -> list[type]:
    """Every public learner: scikit-learn estimators and game learners (olbook.oco's too)."""
    found = []
    names = [(olbook, n) for n in sorted(olbook.__all__)]
    names += [(olbook.oco, n) for n in sorted(olbook.oco.__all__)]
    for module, name in names:
        obj = getattr(module, name)
        if inspect.isclass(obj) and issubclass(obj, (BaseEstimator, GameLearner)):
            found.append(obj)
    return found


def parameters(cls) -> list[str]:
    sig = inspect.signature(cls.__init__)
    return [
        p.name
        for p in sig.parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def entries(cls) -> dict[str, str]:
    """The Parameters entries of ``cls``'s docstring; "As in ..." entries from the parents."""
    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass is object or "__doc__" not in klass.__dict__ or not klass.__doc__:
            continue
        doc = NumpyDocString(inspect.cleandoc(klass.__doc__))
        for e in doc["Parameters"]:
            text = " ".join(e.desc).strip()
            for name in e.name.split(","):
                name = name.strip()
                if text and not (re.match(r"as in\b", text, re.I) and name in out):
                    out[name] = text
    return out


CASES = [(cls, p) for cls in learner_classes() for p in parameters(cls)]


def test_the_table_covers_every_learner():
    assert len(learner_classes()) >= 30
    assert len(CASES) >= 100


@pytest.mark.parametrize(
    ("cls", "name"), CASES, ids=[f"{c.__name__}.{p}" for c, p in CASES]
)
def test_one_meaning_per_parameter_name(cls, name):
    assert name in MEANINGS, (
        f"{cls.__name__} takes {name!r}, which the table of meanings does not know: "
        "enter it in MEANINGS with its one meaning (or use the name that already means it)."
    )
    meaning, pattern = MEANINGS[name]
    text = entries(cls).get(name)
    assert text, f"{cls.__name__}'s docstring has no entry for {name!r}."
    assert re.search(pattern, text, re.I), (
        f"{cls.__name__}.{name} is documented as {text[:120]!r}, which does not say what "
        f"{name!r} means everywhere else: {meaning}."
    )


def test_old_names_are_gone():
    """The renames of issue 23: no learner takes the old names any more."""
    old = {"eta0", "truncation"}
    for cls in learner_classes():
        assert not old & set(parameters(cls)), cls
    assert "eta" not in parameters(olbook.ConfidenceWeighted)
    assert "eta" not in parameters(olbook.SCW)
    assert "C" not in parameters(olbook.ALMA)
    assert "b" not in parameters(olbook.IELLIP)
    assert "max_iter" not in parameters(olbook.Pocket)


# ------------------------------------------------------------------ fitted attributes
def _fitted_online_learners():
    X, y, _, _ = olbook.data.make_noisy(40, 3, margin=0.1, flip=0.1, random_state=1)
    out = []
    for cls in learner_classes():
        if issubclass(cls, OnlineLearner):
            out.append((cls, cls(max_iter=3).fit(X, y), X))
    return out


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_one_meaning_per_fitted_attribute():
    """coef_ (1, d) or (k, d) with intercept_ of matching length; support_vectors_ with
    dual_coef_ (1, n_SV); no alpha_; n_iter_ counts passes; covariance_ only where the
    learner keeps a Gaussian over the weights."""
    gaussian = (
        olbook.AROW,
        olbook.ConfidenceWeighted,
        olbook.SCW,
        olbook.NAROW,
        olbook.NormalHerd,
        olbook.MulticlassCW,
        olbook.MulticlassAROW,
        olbook.MulticlassSCW,
    )
    for cls, est, X in _fitted_online_learners():
        d = X.shape[1]
        assert not hasattr(est, "alpha_"), cls
        assert est.n_iter_ == len(est.trace_.epoch_ends) <= 3, cls
        if hasattr(est, "coef_"):
            k = est.coef_.shape[0]
            assert est.coef_.shape == (k, d) and est.intercept_.shape == (k,), cls
            assert k == 1 or issubclass(cls, MulticlassLearner), cls
        else:
            n_sv = est.support_vectors_.shape[0]
            assert est.support_vectors_.shape == (n_sv, d), cls
            assert est.dual_coef_.shape == (1, n_sv), cls
        assert hasattr(est, "covariance_") == issubclass(cls, gaussian), cls
    svm = olbook.SVM(C=1.0).fit(
        *olbook.data.make_noisy(30, 2, margin=0.1, flip=0.1, random_state=0)[:2]
    )
    assert svm.dual_coef_.shape == (1, svm.support_vectors_.shape[0])
    assert svm.coef_.shape == (1, 2) and svm.intercept_.shape == (1,)
    pocket = olbook.Pocket(max_updates=20, random_state=0).fit(X, np.sign(X[:, 0]))
    assert pocket.coef_.shape == (1, X.shape[1]) and pocket.intercept_.shape == (1,)
    assert not hasattr(pocket, "n_iter_") and pocket.n_updates_ <= 20


#: Learners that may keep updating on separable data although these data do not show
#: it: no theorem bounds their number of updates there.
NO_FINITE_UPDATE_THEOREM = {
    "ConfidenceWeighted": "updates below a confidence-adjusted margin",
    "SCW": "updates below a confidence-adjusted margin",
    "NAROW": "updates below a confidence-adjusted margin",
    "MulticlassPA": "updates below the multiclass margin 1, as PA",
    "MulticlassOGD": "updates below the multiclass margin 1, as OGD on the hinge loss",
    "MulticlassCW": "updates below a confidence-adjusted margin",
    "MulticlassSCW": "updates below a confidence-adjusted margin",
    "BudgetPerceptron": "evictions may remove the examples a separator needs",
    "Forgetron": "the shrinking may undo progress",
}


def _separability_configs():
    from olbook import kernels

    lin = kernels.linear
    out = [cls() for cls in learner_classes() if issubclass(cls, OnlineLearner)]
    out += [olbook.PassiveAggressive(variant=v) for v in ("PA", "PA-II")]
    out += [olbook.SCW("SCW-II"), olbook.MulticlassPA("PA-II"), olbook.ALMA(alpha=0.5)]
    out += [olbook.ROMMA(aggressive=True), olbook.OGDClassifier(loss="logistic")]
    out += [olbook.NORMA(kernel=lin), olbook.NORMA(kernel=lin, lam=0.0)]
    out += [olbook.NORMA(kernel=lin, loss="squared")]
    return out


def test_separability_warning_only_where_updates_stop_on_separable_data():
    """The ConvergenceWarning says "the data may not be linearly separable" only for a
    learner whose updates stop on separable data (a mistake bound or update bound): each
    such configuration converges on data separable with margin 0.3 within 200 passes,
    without any warning. Every learner that does not say it either keeps updating on
    these separable data in one of its configurations (PA-II, AROW, normal herding,
    aggressive ROMMA, the logistic loss, NORMA with lam > 0) or is listed in
    NO_FINITE_UPDATE_THEOREM with the reason."""
    import warnings

    X, y, _ = olbook.data.make_separable(60, 3, margin=0.3, radius=1.0, random_state=2)
    claims, keeps_updating, silent = 0, set(), set()
    for est in _separability_configs():
        est.set_params(max_iter=200)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            est.fit(X, y)
        name = type(est).__name__
        if est._updates_mean_not_separable:
            assert est.converged_ and not rec, (est, [str(w.message) for w in rec])
            claims += 1
        else:
            silent.add(name)
            if not est.converged_:
                keeps_updating.add(name)
                assert not any("separable" in str(w.message) for w in rec), est
    assert claims >= 10
    unexplained = silent - keeps_updating - set(NO_FINITE_UPDATE_THEOREM)
    assert not unexplained, unexplained
    # Every learner listed there makes no separability claim. Whether it happens to stop
    # within 200 passes is not asserted: SCW-II on this data, run in 40-digit arithmetic,
    # still updates at pass 260 (its margin gap goes to 0 from below, under 1e-12 from
    # pass 88), so a float run stops when rounding ends the gap (pass 182 or 207,
    # depending on how the covariance is stored), not by a property of the rule.
    assert set(NO_FINITE_UPDATE_THEOREM) <= silent
