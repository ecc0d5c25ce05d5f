"""Chapter 9 at scale: hashed e-mails against Vowpal Wabbit; mixing on 2 workers.

1. **Hashing + one PA-I pass** over ``--n`` (10**6) synthetic e-mails of ``--words``
   (100) words each: the mail stream of book section 9.2 (word ``w<r>`` of rank ``r``
   drawn log-uniformly among 10**6, label from +-1 weights of the 2,000 most frequent
   words, 5 % flipped), made larger. olbook's pipeline is scikit-learn's
   ``FeatureHasher(n_features=2**bits, input_type="string")`` on each chunk of
   10,000 token lists, then ``olbook.PassiveAggressive("PA-I", C=1, trace=False)``
   ``.partial_fit`` on the CSR chunk: the time of each part is reported. Generating
   the e-mails (the token lists, and the same e-mails as a text file in VW's format,
   ``-1 | w12 w3 ...``) is timed apart and excluded from both sides. Vowpal Wabbit
   reads that file with its own parser, hashes each word itself (murmurhash, ``-b
   bits``, the same table size) and learns, in one call:
   ``vowpalwabbit.Workspace("-d FILE ...")`` runs VW's C++ driver over the file (its
   parser on a thread of its own), as the command line ``vw -d FILE`` does (the wheel
   has no ``vw`` binary; ``python -m vowpalwabbit -d FILE ...`` is the same call).
   Two VW updates: ``--loss_function hinge --invariant --power_t 0 -l 1 --noconstant``,
   whose importance-aware hinge step is PA-I's step with C = 1 computed on the score
   clipped to the range of the labels VW has seen ([-1, 1] once both have come), on
   every example whose features go to distinct weights (checked below on a stream
   without collisions; VW's sum of squares counts a feature listed twice, or two
   features in one weight, as two terms), and VW's default update for the hinge
   loss (adaptive, normalized and invariant, ``-l 0.5``, ``--power_t 0.5``, a
   constant feature). Both sides predict
   each e-mail before learning from it: the mistakes are progressive. Also timed:
   olbook reading the same text file (read, split, hash, learn), and VW fed one
   example at a time from Python (``Workspace.learn(line)``), on a prefix. Target:
   olbook's examples per second >= VW's (PA-I flags), or the notes say where the
   time goes.
2. **Iterative parameter mixing** (``olbook.distributed.mix_parameters``) of PA-I on
   the first ``--mix-n`` hashed e-mails cut into 2 shards, on a Dask ``LocalCluster``
   of 1 and of 2 worker processes (one thread each: olbook's compiled loops hold the
   GIL, so threads would not run in parallel). The time of an epoch is (T(2 + E) -
   T(2)) / E (``--epochs`` E = 20), which leaves out sending the shards (once per
   call) and warming the workers. Target:
   2 workers >= 1.6x one worker; the bytes of weights per epoch (``bytes_``) are
   reported beside the bytes of the shards.

Vowpal Wabbit is an optional peer (``pip install "olbook[bench]"``, or ``pip install
vowpalwabbit``): without it part 1 measures olbook only, and the results are not
written over a recorded run that has VW (book section 9.5 reads that comparison).
Dask is ``olbook[scale]``.
One timed run of each (best of ``--repeat`` for VW, whose runs are cheap); timings
taken while other processes run are noisy.

    .venv/bin/python benchmarks/scale.py [--quick] [--n 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import logging
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from _results import save
from _timing import best_of
from sklearn.feature_extraction import FeatureHasher

import olbook
from olbook.distributed import mix_parameters

# This folder holds sparse.py, which would shadow the package `sparse` that numba's
# entry points import in Dask's worker processes (they inherit sys.path and import
# this script): the folder goes last, where _results and _timing are still found.
_HERE = [p for p in sys.path if Path(p or ".").resolve() == Path(__file__).parent]
sys.path[:] = [p for p in sys.path if p not in _HERE] + _HERE

CHUNK = 10_000
VOCAB = 10**6
VW_PA1 = "--loss_function hinge --invariant --power_t 0 -l 1 --noconstant"
VW_DEFAULT = "--loss_function hinge"
VW_INSTALL = 'pip install "olbook[bench]", or pip install vowpalwabbit'


def email_chunks(n, words, seed=0):
    """The e-mails in chunks: (ranks (m, words) int64, labels (m,) int64 +-1)."""
    rng = np.random.default_rng(seed)
    u = np.zeros(VOCAB)
    u[:2000] = rng.choice([-1.0, 1.0], size=2000)
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        ranks = np.floor(VOCAB ** rng.random((m, words))).astype(np.int64) - 1
        y = np.where(u[ranks].sum(axis=1) > 0, 1, -1)  # integer sums: exact
        y[rng.random(m) < 0.05] *= -1
        yield ranks, y


def vw_lines(docs, y):
    return "".join(f"{t} | {' '.join(d)}\n" for t, d in zip(y, docs, strict=True))


def run_vw(path, bits, flags, predictions=None):
    """One VW run over the file; returns (seconds, examples, average loss)."""
    import vowpalwabbit

    extra = f" -p {predictions}" if predictions else ""
    t0 = time.perf_counter()
    vw = vowpalwabbit.Workspace(f"-d {path} -b {bits} --quiet {flags}{extra}")
    vw.finish()
    seconds = time.perf_counter() - t0
    return seconds, int(vw.get_weighted_examples()), vw.get_sum_loss()


def vw_pa1_check(seed=1, n=3000, d=500, k=20):
    """VW's PA-I flags against PA-I on the clipped score, without collisions.

    Integer feature names go to distinct weights in VW (the name plus the namespace's
    hash, 0 for the default namespace, modulo the table), and no example lists a
    feature twice: VW's sum of squared feature values is then the squared norm of the
    example. VW clips each score to [smallest label seen, largest label seen] (the
    current example's label included; both start at 0): [-1, 1] once both labels
    have come. Returns the largest difference of the progressive predictions (VW
    writes them with 6 decimals), and the mistakes of olbook's PA-I (unclipped) and
    of VW on the same stream.
    """
    import vowpalwabbit

    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    X = np.zeros((n, d))
    lines = []
    for i in range(n):
        idx = rng.choice(d, k, replace=False)
        X[i, idx] = rng.integers(1, 4, k)
    y = np.where(X @ u > 0, 1, -1)
    y[rng.random(n) < 0.1] *= -1
    for xi, t in zip(X, y, strict=True):
        nz = np.flatnonzero(xi)
        lines.append(f"{t} | " + " ".join(f"{j}:{int(xi[j])}" for j in nz))
    with tempfile.TemporaryDirectory() as tmp:
        data, pred = Path(tmp) / "check.vw", Path(tmp) / "p.txt"
        data.write_text("\n".join(lines) + "\n")
        vw = vowpalwabbit.Workspace(f"-d {data} -b 18 --quiet {VW_PA1} -p {pred}")
        vw.finish()
        p = np.loadtxt(pred)
    w, clipped = np.zeros(d), np.empty(n)
    lo = hi = 0.0  # VW clips to the labels seen so far, this one's included
    for i, (xi, t) in enumerate(zip(X, y, strict=True)):
        lo, hi = min(lo, t), max(hi, t)
        s = float(np.clip(w @ xi, lo, hi))
        clipped[i] = s
        loss = max(0.0, 1.0 - t * s)
        if loss > 0:
            w += min(1.0, loss / (xi @ xi)) * t * xi
    ours = olbook.PassiveAggressive("PA-I").partial_fit(X, y, classes=[-1, 1])
    return float(np.max(np.abs(p - clipped))), ours.mistakes_, int((y * p <= 0).sum())


def part_hashing(args, tmp, rows):
    names = np.array([f"w{r}" for r in range(VOCAB)], dtype=object)
    fh = FeatureHasher(n_features=2**args.bits, input_type="string")
    path = Path(tmp) / "emails.vw"
    t_gen = t_hash = t_learn = 0.0
    _warm()  # numba's compiled loop loaded before timing
    clf = olbook.PassiveAggressive("PA-I", C=1.0, trace=False)
    kept, labels, nnz = [], [], 0  # the first --mix-n hashed e-mails, for part 2
    with path.open("w") as f:
        for ranks, y in email_chunks(args.n, args.words):
            t0 = time.perf_counter()
            docs = [names[r].tolist() for r in ranks]
            f.write(vw_lines(docs, y))
            t1 = time.perf_counter()
            X = fh.transform(docs)
            t2 = time.perf_counter()
            clf.partial_fit(X, y, classes=[-1, 1])
            t3 = time.perf_counter()
            t_gen, t_hash, t_learn = (
                t_gen + t1 - t0,
                t_hash + t2 - t1,
                t_learn + t3 - t2,
            )
            nnz += X.nnz
            labels.append(y)
            if sum(k.shape[0] for k in kept) < args.mix_n:
                kept.append(X)
    n = args.n
    mistakes = clf.mistakes_
    t_ol = t_hash + t_learn
    print(
        f"{n:,} e-mails x {args.words} words, table 2^{args.bits}: generating "
        f"{t_gen:.1f} s (excluded); olbook: FeatureHasher {t_hash:.2f} s + PA-I "
        f"{t_learn:.2f} s = {t_ol:.2f} s, {n / t_ol:,.0f} e-mails/s; "
        f"progressive mistakes {mistakes / n:.4f}"
    )

    # olbook from the same text file: read, split, hash, learn
    def from_file():
        clf2 = olbook.PassiveAggressive("PA-I", C=1.0, trace=False)
        with path.open() as fin:
            while chunk := list(itertools.islice(fin, CHUNK)):
                parts = [line.split() for line in chunk]
                yy = np.array([int(p[0]) for p in parts])
                clf2.partial_fit(
                    fh.transform(p[2:] for p in parts), yy, classes=[-1, 1]
                )
        return clf2

    clf2, t_file = best_of(from_file, 1)
    assert clf2.mistakes_ == mistakes and np.array_equal(clf2.coef_, clf.coef_)
    print(f"olbook from the text file (read, split, hash, PA-I): {t_file:.2f} s")
    base = {"n_emails": n, "words": args.words, "bits": args.bits}
    rows.append(
        {
            "case": f"generating {n} e-mails (token lists and the VW text file), "
            "excluded from both sides",
            "seconds": round(t_gen, 3),
            **base,
        }
    )
    rows.append(
        {
            "case": "olbook: FeatureHasher(input_type='string') on the token lists",
            "seconds": round(t_hash, 3),
            "share": round(t_hash / t_ol, 4),
            "nnz_per_email": round(nnz / n, 2),
            **base,
        }
    )
    rows.append(
        {
            "case": "olbook: PA-I (C=1) partial_fit on the hashed CSR chunks",
            "seconds": round(t_learn, 3),
            "share": round(t_learn / t_ol, 4),
            **base,
        }
    )
    ol_row = {
        "case": "olbook: hashing + one PA-I pass, from token lists in memory",
        "seconds": round(t_ol, 3),
        "examples_per_s": round(n / t_ol, 1),
        "mistake_rate": round(mistakes / n, 6),
        **base,
    }
    file_row = {
        "case": "olbook: read + split + hashing + PA-I, from the VW text file",
        "seconds": round(t_file, 3),
        "examples_per_s": round(n / t_file, 1),
        **base,
    }
    if importlib.util.find_spec("vowpalwabbit") is None:
        print(f"Vowpal Wabbit is not installed: it is not measured ({VW_INSTALL})")
        rows += [ol_row, file_row]
    else:
        part_vw(args, path, np.concatenate(labels), rows, (ol_row, file_row))
    y_all = np.concatenate(labels)
    return sp.vstack(kept, format="csr")[: args.mix_n], y_all[: args.mix_n]


def part_vw(args, path, y, rows, olbook_rows):
    import vowpalwabbit

    n = args.n
    ol_row, file_row = olbook_rows
    t_ol, t_file = ol_row["seconds"], file_row["seconds"]
    vw_rows = []
    for name, flags in (("PA-I flags", VW_PA1), ("default update", VW_DEFAULT)):
        (_, examples, _), t_vw = best_of(
            lambda flags=flags: run_vw(path, args.bits, flags), args.repeat
        )
        assert examples == n
        pred = Path(path).with_suffix(".pred")
        _, _, sum_loss = run_vw(path, args.bits, flags, predictions=pred)
        p = np.loadtxt(pred)
        rate = float(np.mean(y * p <= 0))
        print(
            f"VW {name} ({flags}): {t_vw:.2f} s, {n / t_vw:,.0f} e-mails/s; "
            f"progressive mistakes {rate:.4f}, hinge loss {sum_loss / n:.4f}"
        )
        vw_rows.append(
            {
                "case": f"Vowpal Wabbit {name}: Workspace('-d FILE -b {args.bits} "
                f"{flags}')",
                "seconds": round(t_vw, 3),
                "examples_per_s": round(n / t_vw, 1),
                "mistake_rate": round(rate, 6),
                "hinge_loss_clipped": round(sum_loss / n, 6),
                "vw_version": vowpalwabbit.__version__,
            }
        )
    t_pa = vw_rows[0]["seconds"]
    ol_row.update(
        peer="Vowpal Wabbit, PA-I flags, -d FILE",
        reference_s=t_pa,
        ratio=round(t_pa / t_ol, 4),
        target=1.0,
        target_kind="speed-up: olbook's examples per second over VW's",
        met=bool(t_pa / t_ol >= 1.0),
    )
    file_row.update(
        peer="Vowpal Wabbit, PA-I flags, -d FILE",
        reference_s=t_pa,
        ratio=round(t_pa / t_file, 4),
        target_kind="speed-up over VW (no target)",
    )
    print(
        f"olbook / VW examples per second: {t_pa / t_ol:.3f} from token lists, "
        f"{t_pa / t_file:.3f} from the file (target 1: "
        f"{'met' if t_pa / t_ol >= 1 else 'NOT met'})"
    )
    # VW fed from Python, one example at a time, on a prefix
    m = min(n, 20_000)
    with Path(path).open() as fin:
        lines = [line.rstrip("\n") for line in itertools.islice(fin, m)]

    def per_example():
        vw = vowpalwabbit.Workspace(f"-b {args.bits} --quiet {VW_PA1}")
        for line in lines:
            vw.learn(line)
        vw.finish()

    _, t_py = best_of(per_example, 1)
    print(f"VW learn() per example from Python: {m / t_py:,.0f} e-mails/s")
    diff, ours, theirs = vw_pa1_check()
    print(
        f"check, no collisions: VW's PA-I flags = PA-I on the clipped score to "
        f"{diff:.1e}; mistakes olbook PA-I {ours}, VW {theirs}"
    )
    rows += [ol_row, file_row, *vw_rows]
    rows.append(
        {
            "case": f"Vowpal Wabbit PA-I flags, Workspace.learn(line) per example "
            f"from Python, first {m} e-mails",
            "seconds": round(t_py, 3),
            "examples_per_s": round(m / t_py, 1),
        }
    )
    rows.append(
        {
            "case": "check: VW PA-I flags against PA-I on the score clipped to "
            "[-1, 1], 3000 examples, 500 features, no collisions",
            "max_abs_diff": diff,
            "olbook_pa1_mistakes": ours,
            "vw_mistakes": theirs,
        }
    )


def _warm():
    """Load olbook's compiled PA-I loop in a worker (numba's cache)."""
    X = sp.csr_matrix(np.eye(4))
    olbook.PassiveAggressive("PA-I").partial_fit(X, [1, -1, 1, -1], classes=[-1, 1])
    return True


def part_mixing(args, X, y, rows):
    from distributed import Client, LocalCluster

    warnings.filterwarnings("ignore", message="Couldn't detect a suitable IP")
    half = X.shape[0] // 2
    shards = [(X[:half], y[:half]), (X[half:], y[half:])]
    E, short = args.epochs, 2  # an epoch: (T(short + E) - T(short)) / E
    long = short + E
    learner = olbook.PassiveAggressive("PA-I", C=1.0)
    alone = mix_parameters(learner, shards, epochs=short)
    _, t1 = best_of(lambda: mix_parameters(learner, shards, epochs=short), 2)
    _, t2 = best_of(lambda: mix_parameters(learner, shards, epochs=long), 2)
    per_epoch = {"no client": (t2 - t1) / E}
    calls = {}  # the whole call of short + E epochs, the shards sent included
    for workers in (1, 2):
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.CRITICAL,
            ) as cluster,
            Client(cluster) as client,
        ):
            client.run(_warm)
            res = mix_parameters(learner, shards, client, epochs=short)  # warm-up
            assert res.coef_.tobytes() == alone.coef_.tobytes()
            whole = {}
            for epochs in (short, long):
                _, whole[epochs] = best_of(
                    lambda c=client, e=epochs: mix_parameters(
                        learner, shards, c, epochs=e
                    ),
                    2,
                )
            t1, t2 = whole[short], whole[long]
            calls[workers] = t2
            per_epoch[workers] = (t2 - t1) / E
    speedup = per_epoch[1] / per_epoch[2]
    data_bytes = sum(
        A.data.nbytes + A.indices.nbytes + A.indptr.nbytes + b.nbytes for A, b in shards
    )
    per = int(alone.bytes_[0])
    print(
        f"iterative mixing, PA-I, 2 shards of {half:,} e-mails: one epoch "
        f"{per_epoch['no client'] * 1e3:.0f} ms without a client, "
        f"{per_epoch[1] * 1e3:.0f} ms on 1 worker, {per_epoch[2] * 1e3:.0f} ms on 2: "
        f"{speedup:.2f}x (target 1.6: {'met' if speedup >= 1.6 else 'NOT met'}); "
        f"weights {per:,} bytes per epoch, shards {data_bytes:,} bytes (sent once); "
        f"the whole call of {long} epochs {calls[1]:.2f} s on 1 worker, "
        f"{calls[2]:.2f} s on 2"
    )
    rows.append(
        {
            "case": f"iterative parameter mixing of PA-I, 2 shards of {half} hashed "
            f"e-mails, seconds per epoch on 2 worker processes ((T(2 + E) - T(2)) / E)",
            "seconds": round(per_epoch[2], 4),
            "peer": "the same on 1 worker process",
            "reference_s": round(per_epoch[1], 4),
            "no_client_s": round(per_epoch["no client"], 4),
            "ratio": round(speedup, 3),
            "target": 1.6,
            "target_kind": "speed-up of 2 workers over 1",
            "met": bool(speedup >= 1.6),
            "call_s_2_workers": round(calls[2], 3),
            "call_s_1_worker": round(calls[1], 3),
            "call_ratio": round(calls[1] / calls[2], 3),
            "bytes_per_epoch": per,
            "shard_bytes": int(data_bytes),
            "epochs": f"{short} and {long}",
        }
    )


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--words", type=int, default=100)
    parser.add_argument("--bits", type=int, default=18)
    parser.add_argument("--mix-n", type=int, default=1_000_000)
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--quick", action="store_true", help="10**5 e-mails (mixing on all of them)"
    )
    args = parser.parse_args()
    if args.quick:
        args.n, args.mix_n = 100_000, 100_000
    args.mix_n = min(args.mix_n, args.n)
    print(
        "timings taken while other processes may run: compare the ratios, not the times"
    )
    rows = []
    load = [_load()]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        X, y = part_hashing(args, tmp, rows)
    part_mixing(args, X, y, rows)
    load.append(_load())
    total = time.perf_counter() - started
    print(f"the whole run: {total:.0f} s; load average (1 min) {load[0]} -> {load[1]}")
    recorded = Path(__file__).parent / "results" / "scale.json"
    if not any(r["case"].startswith("Vowpal Wabbit") for r in rows) and (
        recorded.exists() and "Vowpal Wabbit" in recorded.read_text()
    ):
        # section 9.5 reads the comparison with VW: keep the run that has it
        print(
            f"not saved: {recorded.name} holds a run with Vowpal Wabbit ({VW_INSTALL})"
        )
        return
    hashing = next(r for r in rows if r["case"].startswith("olbook: FeatureHasher"))
    where = (
        f"Where olbook's time goes: FeatureHasher {hashing['share']:.1%} (a Python "
        "str, a (word, 1) tuple, a new UTF-8 bytes object and a NumPy item "
        f"assignment per word), the PA-I pass {1 - hashing['share']:.1%}. "
    )
    save(
        "scale",
        rows,
        notes=where
        + f"{'--quick, ' if args.quick else ''}one timed run of olbook's pipeline "
        f"(the chunks hashed and learned as they are generated); VW best of "
        f"{args.repeat}; mixing: best of 2 runs each of 2 and 2 + E epochs (E = "
        f"{args.epochs}), an epoch's time (T(2 + E) - T(2)) / E. Generation "
        "excluded from both sides. Measured with other "
        "processes running unless stated; ratios are taken within one run. Load "
        f"average (1 min) {load[0]} at the start, {load[1]} at the end (2 cores: "
        f"above 1 the two workers share the CPUs with other work); whole run "
        f"{total:.0f} s.",
    )


if __name__ == "__main__":
    main()
