"""A sentence as a model's tokenizer reads it (its pieces, each with the characters it covers),
and a next token as a reader is shown it (its text and its bytes)."""

from __future__ import annotations

import functools
import re

from posviz.pretrained.records import Guess, Loaded, Piece
from posviz.schemes import position_scheme

MAX_TOKENS = 64  # tokens of a sentence read (its start), as every page of posviz


def pieces(loaded: Loaded, text: str) -> list[Piece]:
    """The sentence as the model's tokenizer reads it (its first MAX_TOKENS tokens)."""
    return encode(loaded, text)[1]


def encode(loaded: Loaded, text: str) -> tuple[list[int], list[Piece], int]:
    """The token ids the model reads, their pieces, and how many tokens the whole text has."""
    if loaded.no_position is not None:
        return _encode_own(loaded, text)
    encoded = loaded.tokenizer(text, return_offsets_mapping=True)
    total = len(encoded["input_ids"])
    ids = list(encoded["input_ids"])[:MAX_TOKENS]
    spans = [tuple(span) for span in encoded["offset_mapping"]][:MAX_TOKENS]
    special = set(loaded.tokenizer.all_special_ids)
    spellings = loaded.tokenizer.convert_ids_to_tokens(ids)
    out = []
    for i, ((start, end), spelling) in enumerate(zip(spans, spellings, strict=True)):
        shared = any(j != i and s < end and start < e for j, (s, e) in enumerate(spans))
        out.append(Piece(i, spelling, text[start:end], start, end, shared,
                         ids[i] in special and end == start))
    return ids, out, total


def _encode_own(loaded: Loaded, text: str) -> tuple[list[int], list[Piece], int]:
    """posviz's tokens (posviz.tokens), as far as the model's table of positions reaches."""
    from posviz.tokens import tokenize

    typed = tokenize(text)
    config = loaded.model.config
    table = position_scheme(config.scheme, "models").learned_table
    kept = typed[:min(MAX_TOKENS, config.max_len if table else MAX_TOKENS)]
    seen, out, at = loaded.tokenizer.seen(kept), [], 0
    for i, (token, reading) in enumerate(zip(kept, seen, strict=True)):
        start = text.find(token, at)
        start = at if start < 0 else start
        at = start + len(token)
        out.append(Piece(i, reading, token, start, at, False, False))
    return list(loaded.tokenizer.encode(kept)), out, len(typed)


@functools.cache
def byte_level_alphabet() -> dict[str, int]:
    """GPT-2's byte-level alphabet (openai/gpt-2 encoder.py, `bytes_to_unicode`), read
    backwards: the character that spells each byte in a byte-level BPE token, and its byte.
    Printable Latin-1 bytes spell themselves; every other byte is the next free character
    from U+0100 on."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    spelled, extra = {}, 0
    for byte in range(256):
        if byte in kept:
            spelled[chr(byte)] = byte
        else:
            spelled[chr(256 + extra)] = byte
            extra += 1
    return spelled


def token_bytes(tokenizer, token_id: int) -> bytes:
    """The bytes a token stands for: a byte-level spelling read back through GPT-2's alphabet,
    a byte fallback piece (<0xE5>) as its byte, otherwise its decoded text in UTF-8."""
    spelling = tokenizer.convert_ids_to_tokens(token_id)
    if isinstance(spelling, str):
        if (fallback := re.fullmatch(r"<0x([0-9A-Fa-f]{2})>", spelling)):
            return bytes([int(fallback[1], 16)])
        alphabet = byte_level_alphabet()
        decoded = tokenizer.decode([token_id])
        if spelling and all(c in alphabet for c in spelling) and "\ufffd" in decoded:
            return bytes(alphabet[c] for c in spelling)
        return decoded.encode("utf-8")
    return b""


def guess(tokenizer, token_id: int, p: float) -> Guess:
    """A next token as a reader is shown it (Guess)."""
    return Guess(tokenizer.decode([token_id]), token_bytes(tokenizer, token_id), p)
