"""The tokenizer: CJK per character, words, digits, emoji and punctuation, any text."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from posviz.tokens import (
    MAX_TOKENS,
    back_from_last,
    clip_tokens,
    repeated,
    short,
    token_labels,
    tokenize,
)


@pytest.mark.parametrize(("text", "tokens"), [
    ("刚想到了", ["刚", "想", "到", "了"]),
    ("了到想刚", ["了", "到", "想", "刚"]),
    ("我 love 刚想到了!", ["我", "love", "刚", "想", "到", "了", "!"]),
    ("The cat sat, 42 times.", ["The", "cat", "sat", ",", "42", "times", "."]),
    ("こんにちは", ["こ", "ん", "に", "ち", "は"]),
    ("한국어", ["한", "국", "어"]),
    ("Привет, мир", ["Привет", ",", "мир"]),
    ("abc123def", ["abc", "123", "def"]),
    ("１２３ＡＢＣ", ["１２３", "ＡＢＣ"]),
    ("𝐀𝐁𝐂 x", ["𝐀𝐁𝐂", "x"]),
    ("<b>x</b>", ["<", "b", ">", "x", "<", "/", "b", ">"]),
    ("$\\frac{1}{2}$", ["$", "\\", "frac", "{", "1", "}", "{", "2", "}", "$"]),
    ("**bold** `code`", ["*", "*", "bold", "*", "*", "`", "code", "`"]),
    ("", []),
    ("   \t\n ", []),
    ("x", ["x"]),
    ("刚", ["刚"]),
])
def test_tokenize_examples(text, tokens):
    assert tokenize(text) == tokens


def test_emoji_sequences_and_flags_are_one_token_each():
    family = "👨\u200d👩\u200d👧\u200d👦"
    assert tokenize(f"{family}🇨🇳🇫🇷 ok 👍🏽") == [family, "🇨🇳", "🇫🇷", "ok", "👍🏽"]
    assert tokenize("1️⃣2") == ["1️⃣", "2"]


def test_combining_marks_stay_on_their_letter():
    assert tokenize("cafe\u0301 ok") == ["cafe\u0301", "ok"]
    assert tokenize("e\u0301\u0302") == ["e\u0301\u0302"]


def test_right_to_left_words_and_bidi_controls():
    assert tokenize("مرحبا بالعالم") == ["مرحبا", "بالعالم"]
    assert tokenize("שלום \u202eabc\u202c") == ["שלום", "abc"]


def test_invisible_and_control_characters_separate_and_vanish():
    assert tokenize("a\u200bb") == ["a", "b"]
    assert tokenize("x\x00y\x07z") == ["x", "y", "z"]
    assert tokenize("\u200d\u200c\ufeff") == []


def test_ten_thousand_characters():
    text = "刚想到了 hello 😀 xy " * 625
    assert len(text) == 10_000
    tokens = tokenize(text)
    assert tokens[:7] == ["刚", "想", "到", "了", "hello", "😀", "xy"]
    assert len(tokens) == 625 * 7
    kept, total = clip_tokens(tokens)
    assert len(kept) == MAX_TOKENS and total == 4375
    assert kept == tokens[:MAX_TOKENS]


def test_max_tokens_is_at_least_64():
    assert MAX_TOKENS >= 64


def test_clip_keeps_short_sentences_whole():
    assert clip_tokens(["a", "b"]) == (["a", "b"], 2)
    with pytest.raises(ValueError, match="max_tokens"):
        clip_tokens(["a"], 0)


@given(st.text())
def test_tokenize_never_raises_and_drops_only_separators(text):
    tokens = tokenize(text)
    assert all(tok and not tok.isspace() for tok in tokens)
    # every token is a piece of the text, in order
    at = 0
    for tok in tokens:
        at = text.index(tok, at) + len(tok)


def test_labels_are_unique_and_short():
    tokens = ["the", "cat", "the", "x" * 40]
    labels = token_labels(tokens)
    assert labels[:3] == ["0 the", "1 cat", "2 the"]
    assert len(set(labels)) == 4
    assert labels[3] == "3 " + "x" * 11 + "…"
    assert short("👨\u200d👩\u200d👧" * 20, 3) == "👨\u200d👩\u200d👧" * 2 + "…"


def test_repeated_lists_positions_of_repeats_only():
    assert repeated(tokenize("刚想到了刚")) == {"刚": [0, 4]}
    assert repeated(tokenize("the dog chased the dog")) == {"the": [0, 3], "dog": [1, 4]}
    assert repeated(["a", "b"]) == {}


@given(st.integers(0, 70))
def test_back_from_last_is_each_tokens_distance_to_the_last(n):
    assert back_from_last(n) == [n - 1 - j for j in range(n)]
