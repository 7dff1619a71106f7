"""Every page, found automatically, runs the way a browser reaches it and never raises."""

import pytest

from tests.conftest import PAGES
from tests.helpers.controls import opened

TIMEOUT = 60


def test_pages_are_found():
    assert len(PAGES) >= 2


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", PAGES)
def test_page_runs_after_opening_the_app(page, lang):
    at = opened(page, lang=lang)
    assert not at.exception
    assert at.title, "every page shows a title"


LESSON_SENTENCES = [
    "刚想到了", "了到想刚", "dog bites man", "man bites dog", "the dog chased the dog",
    " ".join(f"word{i % 37}" for i in range(60)),  # a 60-token English sentence
    " ".join(f"w{i}" for i in range(64)),           # 64 distinct tokens
]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("page", [None, *PAGES])
def test_page_renders_the_lesson_sentences(page, lang):
    at = opened(page, lang=lang)
    for text in LESSON_SENTENCES:
        at.text_input(key="text").set_value(text).run()
        assert not at.exception, f"{page} raised on {text[:40]!r} in {lang}"


@pytest.mark.parametrize("page", [None, *PAGES])
def test_empty_sentence_gets_a_friendly_prompt(page):
    at = opened(page)
    at.text_input(key="text").set_value("").run()
    assert not at.exception
    assert any("Type a sentence" in info.value for info in at.info)


@pytest.mark.parametrize("page", [None, *PAGES])
def test_position_switch_off_runs(page):
    at = opened(page)
    at.toggle(key="pos").set_value(False).run()
    assert not at.exception


def test_long_text_is_cut_with_a_notice():
    at = opened(None)
    at.text_input(key="text").set_value("word " * 100).run()
    assert any("first 64 of 100" in w.value for w in at.warning)
