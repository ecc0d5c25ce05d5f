"""Every public olbook learner under bad input: one suite, learners found by introspection.

A learner is every public class of ``olbook`` or of one of its public modules
that is a scikit-learn estimator with ``fit`` or a :class:`olbook._base.GameLearner`
(experts, OCO). A new learner is covered without editing this file; a new
hyper-parameter name needs its invalid values in ``INVALID`` (a test says so).

Cases, for each estimator: NaN and +-inf in X; X and y of different lengths; 1-D X;
empty X (no example, no feature); ``partial_fit`` and ``predict`` with another number of
features; every invalid hyper-parameter (a ``ValueError`` at ``fit`` naming the
parameter and the value, the fitted state unchanged, compared bitwise); an all-zero
example and all-zero data under ``np.errstate(all="raise")`` with warnings as errors;
features of magnitude 1e150 and 1e-150 (a finite state, or a clear ``ValueError``);
and 10**6 examples streamed through ``partial_fit`` with no memory growth beyond the
learner's state (tracemalloc). The game learners get the same cases in their own
terms (losses or gradients instead of X; hyper-parameters are checked when they are
built, since they have no ``fit``).
"""

from __future__ import annotations

import importlib
import inspect
import math
import pickle
import pkgutil
import struct
import tracemalloc
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone

import olbook
from olbook import kernels
from olbook._base import GameLearner, OnlineLearner
from olbook.kernel_online import StoredExamplesLearner


def _public_modules() -> list:
    mods = [olbook]
    for info in pkgutil.iter_modules(olbook.__path__):
        if not info.name.startswith("_"):
            mods.append(importlib.import_module(f"olbook.{info.name}"))
    return mods


def _is_learner(obj) -> bool:
    if not inspect.isclass(obj) or obj.__name__.startswith("_"):
        return False
    if issubclass(obj, GameLearner):
        return obj is not GameLearner
    if not (issubclass(obj, BaseEstimator) and hasattr(obj, "fit")):
        return False
    if issubclass(
        obj, OnlineLearner
    ):  # the abstract bases define no pass over the data
        return obj._epoch is not OnlineLearner._epoch
    return True


def public_learners() -> list[type]:
    """Every public learner class of olbook and its public modules, by name."""
    found = {}
    for mod in _public_modules():
        for name in getattr(mod, "__all__", dir(mod)):
            obj = getattr(mod, name, None)
            if _is_learner(obj):
                found[obj.__name__] = obj
    return [found[k] for k in sorted(found)]


LEARNERS = public_learners()
ESTIMATORS = [c for c in LEARNERS if issubclass(c, BaseEstimator)]
GAMES = [c for c in LEARNERS if issubclass(c, GameLearner)]
ONLINE = [c for c in ESTIMATORS if hasattr(c, "partial_fit")]
STORED = (StoredExamplesLearner,)
ids = [c.__name__ for c in LEARNERS]


def test_introspection_finds_every_learner():
    names = {c.__name__ for c in LEARNERS}
    assert {
        "Perceptron",
        "Pocket",
        "SVM",
        "AdaBoost",
        "DecisionStump",
        "MulticlassPA",
        "NORMA",
        "Forgetron",
        "Halving",
        "WeightedMajority",
        "Hedge",
        "OGD",
    } <= names
    assert not names & {"OnlineLearner", "StoredExamplesLearner", "GameLearner"}
    assert len(ESTIMATORS) >= 26 and len(GAMES) >= 7
    assert {"FTL", "FTRL", "OMD"} <= names


# --------------------------------------------------------------------------- data
def data(n: int = 40, d: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X @ np.arange(1.0, d + 1.0) > 0, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    return X, y


def fitted(cls, X=None, y=None):
    X0, y0 = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls().fit(X0 if X is None else X, y0 if y is None else y)


def freeze(obj, depth: int = 0):
    """A comparable, bitwise image of a learner's state (arrays by dtype, shape and bytes)."""
    if depth > 6:
        return repr(type(obj))
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            return (
                "object-array",
                obj.shape,
                tuple(freeze(v, depth + 1) for v in obj.ravel()),
            )
        return ("array", obj.dtype.str, obj.shape, np.ascontiguousarray(obj).tobytes())
    if isinstance(obj, float | np.floating):
        return ("float", struct.pack("<d", float(obj)))
    if isinstance(obj, bool | int | str | bytes | type(None) | np.integer | np.bool_):
        return (type(obj).__name__, obj)
    if isinstance(obj, list | tuple):
        return (type(obj).__name__, tuple(freeze(v, depth + 1) for v in obj))
    if isinstance(obj, dict):
        return ("dict", tuple((k, freeze(v, depth + 1)) for k, v in obj.items()))
    if isinstance(obj, np.random.Generator):
        return ("rng", repr(obj.bit_generator.state))
    if isinstance(obj, olbook.Trace):
        return (
            "Trace",
            freeze(obj.mistakes),
            freeze(obj.updates),
            freeze(obj.epoch_ends),
        )
    if (
        isinstance(obj, kernels.Kernel)
        or callable(obj)
        and not hasattr(obj, "__dict__")
    ):
        return ("callable", repr(obj))
    if hasattr(obj, "__dict__"):
        return (type(obj).__name__, freeze(dict(obj.__dict__), depth + 1))
    return ("repr", repr(obj))


def state(est) -> tuple:
    """Every attribute of ``est`` (hyper-parameters included), deep and bitwise."""
    return freeze(dict(est.__dict__))


def assert_rejected(est, call, match: str | None = None):
    """``call()`` raises ValueError (matching ``match``) and leaves ``est`` bitwise unchanged."""
    before = state(est)
    with pytest.raises(ValueError, match=match):
        call()
    assert state(est) == before, (
        f"{type(est).__name__}: a rejected call changed the state"
    )


# --------------------------------------------------------------------------- bad data
@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "+inf", "-inf"])
def test_non_finite_X(cls, bad):
    X, y = data()
    Xb = X.copy()
    Xb[7, 1] = bad
    est = fitted(cls)
    assert_rejected(est, lambda: est.fit(Xb, y), "non-finite|NaN|inf")
    assert_rejected(cls(), lambda: cls().fit(Xb, y), "non-finite|NaN|inf")
    if hasattr(est, "partial_fit"):
        assert_rejected(est, lambda: est.partial_fit(Xb, y), "non-finite|NaN|inf")
    assert_rejected(est, lambda: est.predict(Xb), "non-finite|NaN|inf")


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_lengths_differ(cls):
    X, y = data()
    est = fitted(cls)
    assert_rejected(est, lambda: est.fit(X, y[:-1]), "40 examples but y has 39")
    if hasattr(est, "partial_fit"):
        assert_rejected(
            est, lambda: est.partial_fit(X[:-1], y), "39 examples but y has 40"
        )


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_one_dimensional_X(cls):
    X, y = data()
    est = fitted(cls)
    assert_rejected(est, lambda: est.fit(X[:, 0], y), "2-D")
    assert_rejected(est, lambda: est.predict(X[0]), "2-D")
    if hasattr(est, "partial_fit"):
        assert_rejected(est, lambda: est.partial_fit(X[0], y[:1]), "2-D")


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_empty_X(cls):
    X, y = data()
    est = fitted(cls)
    assert_rejected(est, lambda: est.fit(X[:0], y[:0]), "empty")
    assert_rejected(est, lambda: est.fit(X[:, :0], y), "0 feature")
    assert_rejected(est, lambda: est.predict(X[:0]), "empty")
    if hasattr(est, "partial_fit"):
        assert_rejected(est, lambda: est.partial_fit(X[:0], y[:0]), "empty")


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_other_number_of_features(cls):
    X, y = data()
    est = fitted(cls)
    msg = f"X has 2 features, but {cls.__name__} is expecting 3 features"
    assert_rejected(est, lambda: est.predict(X[:, :2]), msg)
    assert_rejected(est, lambda: est.decision_function(X[:, :2]), msg)
    if hasattr(est, "partial_fit"):
        assert_rejected(est, lambda: est.partial_fit(X[:, :2], y), msg)
        assert_rejected(
            est, lambda: est.partial_fit(np.hstack([X, X]), y), "X has 6 features"
        )


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_bad_labels(cls):
    """A third label, or one label other than -1/+1, is a ValueError (binary learners)."""
    X, y = data()
    est = fitted(cls)
    y3 = np.where(y > 0, 1, 0)
    y3[:3] = 2
    if est.__sklearn_tags__().classifier_tags.multi_class:
        return
    assert_rejected(
        est, lambda: est.fit(X, y3), "Only binary classification is supported"
    )
    assert_rejected(est, lambda: est.fit(X, np.full(len(y), 7)), "one class")
    assert_rejected(est, lambda: est.fit(X, y + 0.5), "Unknown label type")


# --------------------------------------------------------------------------- hyper-parameters
NAN = float("nan")
#: parameter name -> invalid values (each a ValueError at fit naming the name and the value).
INVALID: dict[str, list] = {
    "C": [-1.0, 0.0, NAN, "1"],
    "B": [-1.0, 0.0],
    "a": [0.0, -1.0, math.inf],
    "b": [0.0, -1.0, NAN],
    "c": [0.0, 1.0, -0.5],
    "r": [0.0, -1.0],
    "eta": [0.0, -0.5, NAN],
    "eta0": [0.0, -1.0],
    "lam": [-0.1, math.inf],
    "rho": [-1.0],
    "nu": [0.0, 1.0, 1.5],
    "alpha": [0.0, 1.5, -1.0],
    "p": [1, 3],
    "tol": [-1.0, NAN],
    "tie_tol": [-1.0, NAN],
    "epsilon": [0.0, -0.1],
    "max_iter": [0, -1, 1.5, "10"],
    "n_estimators": [0, -3],
    "budget": [0, -1, 2.5],
    "truncation": [0, -1],
    "cache_size": [0.0, -1.0],
    "variant": ["PA-III", "III"],
    "loss": ["bogus"],
    "schedule": ["bogus"],
    "policy": ["bogus"],
    "kernel": ["rbf", 3],
    "estimator": ["stump"],
    "fit_intercept": ["yes", 2],
    "diagonal": ["yes"],
    "aggressive": ["yes"],
    "sharing": ["bogus", "Max", 0],
    "covariance": ["diagonal", "Full", 1],
    "shrinking": ["yes", 1],
    "random_state": [-1, "seed"],
    "trace": ["yes", 1, None],
    "delta": [-1.0, NAN],
    "initial_wealth": [0.0, -1.0, NAN],
    "lipschitz": [0.0, -1.0, NAN],
}
#: values that are invalid only for some learners: (class name, parameter) -> values.
INVALID_FOR = {
    ("ConfidenceWeighted", "confidence"): [0.5, 0.3, 1.0, NAN],  # Phi^-1 <= 0, or inf
    ("SCW", "confidence"): [0.5, 0.3, 1.0, NAN],
    ("SCW", "variant"): ["I", "II"],  # the old spellings: the paper's are SCW-I, SCW-II
    ("MulticlassCW", "confidence"): [0.5, 0.3, 1.0, NAN],
    ("MulticlassSCW", "confidence"): [0.5, 0.3, 1.0, NAN],
    ("MulticlassSCW", "variant"): ["I", "II"],
    ("Boosting", "n_estimators"): [4],  # the vote must have no tie
    ("IELLIP", "decay"): [0.0, -0.3, 1.5, NAN],
    ("Pocket", "max_updates"): [-1, 1.5, "10", True],  # 0 is valid: the pocket holds 0
}
#: parameters whose joint values are invalid: class name -> list of (params, names).
INVALID_JOINT = {
    "NORMA": [
        ({"eta": 1.0, "lam": 1.0}, ("eta", "lam")),
        ({"eta": 2.0, "lam": 0.75}, ("eta", "lam")),
        ({"loss": "logistic", "nu": 0.5}, ("nu", "loss")),
    ],
}
#: values listed in INVALID that are valid for one learner: (class name, parameter) -> values.
VALID_FOR: dict = {}


def _invalid_cases():
    for cls in ESTIMATORS:
        for name in sorted(cls().get_params()):
            valid = VALID_FOR.get((cls.__name__, name), [])
            for value in INVALID.get(name, []) + INVALID_FOR.get(
                (cls.__name__, name), []
            ):
                if any(value is v or value == v for v in valid):
                    continue
                yield pytest.param(
                    cls, {name: value}, (name,), id=f"{cls.__name__}-{name}={value!r}"
                )
        for params, names in INVALID_JOINT.get(cls.__name__, []):
            yield pytest.param(cls, params, names, id=f"{cls.__name__}-{params}")


def test_every_parameter_has_invalid_values():
    """A new hyper-parameter is caught here until its invalid values are listed."""
    missing = {
        f"{cls.__name__}.{name}"
        for cls in ESTIMATORS
        for name in cls().get_params()
        if name not in INVALID and (cls.__name__, name) not in INVALID_FOR
    }
    assert not missing, f"list invalid values for: {sorted(missing)}"


@pytest.mark.parametrize(("cls", "params", "names"), list(_invalid_cases()))
def test_invalid_hyper_parameter(cls, params, names):
    X, y = data()
    est = cls(**params)  # accepted at construction, as scikit-learn does
    with pytest.raises(ValueError) as info:
        est.fit(X, y)
    message = str(info.value)
    for name in names:
        assert name in message, message
    for value in params.values():
        assert repr(value) in message or str(value) in message, message
    assert not hasattr(est, "n_features_in_")  # nothing fitted
    est = fitted(cls)
    before = freeze({k: v for k, v in est.__dict__.items() if k not in params})
    est.set_params(**params)
    with pytest.raises(ValueError):
        est.fit(X, y)
    if hasattr(est, "partial_fit"):
        with pytest.raises(ValueError):
            est.partial_fit(X, y)
    assert freeze({k: v for k, v in est.__dict__.items() if k not in params}) == before


# --------------------------------------------------------------------------- numerics
def _finite_state(est) -> None:
    """Every float in the learner's state is finite (deep)."""

    def walk(obj, path, depth=0):
        if depth > 6:
            return
        if isinstance(obj, np.ndarray) and obj.dtype.kind == "f":
            assert np.all(np.isfinite(obj)), (
                f"{type(est).__name__}.{path} is not finite"
            )
        elif isinstance(obj, float | np.floating) and path.split(".")[-1] not in (
            "threshold_",
            "margin_",
        ):
            assert math.isfinite(obj), f"{type(est).__name__}.{path} = {obj!r}"
        elif isinstance(obj, list | tuple):
            for i, v in enumerate(obj):
                walk(v, f"{path}[{i}]", depth + 1)
        elif isinstance(obj, BaseEstimator):
            for k, v in obj.__dict__.items():
                walk(v, f"{path}.{k}", depth + 1)

    for key, value in est.__dict__.items():
        walk(value, key)


#: learners that refuse an all-zero example by design, with the reason.
ZERO_EXAMPLE_REFUSED = {
    "NormalizedPerceptron": "it scales every example to unit norm; the zero vector has no direction",
}


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_all_zero_example(cls):
    X, y = data()
    Xz = X.copy()
    Xz[0] = 0.0  # first (from the initial state) and in the middle
    Xz[20] = 0.0
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", olbook.ConvergenceWarning)
        warnings.simplefilter("ignore", olbook.WeakLearnerWarning)
        if cls.__name__ in ZERO_EXAMPLE_REFUSED:
            with pytest.raises(ValueError, match="zero"):
                cls().fit(Xz, y)
            return
        est = cls().fit(Xz, y)
        _finite_state(est)
        assert np.all(np.isfinite(est.decision_function(Xz)))
        if hasattr(est, "partial_fit"):
            est.partial_fit(np.zeros((3, 3)), y[:3])
            _finite_state(est)
            fresh = cls().partial_fit(np.zeros((3, 3)), y[:3])
            _finite_state(fresh)
            assert np.all(np.isfinite(fresh.decision_function(X)))


#: learners for which features of magnitude 1e150 or 1e-150 are not well defined: reason.
MAGNITUDE_REFUSED: dict[str, str] = {}


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("scale", [1e150, 1e-150])
def test_extreme_magnitudes(cls, scale):
    """Features of magnitude 1e150 or 1e-150: a finite state, or a clear ValueError."""
    X, y = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", olbook.ConvergenceWarning)
        warnings.simplefilter("ignore", olbook.WeakLearnerWarning)
        if cls.__name__ in MAGNITUDE_REFUSED:
            with pytest.raises(ValueError, match="magnitude"):
                cls().fit(X * scale, y)
            return
        est = cls().fit(X * scale, y)
        _finite_state(est)
        f = est.decision_function(X * scale)
        assert not np.any(np.isnan(f))
        if hasattr(est, "partial_fit"):
            est.partial_fit(X * scale, y)
            _finite_state(est)


# --------------------------------------------------------------------------- streaming memory
N_STREAM, CHUNK, D = 10**6, 10**4, 5
#: parameters that give a learner a bounded state: (reason).
STREAM_PARAMS = {
    "NORMA": {
        "budget": 100
    },  # without a budget NORMA stores every update (its definition)
    "KernelPerceptron": {
        "kernel": kernels.linear
    },  # stores its mistakes: few on separable data
    "BudgetPerceptron": {"budget": 100},
    "Forgetron": {"budget": 100},
}


def _state_bytes(est) -> int:
    total = 0
    seen = set()

    def walk(obj, depth=0):
        nonlocal total
        if id(obj) in seen or depth > 6:
            return
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            total += obj.nbytes
        elif isinstance(obj, olbook.Trace):
            for a in (*obj._mistakes, *obj._updates):
                total += a.nbytes + 128
            if obj._cache is not None:
                total += sum(a.nbytes for a in obj._cache)
            total += 64 * len(obj._ends)
        elif isinstance(obj, list | tuple):
            for v in obj:
                walk(v, depth + 1)
        elif isinstance(obj, dict):
            for v in obj.values():
                walk(v, depth + 1)

    walk(est.__dict__)
    return total


@pytest.mark.parametrize("cls", ONLINE, ids=lambda c: c.__name__)
def test_stream_memory(cls):
    """10**6 examples (d = 5) in chunks of 10**4: memory grows by the learner's state only."""
    rng = np.random.default_rng(1)
    u = np.arange(1.0, D + 1.0)
    est = cls(**STREAM_PARAMS.get(cls.__name__, {}))
    X = rng.normal(size=(CHUNK, D))
    s = X @ u
    # separable with a margin: every learner's state (voted perceptron, kernel
    # perceptron) stays small
    X = X[np.abs(s) > 0.5 * np.linalg.norm(u)]
    y = np.where(X @ u > 0, 1.0, -1.0)
    multi = est.__sklearn_tags__().classifier_tags.multi_class
    est.partial_fit(X, y, classes=[-1.0, 1.0]) if multi else est.partial_fit(X, y)
    seen = X.shape[0]
    tracemalloc.start()
    try:
        state0 = _state_bytes(est)
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        while seen < N_STREAM:
            est.partial_fit(X, y)
            seen += X.shape[0]
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Only what was allocated during the stream is traced: what it retains must be the
    # state (which may have been reallocated, so compare with all of it, not its growth),
    # and the per-round trace (2 bytes a round) is part of the state by design.
    kept = _state_bytes(est)
    assert (
        kept - state0 <= 2 * N_STREAM + 64 * (N_STREAM // X.shape[0] + 1) + 1024 * 1024
    )
    assert current - base <= kept + 256 * 1024, (current - base, kept)
    assert peak - base <= kept + 8 * X.nbytes + 1024 * 1024, (peak - base, kept)
    assert est.trace_.n_rounds == seen
    if isinstance(est, STORED) and hasattr(est, "budget") or cls.__name__ == "NORMA":
        assert est.dual_coef_.shape == (1, est.support_vectors_.shape[0])
        assert est.dual_coef_.shape[1] <= 100


# --------------------------------------------------------------------------- game learners
def oco_base() -> dict[str, dict]:
    """The hyper-parameters of each OCO game learner in R^3 (a step size 0.1 where it has one)."""
    from olbook.oco import Ball, Euclidean

    return {
        "OGD": {"x0": np.zeros(3), "eta": 0.1},
        "FTL": {"feasible_set": Ball(10.0), "dim": 3},
        "FTRL": {
            "regularizer": Euclidean(),
            "eta": 0.1,
            "feasible_set": Ball(10.0),
            "dim": 3,
        },
        "OMD": {
            "mirror_map": Euclidean(),
            "eta": 0.1,
            "feasible_set": Ball(10.0),
            "dim": 3,
        },
        "AdaGrad": {"x0": np.zeros(3), "eta": 0.1},
        "CoinBetting": {"x0": np.zeros(3), "lipschitz": 100.0},
        "ONS": {"x0": np.zeros(3), "gamma": 0.5, "a": 1.0},
    }


def make_game(cls):
    """A game learner with 3 experts (or a point in R^3), and its kind."""
    sig = inspect.signature(cls)
    if "n_experts" in sig.parameters:
        return cls(3), "experts"
    base = oco_base()
    if cls.__name__ == "OGD":
        return cls(**base["OGD"], projection=olbook.ogd.project_ball(10.0)), "oco"
    if cls.__name__ in base:
        return cls(**base[cls.__name__]), "oco"
    raise AssertionError(f"add how to build {cls.__name__} to make_game (oco_base)")


def play(game, kind, rounds: int = 5, seed: int = 0):
    rng = np.random.default_rng(seed)
    if kind == "oco":
        for _ in range(rounds):
            game.update(rng.normal(size=3))
        return
    L = (rng.random((rounds, 3)) < 0.5).astype(float)
    L[:, 0] = 0.0  # a perfect expert, for Halving
    game.run(L, reset=False)


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.__name__)
def test_game_bad_input(cls):
    game, kind = make_game(cls)
    play(game, kind)
    good = np.array([0.0, 1.0, 0.0])
    bads = []
    for bad in (np.nan, np.inf, -np.inf):
        v = good.copy()
        v[1] = bad
        bads.append((v, "non-finite|NaN|inf"))
    bads += [
        (good[:2], "experts|shape"),
        (good[None, :], "shape|1-D"),
        (good[:0], "empty|shape"),
    ]
    for v, match in bads:
        assert_rejected(game, lambda v=v: game.update(v), match)
    if kind == "experts":
        M = np.zeros((4, 3))
        M[2, 1] = np.nan
        assert_rejected(game, lambda: game.run(M, reset=False), "non-finite")
        assert_rejected(
            game, lambda: game.run(np.zeros((4, 2)), reset=False), "experts"
        )
        assert_rejected(game, lambda: game.run(np.zeros(3), reset=False), "2-D")
        assert_rejected(game, lambda: game.run(np.zeros((0, 3)), reset=False), "empty")
    else:
        assert_rejected(
            game,
            lambda: game.run(lambda t, x: np.full(3, np.nan), 3, reset=False),
            "non-finite",
        )
        assert_rejected(
            game, lambda: game.run(lambda t, x: np.zeros(3), 0, reset=False), "n_rounds"
        )


GAME_INVALID = {
    "n_experts": [0, -1, 2.5],
    "beta": [0.0, 1.0, 1.5, -0.5],
    "eta": [0.0, -1.0, NAN, "bogus"],
    "horizon": [0, -5],
    "bounded": ["yes"],
    "x0": [[], [[1.0, 2.0]], [np.nan]],
    "diameter": [0.0, -1.0],
    "lipschitz": [0.0, -1.0],
    "projection": ["ball"],
    "dim": [0, -1, 2.5, "3"],
    "feasible_set": ["ball", 2.0],
    "regularizer": ["euclidean", None],
    "mirror_map": ["euclidean", None],
    "diagonal": ["yes"],
    "delta": [-1.0, NAN],
    "initial_wealth": [0.0, -1.0],
    "gamma": [0.0, -1.0, NAN],
    "a": [0.0, -1.0, NAN],
    "strong_convexity": [0.0, -1.0, NAN],
}


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.__name__)
def test_game_invalid_parameters(cls):
    """A game learner's __init__ only stores its parameters; the start of a game (reset,
    the first update or run) checks them, and a rejected start changes nothing."""
    _, kind = make_game(cls)
    base = {"n_experts": 3} if kind == "experts" else oco_base()[cls.__name__]
    names = [n for n in inspect.signature(cls).parameters]
    for name in names:
        assert name in GAME_INVALID, f"list invalid values of {cls.__name__}.{name}"
        for value in GAME_INVALID[name]:
            if name == "horizon":
                kw = {**base, "eta": "tuned", "horizon": value}
                if kind == "oco":
                    kw |= {"diameter": 1.0, "lipschitz": 1.0}
            else:
                kw = {**base, name: value}
            game = cls(**kw)
            assert_rejected(game, game.reset, name)
            assert_rejected(game, lambda g=game: g.update(np.zeros(3)), name)
            assert_rejected(game, lambda g=game: g.run(np.zeros((2, 3))), name)
            started = cls(**base).reset()
            setattr(started, name, value)  # set on a learner between two games
            assert_rejected(started, started.reset, name)
    if cls.__name__ == "OGD":
        game = cls(np.zeros(3), eta="anytime")
        assert_rejected(game, game.reset, "diameter")
        game = cls(np.zeros(3), eta="strongly_convex")
        assert_rejected(game, game.reset, "strong_convexity")


@pytest.mark.parametrize("cls", GAMES, ids=lambda c: c.__name__)
def test_game_zero_and_extreme(cls):
    game, kind = make_game(cls)
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        game.update(np.zeros(3))
        assert np.all(np.isfinite(game.predict()))
    if cls.__name__ == "Hedge":  # losses of any size need bounded=False
        for scale in (1e150, 1e-150, 1e300):
            h = cls(3, eta=1.0, bounded=False)
            h.run(np.array([[scale, 0.0, 2 * scale], [0.0, scale, scale]]))
            p = h.predict()
            assert np.all(np.isfinite(p)) and math.isclose(math.fsum(p), 1.0)
    if kind == "oco":
        for scale in (1e150, 1e-150):
            base = oco_base()[cls.__name__]
            g = cls(**(base | ({"eta": 0.5} if "eta" in base else {})))
            if "lipschitz" in base and cls.__name__ != "OGD":  # gradients up to 2 scale
                g.lipschitz = 2.0 * scale
            g.update(np.full(3, scale))
            assert np.all(np.isfinite(g.predict()))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_estimator_pickle_mid_stream(cls):
    """A pickled estimator predicts the same; an online one continues identically."""
    X, y = data(60)
    est = (
        clone(cls()).fit(X[:30], y[:30])
        if not hasattr(cls, "partial_fit")
        else cls().partial_fit(X[:30], y[:30])
    )
    copy = pickle.loads(pickle.dumps(est))
    assert state(copy) == state(est)
    if hasattr(est, "partial_fit"):
        est.partial_fit(X[30:], y[30:])
        copy.partial_fit(X[30:], y[30:])
        assert state(copy) == state(est)
    assert np.array_equal(copy.predict(X), est.predict(X))
