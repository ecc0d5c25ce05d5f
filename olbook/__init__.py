"""olbook: the companion package of *Online Learning, Executably*.

Public names (see each docstring for the paper and the book section):

* learners: :class:`Perceptron`, :class:`NormalizedPerceptron`,
  :class:`AveragedPerceptron`, :class:`VotedPerceptron`, :class:`Pocket`;
* the online trace: :class:`Trace` (``learner.trace_``);
* margins and bounds: :func:`margin`, :func:`radius`, :func:`novikoff_bound`,
  :func:`perceptron_bound`, :func:`hinge_mistake_bound`,
  :func:`find_separator`, :func:`is_linearly_separable`;
* data: the module :mod:`olbook.data`;
* figures: the module :mod:`olbook.plotting`.
"""

from . import data, plotting
from ._base import Trace
from ._validation import ConvergenceWarning
from .margins import (
    MistakeBound,
    find_separator,
    hinge_mistake_bound,
    is_linearly_separable,
    margin,
    novikoff_bound,
    perceptron_bound,
    radius,
)
from .perceptron import AveragedPerceptron, NormalizedPerceptron, Perceptron, VotedPerceptron
from .pocket import Pocket

__version__ = "0.1.0"

__all__ = [
    "AveragedPerceptron",
    "ConvergenceWarning",
    "MistakeBound",
    "NormalizedPerceptron",
    "Perceptron",
    "Pocket",
    "Trace",
    "VotedPerceptron",
    "data",
    "find_separator",
    "hinge_mistake_bound",
    "is_linearly_separable",
    "margin",
    "novikoff_bound",
    "perceptron_bound",
    "plotting",
    "radius",
]
