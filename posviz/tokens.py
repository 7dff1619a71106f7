"""Turning typed text into tokens, and tokens into labels.

posviz reads Chinese, Japanese and Korean one character at a time (刚想到了 -> 刚 想 到 了), the way
character-level models and most CJK vocabularies see them, and every other script by words.
"""

from __future__ import annotations

import regex

MAX_TOKENS = 64
"""The most tokens a page works on; longer text is cut to its first MAX_TOKENS tokens."""

MAX_LABEL_CHARS = 12
"""Longer tokens are shortened in chart labels (the full token stays in hover text)."""

_GRAPHEME = regex.compile(r"\X")
_CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Bopomofo}]")
_EMOJI = regex.compile(r"[\p{Extended_Pictographic}\p{Regional_Indicator}]|.[\ufe0f\u20e3]")
_LETTER = regex.compile(r"[\p{L}\p{M}]")
_DIGIT = regex.compile(r"\p{Nd}")
_SPACE = regex.compile(r"[\s\p{C}]")  # white space, controls, bidi marks, zero-width characters


def _kind(cluster: str) -> str:
    """Classify one grapheme cluster as space, cjk, emoji, letter, digit or mark."""
    if _EMOJI.match(cluster):
        return "emoji"
    if _SPACE.match(cluster):
        return "space"
    if _CJK.match(cluster):
        return "cjk"
    if _LETTER.match(cluster):
        return "letter"
    if _DIGIT.match(cluster):
        return "digit"
    return "mark"


def tokenize(text: str) -> list[str]:
    """Split text into tokens.

    - each Han, kana, Hangul or Bopomofo character is a token;
    - a run of letters (with their combining marks) is a word token, in any script;
    - a run of decimal digits is a token;
    - each emoji is a token, ZWJ sequences, keycaps and flags included;
    - each punctuation mark or symbol is a token;
    - white space, control and invisible format characters separate tokens and are dropped.

    Works on user-perceived characters (Unicode grapheme clusters), so a combining accent stays
    on its letter. Never raises on a str.
    """
    tokens: list[str] = []
    run, run_kind = "", ""
    for cluster in _GRAPHEME.findall(text):
        kind = _kind(cluster)
        if kind == run_kind and kind in ("letter", "digit"):
            run += cluster
            continue
        if run:
            tokens.append(run)
        run, run_kind = ("", "") if kind == "space" else (cluster, kind)
    if run:
        tokens.append(run)
    return tokens


def clip_tokens(tokens: list[str], max_tokens: int = MAX_TOKENS) -> tuple[list[str], int]:
    """The first max_tokens tokens and how many there were in all."""
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
    return tokens[:max_tokens], len(tokens)


def short(token: str, max_chars: int = MAX_LABEL_CHARS) -> str:
    """The token, cut to max_chars user-perceived characters with an ellipsis if longer."""
    clusters = _GRAPHEME.findall(token)
    return token if len(clusters) <= max_chars else "".join(clusters[: max_chars - 1]) + "…"


def token_labels(tokens: list[str]) -> list[str]:
    """One label per position, "0 刚", "1 想", ...: unique even when tokens repeat."""
    return [f"{t} {short(token)}" for t, token in enumerate(tokens)]


def repeated(tokens: list[str]) -> dict[str, list[int]]:
    """Each token that occurs more than once, with its positions, in order of first occurrence."""
    positions: dict[str, list[int]] = {}
    for t, token in enumerate(tokens):
        positions.setdefault(token, []).append(t)
    return {token: ts for token, ts in positions.items() if len(ts) > 1}


def back_from_last(n_tokens: int) -> list[int]:
    """How far back each of n_tokens tokens stands from the last one: n - 1, ..., 1, 0."""
    return list(range(n_tokens - 1, -1, -1))
