"""The generated corpus: reproducible, split as the app splits text, with a small vocabulary."""

from collections import Counter

import numpy as np
import pytest

from posviz.corpus import (
    SEPARATOR,
    UNKNOWN,
    Vocabulary,
    sentences,
    token_stream,
    vocabulary,
    windows,
)
from posviz.tokens import tokenize


def test_sentences_are_reproducible_from_the_seed():
    assert sentences(50, seed=3) == sentences(50, seed=3)
    assert sentences(50, seed=3) != sentences(50, seed=4)


def test_sentences_are_split_exactly_as_the_app_splits_text():
    for sentence in sentences(300):
        joiner = " " if sentence[0].isascii() else ""
        assert tokenize(joiner.join(sentence)) == sentence


def test_the_source_example_and_order_swaps_are_in_the_corpus():
    corpus = [" ".join(s) for s in sentences(3000)]
    assert "刚 想 到 了" in corpus
    assert any(s.endswith("bites man") for s in corpus)
    assert any(s.startswith("man bites") for s in corpus)


def test_gang_is_followed_by_xiang_more_than_by_anything_else():
    followers = Counter(b for s in sentences(5000) for a, b in zip(s, s[1:], strict=False)
                        if a == "刚")
    assert followers.most_common(1)[0][0] == "想"


def test_vocabulary_is_small_and_covers_every_generated_token():
    vocab = vocabulary()
    assert vocab.tokens[:2] == (SEPARATOR, UNKNOWN)
    assert 50 < len(vocab) < 300
    assert len(set(vocab.tokens)) == len(vocab)
    corpus_tokens = {t for s in sentences(5000, seed=9) for t in s}
    assert corpus_tokens <= set(vocab.tokens)


def test_unseen_tokens_are_read_as_unknown_and_english_is_lower_cased():
    vocab = vocabulary()
    assert vocab.seen(["The", "dog", "🍕", "zebra", "刚"]) == ["the", "dog", UNKNOWN, UNKNOWN, "刚"]
    ids = vocab.encode(["🍕", "刚"])
    assert ids.dtype == np.int64
    assert vocab.decode(ids) == [UNKNOWN, "刚"]


def test_a_vocabulary_must_start_with_the_special_tokens():
    with pytest.raises(ValueError, match="starts with"):
        Vocabulary(("a", "b"))


def test_stream_ends_every_sentence_with_the_separator():
    vocab = vocabulary()
    corpus = [["刚", "想"], ["dog", "bites", "man"]]
    stream = token_stream(corpus, vocab)
    assert vocab.decode(stream) == ["刚", "想", SEPARATOR, "dog", "bites", "man", SEPARATOR]


def test_windows_are_consecutive_slices_of_the_stream():
    stream = np.arange(100)
    w = windows(stream, 10, 7, seed=1)
    assert w.shape == (7, 10)
    assert (np.diff(w, axis=1) == 1).all()
    np.testing.assert_array_equal(w, windows(stream, 10, 7, seed=1))
    with pytest.raises(ValueError, match="length"):
        windows(stream, 101, 1)
