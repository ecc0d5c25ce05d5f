"""The two online interfaces of olbook and their traces.

* :class:`OnlineLearner`: online *classifiers* (the perceptron family and the
  linear and kernel classifiers of the later chapters), scikit-learn estimators
  with ``fit``/``partial_fit`` and a per-round :class:`Trace`;
* :class:`GameLearner`: the learners of a repeated game (chapter 5):
  prediction with expert advice (Halving, Weighted Majority, Hedge) and online
  convex optimization (OGD), with ``reset``, ``predict``, ``update`` and ``run``.

Batch learners (the pocket, the SVM, boosting) are plain scikit-learn
estimators. Every binary classifier computes with the labels -1 and +1 inside
and takes any two labels, as scikit-learn does: ``classes_`` holds them sorted,
``classes_[1]`` is +1 inside (:func:`olbook._validation.check_binary_targets`),
and predictions come back in the original labels. With the labels -1 and +1,
``classes_`` is ``[-1, 1]`` in the labels' dtype, and so are the predictions.

The online protocol (book section 1.1, :ref:`perc-sec-protocol`): at round
:math:`t` the learner sees :math:`\\mathbf x_t`, predicts
:math:`\\hat y_t`, is told :math:`y_t`, and may update. Two different things
are counted per round and kept apart:

* a **mistake**: the prediction was wrong, :math:`\\hat y_t \\ne y_t`;
* an **update**: the learner changed its state.

For the perceptron every mistake causes an update but not conversely (a tie
:math:`f(\\mathbf x_t) = 0` is predicted :math:`-1` yet always updates);
for passive-aggressive learners (chapter 5) updates happen on correct but
low-margin predictions.
"""

from __future__ import annotations

import copy
import re
import textwrap
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._rowops import csr_row_dots, row_dots, rowwise_dots
from ._validation import (
    CLASSES,
    ConvergenceWarning,
    binary_classes,
    check_binary_targets,
    check_bool,
    check_positive_float,
    check_positive_int,
    check_X_sparse,
    is_sparse,
    non_finite_error,
    record_feature_names,
)

__all__ = [
    "CLASSES",
    "BinaryClassifierMixin",
    "Trace",
    "OnlineLearner",
    "GameLearner",
    "GameTrace",
    "LinearPredictorMixin",
    "predict_from_scores",
    "pass_flags",
    "run_pass",
]


def predict_from_scores(
    scores: np.ndarray, classes: np.ndarray = CLASSES
) -> np.ndarray:
    """Labels from real-valued scores: ``classes[1]`` where the score is > 0, else ``classes[0]``.

    With the default ``classes`` (``CLASSES``) the labels are int64 -1 and +1.
    A score of exactly 0 is predicted ``classes[0]``, as in scikit-learn.
    """
    return classes[(np.asarray(scores) > 0.0).astype(np.intp)]


class BinaryClassifierMixin:
    """Tags of a classifier of two classes (scikit-learn's ``__sklearn_tags__``).

    ``multi_class = False``: a third label is a ``ValueError``
    (:func:`olbook._validation.check_binary_targets`); scikit-learn's checks
    then run on two classes only. ``input_tags.sparse`` follows the class
    attribute ``_accepts_sparse`` (CSR input; False unless a learner sets it).
    """

    #: scikit-learn's ``poor_score`` tag: the learner's training accuracy after
    #: its default fit is below the 0.83 that ``check_classifiers_train`` asks of
    #: a batch classifier, because of what the algorithm does (each learner that
    #: sets it says why next to it); the check still runs its other asserts.
    _poor_score: bool = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.classifier_tags.poor_score = bool(self._poor_score)
        tags.input_tags.sparse = bool(getattr(self, "_accepts_sparse", False))
        return tags


class Trace:
    """Per-round record of an online run: which rounds were mistakes, which were updates.

    A learner's ``trace_`` grows with every call to ``partial_fit`` (and is
    started afresh by ``fit``). Round ``t`` (0-based) is the ``t``-th example
    the learner has seen.

    Attributes
    ----------
    mistakes : ndarray of bool, shape (n_rounds,)
        ``mistakes[t]`` is True when the prediction at round ``t`` was wrong.
    updates : ndarray of bool, shape (n_rounds,)
        ``updates[t]`` is True when the learner changed its state at round ``t``.
    epoch_ends : ndarray of int
        Number of rounds seen at the end of each pass over the data.
    """

    def __init__(self) -> None:
        self._mistakes: list[np.ndarray] = []
        self._updates: list[np.ndarray] = []
        self._ends: list[int] = []
        self._cache: tuple[np.ndarray, np.ndarray] | None = None

    def append(self, mistakes: np.ndarray, updates: np.ndarray) -> None:
        """Record one pass: boolean arrays of the same length."""
        m = np.asarray(mistakes, dtype=bool)
        u = np.asarray(updates, dtype=bool)
        if m.shape != u.shape or m.ndim != 1:
            raise ValueError(
                "mistakes and updates must be 1-D boolean arrays of one length."
            )
        self._mistakes.append(m.copy())
        self._updates.append(u.copy())
        self._ends.append(self.n_rounds + m.size)
        self._cache = None

    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self._cache is None:
            if self._mistakes:
                self._cache = (
                    np.concatenate(self._mistakes),
                    np.concatenate(self._updates),
                )
            else:
                self._cache = (np.zeros(0, dtype=bool), np.zeros(0, dtype=bool))
        return self._cache

    @property
    def mistakes(self) -> np.ndarray:
        return self._arrays()[0]

    @property
    def updates(self) -> np.ndarray:
        return self._arrays()[1]

    @property
    def epoch_ends(self) -> np.ndarray:
        return np.asarray(self._ends, dtype=np.int64)

    @property
    def n_rounds(self) -> int:
        return self._ends[-1] if self._ends else 0

    def cumulative_mistakes(self) -> np.ndarray:
        """Number of mistakes made up to and including each round."""
        return np.cumsum(self.mistakes)

    def cumulative_updates(self) -> np.ndarray:
        """Number of updates made up to and including each round."""
        return np.cumsum(self.updates)

    def __repr__(self) -> str:
        return (
            f"Trace(n_rounds={self.n_rounds}, mistakes={int(self.mistakes.sum())}, "
            f"updates={int(self.updates.sum())}, epochs={len(self._ends)})"
        )


class LinearPredictorMixin:
    """``decision_function`` and ``predict`` for a model ``sign(coef_ . x + intercept_)``.

    The fitted attributes have scikit-learn's shapes for a binary linear
    model: ``coef_`` is an array of shape (1, n_features) (its row is the
    book's :math:`\\mathbf w`: ``w = clf.coef_[0]``) and ``intercept_`` an
    array of shape (1,) (``b = clf.intercept_[0]``; 0.0 when the learner
    learns no intercept).
    """

    def _check_fitted(self) -> None:
        check_is_fitted(self, "coef_")

    def decision_function(self, X) -> np.ndarray:
        """Signed score :math:`\\mathbf w^\\top \\mathbf x + b` of each example, shape (n_samples,)."""
        self._check_fitted()
        Xa = check_X_sparse(
            X,
            n_features=self.n_features_in_,
            estimator=self,
            accept_sparse=getattr(self, "_accepts_sparse", False),
        )
        w = np.ascontiguousarray(self.coef_[0])
        b = float(self.intercept_[0])
        if is_sparse(Xa):  # CSR: O(nnz), the bits of the dense rows
            return csr_row_dots(Xa, w) + b
        # same bits on every CPU, unlike BLAS
        return row_dots(Xa, w) + b

    def predict(self, X) -> np.ndarray:
        """Predicted labels, ``classes_[1]`` where the score is > 0, else ``classes_[0]``."""
        return predict_from_scores(self.decision_function(X), self.classes_)


#: The numpydoc entry of the hyper-parameter ``trace`` that every online learner
#: takes; :meth:`OnlineLearner.__init_subclass__` puts it in each learner's docstring.
TRACE_PARAMETER_DOC = """trace : bool, default=True
    Keep the per-round record ``trace_`` (:class:`Trace`: one boolean for the
    mistake and one for the update of every round, 2 bytes a round). With
    ``trace=False`` no per-round array is kept, so a stream of any length is
    learned in memory that does not grow with it: ``mistakes_``,
    ``n_updates_``, ``n_iter_`` and the model are the same, to the bit, and
    the attribute ``trace_`` does not exist (as scikit-learn leaves out an
    attribute whose option is off, e.g. ``oob_score_``). Checked when learning
    starts; a ``partial_fit`` that continues a run must keep the run's value."""


def _with_trace_entry(doc: str | None) -> str | None:
    """``doc`` with :data:`TRACE_PARAMETER_DOC` in its Parameters section.

    The entry goes after the ``max_iter`` entry; a docstring without one gets a
    Parameters section of its own before its first other section.
    """
    if not doc or "trace : bool" in doc:
        return doc
    entry = re.search(r"^( *)max_iter : .*\n(?:\1 +\S.*\n)*", doc, re.MULTILINE)
    if entry is not None:
        pad = entry.group(1)
        text = textwrap.indent(TRACE_PARAMETER_DOC, pad) + "\n"
        return doc[: entry.end()] + text + doc[entry.end() :]
    header = re.search(
        r"^( *)(Attributes|References|Examples|Notes)\n\1-+\n", doc, re.MULTILINE
    )
    pad = header.group(1) if header else "    "
    section = textwrap.indent(
        "Parameters\n----------\nfit_intercept, max_iter\n"
        "    As in the parent class.\n" + TRACE_PARAMETER_DOC + "\n\n",
        pad,
    )
    if header is None:
        return doc.rstrip() + "\n\n" + section
    return doc[: header.start()] + section + doc[header.start() :]


def pass_flags(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two uninitialized boolean arrays of length ``n``: a pass's mistakes and updates."""
    return np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.bool_)


def run_pass(X, dense, csr, *args) -> tuple:
    """One compiled pass over ``X``: the part every learner's ``_epoch`` shares.

    Calls ``dense(X, *args)``, or for a CSR ``X``
    ``csr(X.data, X.indices, X.indptr, *args)``. The loop returns, last,
    the index of the first row holding NaN or inf (-1 if none): then this
    raises the ``ValueError`` of :func:`olbook._validation.non_finite_error`
    (the state arrays passed in were copies, so nothing is changed).
    Returns the loop's other results, as a tuple (empty if it returns only
    the index).
    """
    sparse = is_sparse(X)
    if sparse and csr is None:  # pragma: no cover - check_X_sparse refuses it
        raise ValueError(f"{dense.__name__} has no CSR version.")
    out = csr(X.data, X.indices, X.indptr, *args) if sparse else dense(X, *args)
    rest, bad = (tuple(out[:-1]), out[-1]) if isinstance(out, tuple) else ((), out)
    if bad >= 0:
        raise non_finite_error(X.data if sparse else X)
    return rest


class OnlineLearner(BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
    """Base class of olbook's online learners: ``fit``, ``partial_fit`` and the trace.

    Subclasses implement three methods:

    * ``_validate_params()``: check the hyper-parameters (raise ``ValueError``);
    * ``_init_state(n_features)``: set the state to its starting value;
    * ``_epoch(X, y)``: one pass over the data in the given order, returning
      two boolean arrays ``(mistakes, updates)``. ``X`` has been checked for
      shape but not for NaN/inf: ``_epoch`` must raise ``ValueError`` if it
      meets one (the compiled loops check each row as they read it, so the
      data is read from memory once), and it must *rebind* the state
      attributes, never change their arrays in place, so that a rejected call
      can be undone by restoring the attributes;

    and ``decision_function``. Everything else (input checks, the trace, the
    stopping rule, warnings) lives here, once.

    Every subclass takes the hyper-parameters ``max_iter`` and ``trace`` in its
    ``__init__`` (scikit-learn's ``get_params`` reads the signature);
    ``__init_subclass__`` adds the entry :data:`TRACE_PARAMETER_DOC` to the
    Parameters of each subclass's docstring.

    Attributes
    ----------
    trace_ : Trace
        Per-round mistakes and updates; absent when ``trace=False``.
    mistakes_ : int
        Total number of mistakes (wrong predictions) so far.
    n_updates_ : int
        Total number of updates so far.
    n_iter_ : int
        Passes over the data made by the last ``fit`` (``partial_fit`` adds one);
        at most ``max_iter`` for ``fit``, as scikit-learn's ``Perceptron``.
    converged_ : bool
        Whether the last pass made no update (then further passes over the
        same data change nothing).
    n_features_in_ : int
    classes_ : ndarray of shape (2,)
        The two labels, sorted, in the labels' dtype;
        ``classes_[1]`` is +1 inside.
    """

    max_iter: int
    trace: bool
    #: Stop ``fit`` after a pass with no update. True for learners whose model is
    #: the current state; False for those whose model depends on how long each
    #: state lasted (averaged, voted), where every pass counts.
    _stop_when_converged: bool = True
    #: ``fit``/``partial_fit``/``decision_function`` take ``scipy.sparse`` input (as
    #: canonical CSR, :func:`olbook._validation.check_X_sparse`); ``_epoch`` handles it.
    _accepts_sparse: bool = False
    #: ``fit`` may warn that "the data may not be linearly separable" when its last
    #: pass still updated. True for learners whose updates stop on separable data
    #: (a mistake bound or an update bound: the perceptron family, ROMMA, ALMA,
    #: SOP, IELLIP); False for those that may keep updating there (a margin or a
    #: confidence they never reach, a loss that updates at every round), which
    #: get a plain "max_iter reached" warning instead.
    _updates_mean_not_separable: bool = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__doc__" in cls.__dict__:
            cls.__doc__ = _with_trace_entry(cls.__doc__)

    # --- to be provided by subclasses -------------------------------------------------
    def _validate_params(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _init_state(self, n_features: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _epoch(
        self, X: np.ndarray, y: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:  # pragma: no cover
        raise NotImplementedError

    # --- shared machinery -------------------------------------------------------------
    def _check_classes(self, classes) -> np.ndarray:
        """``classes_`` from the ``classes`` argument of the first ``partial_fit``."""
        return binary_classes(classes)

    def _encode_targets(
        self, y, n_samples: int, classes
    ) -> tuple[np.ndarray, np.ndarray]:
        """Check the labels; return them as the epoch loop reads them, and ``classes_``.

        ``classes`` is None at the start (then taken from ``y``), else the
        classes every label must belong to. Binary learners read -1/+1 (float64,
        :func:`olbook._validation.check_binary_targets`); the multiclass
        learners override this.
        """
        return check_binary_targets(y, n_samples=n_samples, classes=classes)

    #: Hyper-parameters that fix the shape of the state (the bias feature, a
    #: diagonal covariance): a ``partial_fit`` that continues a run must keep the
    #: values the run started with (others may change between calls and take
    #: effect at the next pass, as in scikit-learn's ``partial_fit``).
    _structural_params: tuple[str, ...] = ("fit_intercept", "diagonal")

    def _structure(self) -> dict:
        return {
            p: getattr(self, p) for p in self._structural_params if hasattr(self, p)
        }

    def _check_structure(self) -> None:
        """A continued run keeps the values of :attr:`_structural_params` it started with."""
        started = self.__dict__.get("_started_structure", {})
        changed = [p for p, v in self._structure().items() if started.get(p, v) != v]
        if changed:
            raise ValueError(
                f"{', '.join(changed)} changed since this learner started; "
                "call fit to start again."
            )

    def _check_common(self) -> None:
        """Check the hyper-parameters every online learner shares: ``max_iter`` and,
        where the learner has one, ``fit_intercept`` (``trace`` is checked by
        ``fit``/``partial_fit`` themselves)."""
        check_positive_int(self.max_iter, "max_iter")
        if "fit_intercept" in self.get_params(deep=False):
            check_bool(self.fit_intercept, "fit_intercept")

    def _check_trace(self, continuing: bool) -> bool:
        """The checked value of ``trace``; a continued run must keep its value."""
        keep = check_bool(self.trace, "trace")
        if continuing and keep != hasattr(self, "trace_"):
            raise ValueError(
                f"trace={keep!r} differs from the value of the run that partial_fit "
                "continues; call fit (or a fresh learner) to change it."
            )
        return keep

    _flags = staticmethod(pass_flags)  # for the subclasses' _epoch
    _run_loop = staticmethod(run_pass)

    def _start(
        self, n_features: int, classes: np.ndarray, keep_trace: bool = True, X=None
    ) -> None:
        """A fresh run: ``classes_``, the initial state, ``feature_names_in_`` from ``X``."""
        self.classes_ = classes
        self._started_structure = self._structure()
        self._init_state(n_features)
        if X is None:
            self.__dict__.pop("feature_names_in_", None)
        else:
            record_feature_names(self, X)
        self.n_features_in_ = n_features
        if keep_trace:
            self.trace_ = Trace()
        else:
            self.__dict__.pop("trace_", None)
        self.mistakes_ = 0
        self.n_updates_ = 0
        self.n_iter_ = 0
        self.converged_ = False

    def _record(self, mistakes: np.ndarray, updates: np.ndarray) -> None:
        if "trace_" in self.__dict__:
            self.trace_.append(mistakes, updates)
        self.mistakes_ += int(mistakes.sum())
        self.n_updates_ += int(updates.sum())
        self.n_iter_ += 1
        self.converged_ = not bool(updates.any())

    def fit(self, X, y):
        """Start from the initial state and make up to ``max_iter`` passes over ``(X, y)``.

        The examples are visited in the order given, every pass. For a learner
        whose model is its current state (the perceptron) training stops early
        after the first pass with no update (no example has
        :math:`y f(\\mathbf x) \\le 0`), since further passes would change
        nothing; the averaged and voted perceptrons make all ``max_iter``
        passes, because their model weighs each state by how long it lasted.

        If ``max_iter > 1`` and the last pass still made an update, a
        :class:`~sklearn.exceptions.ConvergenceWarning` says so: on data that is
        not linearly separable the perceptron never stops by itself. (For a
        learner that may keep updating on separable data, such as PA-II, AROW
        or the logistic loss, the warning does not mention separability.)

        Returns
        -------
        self
        """
        self._validate_params()
        epochs = check_positive_int(self.max_iter, "max_iter")
        keep_trace = self._check_trace(continuing=False)
        # _epoch rejects NaN/inf
        Xa = check_X_sparse(
            X, finite=False, accept_sparse=self._accepts_sparse, estimator=self
        )
        ya, classes = self._encode_targets(y, Xa.shape[0], None)
        saved = dict(self.__dict__)
        try:
            self._start(Xa.shape[1], classes, keep_trace, X)
            for _ in range(epochs):
                self._record(*self._epoch(Xa, ya))
                if self.converged_ and self._stop_when_converged:
                    break
        except BaseException:  # a rejected call (or an interrupt) changes nothing
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        if epochs > 1 and not self.converged_:
            why = (
                "; the data may not be linearly separable"
                if self._updates_mean_not_separable
                else ""
            )
            warnings.warn(
                f"{type(self).__name__} still made updates in the last of its {epochs} passes "
                f"(max_iter reached){why}.",
                ConvergenceWarning,
                stacklevel=2,
            )
        return self

    def partial_fit(self, X, y, classes=None):
        """One pass over ``(X, y)`` in order, continuing from the current state.

        The first call starts from the initial state; later calls must have the
        same number of features. This is the online protocol: each example is
        predicted, then its label is used.

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)
        classes : array_like, optional
            Every label of the stream, as scikit-learn's ``partial_fit`` takes it:
            needed on the first call when its ``y`` does not show them all
            (the labels -1 and +1 need no ``classes``). Later calls may repeat it.

        Returns
        -------
        self
        """
        self._validate_params()
        fitted = hasattr(self, "mistakes_")
        keep_trace = self._check_trace(continuing=fitted)
        if fitted:
            self._check_structure()
        Xa = check_X_sparse(
            X,
            n_features=self.n_features_in_ if fitted else None,
            finite=False,
            estimator=self,
            accept_sparse=self._accepts_sparse,
        )
        if classes is not None:
            classes = self._check_classes(classes)
            if fitted and not np.array_equal(classes, self.classes_):
                raise ValueError(
                    f"classes={classes.tolist()} is not the classes_ "
                    f"{self.classes_.tolist()} of the first call to partial_fit."
                )
        if fitted:
            classes = self.classes_
        ya, classes = self._encode_targets(y, Xa.shape[0], classes)
        saved = dict(self.__dict__)
        try:
            if not fitted:
                self._start(Xa.shape[1], classes, keep_trace, X)
            self._record(*self._epoch(Xa, ya))
        except BaseException:  # a rejected call (or an interrupt) changes nothing
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise
        return self

    def predict(self, X) -> np.ndarray:
        """Predicted labels, ``classes_[1]`` where the score is > 0, else ``classes_[0]``."""
        return predict_from_scores(self.decision_function(X), self.classes_)

    def decision_function(self, X) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError


class GameTrace:
    """The rounds of a repeated game: what :meth:`GameLearner.run` returns and ``trace_`` holds.

    One entry (or row) per round, round ``t`` 0-based. Every game learner fills
    ``loss`` and ``cumulative_loss``; the learners of prediction with expert
    advice (Halving, Weighted Majority, Hedge) also ``best_loss`` and
    ``regret``, and those of online convex optimization (OGD) ``points`` and
    ``gradients``. A field a learner does not fill is ``None``.

    Attributes
    ----------
    loss : ndarray of shape (T,)
        The loss the learner paid at each round: the value its ``update``
        returns. 1.0 at a mistake and 0.0 otherwise for Halving and Weighted
        Majority; the expected loss :math:`\\mathbf p_t \\cdot \\boldsymbol\\ell_t`
        for Hedge; the linear loss :math:`\\mathbf g_t^\\top \\mathbf x_t` for OGD
        (the loss of the linearized game, whose regret bounds that of the convex
        losses, book section 5.5, :ref:`regret-sec-ogd`).
    cumulative_loss : ndarray of shape (T,)
        The learner's loss from the start of the game (the last reset) to each
        round, summed left to right: a game played in blocks has the same
        values as one played at once.
    best_loss : ndarray of shape (T,) or None
        Experts: the cumulative loss of the best expert after each round.
    regret : ndarray of shape (T,) or None
        Experts: ``cumulative_loss - best_loss``, the regret after each round.
    points : ndarray of shape (T, d) or None
        OCO: the point :math:`\\mathbf x_t` played at each round.
    gradients : ndarray of shape (T, d) or None
        OCO: the (sub)gradient :math:`\\mathbf g_t` revealed at each round.
    """

    FIELDS = ("loss", "cumulative_loss", "best_loss", "regret", "points", "gradients")

    def __init__(
        self,
        loss: np.ndarray,
        cumulative_loss: np.ndarray,
        *,
        best_loss: np.ndarray | None = None,
        regret: np.ndarray | None = None,
        points: np.ndarray | None = None,
        gradients: np.ndarray | None = None,
    ) -> None:
        self.loss, self.cumulative_loss = loss, cumulative_loss
        self.best_loss, self.regret = best_loss, regret
        self.points, self.gradients = points, gradients

    def __len__(self) -> int:
        return int(self.loss.size)

    def __repr__(self) -> str:
        filled = [f for f in self.FIELDS if getattr(self, f) is not None]
        last = float(self.cumulative_loss[-1]) if len(self) else 0.0
        return (
            f"GameTrace(n_rounds={len(self)}, cumulative_loss={last!r}, "
            f"fields={filled})"
        )

    @classmethod
    def concatenate(cls, chunks) -> GameTrace:
        """One trace from consecutive blocks of rounds of one game."""
        arrays = {}
        for f in cls.FIELDS:
            parts = [getattr(c, f) for c in chunks]
            arrays[f] = None if parts[0] is None else np.concatenate(parts)
        return cls(**arrays)

    def linearized_regret(self, u) -> np.ndarray:
        """OCO: :math:`\\sum_{s \\le t} \\mathbf g_s^\\top (\\mathbf x_s - \\mathbf u)` after each round.

        The regret against ``u`` of the linear losses
        :math:`\\mathbf g_s^\\top \\mathbf x`, which bounds that of the convex
        losses whose (sub)gradients they are (book section 5.5, :ref:`regret-sec-ogd`).
        Computed in a fixed order (the same bits on every CPU).
        """
        if self.points is None:
            raise ValueError(
                "linearized_regret needs the points and gradients of an OCO game; "
                "this trace has none (use regret, the regret against the best expert)."
            )
        u = np.asarray(u, dtype=np.float64)
        if u.shape != (self.points.shape[1],):
            raise ValueError(
                f"u must have shape ({self.points.shape[1]},); got {u.shape}."
            )
        D = np.ascontiguousarray(self.points - u)
        return np.cumsum(rowwise_dots(np.ascontiguousarray(self.gradients), D))


def _same_value(a, b) -> bool:
    """Whether a hyper-parameter still has the value it had when the game started."""
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            np.shape(a) == np.shape(b)
            and np.asarray(a).dtype == np.asarray(b).dtype
            and bool(np.array_equal(a, b))
        )
    try:
        return type(a) is type(b) and bool(a == b)
    except (TypeError, ValueError):
        return False


class GameLearner:
    """Base of the learners of a repeated game: experts (Halving, WM, Hedge) and OCO (OGD).

    The protocol, the same for every game learner (book chapter 5). At round
    :math:`t = 1, 2, \\dots` the learner plays, the environment reveals the
    round's *feedback*, the learner pays a loss and updates:

    * ``predict()`` -> ndarray: what the learner plays at the next round, a
      new array each call: a distribution over the :math:`m` experts (shape
      (m,), summing to 1), or a point :math:`\\mathbf x_t` (shape (d,)). It
      changes nothing.
    * ``update(feedback)`` -> float: play one round. ``feedback`` has shape
      (k,): the losses of the :math:`m` experts, or the (sub)gradient
      :math:`\\mathbf g_t` of the round's loss at the point played. Returns the
      loss the learner paid at that round, a float: the entry of
      :attr:`GameTrace.loss` (1.0 at a mistake, else 0.0, for Halving and
      Weighted Majority; the expected loss for Hedge; the linear loss
      :math:`\\mathbf g_t^\\top \\mathbf x_t` for OGD).
    * ``run(feedback, n_rounds=None, *, reset=True)`` -> :class:`GameTrace`:
      play many rounds. ``feedback`` is an array of shape (T, k) whose row
      ``t`` is round ``t``'s feedback (for OCO, gradients that do not depend on
      the point: linear losses), or a callable ``feedback(t, play)`` that
      returns round ``t``'s feedback (shape (k,)) from what the learner plays
      at that round (``play``, the value of ``predict()``; ``t`` counts from 0
      in this run): an adaptive environment, for which ``n_rounds`` is
      required. With an array ``n_rounds`` is ``None`` or T. With
      ``reset=True`` a new game starts; with ``reset=False`` the game goes on
      and ``trace_`` with it. Returns the trace of these rounds.
    * ``reset()`` -> self: start a new game (the initial state,
      ``n_rounds_ = 0``, an empty ``trace_``).

    Hyper-parameters: ``__init__`` only stores them. They are read and checked
    when a game starts: at :meth:`reset`, at ``run(..., reset=True)``, and at
    the first ``update`` or ``run`` of a learner that has not played yet.
    Before the first game, ``predict``, ``eta_at``, the bounds and the state
    attributes (``n_rounds_``, ``trace_``, ``weights_``, ...) read and check
    them too and show the start of a game, changing nothing. A hyper-parameter changed
    during a game is a ``ValueError`` at the next call that uses the game (the
    rounds played used the old value): :meth:`reset` starts a game with the
    new value.

    Every input is checked before the state changes: a rejected call (a
    ``ValueError``) leaves the learner as it was.

    Attributes
    ----------
    n_rounds_ : int
        Rounds played since the last reset.
    cumulative_loss_ : float
        The learner's loss since the last reset (``trace_.cumulative_loss[-1]``).
    trace_ : GameTrace
        Every round played since the last reset, by ``update`` or ``run``.

    Subclasses implement ``_validate_params()`` (check the hyper-parameters,
    return the settings of a game as a dict; it writes nothing),
    ``_reset_state(settings)``, ``_predict()``,
    ``_check_feedback(feedback, settings, ndim)`` (the checked float64 array
    of one round, ``ndim=1``, or of a block, ``ndim=2``), ``_play(F)`` (play
    the rows of a checked block and return their :class:`GameTrace`; it
    raises, if it must, before it changes the state, and does not record) and
    ``_empty_trace()``.
    """

    #: The names of the hyper-parameters: the arguments of ``__init__``.
    _param_names: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        code = getattr(cls.__init__, "__code__", None)
        if code is not None:
            n = code.co_argcount + code.co_kwonlyargcount
            cls._param_names = code.co_varnames[1:n]

    # --- to be provided by subclasses -------------------------------------------------
    def _validate_params(self) -> dict:  # pragma: no cover - abstract
        raise NotImplementedError

    def _reset_state(self, settings: dict) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _predict(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _check_feedback(
        self, feedback, settings: dict, ndim: int
    ) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _play(self, F: np.ndarray) -> GameTrace:  # pragma: no cover - abstract
        raise NotImplementedError

    def _empty_trace(self) -> GameTrace:  # pragma: no cover - abstract
        raise NotImplementedError

    # --- the hyper-parameters and the game ----------------------------------------------
    def _started(self) -> bool:
        return "_game" in self.__dict__

    def __getattr__(self, name: str):
        # Only for what normal look-up does not find: before the first game, a state
        # attribute (``n_rounds_``, ``weights_``, ...) reads as at the start of one.
        if name.endswith("_") and not name.startswith("_") and not self._started():
            return getattr(self._current(), name)
        raise AttributeError(
            f"{type(self).__name__!r} object has no attribute {name!r}"
        )

    def _checked_eta(
        self, schedules: tuple[str, ...]
    ) -> tuple[float | str, int | None]:
        """The checked step size ``eta`` and ``horizon`` (Hedge, OGD); writes nothing.

        ``eta`` is a number > 0 (returned as a float) or one of ``schedules``;
        ``horizon`` is an integer >= 1 with ``eta="tuned"`` (which needs it)
        and ``None`` otherwise.
        """
        eta, horizon = self.eta, self.horizon
        if isinstance(eta, str):
            if eta not in schedules:
                raise ValueError(
                    f"eta (the step size) must be a number > 0 or one of {schedules}; "
                    f"got {eta!r}."
                )
        else:
            eta = check_positive_float(eta, "eta (the step size)")
        if eta == "tuned":
            horizon = check_positive_int(
                horizon, "horizon (the number of rounds, needed by eta='tuned')"
            )
        elif horizon is not None:
            raise ValueError(
                f"horizon is only used with eta='tuned'; got horizon={horizon!r} "
                f"with eta={eta!r}."
            )
        return eta, horizon

    def _settings(self) -> dict:
        """The checked settings of the game in progress, or of the next one; writes nothing."""
        if not self._started():
            return self._validate_params()
        at_start = self.__dict__["_game_params"]
        for name in self._param_names:
            now = getattr(self, name)
            if not _same_value(now, at_start[name]):
                raise ValueError(
                    f"{name} was changed during the game (from {at_start[name]!r} to "
                    f"{now!r}); the rounds played used the old value. Call reset() "
                    "(or run with reset=True) to start a game with the new value."
                )
        return self.__dict__["_game"]

    def _current(self) -> GameLearner:
        """This learner during a game; before the first, a copy at the start of one."""
        if self._started():
            self._settings()
            return self
        fresh = object.__new__(type(self))
        fresh.__dict__.update(self.__dict__)
        fresh._begin(self._validate_params())
        return fresh

    def _begin(self, settings: dict) -> None:
        """Start a game with checked ``settings``."""
        self._game = settings
        self._game_params = {
            name: (v if callable(v) else copy.deepcopy(v))
            for name, v in ((n, getattr(self, n)) for n in self._param_names)
        }
        self._reset_state(settings)
        self.n_rounds_ = 0
        self.cumulative_loss_ = 0.0
        self._chunks: list[GameTrace] = []
        self._trace: GameTrace | None = None

    def _cumulative(self, loss: np.ndarray) -> np.ndarray:
        """The learner's cumulative loss after each of the rounds ``loss`` that follow
        those played: summed left to right from ``cumulative_loss_``, so a game played
        in blocks has the same bits as one played at once."""
        if loss.size == 1:  # one round (update): the same sum, without the copies
            return np.array([self.cumulative_loss_ + loss[0]])
        return np.cumsum(np.concatenate(([self.cumulative_loss_], loss)))[1:]

    def _record(self, chunk: GameTrace) -> None:
        self._chunks.append(chunk)
        self._trace = None
        self.n_rounds_ += len(chunk)
        self.cumulative_loss_ = float(chunk.cumulative_loss[-1])

    def _saved(self, copy_arrays: bool = True) -> tuple[dict, int]:
        """What :meth:`_restore` needs to undo a call: the attributes (arrays copied,
        unless the call changes no array in place before it can fail)."""
        if copy_arrays:
            saved = {
                k: (v.copy() if isinstance(v, np.ndarray) else v)
                for k, v in self.__dict__.items()
            }
        else:
            saved = dict(self.__dict__)
        return saved, len(self.__dict__.get("_chunks", ()))

    def _restore(self, saved: tuple[dict, int]) -> None:
        attrs, n_chunks = saved
        if "_chunks" in attrs:
            del attrs["_chunks"][n_chunks:]
        self.__dict__.clear()
        self.__dict__.update(attrs)

    def _play_block(self, F: np.ndarray, settings: dict, new_game: bool) -> GameTrace:
        saved = self._saved(copy_arrays=False)  # _play raises before it changes arrays
        try:
            if new_game or not self._started():
                self._begin(settings)
            chunk = self._play(F)
        except BaseException:
            self._restore(saved)
            raise
        self._record(chunk)
        return chunk

    # --- the protocol -----------------------------------------------------------------
    def reset(self):
        """Start a new game: read and check the hyper-parameters, then the initial state,
        ``n_rounds_ = 0`` and an empty ``trace_``. Returns the learner."""
        self._begin(self._validate_params())
        return self

    def predict(self) -> np.ndarray:
        """What the learner plays at the next round (a new array); changes nothing."""
        return self._current()._predict()

    def update(self, feedback) -> float:
        """Play one round with its ``feedback`` (shape (k,)); return the loss paid, a float."""
        settings = self._settings()
        F = self._check_feedback(feedback, settings, 1)
        return float(self._play_block(F[None, :], settings, False).loss[0])

    def run(self, feedback, n_rounds: int | None = None, *, reset: bool = True):
        """Play many rounds; return their :class:`GameTrace`.

        Parameters
        ----------
        feedback : array_like of shape (T, k), or callable
            Row ``t``: the feedback of round ``t``. Or ``feedback(t, play)``,
            the feedback of round ``t`` (``t = 0, ..., n_rounds - 1``) given
            ``play``, what the learner plays at that round.
        n_rounds : int, optional
            The number of rounds: required with a callable; with an array,
            ``None`` or the array's number of rows.
        reset : bool, default=True
            Start a new game; ``False`` continues the current one (and its
            ``trace_``).
        """
        check_bool(reset, "reset")
        settings = self._validate_params() if reset else self._settings()
        if not callable(feedback):
            F = self._check_feedback(feedback, settings, 2)
            if n_rounds is not None and (
                check_positive_int(n_rounds, "n_rounds") != F.shape[0]
            ):
                raise ValueError(
                    f"n_rounds={n_rounds!r}, but the feedback has {F.shape[0]} rows "
                    "(rounds); leave n_rounds out with an array."
                )
            return self._play_block(F, settings, reset)
        T = check_positive_int(n_rounds, "n_rounds (needed with a callable feedback)")
        saved = self._saved()
        try:
            if reset or not self._started():
                self._begin(settings)
            start = len(self._chunks)
            for t in range(T):
                f = self._check_feedback(feedback(t, self._predict()), settings, 1)
                self._record(self._play(f[None, :]))
        except BaseException:
            self._restore(saved)
            raise
        block = GameTrace.concatenate(self._chunks[start:])
        self._chunks[start:] = [block]  # one block instead of T
        return block

    @property
    def trace_(self) -> GameTrace:
        """Every round since the last reset (built from its blocks when asked)."""
        if not self._started():
            return self._current().trace_
        if self._trace is None:
            self._trace = (
                GameTrace.concatenate(self._chunks)
                if self._chunks
                else self._empty_trace()
            )
        return self._trace
