"""Input checks shared by every olbook learner and data helper.

Every public entry point calls these before it touches any state, so that a
rejected call raises a :class:`ValueError` that names the problem and leaves
the learner exactly as it was.
"""

from __future__ import annotations

import math
import numbers

import numba
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_scalar

__all__ = [
    "ConvergenceWarning",
    "check_X",
    "all_finite",
    "non_finite_error",
    "check_X_y",
    "check_labels",
    "check_positive_int",
    "check_nonnegative_int",
    "check_positive_float",
    "check_nonnegative_float",
    "check_open_unit",
    "check_probability",
    "check_bool",
    "check_rng",
]


def _describe(values: np.ndarray, limit: int = 6) -> str:
    """Describe a set of distinct values for an error message, e.g. ``{0, 1}``."""
    uniq = np.unique(values)
    shown = ", ".join(
        str(int(v)) if float(v).is_integer() else repr(float(v)) for v in uniq[:limit]
    )
    more = ", ..." if uniq.size > limit else ""
    return "{" + shown + more + "}"


@numba.njit(cache=True, fastmath={"reassoc"})
def all_finite(X):  # pragma: no cover - compiled
    """True if no entry of the 2-D array ``X`` is NaN or inf.

    ``x - x`` is 0 for a finite ``x`` and NaN for NaN or inf; the row sums can
    be added in any order (``reassoc``), so the loop is vectorized.
    """
    n, d = X.shape
    for i in range(n):
        acc = 0.0
        for j in range(d):
            acc += X[i, j] - X[i, j]
        if acc != 0.0:
            return False
    return True


def non_finite_error(X: np.ndarray, name: str = "X") -> ValueError:
    """The error raised for an array with NaN or inf, counting both."""
    n_nan = int(np.isnan(X).sum())
    n_inf = int(np.isinf(X).sum())
    return ValueError(f"{name} contains non-finite values: {n_nan} NaN and {n_inf} inf.")


def check_X(X, *, n_features: int | None = None, name: str = "X", finite: bool = True) -> np.ndarray:
    """Return ``X`` as a C-contiguous 2-D float64 array, or raise ``ValueError``.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        The examples, one per row.
    n_features : int, optional
        If given, the number of columns ``X`` must have (the one the learner
        was fitted with).
    name : str, default="X"
        How the array is called in error messages.
    finite : bool, default=True
        Check for NaN and inf. Learners whose compiled loop checks each row as
        it reads it pass ``False`` (one pass over memory instead of two).
    """
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric; could not convert it to float64 ({exc})") from None
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got {arr.ndim}-D "
            f"with shape {arr.shape}. Use X.reshape(1, -1) for a single example."
        )
    if arr.shape[0] == 0:
        raise ValueError(f"{name} is empty: it has 0 examples (shape {arr.shape}).")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has 0 features (shape {arr.shape}).")
    arr = np.ascontiguousarray(arr)
    if finite and not all_finite(arr):
        raise non_finite_error(arr, name)
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(
            f"{name} has {arr.shape[1]} features, but the learner was fitted with {n_features}."
        )
    return arr


def check_labels(y, *, n_samples: int | None = None, name: str = "y") -> np.ndarray:
    """Return ``y`` as a 1-D float64 array of labels in {-1, +1}, or raise ``ValueError``.

    Labels must already be -1 and +1: olbook never guesses which class is the
    positive one. Use ``np.where(y == positive, 1, -1)`` to map other labels.
    """
    try:
        arr = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must hold the labels -1 and +1; could not convert it ({exc})") from None
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: it has 0 labels.")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; labels must be -1 or +1.")
    bad = (arr != 1.0) & (arr != -1.0)
    if np.any(bad):
        raise ValueError(
            f"labels must be in {{-1, +1}}; found {_describe(arr)}. "
            "Map them first, e.g. y = np.where(y == positive_class, 1, -1)."
        )
    if n_samples is not None and arr.shape[0] != n_samples:
        raise ValueError(
            f"shape mismatch: X has {n_samples} examples but {name} has {arr.shape[0]} labels."
        )
    return np.ascontiguousarray(arr)


def check_X_y(X, y, *, n_features: int | None = None, finite: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Check examples and labels together (see :func:`check_X`, :func:`check_labels`)."""
    Xa = check_X(X, n_features=n_features, finite=finite)
    ya = check_labels(y, n_samples=Xa.shape[0])
    return Xa, ya


def _scalar(value, name: str, kind, what: str, **bounds):
    """``sklearn.utils.check_scalar`` with olbook's rules: one ``ValueError`` that names the
    parameter, the condition and the value; ``bool`` is not a number; NaN and inf are refused."""
    ok = not isinstance(value, (bool, np.bool_))
    if ok:
        try:
            check_scalar(value, name, kind, **bounds)
        except (TypeError, ValueError):
            ok = False
    if ok and kind is numbers.Real and not math.isfinite(value):
        ok = False
    if not ok:
        raise ValueError(f"{name} must be {what}; got {value!r}.")
    return value


def check_positive_int(value, name: str) -> int:
    """Return ``value`` if it is an integer >= 1, else raise ``ValueError``."""
    return int(_scalar(value, name, numbers.Integral, "an integer >= 1", min_val=1))


def check_nonnegative_int(value, name: str) -> int:
    """Return ``value`` if it is an integer >= 0, else raise ``ValueError``."""
    return int(_scalar(value, name, numbers.Integral, "an integer >= 0", min_val=0))


def check_positive_float(value, name: str) -> float:
    """Return ``value`` as a float if it is finite and > 0, else raise ``ValueError``."""
    return float(_scalar(value, name, numbers.Real, "a finite number > 0", min_val=0,
                         include_boundaries="neither"))


def check_nonnegative_float(value, name: str) -> float:
    """Return ``value`` as a float if it is finite and >= 0, else raise ``ValueError``."""
    return float(_scalar(value, name, numbers.Real, "a finite number >= 0", min_val=0))


def check_open_unit(value, name: str) -> float:
    """Return ``value`` as a float if it lies in the open interval (0, 1), else raise ``ValueError``."""
    return float(_scalar(value, name, numbers.Real, "a number in the open interval (0, 1)", min_val=0,
                         max_val=1, include_boundaries="neither"))


def check_probability(value, name: str) -> float:
    """Return ``value`` as a float if it lies in [0, 1], else raise ``ValueError``."""
    return float(_scalar(value, name, numbers.Real, "a number in [0, 1]", min_val=0, max_val=1))


def check_bool(value, name: str) -> bool:
    """Return ``value`` if it is a bool (or numpy bool), else raise ``ValueError``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}.")
    return bool(value)


def check_rng(random_state) -> np.random.Generator:
    """Turn ``None``, an int seed or a ``Generator`` into a ``numpy.random.Generator``."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or (
        isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool) and random_state >= 0
    ):
        return np.random.default_rng(random_state)
    raise ValueError(
        f"random_state must be None, a non-negative int or a numpy Generator; got {random_state!r}."
    )
