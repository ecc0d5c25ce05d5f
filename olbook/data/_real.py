"""scikit-learn's bundled real data sets as binary problems with labels ±1 (book section 1.7)."""

from __future__ import annotations

import numpy as np

# name -> what the data set is and which class is +1
REAL_DATASETS = {
    "breast_cancer": "Wisconsin diagnostic breast cancer, 569 x 30: malignant +1, benign -1",
    "iris_setosa": "Iris, 150 x 4: setosa +1, versicolor and virginica -1 (linearly separable)",
    "iris_versicolor_virginica": "Iris, 100 x 4: versicolor +1, virginica -1 (not linearly separable)",
    "wine": "Wine, 178 x 13: cultivar 0 +1, cultivars 1 and 2 -1",
    "digits_3_vs_8": "Digits, 357 x 64 (8x8 images): digit 3 +1, digit 8 -1",
}


def load_binary(
    name: str, *, standardize: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Load one of scikit-learn's bundled data sets as a binary problem with labels ±1.

    Nothing is downloaded: these data files ship inside scikit-learn.

    Parameters
    ----------
    name : str
        One of the keys of :data:`REAL_DATASETS`: ``"breast_cancer"``,
        ``"iris_setosa"``, ``"iris_versicolor_virginica"``, ``"wine"``,
        ``"digits_3_vs_8"``.
    standardize : bool, default=False
        Scale every feature to mean 0 and standard deviation 1 (over the whole
        set; constant features are left at 0).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), values in {-1, +1}
    """
    from sklearn import datasets

    if name == "breast_cancer":
        data = datasets.load_breast_cancer()
        X, y = data.data, np.where(data.target == 0, 1, -1).astype(np.int64)
    elif name == "iris_setosa":
        data = datasets.load_iris()
        X, y = data.data, np.where(data.target == 0, 1, -1).astype(np.int64)
    elif name == "iris_versicolor_virginica":
        data = datasets.load_iris()
        keep = data.target > 0
        X, y = data.data[keep], np.where(data.target[keep] == 1, 1, -1).astype(np.int64)
    elif name == "wine":
        data = datasets.load_wine()
        X, y = data.data, np.where(data.target == 0, 1, -1).astype(np.int64)
    elif name == "digits_3_vs_8":
        data = datasets.load_digits()
        keep = (data.target == 3) | (data.target == 8)
        X, y = data.data[keep], np.where(data.target[keep] == 3, 1, -1).astype(np.int64)
    else:
        raise ValueError(
            f"unknown data set {name!r}; choose one of {sorted(REAL_DATASETS)}."
        )
    X = np.ascontiguousarray(X, dtype=np.float64)
    if standardize:
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return X, y
