"""The base of olbook's multiclass online classifiers (book sections 6.5 and 6.6).

:class:`MulticlassLearner` turns labels into class indices (``classes_`` holds the
labels sorted, in their dtype), keeps one augmented weight row per class and
publishes ``coef_`` (k, d) and ``intercept_`` (k,), scores every class in a fixed
summation order and predicts the class of largest score (the first one in
``classes_`` on a tie). A learner adds ``_validate_params`` and ``_epoch`` (and,
when it keeps more state than the weights, extends ``_init_state``).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._base import OnlineLearner
from ._rowops import csr_row_dots, row_dots, with_constant_feature
from ._validation import (
    check_target_column,
    check_X_sparse,
    class_labels,
    is_sparse,
)

__all__ = ["MulticlassLearner"]


class MulticlassLearner(OnlineLearner):
    """Labels -> class indices, ``coef_`` of shape (k, d), ``intercept_`` (k,), argmax prediction.

    ``coef_`` keeps one row per class also for two classes (scikit-learn's
    binary linear models keep one): these learners keep and update a weight
    vector per class, and the rows are those vectors. With ``fit_intercept``
    the biases are the weights of a constant feature 1 appended to every
    example.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        return tags

    def _check_classes(self, classes, name: str = "classes") -> np.ndarray:
        classes = class_labels(np.asarray(classes), name)
        if classes.size < 2:
            raise ValueError(
                f"a multiclass learner needs at least 2 classes; {name} has 1 class: "
                f"{list(classes)}."
            )
        return classes

    def _encode_targets(self, y, n_samples, classes):
        arr = check_target_column(y, n_samples=n_samples)
        if classes is None:
            classes = self._check_classes(arr, "y")
        try:
            idx = np.searchsorted(classes, arr)
        except TypeError as exc:
            raise ValueError(
                f"y has labels of another type than the classes {list(classes)} ({exc})."
            ) from None
        idx = np.minimum(idx, classes.size - 1)
        unknown = classes[idx] != arr
        if np.any(unknown):
            raise ValueError(
                f"y has labels not seen when the learner started: {np.unique(arr[unknown])[:5]}; "
                f"its classes are {classes}."
            )
        return idx.astype(np.int64), classes

    def _init_state(self, n_features: int) -> None:
        self._bias_feature = bool(self.fit_intercept)
        self._publish(np.zeros((self.classes_.size, n_features + self._bias_feature)))

    def _publish(self, W: np.ndarray) -> None:
        """Rebind ``coef_`` (k, d) and ``intercept_`` (k,) from the augmented weights ``W``."""
        d = W.shape[1] - self._bias_feature
        self._W = W
        self.coef_ = W[:, :d].copy()
        self.intercept_ = W[:, d].copy() if self._bias_feature else np.zeros(W.shape[0])

    def decision_function(self, X) -> np.ndarray:
        """The score of every class, shape (n_samples, n_classes), summed in a fixed order.

        With two classes, scikit-learn's convention: one column, the score of
        ``classes_[1]`` minus that of ``classes_[0]`` (> 0 predicts ``classes_[1]``).
        """
        self._check_fitted()
        Xa = check_X_sparse(
            X,
            n_features=self.n_features_in_,
            estimator=self,
            accept_sparse=getattr(self, "_accepts_sparse", False),
        )
        A = with_constant_feature(Xa) if self._bias_feature else Xa
        dots = csr_row_dots if is_sparse(A) else row_dots  # CSR: the bits of dense rows
        scores = np.column_stack([dots(A, np.ascontiguousarray(w)) for w in self._W])
        return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores

    def _check_fitted(self) -> None:
        check_is_fitted(self, "coef_")

    def predict(self, X) -> np.ndarray:
        """The class of largest score (the first one in ``classes_`` on a tie)."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0.0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]
