"""A reader's first run: ``import olbook`` and the first fit of every learner, empty numba cache.

On Colab or Binder a reader starts with an empty numba cache: the first fit of a learner
compiles its loops. Target: for every public learner (every estimator class in
``olbook.__all__``), ``import olbook`` + constructing it + its first fit in a fresh
interpreter with an empty cache takes at most 3 times ``import sklearn.svm`` +
``SVC().fit`` on the same data in a fresh interpreter.

Each case runs in a fresh interpreter (``sys.executable -c ...``), one after another,
which builds the data first (untimed: ``import numpy``, 200 x 5 standard normal, the
labels the sign of the first coordinate, so that the hard-margin SVM has a solution;
three classes by the first coordinate's tertiles for the multiclass learners), then times
its own statements with ``time.perf_counter`` (interpreter start-up excluded, as in
``benchmarks/imports.py``):

* cold: ``NUMBA_CACHE_DIR`` set to a new empty folder; the time of
  ``import olbook; olbook.Name().fit(X, y)`` (the game learners ``OGD``, ``Hedge``,
  ``Halving`` and ``WeightedMajority``: ``run`` on a 200 x 5 feedback array);
* warm: the same statements in a new interpreter with the cache the cold run filled,
  best of ``--repeat``;
* the reference: ``import sklearn.svm; sklearn.svm.SVC().fit(X, y)``, best of
  ``--repeat`` (at least 3) after one warm-up run.

The target's ratio is taken on CPU time (``time.process_time`` of the interpreter, every
case single-threaded): on an idle machine it is the wall time, and unlike the wall time
it does not grow with other work on the machine; the wall times are recorded too.
The cold run is measured once per learner (a second cold run would compile again and
take as long; the machine's load makes it noisy). Each row also gives the number of
functions the cold run compiled and cached (index files in the new cache folder).

    .venv/bin/python benchmarks/cold_start.py [--repeat 3] [--only SVM Perceptron]

(``--only``: those cases are measured again and replace their rows in the results; the
learners of ``olbook.oco`` are named ``oco.FTRL``, ...)

olbook's cached code is keyed by a hash of all its sources: while olbook's files are being
edited, a warm run may compile again. Measure a fixed tree (e.g. a copy of the package on
``PYTHONPATH``, which the interpreters of every case inherit).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _results import save

TARGET_RATIO = 3.0

_DATA = """
import warnings
warnings.simplefilter("ignore")
import numpy as np
rng = np.random.default_rng(0)
X = rng.standard_normal((200, 5))
y = np.where(X[:, 0] > 0, 1, -1)
y3 = np.digitize(X[:, 0], np.quantile(X[:, 0], [1 / 3, 2 / 3]))
L01 = (rng.random((200, 5)) < 0.3).astype(float)
L01[:, 2] = 0.0  # a perfect expert, which Halving assumes
grads = rng.standard_normal((200, 5))
"""

_TIMED = """
import time
t0, c0 = time.perf_counter(), time.process_time()
{statements}
t1, c1 = time.perf_counter(), time.process_time()
print(t1 - t0, c1 - c0)
"""

REFERENCE = "import sklearn.svm\nsklearn.svm.SVC().fit(X, y)"

#: Game learners (GameLearner.run on a feedback array) and how each is built.
GAMES = {
    "OGD": "olbook.OGD(np.zeros(5), eta=0.1).run(grads)",
    "Hedge": "olbook.Hedge(5).run(L01)",
    "Halving": "olbook.Halving(5).run(L01)",
    "WeightedMajority": "olbook.WeightedMajority(5).run(L01)",
}
#: The game learners of olbook.oco (chapter 8), each on the 200 x 5 gradients (clipped
#: to [-1, 1] and divided by 3 for coin betting, whose gradients must have norm at most
#: its Lipschitz constant 1: sqrt(5) / 3 < 1).
OCO_GAMES = {
    "FTL": "olbook.oco.FTL(olbook.oco.Ball(1.0), dim=5).run(grads)",
    "FTRL": "olbook.oco.FTRL(olbook.oco.Euclidean(), 0.1, dim=5).run(grads)",
    "OMD": "olbook.oco.OMD(olbook.oco.Entropic(), 0.1, olbook.oco.Simplex(), "
    "dim=5).run(grads)",
    "AdaGrad": "olbook.oco.AdaGrad(np.zeros(5), 0.1).run(grads)",
    "CoinBetting": "olbook.oco.CoinBetting(np.zeros(5)).run(np.clip(grads, -1, 1) / 3)",
    "ONS": "olbook.oco.ONS(np.full(5, 0.2), 0.5, feasible_set=olbook.oco.Simplex())"
    ".run(np.clip(grads, -1, 1))",
}
#: Extra cases: the soft-margin SVM with the Gaussian kernel (chapter 2's other SVM).
EXTRA = {
    "SVM(C=1.0, kernel=gaussian(0.5))": "olbook.SVM(C=1.0, "
    "kernel=olbook.kernels.gaussian(0.5)).fit(X, y)",
}


def learners() -> dict[str, str]:
    """Every estimator class of ``olbook.__all__`` -> the statement of its first fit."""
    from sklearn.base import BaseEstimator

    import olbook
    from olbook._base import GameLearner

    cases = {}
    for name in olbook.__all__:
        obj = getattr(olbook, name)
        if not isinstance(obj, type):
            continue
        if name in GAMES:
            assert issubclass(obj, GameLearner), name
            cases[name] = GAMES[name]
        elif issubclass(obj, GameLearner):
            raise SystemExit(f"{name}: a game learner without a case in GAMES")
        elif issubclass(obj, BaseEstimator):
            labels = "y3" if name.startswith("Multiclass") else "y"
            cases[name] = f"olbook.{name}().fit(X, {labels})"
    cases.update(EXTRA)
    import olbook.oco

    for name in olbook.oco.__all__:
        obj = getattr(olbook.oco, name)
        if not isinstance(obj, type):
            continue
        if issubclass(obj, GameLearner):
            if name not in OCO_GAMES:
                raise SystemExit(f"olbook.oco.{name}: a game learner without a case")
            cases[f"oco.{name}"] = OCO_GAMES[name]
        elif issubclass(obj, BaseEstimator):
            cases[f"oco.{name}"] = f"olbook.oco.{name}().fit(X, y)"
    return cases


def run_once(statements: str, cache_dir: str) -> tuple[float, float]:
    """Seconds taken by ``statements`` in a fresh interpreter using ``cache_dir``: wall
    time and the interpreter's CPU time."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run(
        [sys.executable, "-c", _DATA + _TIMED.format(statements=statements)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),  # not the repository: import the installed olbook
    )
    wall, cpu = out.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def best(runs: list[tuple[float, float]]) -> tuple[float, float]:
    """The shortest wall time and the shortest CPU time of ``runs``."""
    return min(r[0] for r in runs), min(r[1] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=[], help="case names")
    parser.add_argument(
        "--shard",
        default="1/1",
        help="i/n: run every n-th case from the i-th (results/cold_start_i_of_n.json)",
    )
    args = parser.parse_args()
    cases = learners()
    if args.only:
        cases = {k: v for k, v in cases.items() if k in args.only}
    shard, shards = (int(v) for v in args.shard.split("/"))
    cases = dict(list(cases.items())[shard - 1 :: shards])
    scratch = Path(tempfile.mkdtemp(prefix="olbook-cold-"))
    try:
        ref_dir = str(scratch / "reference")
        run_once(REFERENCE, ref_dir)  # warm: file cache, .pyc
        reference, ref_cpu = best(
            [run_once(REFERENCE, ref_dir) for _ in range(max(3, args.repeat))]
        )
        print(
            f"reference: import sklearn.svm + SVC().fit  {reference:7.3f} s "
            f"(CPU {ref_cpu:.3f} s)"
        )
        rows = []
        for case, statement in cases.items():
            cache = scratch / f"cache-{len(rows)}"
            cold, cold_cpu = run_once(f"import olbook\n{statement}", str(cache))
            compiled = sum(1 for _ in cache.rglob("*.nbi"))
            warm, warm_cpu = best(
                [
                    run_once(f"import olbook\n{statement}", str(cache))
                    for _ in range(args.repeat)
                ]
            )
            shutil.rmtree(cache, ignore_errors=True)
            ratio = cold_cpu / ref_cpu
            row = {
                "case": case,
                "cold_s": round(cold, 3),
                "warm_s": round(warm, 3),
                "reference_s": round(reference, 3),
                "cold_cpu_s": round(cold_cpu, 3),
                "warm_cpu_s": round(warm_cpu, 3),
                "reference_cpu_s": round(ref_cpu, 3),
                "wall_ratio": round(cold / reference, 2),
                "ratio": round(ratio, 2),
                "target": TARGET_RATIO,
                "target_kind": "cold / reference <=",
                "met": ratio <= TARGET_RATIO,
                "compiled_functions": compiled,
            }
            rows.append(row)
            print(
                f"{case:34s} cold {cold:6.2f} s (CPU {cold_cpu:6.2f})  warm "
                f"{warm:5.2f} s (CPU {warm_cpu:5.2f})  CPU x{ratio:5.1f}  "
                f"{compiled:3d} compiled  "
                f"{'met' if row['met'] else 'NOT met'}"
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if args.only and shards == 1:  # the other cases' rows of the last full run stay
        import json

        from _results import RESULTS

        path = RESULTS / "cold_start.json"
        if path.is_file():
            done = {r["case"] for r in rows}
            old = json.loads(path.read_text())["rows"]
            rows = [r for r in old if r["case"] not in done] + rows
    met = sum(r["met"] for r in rows)
    print(f"{met} of {len(rows)} cases meet cold <= {TARGET_RATIO:g} x reference (CPU)")
    save(
        "cold_start" if shards == 1 else f"cold_start_{shard}_of_{shards}",
        rows,
        notes="fresh interpreter per run, interpreter start-up and data excluded; cold: "
        "NUMBA_CACHE_DIR a new empty folder, one run; warm: the folder the cold run "
        f"filled, best of {args.repeat}; reference: import sklearn.svm + SVC().fit "
        f"on the same 200 x 5 data, best of {max(3, args.repeat)} after a warm-up; "
        "compiled_functions: numba index files the cold run wrote; ratio (the target's) "
        "is cold CPU time over the reference's CPU time (each process is "
        "single-threaded: on an idle machine its wall time; on a loaded machine the "
        "wall times, also given, and wall_ratio are inflated by other work)",
    )


if __name__ == "__main__":
    main()
