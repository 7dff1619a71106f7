"""The Chinese words a wrapped chart title never breaks inside (assets/viewer/src/chart/words.js):
the list the chart element reads, read here the same way, to check titles against it."""

from __future__ import annotations

import functools
import re

from tests.conftest import ROOT

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
"""A run of Chinese characters (punctuation, spaces and Latin letters end it)."""


@functools.cache
def listed() -> frozenset[str]:
    """Every word words.js lists (its template strings, words apart by white space)."""
    source = (ROOT / "assets" / "viewer" / "src" / "chart" / "words.js").read_text("utf-8")
    return frozenset(word for block in re.findall(r"`([^`$]*)`", source)
                     for word in block.split())


def words(run: str) -> list[str]:
    """A run of Chinese characters as the fewest words that cover it, listed ones or single
    characters, the longer word first where two ways take as many (as words.js reads it)."""
    known, n = listed(), len(run)
    fewest, ends = [0] * (n + 1), [n] * (n + 1)
    for i in range(n - 1, -1, -1):
        fewest[i] = n + 1
        for j in range(n, i, -1):  # the longer word first
            if (j - i == 1 or run[i:j] in known) and 1 + fewest[j] < fewest[i]:
                fewest[i], ends[i] = 1 + fewest[j], j
    found, i = [], 0
    while i < n:
        found.append(run[i:ends[i]])
        i = ends[i]
    return found


def unlisted(text: str) -> list[str]:
    """The characters of a text's Chinese that no listed word covers (each would be read as a
    word of its own: the list has made no decision about it)."""
    return [word for run in HAN.findall(text) for word in words(run) if word not in listed()]


def broken_words(lines: list[str]) -> list[str]:
    """Where a text drawn on these lines breaks inside a Chinese word: each as "上 / 下",
    the two lines' characters around the break."""
    joined = "".join(lines)
    broken, at = [], 0
    for line in lines[:-1]:
        at += len(line)
        for run in HAN.finditer(joined):
            if run.start() < at < run.end():
                edge, ends = run.start(), set()
                for word in words(run.group()):
                    edge += len(word)
                    ends.add(edge)
                if at not in ends:
                    broken.append(f"{joined[run.start():at]} / {joined[at:run.end()]}")
    return broken


def wrapped_titles(figure: dict) -> list[str]:
    """The titles of a figure (its JSON) that the chart element wraps to its width: the chart's
    and its axes', in its own layout and in the layouts it carries for a narrow column and a
    short window (meta.narrow, meta.short)."""
    layout = figure.get("layout", {})
    meta = layout.get("meta") or {}
    found = []
    for shape in (layout, meta.get("narrow") or {}, meta.get("short") or {}):
        for key, part in shape.items():
            if key == "title" or re.fullmatch(r"[xy]axis\d*", key):
                title = part if key == "title" else (part or {}).get("title")
                text = title.get("text") if isinstance(title, dict) else title
                if text:
                    found.append(text)
    return found
