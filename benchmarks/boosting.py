"""Speed of olbook.boosting: DecisionStump.fit and a boosting run, beside scikit-learn.

Times, best of 5 runs:
* ``DecisionStump().fit`` on 100,000 x 20 Gaussian data (exact best weighted threshold,
  all features), beside ``sklearn.tree.DecisionTreeClassifier(max_depth=1)`` on the same
  weighted data (also an exact search, with the Gini criterion);
* ``AdaBoost(n_estimators=50).fit`` on ``load_breast_cancer`` (569 x 30), beside
  ``sklearn.ensemble.AdaBoostClassifier(estimator=DecisionStump(), n_estimators=50)``
  (the same weak learner in scikit-learn's loop).

No target: the ratios (scikit-learn's time / olbook's) are printed and saved.

Run: ``.venv/bin/python benchmarks/boosting.py``.
"""

import numpy as np
from _results import save
from _timing import best_of
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from olbook import AdaBoost, DecisionStump


def main():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((100_000, 20))
    y = np.where(X[:, 3] + 0.5 * rng.standard_normal(100_000) > 0, 1, -1)
    w = rng.uniform(0.5, 1.5, size=100_000)
    Xc, yc = load_breast_cancer(return_X_y=True)
    yc = np.where(yc == 1, 1, -1)
    pairs = [
        (
            "DecisionStump().fit, 100,000 x 20, weighted",
            lambda: DecisionStump().fit(X, y, sample_weight=w),
            "sklearn DecisionTreeClassifier(max_depth=1).fit, same data",
            lambda: DecisionTreeClassifier(max_depth=1).fit(X, y, sample_weight=w),
        ),
        (
            "AdaBoost(50).fit, breast cancer 569 x 30",
            lambda: AdaBoost(n_estimators=50).fit(Xc, yc),
            "sklearn AdaBoostClassifier(DecisionStump(), 50).fit, same data",
            lambda: AdaBoostClassifier(estimator=DecisionStump(), n_estimators=50).fit(
                Xc, yc
            ),
        ),
    ]
    rows = []
    for name, f, peer, g in pairs:
        _, t = best_of(f)
        _, t_peer = best_of(g)
        ratio = t_peer / t
        print(f"{name}: {t:.3f} s; {peer}: {t_peer:.3f} s; olbook {ratio:.2f}x as fast")
        rows.append(
            {
                "case": name,
                "seconds": round(t, 4),
                "peer": peer,
                "reference_s": round(t_peer, 4),
                "ratio": round(ratio, 3),
                "target_kind": "speed-up (no target)",
            }
        )
    save(
        "boosting",
        rows,
        notes="best of 5; no target, ratios for information",
    )


if __name__ == "__main__":
    main()
