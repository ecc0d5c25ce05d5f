r"""Parameter mixing: one linear learner trained on shards held by many machines.

McDonald, Hall and Mann (2010) train the perceptron on a data set cut into
:math:`S` shards :math:`T_1, \dots, T_S`, each on its own machine, in two ways:

* **one-shot parameter mixing** (their figure 2): each machine trains a
  learner on its shard alone, from :math:`\mathbf w = \mathbf 0`, and the
  weight vectors are mixed once at the end, :math:`\mathbf w = \sum_i \mu_i
  \mathbf w^{(i)}`. Even when each learner separates its shard, the mixture
  need not separate the data (their theorem 2);
* **iterative parameter mixing** (their figure 3): at each epoch
  :math:`n = 1, \dots, N` every machine starts from the current mixed weights,
  makes *one* pass over its shard, and the results are mixed,
  :math:`\mathbf w \leftarrow \sum_i \mu_{i,n}\mathbf w^{(i,n)}`, with
  :math:`\mu_{i,n} \ge 0` and :math:`\sum_i \mu_{i,n} = 1`. On data separable
  with margin :math:`\gamma` by a unit vector, with :math:`\|\mathbf x\| \le R`,
  the perceptron's mistakes :math:`k_{i,n}` (shard :math:`i`, epoch :math:`n`)
  satisfy :math:`\sum_{n=1}^{N}\sum_{i=1}^{S} \mu_{i,n} k_{i,n} \le R^2/\gamma^2`
  for every :math:`N` (their theorem 3; the book proves it for the updates,
  ties included), so with coefficients bounded away from 0 the mixture
  separates the data after finitely many epochs.

:func:`mix_parameters` runs both, on a Dask cluster (``client=``: one task per
shard and epoch, the shards scattered to the workers once) or, with
``client=None``, shard after shard in this process. The weights are mixed on
the calling process, in the order of the shards, so both give the same bits.
Dask is imported only when a client is given: ``pip install "olbook[scale]"``.
Book: chapter 9, :ref:`scale-sec-mixing`.
"""

from __future__ import annotations

import uuid

import numpy as np
from sklearn.base import clone

from ._validation import (
    check_binary_targets,
    check_bool,
    check_positive_int,
    check_target_column,
    check_X_sparse,
)
from .passive_aggressive import PassiveAggressive
from .perceptron import Perceptron

__all__ = ["MixingResult", "mix_parameters"]

#: Learners whose whole state is ``coef_`` and ``intercept_``: a pass can start
#: from any mixed weights. (The averaged perceptron, the first-order learners'
#: counters and the Gaussian learners' covariances are state that mixing of the
#: weights alone would lose.)
MIXABLE = (Perceptron, PassiveAggressive)

# How many times an epoch is sent again when the cluster lost a shard with a worker.
_MIX_ATTEMPTS = 4


class MixingResult:
    """What :func:`mix_parameters` returns: the mixed model and the count of each epoch.

    Attributes
    ----------
    learner_ : Perceptron or PassiveAggressive
        A fitted copy of the learner given, with the mixed weights: its
        ``predict`` and ``decision_function`` are the mixed model's. Its
        ``mistakes_`` and ``n_updates_`` sum over every shard and epoch,
        ``n_iter_`` is the number of epochs; it keeps no per-round trace
        (``trace=False``).
    coef_ : ndarray of shape (1, n_features)
        The mixed weights :math:`\\mathbf w`.
    intercept_ : ndarray of shape (1,)
        The mixed bias (0 when the learner learns none).
    mistakes_ : ndarray of int, shape (epochs, n_shards)
        ``mistakes_[n, i]``: the wrong predictions on shard ``i`` in epoch ``n``.
    updates_ : ndarray of int, shape (epochs, n_shards)
        ``updates_[n, i]``: the updates on shard ``i`` in epoch ``n``, the
        :math:`k_{i,n}` of the book's bound for the perceptron (a tie counts;
        the paper's :math:`k_{i,n}` counts mistakes).
    mixing_ : ndarray of shape (n_mixings, n_shards)
        The coefficients :math:`\\mu_{i,n}` of each mixing: one row per epoch
        when iterative, one row when one-shot.
    bytes_ : ndarray of int, shape (n_mixings,)
        The bytes of weights each mixing moves: the mixed weights sent to each
        shard (iterative mixing) and each shard's weights sent back, 8 bytes a
        float64. Dask's own messages (the tasks, the scheduler) come on top.
    iterative : bool
        Whether the mixing was iterative.
    n_resent_ : int
        How many times an epoch's tasks were sent again because a worker died
        with shards in its memory (0 without a client).
    """

    def __init__(self, learner, mistakes, updates, mixing, nbytes, iterative, resent):
        self.learner_ = learner
        self.coef_ = learner.coef_
        self.intercept_ = learner.intercept_
        self.mistakes_ = mistakes
        self.updates_ = updates
        self.mixing_ = mixing
        self.bytes_ = nbytes
        self.iterative = iterative
        self.n_resent_ = resent

    def __repr__(self) -> str:
        kind = "iterative" if self.iterative else "one-shot"
        epochs, shards = self.updates_.shape
        return (
            f"MixingResult({kind}, shards={shards}, epochs={epochs}, "
            f"updates={int(self.updates_.sum())})"
        )


def _mix_warm_learner(template, coef, intercept, classes, n_features):
    """A copy of ``template`` that ``partial_fit`` continues from ``coef``, ``intercept``."""
    clf = clone(template)
    clf.set_params(trace=False)
    clf.classes_ = classes
    clf.n_features_in_ = n_features
    clf.coef_ = np.asarray(coef, dtype=np.float64).reshape(1, n_features).copy()
    clf.intercept_ = np.array([float(intercept)])
    clf.mistakes_, clf.n_updates_, clf.n_iter_, clf.converged_ = 0, 0, 0, False
    return clf


def _mix_shard_passes(shard, template, weights, passes):
    """``passes`` passes over one shard from the given weights: the task of one machine.

    ``shard`` is ``(X, y)`` as :func:`mix_parameters` checked it (labels -1/+1),
    ``weights`` the pair ``(coef, intercept)`` the passes start from. Returns
    ``(coef, intercept, mistakes, updates)``: the weights (shape (n_features,)
    and a float) and each pass's counts.
    """
    X, y = shard
    coef, intercept = weights
    classes = np.array([-1.0, 1.0])
    clf = _mix_warm_learner(template, coef, intercept, classes, X.shape[1])
    mistakes = np.zeros(passes, dtype=np.int64)
    updates = np.zeros(passes, dtype=np.int64)
    for p in range(passes):
        m0, u0 = clf.mistakes_, clf.n_updates_
        clf.partial_fit(X, y)
        mistakes[p], updates[p] = clf.mistakes_ - m0, clf.n_updates_ - u0
    return clf.coef_[0], float(clf.intercept_[0]), mistakes, updates


def _mix_reduce(results, mu):
    """The mixture of the shards' weights, added in the order of the shards.

    ``mu=None`` is uniform mixing, computed as the sum divided by the number
    of shards (one rounding where ``1/S`` is not a float: S = 3, 5, ...).
    """
    first = 1.0 if mu is None else mu[0]
    w, b = results[0][0] * first, results[0][1] * first
    for i, (wi, bi, _, _) in enumerate(results[1:], start=1):
        w = w + (wi if mu is None else mu[i] * wi)
        b = b + (bi if mu is None else mu[i] * bi)
    if mu is None:
        w, b = w / len(results), b / len(results)
    return w, float(b)


def _mix_check_partitions(learner, partitions):
    """The shards as ``(X, y)`` with X float64 (dense or canonical CSR) and y -1/+1."""
    if type(learner) not in MIXABLE:
        names = ", ".join(c.__name__ for c in MIXABLE)
        raise ValueError(
            f"mix_parameters mixes learners whose whole state is coef_ and "
            f"intercept_ ({names}); got {type(learner).__name__}."
        )
    if not isinstance(partitions, (list, tuple)) or len(partitions) == 0:
        raise ValueError(
            "partitions must be a non-empty list of (X, y) shards; "
            f"got {type(partitions).__name__}"
            + (" of length 0." if isinstance(partitions, (list, tuple)) else ".")
        )
    checked, labels = [], []
    for i, part in enumerate(partitions):
        if not isinstance(part, (list, tuple)) or len(part) != 2:
            raise ValueError(f"partitions[{i}] must be a pair (X, y).")
        X = check_X_sparse(part[0], accept_sparse=True, name=f"partitions[{i}] X")
        if checked and X.shape[1] != checked[0][0].shape[1]:
            raise ValueError(
                f"partitions[{i}] has {X.shape[1]} features; partitions[0] has "
                f"{checked[0][0].shape[1]}: every shard needs the same features."
            )
        y = check_target_column(
            part[1], n_samples=X.shape[0], name=f"partitions[{i}] y"
        )
        checked.append((X, y))
        labels.append(y)
    _, classes = check_binary_targets(np.concatenate(labels), name="the labels")
    shards = [
        (X, check_binary_targets(y, n_samples=X.shape[0], classes=classes)[0])
        for X, y in checked
    ]
    return shards, classes


def _mix_check_weights(weights, n_shards, rows):
    """The mixing coefficients, shape (rows, n_shards), or None for uniform mixing."""
    if weights is None:
        return None
    try:
        mu = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"weights must be an array of numbers; {exc}") from None
    if mu.ndim == 1:
        mu = np.broadcast_to(mu, (rows, mu.shape[0]))
    if mu.shape != (rows, n_shards):
        raise ValueError(
            f"weights must have shape ({n_shards},) (every mixing) or "
            f"({rows}, {n_shards}) (one row per mixing); got {np.shape(weights)}."
        )
    if not np.all(np.isfinite(mu)) or np.any(mu < 0):
        raise ValueError("weights must be finite and non-negative.")
    sums = mu.sum(axis=1)
    if not np.all(np.abs(sums - 1.0) <= 1e-9):
        raise ValueError(
            f"each row of weights must sum to 1 (a convex mixture); got sums "
            f"{np.round(sums, 6).tolist()[:5]}."
        )
    return np.ascontiguousarray(mu)


def _mix_run_sequential(shards, template, coef, intercept, passes):
    weights = (coef, intercept)
    return [_mix_shard_passes(s, template, weights, passes) for s in shards]


def _mix_run_client(client, state, template, coef, intercept, passes, tag):
    """One epoch on the cluster: one task per shard; a shard lost with a worker is sent again.

    ``state`` holds the shards and their futures (scattered once); the weights
    are scattered once per epoch (each worker fetches them once). A worker
    that dies mid-task loses the shards it held: Dask cancels the tasks that
    need them; the shards are then scattered again from this process and the
    epoch's tasks resubmitted (the tasks are pure functions of the shard and the
    weights, so the epoch's results are the same).
    """
    from concurrent.futures import CancelledError

    from distributed import KilledWorker

    for attempt in range(_MIX_ATTEMPTS):
        keys = [f"{tag}-a{attempt}-s{i}" for i in range(len(state["shards"]))]
        weights = client.scatter([(coef, intercept)], hash=False)[0]
        futures = client.map(
            _mix_shard_passes,
            state["futures"],
            template=template,
            weights=weights,
            passes=passes,
            key=keys,
            pure=False,
        )
        try:
            return client.gather(futures)
        except (CancelledError, KilledWorker):
            client.cancel(futures)
            state["resent"] += 1
            if attempt == _MIX_ATTEMPTS - 1:
                raise
            for i, fut in enumerate(state["futures"]):
                if fut.status != "finished":
                    state["futures"][i] = client.scatter(
                        [state["shards"][i]], hash=False
                    )[0]
        finally:
            client.cancel([weights])
    raise AssertionError("unreachable")  # pragma: no cover


def mix_parameters(
    learner, partitions, client=None, *, epochs=10, iterative=True, weights=None
) -> MixingResult:
    r"""Train ``learner`` on shards by parameter mixing (McDonald, Hall and Mann, 2010).

    With ``iterative=True`` (their figure 3), ``epochs`` times: every shard
    makes one pass (``partial_fit``) starting from the current mixed weights
    :math:`\mathbf w` (at first :math:`\mathbf 0`), and the shards' weights are
    mixed, :math:`\mathbf w \leftarrow \sum_i \mu_{i,n}\mathbf w^{(i,n)}` (the
    bias likewise). With ``iterative=False`` (their figure 2, one-shot mixing)
    each shard makes ``epochs`` passes alone from :math:`\mathbf 0` and the
    weights are mixed once. For the perceptron on data separable with margin
    :math:`\gamma` (radius :math:`R`), iterative mixing has
    :math:`\sum_{n}\sum_i \mu_{i,n} k_{i,n} \le R^2/\gamma^2` (their theorem
    3, proved in the book for :math:`k_{i,n}` = ``updates_[n, i]``, which
    counts ties); one-shot mixing may return weights
    that do not separate the data (their theorem 2). Book: chapter 9,
    :ref:`scale-sec-mixing`.

    Parameters
    ----------
    learner : Perceptron or PassiveAggressive
        The learner and its hyper-parameters (``fit_intercept``, ``C``,
        ``variant``); it is not changed: each shard trains a copy.
    partitions : list of (X, y)
        The shards, in a fixed order: ``X`` dense or ``scipy.sparse`` (CSR),
        the same features in every shard, ``y`` of two labels in all.
    client : distributed.Client or None, default=None
        A Dask client: the shards are scattered to its workers once, each
        epoch runs one task per shard, and the weights come back to this
        process to be mixed. ``None``: the shards run one after the other here.
        Both give the same bits. A worker lost mid-epoch loses its shards: they
        are scattered again and the epoch rerun (up to 3 times).
    epochs : int, default=10
        Iterative: the number of mixings, one pass per shard each. One-shot:
        the passes each shard makes alone.
    iterative : bool, default=True
        Iterative parameter mixing (True) or one-shot mixing (False).
    weights : array_like of shape (n_shards,) or (epochs, n_shards), optional
        The mixing coefficients :math:`\mu_{i,n}`: non-negative, each row
        summing to 1; one row for every epoch, or a row per epoch (iterative
        only). Default: uniform, :math:`\mu_{i,n} = 1/S`, computed as the sum
        of the weights divided by :math:`S`.

    Returns
    -------
    MixingResult
        The mixed model (``coef_``, ``intercept_``, a fitted ``learner_``) and
        the mistakes and updates of every shard and epoch.

    Raises
    ------
    ValueError
        For a learner whose state is more than ``coef_`` and ``intercept_``, no
        shard, shards with different features, three labels, NaN or inf, or
        coefficients that are negative or do not sum to 1.

    References
    ----------
    R. McDonald, K. Hall and G. Mann, "Distributed training strategies for the
    structured perceptron", NAACL HLT 2010, pp. 456--464.

    Examples
    --------
    >>> import numpy as np
    >>> from olbook import Perceptron
    >>> from olbook.distributed import mix_parameters
    >>> X = np.array([[1.0, 10.0], [-1.0, -10.0], [1.0, -1.0], [-1.0, 1.0]])
    >>> y = np.array([1, -1, 1, -1])
    >>> shards = [(X[:2], y[:2]), (X[2:], y[2:])]
    >>> once = mix_parameters(Perceptron(), shards, epochs=5, iterative=False)
    >>> once.coef_, bool((once.learner_.predict(X) == y).all())
    (array([[1. , 4.5]]), False)
    >>> mixed = mix_parameters(Perceptron(), shards, epochs=5)
    >>> mixed.coef_, bool((mixed.learner_.predict(X) == y).all())
    (array([[3. , 2.5]]), True)
    >>> mixed.updates_.sum(axis=1)
    array([2, 2, 1, 1, 0])
    """
    shards, classes = _mix_check_partitions(learner, partitions)
    epochs = check_positive_int(epochs, "epochs")
    iterative = check_bool(iterative, "iterative")
    n_shards, d = len(shards), shards[0][0].shape[1]
    rows = epochs if iterative else 1
    mu = _mix_check_weights(weights, n_shards, rows)
    template = clone(learner)
    coef, intercept = np.zeros(d), 0.0
    tag = f"olbook-mix-{uuid.uuid4().hex[:12]}"
    state = None
    if client is not None:
        futures = client.scatter(shards, hash=False)
        state = {"shards": shards, "futures": list(futures), "resent": 0}
    passes = 1 if iterative else epochs
    mistakes = np.zeros((epochs, n_shards), dtype=np.int64)
    updates = np.zeros((epochs, n_shards), dtype=np.int64)
    try:
        for n in range(rows):
            if state is None:
                results = _mix_run_sequential(shards, template, coef, intercept, passes)
            else:
                results = _mix_run_client(
                    client, state, template, coef, intercept, passes, f"{tag}-e{n}"
                )
            coef, intercept = _mix_reduce(results, None if mu is None else mu[n])
            for i, (_, _, m, u) in enumerate(results):
                at = slice(n, n + 1) if iterative else slice(0, epochs)
                mistakes[at, i], updates[at, i] = m, u
    finally:
        if state is not None:
            client.cancel(state["futures"])
    fitted = _mix_warm_learner(learner, coef, intercept, classes, d)
    fitted.mistakes_, fitted.n_updates_ = int(mistakes.sum()), int(updates.sum())
    fitted.n_iter_, fitted.converged_ = epochs, not bool(updates[-1].any())
    mixing = np.full((rows, n_shards), 1.0 / n_shards) if mu is None else mu
    per_shard = 8 * (d + 1)
    nbytes = np.full(rows, (2 if iterative else 1) * n_shards * per_shard)
    resent = 0 if state is None else state["resent"]
    return MixingResult(fitted, mistakes, updates, mixing, nbytes, iterative, resent)
