"""Input checks shared by every olbook learner and data helper.

Every public entry point calls these before it touches any state, so that a
rejected call raises a :class:`ValueError` that names the problem and leaves
the learner exactly as it was.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numba
import numpy as np
from sklearn.exceptions import ConvergenceWarning, DataConversionWarning
from sklearn.utils import check_scalar
from sklearn.utils.multiclass import type_of_target

from . import _numba_cache  # noqa: F401 (olbook's cache locator, before any @njit)

__all__ = [
    "ConvergenceWarning",
    "NonNumericError",
    "check_X",
    "all_finite",
    "non_finite_error",
    "check_gradients",
    "check_start_point",
    "check_X_y",
    "check_labels",
    "check_binary_targets",
    "binary_classes",
    "class_labels",
    "check_target_column",
    "CLASSES",
    "check_positive_int",
    "check_nonnegative_int",
    "check_positive_float",
    "check_nonnegative_float",
    "check_open_unit",
    "check_probability",
    "check_bool",
    "check_rng",
    "describe_values",
    "record_feature_names",
    "check_feature_names",
]


class NonNumericError(TypeError, ValueError):
    """Input that is not numbers (a string, a dict): both a ``ValueError``, as every
    bad input to olbook, and the ``TypeError`` scikit-learn's checks expect."""


#: The labels every binary olbook learner uses inside, and its ``classes_`` for labels -1/+1.
CLASSES = np.array([-1, 1], dtype=np.int64)


def describe_values(values: np.ndarray, limit: int = 6) -> str:
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
    return ValueError(
        f"{name} contains non-finite values: {n_nan} NaN and {n_inf} inf."
    )


def check_start_point(x0) -> np.ndarray:
    """A game learner's first point ``x0``, checked: a new float64 1-D array.

    A non-numeric, empty, non-1-D or non-finite ``x0`` is a ``ValueError`` (OGD, book
    section 5.5, and the learners of chapter 8).
    """
    try:
        x = np.array(x0, dtype=np.float64)
    except (TypeError, ValueError):
        x = np.zeros((0, 0))
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError(
            f"x0 must be a non-empty finite 1-D array; got shape {x.shape}."
        )
    return x


def check_gradients(feedback, d: int, ndim: int) -> np.ndarray:
    """The gradients of a game learner's rounds, checked: a C-contiguous float64 copy.

    ``ndim=1``: one round's gradient, shape ``(d,)``; ``ndim=2``: a block, one row per
    round, shape ``(n_rounds, d)`` with ``n_rounds >= 1``. A non-numeric value, another
    shape or NaN/inf is a ``ValueError`` naming the problem (OGD, book section 5.5, and
    the learners of chapter 8).
    """
    try:
        g = np.array(feedback, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"the gradient must be numeric; could not convert it to float64 ({exc})"
        ) from None
    shape = (d,) if ndim == 1 else (g.shape[0] if g.ndim else 0, d)
    if g.ndim != ndim or g.shape != shape or g.size == 0:
        what = "gradient" if ndim == 1 else "gradients (one row per round)"
        want = f"({d},)" if ndim == 1 else f"(n_rounds, {d})"
        raise ValueError(
            f"the {what} must have shape {want}, the point's dimension; "
            f"got shape {g.shape}."
        )
    if not np.isfinite(g).all():
        raise non_finite_error(g, "gradient")
    return np.ascontiguousarray(g)


def check_X(
    X,
    *,
    n_features: int | None = None,
    name: str = "X",
    finite: bool = True,
    estimator=None,
    allow_empty: bool = False,
) -> np.ndarray:
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
    estimator : object, optional
        The learner that checks ``X``; its class name appears in the message
        of a wrong number of features (in scikit-learn's words).
    allow_empty : bool, default=False
        Accept 0 rows (a point set may be empty; a training set may not).
    """
    # a DataFrame's column names first, as scikit-learn does: a frame with other
    # names may hold NaN where its columns were looked up
    names_first = (
        n_features is not None and estimator is not None and hasattr(X, "columns")
    )
    if names_first:
        check_feature_names(estimator, X)
    if is_sparse(X):
        raise ValueError(
            f"{name} is a sparse {type(X).__name__}: sparse input is not supported "
            f"here; pass a dense array ({name}.toarray())."
        )
    if getattr(X, "dtype", None) is not None and np.dtype(X.dtype).kind == "c":
        raise ValueError(f"Complex data not supported: {name} must be real.")
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise NonNumericError(
            f"{name} must be numeric; could not convert it to float64 ({exc})"
        ) from None
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got {arr.ndim}-D "
            f"with shape {arr.shape}. Reshape your data: X.reshape(-1, 1) for a single "
            "feature, X.reshape(1, -1) for a single example."
        )
    if arr.shape[0] == 0 and not allow_empty:
        raise ValueError(f"{name} is empty: it has 0 examples (shape {arr.shape}).")
    if arr.shape[1] == 0:
        raise ValueError(
            f"{name} has 0 feature(s) (shape={arr.shape}) while a minimum of 1 is required."
        )
    arr = np.ascontiguousarray(arr)
    if finite and not all_finite(arr):
        raise non_finite_error(arr, name)
    if n_features is not None and arr.shape[1] != n_features:
        who = "olbook" if estimator is None else type(estimator).__name__
        raise ValueError(
            f"{name} has {arr.shape[1]} features, but {who} is expecting {n_features} features "
            "as input (the number it was fitted with)."
        )
    if n_features is not None and estimator is not None and not names_first:
        check_feature_names(estimator, X)  # warns if the fit had names and X has none
    return arr


def check_labels(y, *, n_samples: int | None = None, name: str = "y") -> np.ndarray:
    """Return ``y`` as a 1-D float64 array of labels in {-1, +1}, or raise ``ValueError``.

    For the functions of ``(X, y)`` whose meaning needs the signs (margins,
    bounds, separators): labels must already be -1 and +1, olbook never guesses
    which class is the positive one there. Use ``np.where(y == positive, 1, -1)``
    to map other labels. Learners take any two labels
    (:func:`check_binary_targets`).
    """
    try:
        arr = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"{name} must hold the labels -1 and +1; could not convert it ({exc})"
        ) from None
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
            f"labels must be in {{-1, +1}}; found {describe_values(arr)}. "
            "Map them first, e.g. y = np.where(y == positive_class, 1, -1)."
        )
    if n_samples is not None and arr.shape[0] != n_samples:
        raise ValueError(
            f"shape mismatch: X has {n_samples} examples but {name} has {arr.shape[0]} labels."
        )
    return np.ascontiguousarray(arr)


def check_target_column(
    y, *, n_samples: int | None = None, name: str = "y"
) -> np.ndarray:
    """Return the targets ``y`` as a 1-D array (any label type), or raise ``ValueError``.

    A column vector of shape (n, 1) is accepted with scikit-learn's
    ``DataConversionWarning``; ``None``, an empty ``y``, complex, NaN or inf
    labels, and a length other than ``n_samples`` are refused.
    """
    if y is None:
        raise ValueError(
            "this learner requires y to be passed, but the target y is None."
        )
    arr = np.asarray(y)
    if arr.ndim == 2 and arr.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change "
            "the shape of y to (n_samples, ), for example using ravel().",
            DataConversionWarning,
            stacklevel=4,
        )
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D, one label per example; got shape {arr.shape}."
        )
    if arr.size == 0:
        raise ValueError(f"{name} is empty: it has 0 labels.")
    if n_samples is not None and arr.shape[0] != n_samples:
        raise ValueError(
            f"shape mismatch: X has {n_samples} examples but {name} has {arr.shape[0]} labels."
        )
    if arr.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} must hold class labels.")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf; labels must be finite.")
    return arr


def class_labels(arr: np.ndarray, name: str) -> np.ndarray:
    """The sorted distinct labels of ``arr``; continuous targets are refused as scikit-learn does."""
    try:
        kind = type_of_target(arr, input_name=name)
        classes = np.unique(arr)
    except TypeError as exc:
        raise ValueError(
            f"{name} must hold labels of one sortable type ({exc})."
        ) from None
    if kind not in ("binary", "multiclass"):
        raise ValueError(
            f"Unknown label type: {kind!r}. {name} must hold class labels, "
            f"found {classes.size} distinct values such as {classes[:3].tolist()}."
        )
    return classes


def binary_classes(classes, name: str = "classes") -> np.ndarray:
    """``classes_`` for two labels: ``[-1, 1]`` in their dtype if they are -1 and +1, else the two sorted.

    The labels' dtype is kept, as scikit-learn keeps it (int32 labels give an
    int32 ``classes_``, and predictions come back as int32).
    """
    c = np.asarray(classes)
    if c.dtype.kind in "iuf" and c.size and np.all((c == 1) | (c == -1)):
        return CLASSES.astype(c.dtype)
    c = class_labels(c, name)
    if c.size == 1:
        raise ValueError(
            f"{name} has one class, {c.tolist()[0]!r}; a binary classifier needs two classes. Labels -1 "
            "and +1 may come one class at a time; for other labels pass classes= to partial_fit."
        )
    if c.size > 2:
        raise ValueError(
            f"Only binary classification is supported. {name} has {c.size} classes "
            f"{describe_values(c) if c.dtype.kind in 'iuf' else c[:6].tolist()}; this learner takes two "
            "classes (olbook.MulticlassPerceptron and olbook.MulticlassPA take any number)."
        )
    return c


def check_binary_targets(
    y, *, n_samples: int | None = None, classes=None, name: str = "y"
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(labels, classes_)``: ``y`` as float64 -1/+1, and the two classes it names.

    With ``classes=None`` the classes are taken from ``y``, as scikit-learn
    does: labels -1 and +1 (one or both) give ``classes_ = [-1, 1]`` in the
    labels' dtype, any two other labels ``classes_ = np.unique(y)``;
    ``classes_[1]`` is +1 inside the learner, ``classes_[0]`` is -1, and
    predictions are returned as ``classes_[(score > 0)]``. One label other than
    -1/+1, or three labels, is a ``ValueError``. With ``classes`` given
    (``classes_`` of a fitted learner, or the ``classes`` of ``partial_fit``),
    every label must be one of them.
    """
    arr = check_target_column(y, n_samples=n_samples, name=name)
    numeric = arr.dtype.kind in "biuf"
    if classes is None:
        if numeric and np.all((arr == 1) | (arr == -1)) and arr.dtype.kind != "b":
            return np.ascontiguousarray(arr, dtype=np.float64), CLASSES.astype(
                arr.dtype
            )
        classes = binary_classes(arr, name)
    if classes.dtype.kind in "iuf" and np.array_equal(classes, CLASSES) and numeric:
        positive = arr == 1
        known = positive | (arr == -1)
    else:
        positive = np.broadcast_to(np.asarray(arr == classes[1]), arr.shape)
        known = positive | np.broadcast_to(np.asarray(arr == classes[0]), arr.shape)
    if not np.all(known):
        try:
            found = np.unique(arr[~known])[:5]
        except TypeError:
            found = arr[~known][:5]
        raise ValueError(
            f"{name} has labels {np.asarray(found).tolist()} that are not among the "
            f"classes {classes.tolist()} of this learner."
        )
    return np.where(positive, 1.0, -1.0), classes


def check_X_y(
    X, y, *, n_features: int | None = None, finite: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Check examples and labels together (see :func:`check_X`, :func:`check_labels`)."""
    Xa = check_X(X, n_features=n_features, finite=finite)
    ya = check_labels(y, n_samples=Xa.shape[0])
    return Xa, ya


def is_sparse(X) -> bool:
    """True if ``X`` is a ``scipy.sparse`` matrix or array (SciPy is imported only if it is loaded)."""
    import sys

    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


def check_X_sparse(
    X,
    *,
    accept_sparse: bool,
    n_features: int | None = None,
    name: str = "X",
    finite: bool = True,
    estimator=None,
):
    """:func:`check_X`, or, for a ``scipy.sparse`` ``X``, a canonical CSR float64 matrix.

    Canonical: indices sorted within each row and no duplicates (what the
    compiled sparse loops need to add in the fixed order of
    :func:`olbook._rowops.csr_row_score`); ``X`` is copied only if it is not
    already CSR float64 in canonical form. A learner that does not take sparse
    input (``accept_sparse=False``) gets a ``ValueError`` naming it. ``finite``
    checks the stored values for NaN and inf.
    """
    if not is_sparse(X):
        return check_X(
            X, n_features=n_features, name=name, finite=finite, estimator=estimator
        )
    who = "this learner" if estimator is None else type(estimator).__name__
    if not accept_sparse:
        raise ValueError(
            f"{name} is a scipy.sparse matrix, but {who} takes dense arrays only (it keeps an "
            "O(d^2) state or needs whole rows); pass X.toarray() if it fits in memory."
        )
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D; got a sparse array of shape {X.shape}.")
    csr = X.tocsr()
    if csr.dtype != np.float64:
        csr = csr.astype(np.float64)
    if not csr.has_canonical_format:
        csr = csr.copy() if csr is X else csr
        csr.sum_duplicates()
    if csr.shape[0] == 0:
        raise ValueError(f"{name} is empty: it has 0 examples (shape {csr.shape}).")
    if csr.shape[1] == 0:
        raise ValueError(
            f"{name} has 0 feature(s) (shape={csr.shape}) while a minimum of 1 is required."
        )
    if finite and not np.all(np.isfinite(csr.data)):
        raise non_finite_error(csr.data, name)
    if n_features is not None and csr.shape[1] != n_features:
        raise ValueError(
            f"{name} has {csr.shape[1]} features, but {who} is expecting {n_features} features "
            "as input (the number it was fitted with)."
        )
    if n_features is not None and estimator is not None:
        check_feature_names(estimator, X)
    return csr


def record_feature_names(estimator, X) -> None:
    """Set (or remove) ``estimator.feature_names_in_`` from ``X``, as a fit starting afresh does.

    A pandas DataFrame whose column names are all strings gives
    ``feature_names_in_`` (an object array of the names); any other ``X``
    removes it. scikit-learn's :func:`sklearn.utils.validation.validate_data`
    does the work (without checking ``X`` again), so the names, and the warnings
    when a later ``X`` has other names or none, are scikit-learn's.
    """
    from sklearn.utils.validation import validate_data

    validate_data(estimator, X, reset=True, skip_check_array=True)


def check_feature_names(estimator, X) -> None:
    """Compare ``X``'s column names with ``estimator.feature_names_in_`` (scikit-learn's rule).

    Different names, or names where the fit had none (or none where it had
    some), are scikit-learn's ``UserWarning``/``ValueError``; the estimator is
    not changed. Call after the number of features has been checked.
    """
    from sklearn.utils.validation import validate_data

    validate_data(estimator, X, reset=False, skip_check_array=True)


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
    return float(
        _scalar(
            value,
            name,
            numbers.Real,
            "a finite number > 0",
            min_val=0,
            include_boundaries="neither",
        )
    )


def check_nonnegative_float(value, name: str) -> float:
    """Return ``value`` as a float if it is finite and >= 0, else raise ``ValueError``."""
    return float(_scalar(value, name, numbers.Real, "a finite number >= 0", min_val=0))


def check_open_unit(value, name: str) -> float:
    """Return ``value`` as a float if it lies in the open interval (0, 1), else raise ``ValueError``."""
    return float(
        _scalar(
            value,
            name,
            numbers.Real,
            "a number in the open interval (0, 1)",
            min_val=0,
            max_val=1,
            include_boundaries="neither",
        )
    )


def check_probability(value, name: str) -> float:
    """Return ``value`` as a float if it lies in [0, 1], else raise ``ValueError``."""
    return float(
        _scalar(value, name, numbers.Real, "a number in [0, 1]", min_val=0, max_val=1)
    )


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
        isinstance(random_state, numbers.Integral)
        and not isinstance(random_state, bool)
        and random_state >= 0
    ):
        return np.random.default_rng(random_state)
    raise ValueError(
        f"random_state must be None, a non-negative int or a numpy Generator; got {random_state!r}."
    )
