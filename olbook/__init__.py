"""olbook: the companion package of *Online Learning, Executably*.

Public names (see each docstring for the paper and the book section):

* learners: :class:`Perceptron`, :class:`NormalizedPerceptron`,
  :class:`AveragedPerceptron`, :class:`VotedPerceptron`, :class:`Pocket`;
* the online trace: :class:`Trace` (``learner.trace_``);
* margins and bounds: :func:`margin`, :func:`radius`, :func:`novikoff_bound`,
  :func:`perceptron_bound`, :func:`hinge_mistake_bound`,
  :func:`find_separator`, :func:`is_linearly_separable`,
  :func:`separability_certificate`;
* data: the module :mod:`olbook.data`;
* figures: the module :mod:`olbook.plotting`;
* printing: :func:`fmt` (floats that print the same on every CPU),
  :func:`show_source` (olbook's code, highlighted);
* fixed-order sums (the same bits on every CPU): :func:`row_dots`,
  :func:`row_score`, :func:`row_sqnorms`, :func:`rowwise_dots`;
* max margin and kernels (chapter 2): :class:`SVM`, the module :mod:`olbook.kernels`;
* experts and online convex optimization (chapter 5): :class:`Halving`,
  :class:`WeightedMajority`, :class:`Hedge`, :func:`regret`, :class:`OGD`, and
  the trace of their games, :class:`GameTrace`;
* shattering and VC dimension (chapter 4): the module :mod:`olbook.vc`;
* kernel online learning (chapter 7): :class:`NORMA`, :class:`KernelPerceptron`,
  :class:`BudgetPerceptron`, :class:`Forgetron`
  (module :mod:`olbook.kernel_online`).
* online convex optimization (chapter 8): the subpackage :mod:`olbook.oco`
  (FTL, FTRL, online mirror descent, their feasible sets and regularizers).
* boosting (chapter 3): :class:`DecisionStump`, :class:`Boosting`, :class:`AdaBoost`;
* online linear classifiers (chapter 6): :class:`PassiveAggressive`,
  :class:`ROMMA`, :class:`ALMA`, :class:`OGDClassifier`,
  :class:`AROW`, :class:`NAROW`, :class:`NormalHerd`, :class:`ConfidenceWeighted`, :class:`SCW`,
  :class:`SecondOrderPerceptron`, :class:`IELLIP`, :class:`MulticlassPerceptron`, :class:`MulticlassPA`,
  :class:`MulticlassROMMA`, :class:`MulticlassOGD`,
  :class:`MulticlassCW`, :class:`MulticlassAROW`, :class:`MulticlassSCW`.

Imports are lazy (PEP 562): ``import olbook`` loads none of scikit-learn, SciPy,
numba or olbook's compiled code; ``olbook.Perceptron`` (or ``from olbook import
Perceptron``) imports :mod:`olbook.perceptron` on first use, and ``olbook.vc`` or
any other submodule likewise.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# Submodule -> the public names it defines, re-exported here on first access by __getattr__.
# The TYPE_CHECKING block below repeats the same imports for type checkers and editors, which
# do not run __getattr__: a new public name goes in both, and in __all__.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "_base": ("GameTrace", "Trace"),
    "_rowops": ("row_dots", "row_score", "row_sqnorms", "rowwise_dots"),
    "_validation": ("ConvergenceWarning",),
    "boosting": ("AdaBoost", "Boosting", "DecisionStump", "WeakLearnerWarning"),
    "display": ("fmt", "show_source"),
    "ellipsoid": ("IELLIP",),
    "experts": ("Halving", "Hedge", "WeightedMajority", "regret"),
    "first_order": ("ALMA", "ROMMA", "OGDClassifier"),
    "forgetron": ("Forgetron",),
    "kernel_online": ("NORMA", "BudgetPerceptron", "KernelPerceptron"),
    "margins": (
        "MistakeBound",
        "find_separator",
        "hinge_mistake_bound",
        "is_linearly_separable",
        "margin",
        "novikoff_bound",
        "perceptron_bound",
        "radius",
        "separability_certificate",
    ),
    "multiclass": ("MulticlassPA", "MulticlassPerceptron"),
    "multiclass_second_order": ("MulticlassAROW", "MulticlassCW", "MulticlassSCW"),
    "multiclass_margin": ("MulticlassOGD", "MulticlassROMMA"),
    "ogd": ("OGD",),
    "passive_aggressive": ("PassiveAggressive",),
    "perceptron": (
        "AveragedPerceptron",
        "NormalizedPerceptron",
        "Perceptron",
        "VotedPerceptron",
    ),
    "pocket": ("Pocket",),
    "second_order": (
        "AROW",
        "NAROW",
        "SCW",
        "ConfidenceWeighted",
        "NormalHerd",
        "SecondOrderPerceptron",
    ),
    "svm": ("SVM",),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

if (
    TYPE_CHECKING
):  # what the lazy __getattr__ below provides, spelled out for static tools
    from . import (
        boosting,
        data,
        display,
        experts,
        kernel_online,
        kernels,
        oco,
        ogd,
        plotting,
        vc,
    )
    from ._base import GameTrace, Trace
    from ._rowops import row_dots, row_score, row_sqnorms, rowwise_dots
    from ._validation import ConvergenceWarning
    from .boosting import AdaBoost, Boosting, DecisionStump, WeakLearnerWarning
    from .display import fmt, show_source
    from .ellipsoid import IELLIP
    from .experts import Halving, Hedge, WeightedMajority, regret
    from .first_order import ALMA, ROMMA, OGDClassifier
    from .forgetron import Forgetron
    from .kernel_online import NORMA, BudgetPerceptron, KernelPerceptron
    from .margins import (
        MistakeBound,
        find_separator,
        hinge_mistake_bound,
        is_linearly_separable,
        margin,
        novikoff_bound,
        perceptron_bound,
        radius,
        separability_certificate,
    )
    from .multiclass import MulticlassPA, MulticlassPerceptron
    from .multiclass_margin import MulticlassOGD, MulticlassROMMA
    from .multiclass_second_order import MulticlassAROW, MulticlassCW, MulticlassSCW
    from .ogd import OGD
    from .passive_aggressive import PassiveAggressive
    from .perceptron import (
        AveragedPerceptron,
        NormalizedPerceptron,
        Perceptron,
        VotedPerceptron,
    )
    from .pocket import Pocket
    from .second_order import (
        AROW,
        NAROW,
        SCW,
        ConfidenceWeighted,
        NormalHerd,
        SecondOrderPerceptron,
    )
    from .svm import SVM


def __getattr__(name: str):
    """Import on first access: a public name from its submodule, or a submodule itself (PEP 562)."""
    if name in _WHERE:
        value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
        globals()[name] = value  # later accesses are plain attribute look-ups
        return value
    if not name.startswith(
        "__"
    ):  # a submodule: olbook.vc, olbook.perceptron, olbook._base, ...
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise  # the submodule exists but one of its own imports is missing
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "ALMA",
    "OGDClassifier",
    "ROMMA",
    "AROW",
    "ConfidenceWeighted",
    "NAROW",
    "NormalHerd",
    "SCW",
    "SecondOrderPerceptron",
    "AdaBoost",
    "AveragedPerceptron",
    "Boosting",
    "BudgetPerceptron",
    "ConvergenceWarning",
    "DecisionStump",
    "Forgetron",
    "GameTrace",
    "Halving",
    "Hedge",
    "IELLIP",
    "KernelPerceptron",
    "MistakeBound",
    "NormalizedPerceptron",
    "MulticlassPA",
    "NORMA",
    "MulticlassPerceptron",
    "MulticlassAROW",
    "MulticlassCW",
    "MulticlassSCW",
    "MulticlassOGD",
    "MulticlassROMMA",
    "OGD",
    "Perceptron",
    "PassiveAggressive",
    "Pocket",
    "SVM",
    "Trace",
    "VotedPerceptron",
    "WeakLearnerWarning",
    "WeightedMajority",
    "boosting",
    "data",
    "experts",
    "display",
    "find_separator",
    "fmt",
    "hinge_mistake_bound",
    "is_linearly_separable",
    "separability_certificate",
    "kernel_online",
    "kernels",
    "margin",
    "novikoff_bound",
    "oco",
    "ogd",
    "perceptron_bound",
    "plotting",
    "radius",
    "regret",
    "row_dots",
    "row_score",
    "row_sqnorms",
    "rowwise_dots",
    "show_source",
    "vc",
]
