"""The spam game of the blog post on online learning (book section 9.1): a filter that
learns every day against a spammer who adapts."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .._validation import (
    check_open_unit,
    check_positive_int,
    check_probability,
    check_rng,
)


class SpamGameRecord(NamedTuple):
    """What :meth:`SpamGame.play` records: every message, its label and its score.

    Round ``t`` is the ``t``-th message of the game; day ``s`` is the rounds
    ``s * day_size`` to ``(s + 1) * day_size - 1``.
    """

    X: sp.csr_matrix
    """The messages in the order they came: CSR float64 word counts, one row each."""
    y: np.ndarray
    """Their labels, int64: +1 spam, -1 ham."""
    scores: np.ndarray
    """The score of the filter deployed on the message's day (before it learned
    from that day)."""
    mistakes: np.ndarray
    """``y * scores <= 0`` (a score of 0 is a mistake, the perceptron's convention)."""
    trusted_mass: np.ndarray
    """For each day, the probability that a word of the next day's spam falls on the
    trusted words of that day's deployed filter (the words the spammer moved
    towards that evening)."""


def filter_weights(learner) -> np.ndarray:
    r"""The weight vector :math:`\mathbf w` of a fitted linear filter, shape (d,).

    ``learner.coef_[0]`` when the learner has ``coef_`` (olbook's linear
    learners); for a kernel learner with the linear kernel (``kernel.name ==
    "linear"``, e.g. :class:`olbook.NORMA` with :data:`olbook.kernels.linear`),
    :math:`\mathbf w = \sum_i \alpha_i \mathbf x_i` from ``dual_coef_`` and
    ``support_vectors_``, added oldest first, one stored example at a time (the
    same bits on every CPU). Used by :meth:`SpamGame.play` (book section 9.1,
    :ref:`scale-sec-spam-game`).

    Raises
    ------
    ValueError
        If the learner has neither ``coef_`` nor a linear kernel expansion.
    """
    coef = getattr(learner, "coef_", None)
    if coef is not None:
        w = np.asarray(coef, dtype=np.float64)
        if w.ndim == 2 and w.shape[0] == 1:
            return w[0].copy()
        raise ValueError(f"a binary filter has coef_ of shape (1, d); got {w.shape}.")
    kernel = getattr(learner, "kernel", None)
    sv = getattr(learner, "support_vectors_", None)
    alpha = getattr(learner, "dual_coef_", None)
    if (
        getattr(kernel, "name", None) == "linear"
        and sv is not None
        and alpha is not None
    ):
        sv = np.asarray(sv, dtype=np.float64)
        w = np.zeros(sv.shape[1])
        for a, x in zip(np.asarray(alpha, dtype=np.float64)[0], sv, strict=True):
            w += a * x
        return w
    raise ValueError(
        f"{type(learner).__name__} has no linear weight vector: it needs coef_, or "
        "support_vectors_ and dual_coef_ with the linear kernel."
    )


def _sampler(p: np.ndarray) -> np.ndarray:
    """Cumulative sums of ``p`` added left to right (one result on every CPU)."""
    return np.cumsum(p)


class SpamGame:
    r"""The spam game: a stream of e-mails whose spammer adapts to the filter.

    The blog post on online learning ("在线学习", January 2014; the book's
    ``onlinelearningpost2014``) opens with a story: every day a spammer sends
    e-mail, a filter flags it, and a spammer whose message was filtered writes
    the next one with more sweet words. This class plays that repeated game
    (book section 9.1, :ref:`scale-sec-spam-game`). The post's spammer learns
    only which messages were stopped; this one also reads the filter's weights.

    **Messages.** A vocabulary of :math:`V` words has the Zipfian background
    :math:`b_k \propto 1/k` (word :math:`k` is the :math:`k`-th most common).
    Two disjoint random sets of ``n_topic_words`` words are the ham topic
    :math:`H` and the spam topic :math:`S`. A ham message draws each of its
    words from :math:`p_{\text{ham}} = (1-\theta)\,b + \theta\,\mathrm{U}_H`, a
    spam message from :math:`p_{\text{spam}} = (1-\theta)\,c + \theta\,\mathrm{U}_S`,
    where :math:`\theta` is ``topic_weight``, :math:`\mathrm{U}_A` the uniform
    distribution on :math:`A`, and :math:`c` the spammer's *camouflage*, which
    starts at :math:`b`. A message has a uniform random length in
    ``[min_length, max_length]`` and is the row of its word counts (CSR,
    float64); it is spam (label +1) with probability ``spam_fraction``, else
    ham (label -1).

    **The spammer.** After a day, the filter's weights :math:`\mathbf w` and
    which messages it flagged are passed to :meth:`observe`. The filter's
    *trusted words* :math:`T` are the ``n_trusted`` words of most negative
    weight (only words with :math:`w_k < 0`; ties go to the lower word index).
    Each flagged spam message moves a fraction ``rate`` of the camouflage onto
    them: with :math:`k` flagged spam messages and :math:`T` not empty,

    .. math:: c \leftarrow (1-r)^k\, c + \bigl(1 - (1-r)^k\bigr)\,\mathrm{U}_T .

    Flagged ham moves nothing, and nothing moves when :math:`T` is empty (as
    for the zero filter, which has no negative weight).
    The payload :math:`\theta\,\mathrm{U}_S` never changes: spam stays spam.
    With ``rate=0`` the camouflage never moves and the stream does not depend
    on the filter (the oblivious spammer): the same seed gives the same
    messages whatever the filter does.

    Every draw comes from one generator in a fixed order, and every sum that
    decides a draw is added left to right, so a seed gives the same messages,
    bit for bit, on every CPU.

    Parameters
    ----------
    n_words : int, default=2000
        :math:`V`, the size of the vocabulary (the number of features),
        at least ``2 * n_topic_words``.
    n_topic_words : int, default=40
        The number of words of each topic.
    topic_weight : float in (0, 1), default=0.25
        :math:`\theta`, the share of a message's words drawn from its topic.
    spam_fraction : float in (0, 1), default=0.5
        The probability that a message is spam.
    min_length, max_length : int, default=20, 80
        The range of a message's number of words, ``1 <= min_length <= max_length``.
    rate : float in [0, 1], default=0.0
        :math:`r`, the spammer's step towards the trusted words per flagged
        spam message; 0 is the oblivious spammer.
    n_trusted : int, default=20
        How many of the filter's most negative weights the spammer moves towards.
    random_state : None, int or numpy.random.Generator
        Seed for :func:`numpy.random.default_rng`.

    Attributes
    ----------
    background : ndarray of shape (n_words,)
        :math:`b`.
    ham_topic, spam_topic : ndarray of int, shape (n_topic_words,)
        The word indices of :math:`H` and :math:`S`, sorted.
    ham_distribution : ndarray of shape (n_words,)
        :math:`p_{\text{ham}}`.
    camouflage : ndarray of shape (n_words,)
        :math:`c`, now.
    trusted : ndarray of int
        The trusted words of the last :meth:`observe` (empty before).
    n_rounds : int
        Messages drawn so far.

    Examples
    --------
    >>> from olbook import Perceptron
    >>> from olbook.data import SpamGame
    >>> game = SpamGame(500, rate=0.05, random_state=0)
    >>> rec = game.play(Perceptron(), n_days=20, day_size=10)
    >>> rec.X.shape
    (200, 500)
    >>> bool(rec.mistakes[100:].mean() < rec.mistakes[:100].mean())
    True
    """

    def __init__(
        self,
        n_words: int = 2000,
        *,
        n_topic_words: int = 40,
        topic_weight: float = 0.25,
        spam_fraction: float = 0.5,
        min_length: int = 20,
        max_length: int = 80,
        rate: float = 0.0,
        n_trusted: int = 20,
        random_state=None,
    ):
        V = check_positive_int(n_words, "n_words")
        K = check_positive_int(n_topic_words, "n_topic_words")
        if 2 * K > V:
            raise ValueError(
                f"n_words must be >= 2 * n_topic_words = {2 * K}; got {V}."
            )
        theta = check_open_unit(topic_weight, "topic_weight")
        self.spam_fraction = check_open_unit(spam_fraction, "spam_fraction")
        lo = check_positive_int(min_length, "min_length")
        hi = check_positive_int(max_length, "max_length")
        if hi < lo:
            raise ValueError(f"max_length must be >= min_length = {lo}; got {hi}.")
        self.rate = check_probability(rate, "rate")
        self.n_trusted = check_positive_int(n_trusted, "n_trusted")
        self._rng = check_rng(random_state)
        self.n_words, self.n_topic_words, self.topic_weight = V, K, theta
        self.min_length, self.max_length = lo, hi
        inv = 1.0 / np.arange(1, V + 1, dtype=np.float64)
        self.background = inv / math.fsum(inv)
        words = self._rng.permutation(V)
        self.ham_topic = np.sort(words[:K])
        self.spam_topic = np.sort(words[K : 2 * K])
        self.ham_distribution = (1.0 - theta) * self.background
        self.ham_distribution[self.ham_topic] += theta / K
        self.camouflage = self.background.copy()
        self.trusted = np.zeros(0, dtype=np.int64)
        self.n_rounds = 0
        self._last_y: np.ndarray | None = None

    @property
    def spam_distribution(self) -> np.ndarray:
        r""":math:`p_{\text{spam}} = (1-\theta)\,c + \theta\,\mathrm{U}_S`, now."""
        p = (1.0 - self.topic_weight) * self.camouflage
        p[self.spam_topic] += self.topic_weight / self.n_topic_words
        return p

    def next_batch(self, n_messages: int) -> tuple[sp.csr_matrix, np.ndarray]:
        """The next ``n_messages`` e-mails, drawn from the distributions of now.

        Returns
        -------
        X : scipy.sparse.csr_matrix of shape (n_messages, n_words)
            Word counts, float64, canonical CSR (sorted indices, no duplicates).
        y : ndarray of int64, shape (n_messages,)
            +1 spam, -1 ham.
        """
        n = check_positive_int(n_messages, "n_messages")
        rng = self._rng
        y = np.where(rng.random(n) < self.spam_fraction, 1, -1).astype(np.int64)
        lengths = rng.integers(self.min_length, self.max_length + 1, size=n)
        rows = np.repeat(np.arange(n), lengths)
        u = rng.random(rows.size)
        words = np.empty(rows.size, dtype=np.int64)
        spam = y[rows] == 1
        for mask, p in ((spam, self.spam_distribution), (~spam, self.ham_distribution)):
            cdf = _sampler(p)
            words[mask] = np.searchsorted(cdf, u[mask] * cdf[-1], side="right")
        np.minimum(words, self.n_words - 1, out=words)  # u * total rounded up to total
        X = sp.csr_matrix((np.ones(rows.size), (rows, words)), shape=(n, self.n_words))
        X.sum_duplicates()
        X.sort_indices()
        self.n_rounds += n
        self._last_y = y
        return X, y

    def observe(self, coef, flagged) -> None:
        """Show the spammer the filter and which of the last batch it flagged.

        The trusted words (the ``n_trusted`` most negative entries of ``coef``,
        negative ones only) become :attr:`trusted`, and each flagged spam
        message of the last batch moves a fraction ``rate`` of the camouflage
        onto them (see the class docstring). Ham messages flagged move nothing.
        A rejected call changes nothing.

        Parameters
        ----------
        coef : array-like of shape (n_words,) or (1, n_words)
            The filter's weights (a score > 0 flags a message as spam).
        flagged : array-like of bool, shape (n_messages of the last batch,)
            Which messages of the last batch the filter flagged.
        """
        if self._last_y is None:
            raise ValueError("observe needs a batch first: call next_batch.")
        w = np.asarray(coef, dtype=np.float64)
        if w.ndim == 2 and w.shape[0] == 1:
            w = w[0]
        if w.shape != (self.n_words,):
            raise ValueError(
                f"coef must have shape ({self.n_words},) or (1, {self.n_words}); "
                f"got {np.shape(coef)}."
            )
        if not np.all(np.isfinite(w)):
            raise ValueError("coef contains NaN or inf.")
        f = np.asarray(flagged)
        if f.dtype != np.bool_ or f.shape != self._last_y.shape:
            raise ValueError(
                f"flagged must be a boolean array of shape {self._last_y.shape} "
                f"(one entry per message of the last batch); got {f.dtype} {f.shape}."
            )
        order = np.argsort(w, kind="stable")[: self.n_trusted]
        trusted = np.sort(order[w[order] < 0.0])
        k = int(np.count_nonzero(f & (self._last_y == 1)))
        self.trusted = trusted
        if trusted.size == 0 or k == 0 or self.rate == 0.0:
            return
        keep = 1.0
        for _ in range(k):
            keep *= 1.0 - self.rate
        self.camouflage *= keep
        self.camouflage[trusted] += (1.0 - keep) / trusted.size

    def play(
        self, learner, n_days: int, day_size: int = 1, *, weights=None
    ) -> SpamGameRecord:
        """Let an online learner filter ``n_days`` days of ``day_size`` e-mails.

        Each day: the game draws the day's messages (:meth:`next_batch`); the
        filter deployed that morning scores them (``decision_function``; an
        unfitted learner is the zero filter, every score 0) and flags those
        with score > 0; the spammer sees the filter's weights and the flags
        (:meth:`observe`); then the learner learns from the day's labelled
        messages (``partial_fit``, one message at a time inside). With
        ``day_size=1`` this is the online protocol of book section 5.1 round
        by round. A learner that takes no sparse input (scikit-learn's tag
        ``input_tags.sparse``) gets dense rows.

        Parameters
        ----------
        learner : olbook binary online learner
            Played as it is (a fitted learner continues).
        n_days : int
        day_size : int, default=1
        weights : callable, optional
            ``weights(learner)`` returns the filter's weights for
            :meth:`observe`; default :func:`filter_weights`.

        Returns
        -------
        SpamGameRecord
        """
        days = check_positive_int(n_days, "n_days")
        size = check_positive_int(day_size, "day_size")
        get_w = filter_weights if weights is None else weights
        if not callable(get_w):
            raise ValueError(f"weights must be callable; got {weights!r}.")
        for method in ("decision_function", "partial_fit"):
            if not callable(getattr(learner, method, None)):
                raise ValueError(f"learner must have a {method} method.")
        dense = not learner.__sklearn_tags__().input_tags.sparse
        fitted = hasattr(learner, "n_features_in_")
        classes = np.array([-1, 1], dtype=np.int64)
        Xs, ys, scores, mass = [], [], [], np.empty(days)
        for day in range(days):
            X, y = self.next_batch(size)
            X_in = X.toarray() if dense else X
            if fitted:
                s = np.asarray(learner.decision_function(X_in), dtype=np.float64)
                self.observe(get_w(learner), s > 0.0)
            else:
                s = np.zeros(size)
                self.observe(np.zeros(self.n_words), s > 0.0)
            learner.partial_fit(X_in, y, classes=classes)
            fitted = True
            Xs.append(X)
            ys.append(y)
            scores.append(s)
            p = self.spam_distribution
            mass[day] = math.fsum(p[self.trusted]) / math.fsum(p)
        X = sp.vstack(Xs, format="csr")
        y = np.concatenate(ys)
        s = np.concatenate(scores)
        return SpamGameRecord(X, y, s, y * s <= 0.0, mass)


__all__ = ["SpamGame", "SpamGameRecord", "filter_weights"]
