"""Speed of olbook.boosting: DecisionStump.fit and a boosting run.

Times, best of 5 runs:
* ``DecisionStump().fit`` on 100,000 x 20 Gaussian data (exact best weighted threshold, all features);
* ``AdaBoost(n_estimators=50).fit`` on ``load_breast_cancer`` (569 x 30), for comparison with
  ``sklearn.ensemble.AdaBoostClassifier(estimator=DecisionStump(), n_estimators=50)``.

Run: ``.venv/bin/python benchmarks/boosting.py``.
"""

import numpy as np
from _timing import best_of
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import AdaBoostClassifier

from olbook import AdaBoost, DecisionStump


def main():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((100_000, 20))
    y = np.where(X[:, 3] + 0.5 * rng.standard_normal(100_000) > 0, 1, -1)
    w = rng.uniform(0.5, 1.5, size=100_000)
    Xc, yc = load_breast_cancer(return_X_y=True)
    yc = np.where(yc == 1, 1, -1)
    cases = [
        ("DecisionStump().fit, 100,000 x 20, weighted", lambda: DecisionStump().fit(X, y, sample_weight=w)),
        ("AdaBoost(50).fit, breast cancer 569 x 30", lambda: AdaBoost(n_estimators=50).fit(Xc, yc)),
        (
            "sklearn AdaBoostClassifier(DecisionStump(), 50).fit, same data",
            lambda: AdaBoostClassifier(estimator=DecisionStump(), n_estimators=50).fit(Xc, yc),
        ),
    ]
    for name, f in cases:
        _, t = best_of(f)
        print(f"{name}: {t:.3f} s")


if __name__ == "__main__":
    main()
