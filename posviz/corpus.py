"""A small generated bilingual corpus in which word order matters, and its vocabulary.

Sentences come from templates (slot fillers drawn with a seeded generator, nothing
downloaded): subject-verb-object swaps (狗追猫 / 猫追狗, "dog bites man" / "man bites dog"),
刚想到了-style sequences, time words, counting runs. Text is split with
`posviz.tokens.tokenize`, so the models read a sentence exactly as the app splits it: Chinese
one character at a time, English word by word (lower-cased for the models).

Shapes: N = number of windows, T = window length.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from posviz.tokens import tokenize

SEPARATOR = "<sep>"
"""Stands between two sentences of a packed stream: the end of one, the start of the next."""
UNKNOWN = "<unk>"
"""What the models read in place of a token they have never seen."""
SPECIALS = (SEPARATOR, UNKNOWN)

ZH_SUBJECTS = ("我", "你", "他", "她", "猫", "狗", "老师", "学生", "妈妈", "朋友")
ZH_VERBS = ("喜欢", "看见", "追", "帮助", "等", "叫")
ZH_PLACES = ("学校", "公园", "北京", "上海", "商店", "家")
ZH_TIMES = ("今天", "明天", "昨天", "早上", "晚上")
ZH_IDEAS = ("一个办法", "答案", "这个问题", "一个好主意")
ZH_DONE = ("吃饭", "睡觉", "回家", "下课", "下雨")
ZH_NUMERALS = "一二三四五六七八九十"
EN_NOUNS = ("dog", "cat", "man", "woman", "teacher", "student", "bird", "child")
EN_VERBS = ("chased", "saw", "helped", "bit", "called", "followed")
EN_PLACES = ("school", "the park", "the shop", "work", "bed")
EN_TIMES = ("today", "tomorrow", "yesterday", "tonight")
EN_NUMERALS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _runs(numerals: tuple[str, ...] | str, joiner: str) -> tuple[str, ...]:
    """Every run of 3 to 6 consecutive numerals ("三四五", "two three four five", ...)."""
    return tuple(joiner.join(numerals[a:a + n]) for n in range(3, 7)
                 for a in range(len(numerals) - n + 1))


# (weight, joiner, slots): a sentence is one choice from each slot, joined.
TEMPLATES: tuple[tuple[int, str, tuple[tuple[str, ...], ...]], ...] = (
    (4, "", (ZH_SUBJECTS, ZH_VERBS, ZH_SUBJECTS)),                          # 狗追猫
    (3, "", (("刚想到了",),)),                                               # the source's example
    (4, "", (ZH_SUBJECTS, ("刚想到了",), ZH_IDEAS + ("",))),                 # 我刚想到了答案
    (1, "", (ZH_SUBJECTS, ("刚到",), ZH_PLACES)),                            # 他刚到学校
    (2, "", (ZH_SUBJECTS, ("想到了",), ZH_IDEAS)),                           # 她想到了一个办法
    (3, "", (ZH_TIMES, ZH_SUBJECTS, ("去",), ZH_PLACES)),                    # 今天我去学校
    (2, "", (ZH_SUBJECTS, ZH_TIMES, ("到了",), ZH_PLACES)),                  # 他昨天到了北京
    (2, "", (ZH_SUBJECTS, ZH_DONE, ("了",))),                                # 我吃饭了
    (3, "", (_runs(ZH_NUMERALS, ""),)),                                      # 三四五六
    (4, " ", (("the",), EN_NOUNS, EN_VERBS, ("the",), EN_NOUNS)),            # the dog saw the cat
    (2, " ", (EN_NOUNS, ("bites",), EN_NOUNS)),                              # dog bites man
    (2, " ", (("i", "you", "she", "he"), ("just thought of it",
                                          "just thought of the answer"))),
    (3, " ", (EN_TIMES, ("i", "we", "they"), ("go to",), EN_PLACES)),        # today i go to school
    (1, " ", (("the cat sat on the mat",),)),
    (3, " ", (_runs(EN_NUMERALS, " "),)),                                    # two three four
)


def sentences(count: int, seed: int = 0) -> list[list[str]]:
    """count tokenized sentences drawn from TEMPLATES by weight, reproducibly from seed."""
    if count < 0:
        raise ValueError(f"count must not be negative, got {count}")
    rng = np.random.default_rng(seed)
    weights = np.array([w for w, _, _ in TEMPLATES], dtype=float)
    picks = rng.choice(len(TEMPLATES), size=count, p=weights / weights.sum())
    out = []
    for pick in picks:
        _, joiner, slots = TEMPLATES[pick]
        words = [slot[rng.integers(len(slot))] for slot in slots]
        out.append(tokenize(joiner.join(w for w in words if w)))
    return out


def lexicon() -> list[str]:
    """Every token a template can produce, sorted (the same on every run)."""
    return sorted({token for _, _, slots in TEMPLATES for slot in slots for words in slot
                   for token in tokenize(words)})


@dataclass(frozen=True)
class Vocabulary:
    """The tokens a model knows, in id order; ids 0 and 1 are SEPARATOR and UNKNOWN."""

    tokens: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.tokens[: len(SPECIALS)] != SPECIALS:
            raise ValueError(f"a vocabulary starts with {SPECIALS}, got {self.tokens[:2]}")

    @functools.cached_property
    def index(self) -> dict[str, int]:
        return {token: i for i, token in enumerate(self.tokens)}

    def __len__(self) -> int:
        return len(self.tokens)

    def seen(self, tokens: list[str]) -> list[str]:
        """The tokens as a model reads them: lower-cased, UNKNOWN for any it does not know."""
        index = self.index
        return [token.lower() if token.lower() in index else UNKNOWN for token in tokens]

    def encode(self, tokens: list[str]) -> np.ndarray:
        """Token ids of `seen(tokens)`. Returns (T,) int64."""
        index = self.index
        return np.array([index[token] for token in self.seen(tokens)], dtype=np.int64)

    def decode(self, ids: np.ndarray) -> list[str]:
        return [self.tokens[i] for i in np.asarray(ids).ravel()]


def vocabulary() -> Vocabulary:
    """SEPARATOR, UNKNOWN, then the lexicon: a few hundred tokens."""
    return Vocabulary(SPECIALS + tuple(lexicon()))


def token_stream(corpus: list[list[str]], vocab: Vocabulary) -> np.ndarray:
    """The sentences' ids end to end, each followed by SEPARATOR. Returns (sum of T + 1,)."""
    sep = [vocab.index[SEPARATOR]]
    return np.concatenate([np.concatenate([vocab.encode(s), sep]) for s in corpus]).astype(
        np.int64)


def windows(stream: np.ndarray, length: int, count: int, seed: int = 0) -> np.ndarray:
    """count windows of length consecutive ids from random starts in stream. Returns (N, T)."""
    if not 1 <= length <= len(stream):
        raise ValueError(f"length must lie in 1..{len(stream)}, got {length}")
    starts = np.random.default_rng(seed).integers(0, len(stream) - length + 1, size=count)
    return stream[starts[:, None] + np.arange(length)]  # (N, T)
