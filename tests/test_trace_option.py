"""``trace=False``: an online learner that keeps no per-round record.

With ``trace=False`` the model and the counts (``coef_``, ``intercept_``,
``mistakes_``, ``n_updates_``, ``n_iter_``, ``converged_``) are bitwise those of
``trace=True``, dense and CSR, through ``fit`` and ``partial_fit``; ``trace_`` does
not exist; a stream of any length takes no memory per round; the learner pickles;
the value is checked when learning starts, and a continued run keeps it.
"""

from __future__ import annotations

import inspect
import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from test_bad_input import ONLINE

import olbook
from olbook import (
    AROW,
    SCW,
    AveragedPerceptron,
    MulticlassPA,
    OGDClassifier,
    PassiveAggressive,
    Perceptron,
    VotedPerceptron,
)
from olbook._base import TRACE_PARAMETER_DOC, OnlineLearner

LEARNERS = {
    "perceptron": lambda **kw: Perceptron(fit_intercept=True, **kw),
    "averaged": lambda **kw: AveragedPerceptron(**kw),
    "voted": lambda **kw: VotedPerceptron(**kw),
    "pa1": lambda **kw: PassiveAggressive("PA-I", C=0.5, **kw),
    "ogd": lambda **kw: OGDClassifier(**kw),
    "arow-diag": lambda **kw: AROW(diagonal=True, fit_intercept=True, **kw),
    "scw2-diag": lambda **kw: SCW("SCW-II", diagonal=True, **kw),
    "multiclass-pa": lambda **kw: MulticlassPA("PA-II", C=0.3, **kw),
    "multiclass-perceptron-prop": lambda **kw: olbook.MulticlassPerceptron(
        sharing="proportional", **kw
    ),
    "multiclass-aromma": lambda **kw: olbook.MulticlassROMMA(aggressive=True, **kw),
    "multiclass-ogd": lambda **kw: olbook.MulticlassOGD(eta=0.5, **kw),
}
STATE = ("coef_", "intercept_", "mistakes_", "n_updates_", "n_iter_", "converged_")


def data(n=300, d=6, seed=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random((n, d)) < 0.5] = 0.0  # sparse enough for CSR to matter
    y = np.where(X @ np.arange(1.0, d + 1.0) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def bits(est):
    out = {}
    for name in STATE:
        v = getattr(est, name, None)
        out[name] = np.asarray(v).tobytes() + str(np.asarray(v).dtype).encode()
    return out


@pytest.mark.parametrize("name", sorted(LEARNERS))
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_same_state_without_trace(name, sparse):
    X, y = data()
    if name.startswith("multiclass"):
        y = np.where(X[:, 0] > 0.3, 2, np.where(X[:, 1] > 0, 1, 0))
    if sparse:
        if not LEARNERS[name]()._accepts_sparse:
            pytest.skip("dense only")
        X = sp.csr_matrix(X)
    with_trace = LEARNERS[name]().set_params(max_iter=3)
    without = LEARNERS[name](trace=False).set_params(max_iter=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", olbook.ConvergenceWarning)
        with_trace.fit(X, y)
        without.fit(X, y)
    assert not hasattr(without, "trace_") and hasattr(with_trace, "trace_")
    assert bits(without) == bits(with_trace)
    assert with_trace.mistakes_ == int(with_trace.trace_.mistakes.sum())
    # partial_fit over uneven chunks, then pickled and continued
    a, b = LEARNERS[name](), LEARNERS[name](trace=False)
    classes = np.unique(y)
    for lo, hi in ((0, 1), (1, 90), (90, 91), (91, 300)):
        a.partial_fit(X[lo:hi], y[lo:hi], classes=classes)
        b.partial_fit(X[lo:hi], y[lo:hi], classes=classes)
        assert bits(a) == bits(b)
    b2 = pickle.loads(pickle.dumps(b))
    assert not hasattr(b2, "trace_") and bits(b2) == bits(b)
    a.partial_fit(X, y)
    b2.partial_fit(X, y)
    assert bits(a) == bits(b2)
    assert a.trace_.n_rounds == 2 * X.shape[0]


def test_no_memory_per_round():
    """2 * 10**5 rounds in chunks of 1,000: trace=False keeps nothing per round."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 4))
    y = np.where(X[:, 0] + X[:, 1] > 0, 1.0, -1.0)
    kept = {}
    for keep in (True, False):
        est = PassiveAggressive(trace=keep).partial_fit(X, y)
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(199):
            est.partial_fit(X, y)
        kept[keep] = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
    assert kept[True] >= 2 * 199 * 1000  # 2 bytes a round
    assert kept[False] < 16 * 1024  # nothing a round (a few small objects)


@pytest.mark.parametrize("cls", ONLINE, ids=lambda c: c.__name__)
def test_every_online_learner_takes_trace(cls):
    assert issubclass(cls, OnlineLearner)
    assert inspect.signature(cls).parameters["trace"].default is True
    assert clone(cls(trace=False)).get_params()["trace"] is False
    first = TRACE_PARAMETER_DOC.splitlines()[0]
    assert first in cls.__doc__, f"{cls.__name__}'s docstring lacks {first!r}"


def test_checked_when_learning_starts():
    X, y = data(40)
    est = Perceptron(trace="no")  # accepted at construction, as scikit-learn does
    with pytest.raises(ValueError, match="trace must be True or False; got 'no'"):
        est.fit(X, y)
    with pytest.raises(ValueError, match="trace"):
        est.partial_fit(X, y)
    assert not hasattr(est, "mistakes_")
    est = Perceptron(trace=False).partial_fit(X, y)
    est.set_params(trace=True)
    with pytest.raises(ValueError, match="differs from the value of the run"):
        est.partial_fit(X, y)
    assert est.n_iter_ == 1 and not hasattr(est, "trace_")
    est.fit(X, y)  # fit starts a new run with the new value
    assert est.trace_.n_rounds == 40
    est.set_params(trace=False).fit(X, y)
    assert not hasattr(est, "trace_")
