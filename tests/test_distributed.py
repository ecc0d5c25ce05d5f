"""Parameter mixing (olbook.distributed; McDonald, Hall and Mann 2010).

* On a Dask cluster (two worker processes on the loopback interface) the mixed
  weights are those of the sequential run, to the bit, also when a worker is
  killed in the middle of an epoch.
* Theorem 3 of the paper: iterative parameter mixing of the perceptron on data
  separable with margin gamma has sum_n sum_i mu_{i,n} k_{i,n} <= R^2/gamma^2.
* Theorem 2: one-shot mixing can fail to separate separable data; iterative
  mixing separates the same shards.

The Dask tests are skipped when dask.distributed is not installed.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from olbook import (
    AveragedPerceptron,
    PassiveAggressive,
    Perceptron,
    margin,
    perceptron_bound,
)
from olbook.data import make_separable
from olbook.distributed import mix_parameters
from olbook.perceptron import run_epoch

try:
    import distributed
except ImportError:  # pragma: no cover - the optional extra olbook[scale]
    distributed = None

needs_dask = pytest.mark.skipif(
    distributed is None,
    reason="dask.distributed is not installed (pip install 'olbook[scale]')",
)


@pytest.fixture(scope="module")
def client():
    """Two worker processes, one thread each, on 127.0.0.1; closed after the module."""
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",  # loopback, any free port
        silence_logs=logging.CRITICAL,
    )
    c = distributed.Client(cluster)
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def noisy_shards(seed=0, n=600, d=12, sparse_shard=1):
    """Three shards of Gaussian data with label noise: every pass updates, no exact sums."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    shards = [(np.ascontiguousarray(X[i::3]), y[i::3]) for i in range(3)]
    if sparse_shard is not None:
        Xs, ys = shards[sparse_shard]
        Xs = np.where(np.abs(Xs) < 0.5, 0.0, Xs)
        shards[sparse_shard] = (sp.csr_matrix(Xs), ys)
    return shards


def same_bits(a, b):
    assert a.coef_.tobytes() == b.coef_.tobytes()
    assert a.intercept_.tobytes() == b.intercept_.tobytes()
    np.testing.assert_array_equal(a.mistakes_, b.mistakes_)
    np.testing.assert_array_equal(a.updates_, b.updates_)


LEARNERS = [
    Perceptron(),
    Perceptron(fit_intercept=True),
    PassiveAggressive(variant="PA-I", C=0.05),
    PassiveAggressive(variant="PA-II", C=0.3, fit_intercept=True),
]


@needs_dask
@pytest.mark.parametrize("iterative", [True, False])
@pytest.mark.parametrize("learner", LEARNERS, ids=repr)
def test_cluster_gives_the_bits_of_the_sequential_run(client, learner, iterative):
    shards = noisy_shards()
    mu = None if learner.fit_intercept else [0.2, 0.5, 0.3]
    kw = dict(epochs=4, iterative=iterative, weights=mu)
    on_cluster = mix_parameters(learner, shards, client, **kw)
    here = mix_parameters(learner, shards, **kw)
    same_bits(on_cluster, here)
    assert on_cluster.n_resent_ == 0
    assert on_cluster.updates_.min() > 0  # every shard updates: the weights move
    assert not hasattr(learner, "coef_")  # the learner given is left as it was


class KillOnce(distributed.WorkerPlugin if distributed else object):
    """Kill the worker process when it starts a task whose key holds ``marker``, once.

    The first such task (``O_EXCL``: one worker wins) writes its key and process
    id to ``flag`` and exits; every later start of such a task is logged to ``log``.
    """

    def __init__(self, marker: str, flag: str, log: str):
        self.marker, self.flag, self.log = marker, flag, log

    def transition(self, key, start, finish, **kwargs):
        if finish != "executing" or self.marker not in str(key):
            return
        try:
            fd = os.open(self.flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            with open(self.log, "a") as f:
                f.write(f"{key} {os.getpid()}\n")
            return
        os.write(fd, f"{key} {os.getpid()}".encode())
        os.close(fd)
        os._exit(1)


@needs_dask
def test_a_worker_killed_mid_epoch_changes_no_bit(client, tmp_path):
    """A worker dies at the start of a task of epoch 3; the task runs again elsewhere.

    Dask reruns it on the other worker if that one holds a copy of the shard;
    if the shard died with the worker, mix_parameters scatters it again and
    resends the epoch (``n_resent_``). Either way the bits are the same.
    """
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    shards = noisy_shards(seed=1)
    pids = set(client.run(os.getpid).values())
    flag, log = tmp_path / "killed", tmp_path / "epoch3.log"
    client.register_plugin(KillOnce("-e2-", str(flag), str(log)), name="kill-once")
    try:
        killed = mix_parameters(Perceptron(), shards, client, epochs=4)
    finally:  # the nanny restarts the worker; no later test needs it
        client.unregister_worker_plugin("kill-once")
    key, pid = flag.read_text().split()
    assert int(pid) in pids and int(pid) not in client.run(os.getpid).values()
    shard = key.rsplit("-", 1)[1]  # the killed task's shard ran again, elsewhere
    runs = [line.split() for line in log.read_text().splitlines()]
    assert any(k.endswith(f"-{shard}") and p != pid for k, p in runs)
    same_bits(killed, mix_parameters(Perceptron(), shards, epochs=4))


@settings(max_examples=40)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(6, 60),
    d=st.integers(2, 6),
    n_shards=st.integers(1, 5),
    epochs=st.integers(1, 8),
    gamma=st.sampled_from([0.05, 0.1, 0.2, 0.4]),
    uniform=st.booleans(),
)
def test_theorem_3_weighted_mistakes(seed, n, d, n_shards, epochs, gamma, uniform):
    """McDonald et al. (2010), theorem 3: sum_n sum_i mu_{i,n} k_{i,n} <= (R/gamma)^2."""
    rng = np.random.default_rng(seed)
    X, y, u = make_separable(n, d, margin=gamma, random_state=rng)
    n_shards = min(n_shards, n)
    cuts = np.sort(rng.choice(np.arange(1, n), size=n_shards - 1, replace=False))
    shards = list(zip(np.split(X, cuts), np.split(y, cuts), strict=True))
    weights = None
    if not uniform:
        raw = rng.integers(0, 8, size=(epochs, n_shards)).astype(float)
        raw[:, 0] += 1.0  # no row of zeros
        weights = raw / raw.sum(axis=1, keepdims=True)
    res = mix_parameters(Perceptron(), shards, epochs=epochs, weights=weights)
    bound = perceptron_bound(X, y, u).bound
    assert float((res.mixing_ * res.updates_).sum()) <= bound * (1 + 1e-12)
    assert res.mistakes_.sum() <= res.updates_.sum()
    if res.updates_[-1].sum() == 0:  # an epoch without update: the mixture separates
        assert (res.learner_.predict(X) == y).all()


def theorem_2_shards():
    """Two shards of two examples each, separable by u = (1, 0) with margin 1."""
    X = np.array([[1.0, 10.0], [-1.0, -10.0], [1.0, -1.0], [-1.0, 1.0]])
    y = np.array([1, -1, 1, -1])
    return X, y, [(X[:2], y[:2]), (X[2:], y[2:])]


def test_theorem_2_one_shot_mixing_fails_where_iterative_mixing_separates():
    X, y, shards = theorem_2_shards()
    assert margin(X, y, [1.0, 0.0]) == 1.0  # separable
    for Xs, ys in shards:  # each shard's own perceptron separates its shard
        assert (Perceptron(max_iter=10).fit(Xs, ys).predict(Xs) == ys).all()
    for epochs in (1, 5, 50):
        once = mix_parameters(Perceptron(), shards, epochs=epochs, iterative=False)
        np.testing.assert_array_equal(once.coef_, [[1.0, 4.5]])
        assert (once.learner_.predict(X) != y).sum() == 2  # the second shard
        assert once.bytes_.tolist() == [2 * 3 * 8]  # one mixing: weights sent back
    mixed = mix_parameters(Perceptron(), shards, epochs=6)
    assert (mixed.learner_.predict(X) == y).all()
    assert mixed.updates_[-2:].sum() == 0 and mixed.updates_[3].sum() > 0
    np.testing.assert_array_equal(mixed.updates_.sum(axis=1), [2, 2, 1, 1, 0, 0])
    # theorem 3 here: 0.5 * 6 updates against (R / gamma)^2 = 101
    assert (mixed.mixing_ * mixed.updates_).sum() == 3.0
    assert perceptron_bound(X, y, [1.0, 0.0]).bound == 101.0


def figure_3(shards, epochs, mu):
    """McDonald et al.'s figure 3 for the perceptron, from olbook.perceptron.run_epoch."""
    w, b = np.zeros(shards[0][0].shape[1]), 0.0
    for n in range(epochs):
        outs = [run_epoch(X, y.astype(float), w, b, False)[:2] for X, y in shards]
        if mu is None:
            w, b = outs[0][0], outs[0][1]
            for wi, bi in outs[1:]:
                w, b = w + wi, b + bi
            w, b = w / len(outs), b / len(outs)
        else:
            w, b = mu[n][0] * outs[0][0], mu[n][0] * outs[0][1]
            for i, (wi, bi) in enumerate(outs[1:], start=1):
                w, b = w + mu[n][i] * wi, b + mu[n][i] * bi
    return w


@pytest.mark.filterwarnings("ignore:.*max_iter reached")  # noisy data: expected
@pytest.mark.parametrize("uniform", [True, False])
def test_iterative_mixing_is_figure_3(uniform):
    shards = noisy_shards(seed=2, sparse_shard=None)
    mu = None if uniform else np.array([[0.25, 0.5, 0.25], [0.6, 0.1, 0.3]] * 3)
    res = mix_parameters(Perceptron(), shards, epochs=6, weights=mu)
    assert res.coef_[0].tobytes() == figure_3(shards, 6, mu).tobytes()
    once = mix_parameters(Perceptron(), shards, epochs=3, iterative=False)
    alone = [Perceptron(max_iter=3).fit(X, y).coef_[0] for X, y in shards]
    assert once.coef_[0].tobytes() == ((alone[0] + alone[1] + alone[2]) / 3).tobytes()


def test_one_shard_is_the_learner_itself():
    X, y = noisy_shards(sparse_shard=None)[0]
    for learner in LEARNERS:
        res = mix_parameters(learner, [(X, y)], epochs=3)
        ref = learner.__class__(**learner.get_params())
        for _ in range(3):
            ref.partial_fit(X, y)
        assert res.coef_.tobytes() == ref.coef_.tobytes()
        assert res.intercept_.tobytes() == ref.intercept_.tobytes()
        assert res.learner_.mistakes_ == ref.mistakes_


def test_any_two_labels_and_the_fitted_learner():
    X, y, shards = theorem_2_shards()
    names = np.array(["no", "yes"])[(y > 0).astype(int)]
    shards = [(X[:2], names[:2]), (X[2:], names[2:])]
    res = mix_parameters(Perceptron(), shards, epochs=6)
    assert res.learner_.classes_.tolist() == ["no", "yes"]
    assert (res.learner_.predict(X) == names).all()
    assert res.learner_.n_iter_ == 6 and res.learner_.converged_
    assert res.bytes_.tolist() == [2 * 2 * 3 * 8] * 6
    assert "iterative" in repr(res)


def test_bad_input_is_a_value_error():
    X, y, shards = theorem_2_shards()
    p = Perceptron()
    bad = [
        (dict(learner=AveragedPerceptron()), "whole state"),
        (dict(partitions=[]), "non-empty"),
        (dict(partitions=(X, y)), "pair"),
        (dict(partitions=[(X, y), (X[:, :1], y)]), "same features"),
        (dict(partitions=[(X, y), (X, y + 2)]), "label"),
        (dict(partitions=[(X, y), (X, y[:3])]), "4 examples but"),
        (dict(partitions=[(np.where(X > 5, np.nan, X), y)]), "NaN"),
        (dict(epochs=0), "epochs"),
        (dict(iterative="yes"), "iterative"),
        (dict(weights=[0.5, 0.6]), "sum to 1"),
        (dict(weights=[1.5, -0.5]), "non-negative"),
        (dict(weights=[1.0]), "shape"),
        (dict(weights=np.full((3, 2), 0.5), epochs=2), "shape"),
        (dict(weights=np.full((2, 2), 0.5), iterative=False, epochs=2), "shape"),
        (dict(learner=Perceptron(max_iter=0)), "max_iter"),
    ]
    for change, match in bad:
        kw = dict(learner=p, partitions=shards, epochs=3)
        kw.update(change)
        with pytest.raises(ValueError, match=match):
            mix_parameters(**kw)
    assert not hasattr(p, "coef_")


def test_importing_the_module_imports_no_dask():
    """olbook.distributed, and mix_parameters without a client, run where dask cannot load."""
    code = (
        "import json, sys\n"
        "sys.modules['dask'] = sys.modules['distributed'] = None  # import fails\n"
        "import numpy as np\n"
        "from olbook import Perceptron\n"
        "from olbook.distributed import mix_parameters\n"
        "X = np.array([[1.0, 2.0], [-1.0, -1.0]]); y = np.array([1, -1])\n"
        "res = mix_parameters(Perceptron(), [(X, y), (X, y)], epochs=2)\n"
        "print(json.dumps(res.coef_.tolist()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    )
    assert json.loads(out.stdout) == [[1.0, 2.0]]
