"""The translation catalog: complete in both languages, and every key the code uses exists."""

import re
import string
from pathlib import Path

import pytest

from ui.i18n import ASSETS, LANGS, catalog, text

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")),
           *sorted((ROOT / "ui").glob("*.py"))]


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_key_has_every_language_and_no_other():
    for key, entry in catalog().items():
        assert set(entry) == set(LANGS), key
        assert all(isinstance(v, str) and v.strip() for v in entry.values()), key


def test_placeholders_agree_between_languages():
    for key, entry in catalog().items():
        assert fields(entry["en"]) == fields(entry["zh"]), key


def test_chinese_text_is_chinese():
    """An English phrase needs Chinese in its zh slot (a lone name such as ALiBi may repeat)."""
    for key, entry in catalog().items():
        if len(re.findall(r"[A-Za-z]{3,}", entry["en"])) >= 3:
            assert re.search(r"[\u4e00-\u9fff]", entry["zh"]), f"{key} is not translated"


def test_every_literal_key_in_the_code_exists():
    keys = catalog()
    for path in SOURCES:
        for key in re.findall(r"""\b(?:t|text)\(\s*["']([a-z_]+\.[a-z_.]+)["']""",
                              path.read_text("utf-8")):
            assert key in keys, f"{path.name} uses missing key {key}"


def test_every_position_scheme_is_named_in_every_stack_that_offers_it():
    """The registry's words (posviz.schemes): each stack's key, and the unmasked variant's."""
    from posviz.schemes import SCHEMES

    for scheme in SCHEMES:
        for key in [*scheme.words.values(), *filter(None, [scheme.unmasked])]:
            assert key in catalog(), (scheme.name, key)
    assert "Qwen3-Next" in text("attention.schemes.partial_rope", "en")
    assert "Qwen3-Next" in text("attention.schemes.partial_rope", "zh")


def test_every_page_has_nav_title_and_blurb():
    for path in (ROOT / "pages").glob("*.py"):
        name = re.sub(r"^\d+_", "", path.stem)
        for key in ("nav", "title", "blurb"):
            for lang in LANGS:
                assert text(f"{name}.{key}", lang)


def test_every_long_text_exists_in_both_languages():
    names = {lang: {p.name for p in (ASSETS / "text" / lang).glob("*.md")} for lang in LANGS}
    assert names["en"] and names["en"] == names["zh"]


def test_chinese_paragraphs_are_single_lines():
    """A line break inside a Chinese paragraph would be drawn as a stray space."""
    block_start = re.compile(r"^(\s*[-*] |\s*\d+\. |#|\||\$\$)")
    for path in (ASSETS / "text" / "zh").glob("*.md"):
        lines = path.read_text("utf-8").splitlines()
        for before, line in zip(lines, lines[1:], strict=False):
            if before.strip() and line.strip() and not block_start.match(line):
                pytest.fail(f"{path.name}: a paragraph continues on a new line: {line[:30]!r}")


def test_missing_key_fails_loudly():
    with pytest.raises(KeyError):
        text("home.no_such_key", "en")


def test_every_bold_closes_where_commonmark_closes_it():
    """A closing ** after a punctuation mark closes only before a space or another mark
    (CommonMark's flanking rule): “**结果。**在” shows its asterisks. Every text renders with
    no ** left over."""
    from markdown_it import MarkdownIt

    render = MarkdownIt("commonmark").render
    for key, entry in catalog().items():
        for lang, value in entry.items():
            assert "**" not in render(value), (key, lang)


def test_an_image_patch_is_one_word_in_chinese_everywhere():
    """图像块, as the Today page says it, in every key of every page (never 小块)."""
    loose = [key for key, entry in catalog().items() if "小块" in entry["zh"]]
    assert loose == []
