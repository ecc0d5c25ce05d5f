"""Online convex optimization: FTRL, online mirror descent and their sets and regularizers.

Book chapter 8, :ref:`oco-chapter`. Learners on the protocol of
:class:`~olbook._base.GameLearner` (``reset``, ``predict``, ``update``,
``run``, a :class:`~olbook.GameTrace` of points, gradients and linear losses):

* :class:`FTL` and :class:`FTRL` (module :mod:`olbook.oco.ftrl`, section 8.1);
* :class:`OMD` (module :mod:`olbook.oco.omd`, section 8.2);
* :class:`AdaGrad` (section 8.3) and :class:`CoinBetting` (section 8.4).

The scikit-learn classifiers :class:`AdaGradClassifier` and
:class:`CoinBettingClassifier` (module :mod:`olbook.oco.classifiers`) are
those two learners fed the gradients of the hinge or logistic loss of a
linear classifier, with ``fit``/``partial_fit``.

Their pieces: feasible sets with exact projections (:class:`Ball`,
:class:`Box`, :class:`Simplex`), regularizers or mirror maps
(:class:`Euclidean`, :class:`Entropic`, :class:`PNorm`) and losses of a linear
predictor (:class:`LinearLoss`, :class:`HingeLoss`, :class:`LogisticLoss`,
:class:`SquaredLoss`, :func:`gradient_feedback`).

Imports are lazy (PEP 562), as for :mod:`olbook`: a name's module is imported
on first access.
"""

from __future__ import annotations

import importlib
import importlib.util

_EXPORTS: dict[str, tuple[str, ...]] = {
    "sets": ("Ball", "Box", "Simplex"),
    "regularizers": ("Euclidean", "Entropic", "PNorm"),
    "losses": (
        "LinearLoss",
        "HingeLoss",
        "LogisticLoss",
        "SquaredLoss",
        "gradient_feedback",
    ),
    "ftrl": ("FTL", "FTRL"),
    "omd": ("OMD",),
    "adagrad": ("AdaGrad",),
    "coin_betting": ("CoinBetting",),
    "ons": ("ONS",),
    "classifiers": ("AdaGradClassifier", "CoinBettingClassifier"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}


def _present(module: str) -> bool:
    return importlib.util.find_spec(f"{__name__}.{module}") is not None


def __getattr__(name: str):
    """Import on first access: a public name from its submodule, or a submodule."""
    if name in _WHERE:
        module = _WHERE[name]
        if not _present(module):
            raise AttributeError(
                f"olbook.oco.{name} lives in olbook/oco/{module}.py, which this "
                "installation of olbook does not have."
            )
        value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        globals()[name] = value
        return value
    if not name.startswith("__"):
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


#: The public names whose module is present (AdaGrad and CoinBetting arrive with
#: sections 8.3 and 8.4).
__all__ = [n for m, names in _EXPORTS.items() if _present(m) for n in names]
