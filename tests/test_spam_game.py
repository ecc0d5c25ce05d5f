"""The spam game (olbook.data.SpamGame, book section 9.1): determinism, shapes, the
oblivious stream at rate 0, the adaptive spammer's move, and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

import olbook
from olbook.data import SpamGame, SpamGameRecord, filter_weights
from olbook.kernels import gaussian, linear


def _same_csr(A, B):
    return (
        A.shape == B.shape
        and np.array_equal(A.indptr, B.indptr)
        and np.array_equal(A.indices, B.indices)
        and np.array_equal(A.data, B.data)
    )


def _mass(p, words):
    return math.fsum(p[words]) / math.fsum(p)


# --------------------------------------------------------------------------- messages
def test_batch_shapes_and_dtypes():
    game = SpamGame(300, n_topic_words=10, min_length=5, max_length=9, random_state=0)
    X, y = game.next_batch(200)
    assert sp.issparse(X) and X.format == "csr" and X.dtype == np.float64
    assert X.shape == (200, 300) and X.has_canonical_format
    assert y.dtype == np.int64 and y.shape == (200,)
    assert set(np.unique(y)) == {-1, 1}
    lengths = np.asarray(X.sum(axis=1)).ravel()
    assert lengths.min() >= 5 and lengths.max() <= 9
    assert np.all(X.data == np.round(X.data)) and X.data.min() >= 1.0
    assert game.n_rounds == 200
    # the topics: disjoint, sorted, of the asked size
    assert game.ham_topic.size == game.spam_topic.size == 10
    assert np.intersect1d(game.ham_topic, game.spam_topic).size == 0
    assert np.all(np.diff(game.ham_topic) > 0)
    for p in (game.ham_distribution, game.spam_distribution, game.background):
        assert np.all(p > 0) and math.isclose(math.fsum(p), 1.0, rel_tol=1e-12)
    # Zipf: b_k proportional to 1/k
    assert np.allclose(game.background * np.arange(1, 301), game.background[0])


def test_messages_follow_their_class_distribution():
    game = SpamGame(200, n_topic_words=10, topic_weight=0.5, random_state=1)
    X, y = game.next_batch(3000)
    counts_spam = np.asarray(X[y == 1].sum(axis=0)).ravel()
    counts_ham = np.asarray(X[y == -1].sum(axis=0)).ravel()
    # each topic carries half of its class's words, within sampling error
    share_spam = counts_spam[game.spam_topic].sum() / counts_spam.sum()
    share_ham = counts_ham[game.ham_topic].sum() / counts_ham.sum()
    want_spam = _mass(game.spam_distribution, game.spam_topic)
    want_ham = _mass(game.ham_distribution, game.ham_topic)
    assert abs(share_spam - want_spam) < 0.01 and abs(share_ham - want_ham) < 0.01
    assert 0.45 < (y == 1).mean() < 0.55


def test_same_seed_same_bits():
    a = SpamGame(500, rate=0.05, random_state=7)
    b = SpamGame(500, rate=0.05, random_state=7)
    ra = a.play(olbook.PassiveAggressive(), n_days=15, day_size=8)
    rb = b.play(olbook.PassiveAggressive(), n_days=15, day_size=8)
    assert _same_csr(ra.X, rb.X) and np.array_equal(ra.y, rb.y)
    assert np.array_equal(ra.scores, rb.scores)
    assert np.array_equal(ra.trusted_mass, rb.trusted_mass)
    assert np.array_equal(a.camouflage, b.camouflage)
    c = SpamGame(500, rate=0.05, random_state=8).next_batch(8)[0]
    assert not _same_csr(ra.X[:8], c)
    # a Generator is taken as it is
    g1 = SpamGame(100, n_topic_words=5, random_state=np.random.default_rng(3))
    g2 = SpamGame(100, n_topic_words=5, random_state=3)
    assert _same_csr(g1.next_batch(20)[0], g2.next_batch(20)[0])


def test_rate_zero_is_the_oblivious_stream():
    """At rate 0 the messages do not depend on the filter: the same as never observing."""
    plain = SpamGame(400, random_state=5)
    batches = [plain.next_batch(10) for _ in range(12)]
    for clf in (olbook.Perceptron(), olbook.AROW(diagonal=True)):
        rec = SpamGame(400, rate=0.0, random_state=5).play(clf, n_days=12, day_size=10)
        assert _same_csr(rec.X, sp.vstack([b[0] for b in batches], format="csr"))
        assert np.array_equal(rec.y, np.concatenate([b[1] for b in batches]))
    # and a spammer with rate > 0 does change the stream once spam is flagged
    rec = SpamGame(400, rate=0.2, random_state=5).play(
        olbook.Perceptron(), n_days=12, day_size=10
    )
    assert not _same_csr(rec.X, sp.vstack([b[0] for b in batches], format="csr"))


# --------------------------------------------------------------------------- the spammer
def test_the_spammer_moves_to_the_trusted_words_by_the_formula():
    game = SpamGame(100, n_topic_words=5, rate=0.1, n_trusted=3, random_state=2)
    X, y = game.next_batch(12)
    coef = np.zeros(100)
    coef[[7, 40, 41, 90]] = [-3.0, -1.0, -2.0, -0.5]  # the 3 most negative: 7, 41, 40
    coef[[1, 2]] = 5.0
    flagged = np.zeros(12, dtype=bool)
    spam = np.flatnonzero(y == 1)
    ham = np.flatnonzero(y == -1)
    assert spam.size >= 3 and ham.size >= 1
    flagged[spam[:3]] = True
    flagged[ham] = True  # flagged ham moves nothing
    before = game.camouflage.copy()
    game.observe(coef, flagged)
    assert np.array_equal(game.trusted, [7, 40, 41])
    keep = 0.9**3
    T = game.trusted
    assert math.isclose(
        game.camouflage[T].sum(), keep * before[T].sum() + (1 - keep), rel_tol=1e-12
    )
    others = np.setdiff1d(np.arange(100), T)
    assert np.allclose(game.camouflage[others], keep * before[others], rtol=1e-12)
    assert math.isclose(math.fsum(game.camouflage), 1.0, rel_tol=1e-12)
    # the total variation distance to the uniform on T shrinks by the factor keep
    u = np.zeros(100)
    u[T] = 1 / 3
    assert math.isclose(
        np.abs(game.camouflage - u).sum(), keep * np.abs(before - u).sum(), rel_tol=1e-9
    )
    # the payload is untouched: the spam topic keeps its share theta
    p = game.spam_distribution
    assert math.isclose(
        math.fsum(p[game.spam_topic])
        - (1 - game.topic_weight) * game.camouflage[game.spam_topic].sum(),
        game.topic_weight,
        rel_tol=1e-12,
    )


def test_only_negative_weights_are_trusted_and_no_flag_no_move():
    game = SpamGame(50, n_topic_words=5, rate=0.5, n_trusted=10, random_state=0)
    _, y = game.next_batch(6)
    coef = np.ones(50)
    coef[[3, 4]] = -1.0  # two negative weights, a tie: both trusted
    before = game.camouflage.copy()
    game.observe(coef, np.zeros(6, dtype=bool))  # nothing flagged
    assert np.array_equal(game.trusted, [3, 4])
    assert np.array_equal(game.camouflage, before)
    game.observe(np.ones(50), y == 1)  # no negative weight: nothing trusted
    assert game.trusted.size == 0 and np.array_equal(game.camouflage, before)


def test_the_adaptive_stream_uses_the_filters_trusted_words_more():
    """Measured on the messages: spam words fall on the filter's trusted words more often."""
    kw = dict(n_words=1000, n_trusted=20, random_state=11)
    runs = {}
    for rate in (0.0, 0.05):
        game = SpamGame(**kw, rate=rate)
        rec = game.play(olbook.PassiveAggressive(), n_days=40, day_size=20)
        X_next, y_next = game.next_batch(400)
        spam_counts = np.asarray(X_next[y_next == 1].sum(axis=0)).ravel()
        runs[rate] = (rec, spam_counts[game.trusted].sum() / spam_counts.sum())
    assert runs[0.0][1] < 0.05 < 0.2 < runs[0.05][1]
    assert runs[0.05][0].trusted_mass[-1] > 10 * runs[0.0][0].trusted_mass[-1]
    assert runs[0.05][0].mistakes.sum() > runs[0.0][0].mistakes.sum()


# --------------------------------------------------------------------------- play
def test_play_records_the_deployed_filter():
    game = SpamGame(300, rate=0.05, random_state=4)
    clf = olbook.OGDClassifier()
    rec = game.play(clf, n_days=6, day_size=5)
    assert isinstance(rec, SpamGameRecord)
    assert rec.X.shape == (30, 300) and rec.trusted_mass.shape == (6,)
    assert np.array_equal(rec.scores[:5], np.zeros(5))  # day 0: the zero filter
    assert np.array_equal(rec.mistakes, rec.y * rec.scores <= 0)
    # day 5's scores are those of the filter learned on days 0..4, replayed
    replay = olbook.OGDClassifier().partial_fit(rec.X[:25], rec.y[:25], classes=[-1, 1])
    assert np.array_equal(replay.decision_function(rec.X[25:]), rec.scores[25:])
    assert clf.trace_.n_rounds == 30


def test_the_spammer_sees_the_filter_deployed_that_day():
    """Step 3 of the game: the spammer reads w_s, the filter before the day's update."""
    game = SpamGame(300, rate=0.05, n_trusted=20, random_state=6)
    seen = []

    def weights(clf):
        seen.append(clf.coef_[0].copy())
        return clf.coef_[0]

    rec = game.play(olbook.Perceptron(), n_days=5, day_size=6, weights=weights)
    assert len(seen) == 4  # day 0 deploys the zero filter, which trusts no word
    for day, w in enumerate(seen, start=1):
        n = day * 6
        replay = olbook.Perceptron().partial_fit(rec.X[:n], rec.y[:n], classes=[-1, 1])
        assert np.array_equal(w, replay.coef_[0])
    w = seen[-1]
    order = np.argsort(w, kind="stable")[:20]
    assert np.array_equal(game.trusted, np.sort(order[w[order] < 0]))
    assert game.trusted.size > 0


def test_norma_plays_dense_with_its_linear_weights():
    clf = olbook.NORMA(kernel=linear, eta=0.1, budget=20)
    rec = SpamGame(200, rate=0.05, random_state=3).play(clf, n_days=8, day_size=10)
    w = filter_weights(clf)
    assert w.shape == (200,)
    assert np.allclose(w, clf.dual_coef_[0] @ clf.support_vectors_, atol=1e-12)
    assert np.allclose(
        rec.X[-10:].toarray() @ w,
        clf.decision_function(rec.X[-10:].toarray()),
        atol=1e-9,
    )
    with pytest.raises(ValueError, match="no linear weight vector"):
        filter_weights(olbook.NORMA(kernel=gaussian(1.0)).fit(rec.X.toarray(), rec.y))
    perc = olbook.Perceptron().fit(rec.X, rec.y)
    assert np.array_equal(filter_weights(perc), perc.coef_[0])


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_words": 0}, "n_words"),
        ({"n_words": 10, "n_topic_words": 6}, "n_words must be >= 2"),
        ({"n_topic_words": 0}, "n_topic_words"),
        ({"topic_weight": 1.0}, "topic_weight"),
        ({"topic_weight": 0.0}, "topic_weight"),
        ({"spam_fraction": 0.0}, "spam_fraction"),
        ({"spam_fraction": np.nan}, "spam_fraction"),
        ({"min_length": 0}, "min_length"),
        ({"min_length": 10, "max_length": 9}, "max_length"),
        ({"rate": -0.1}, "rate"),
        ({"rate": 1.5}, "rate"),
        ({"rate": True}, "rate"),
        ({"n_trusted": 0}, "n_trusted"),
        ({"n_trusted": 2.5}, "n_trusted"),
        ({"random_state": -1}, "random_state"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SpamGame(**kwargs)


def test_bad_calls_change_nothing():
    game = SpamGame(60, n_topic_words=5, rate=0.5, random_state=0)
    with pytest.raises(ValueError, match="next_batch"):
        game.observe(np.zeros(60), np.zeros(3, dtype=bool))
    with pytest.raises(ValueError, match="n_messages"):
        game.next_batch(0)
    assert game.n_rounds == 0
    _, y = game.next_batch(4)
    before = game.camouflage.copy()
    coef = -np.ones(60)
    for bad_coef, bad_flag, match in (
        (np.zeros(59), y == 1, "coef"),
        (np.full(60, np.nan), y == 1, "NaN"),
        (np.zeros((2, 60)), y == 1, "coef"),
        (coef, np.ones(4), "boolean"),
        (coef, np.ones(5, dtype=bool), "boolean"),
    ):
        with pytest.raises(ValueError, match=match):
            game.observe(bad_coef, bad_flag)
        assert np.array_equal(game.camouflage, before) and game.trusted.size == 0
    game.observe(coef.reshape(1, -1), y == 1)  # (1, d) is taken
    with pytest.raises(ValueError, match="n_days"):
        game.play(olbook.Perceptron(), n_days=0)
    with pytest.raises(ValueError, match="day_size"):
        game.play(olbook.Perceptron(), n_days=1, day_size=-1)
    with pytest.raises(ValueError, match="weights"):
        game.play(olbook.Perceptron(), n_days=1, weights="coef_")
    with pytest.raises(ValueError, match="decision_function"):
        game.play(object(), n_days=1)
    assert game.n_rounds == 4
