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
  :class:`WeightedMajority`, :class:`Hedge`, :func:`regret`, :class:`OGD`;
* shattering and VC dimension (chapter 4): the module :mod:`olbook.vc`;
* kernel online learning (chapter 7): :class:`NORMA`, :class:`KernelPerceptron`,
  :class:`BudgetPerceptron`, :class:`Forgetron`
  (module :mod:`olbook.kernel_online`).
* boosting (chapter 3): :class:`DecisionStump`, :class:`Boosting`, :class:`AdaBoost`;
* online linear classifiers (chapter 5, part 2): :class:`PassiveAggressive`,
  :class:`ROMMA`, :class:`ALMA`, :class:`OGDClassifier`,
  :class:`AROW`, :class:`NAROW`, :class:`NormalHerd`, :class:`ConfidenceWeighted`, :class:`SCW`,
  :class:`SecondOrderPerceptron`, :class:`IELLIP`, :class:`MulticlassPerceptron`, :class:`MulticlassPA`.
"""

from . import data, kernel_online, kernels, plotting, vc
from ._base import Trace
from ._rowops import row_dots, row_score, row_sqnorms, rowwise_dots
from ._validation import ConvergenceWarning
from .boosting import AdaBoost, Boosting, DecisionStump, WeakLearnerWarning
from .display import fmt, show_source
from .ellipsoid import IELLIP
from .experts import ExpertTrace, Halving, Hedge, WeightedMajority, regret
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
from .ogd import OGD, OCOTrace
from .passive_aggressive import PassiveAggressive
from .perceptron import AveragedPerceptron, NormalizedPerceptron, Perceptron, VotedPerceptron
from .pocket import Pocket
from .second_order import AROW, NAROW, SCW, ConfidenceWeighted, NormalHerd, SecondOrderPerceptron
from .svm import SVM

__version__ = "0.1.0"

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
    "ExpertTrace",
    "Forgetron",
    "Halving",
    "Hedge",
    "IELLIP",
    "KernelPerceptron",
    "MistakeBound",
    "NormalizedPerceptron",
    "MulticlassPA",
    "NORMA",
    "MulticlassPerceptron",
    "OCOTrace",
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
