"""Data for the experiments of the book: synthetic sets with a prescribed geometry,
orderings that make the perceptron err, and scikit-learn's bundled real data.

Everything here is generated locally or read from the data files that ship
inside scikit-learn; nothing is downloaded.

The public names are re-exported here from private modules: ``_grid`` (the
dyadic grid and return types), ``_separable`` and ``_adversary`` (chapter 1),
``_real`` (scikit-learn's bundled data) and ``_margin`` (chapter 2).
``_spam`` holds the spam game of section 9.1.
"""

from ._adversary import greedy_adversarial_order
from ._grid import GRID_BITS, NoisyData, SeparableData, random_unit_vector
from ._margin import (
    MAX_PARITY_FEATURES,
    first_one_parity_labels,
    make_first_one_parity,
    make_spirals,
)
from ._real import REAL_DATASETS, load_binary
from ._separable import (
    make_noisy,
    make_orthogonal_worst_case,
    make_separable,
    make_shell,
)
from ._spam import SpamGame, SpamGameRecord, filter_weights

__all__ = [
    "GRID_BITS",
    "SeparableData",
    "NoisyData",
    "random_unit_vector",
    "make_separable",
    "make_noisy",
    "make_shell",
    "make_orthogonal_worst_case",
    "greedy_adversarial_order",
    "load_binary",
    "REAL_DATASETS",
    "MAX_PARITY_FEATURES",
    "first_one_parity_labels",
    "make_first_one_parity",
    "make_spirals",
    "SpamGame",
    "SpamGameRecord",
    "filter_weights",
]
