"""The lesson as one file: downloaded from the app's guided lesson, opened from disk in Chromium
with the network cut, it shows every scene for the typed sentence with every chart drawn and
every formula set, and no request leaves the page. Typed text (the whole hostile corpus) goes
through the file as text, through every field a reader types into (the sentence, and the
attention page's typed order, recorded as a setting): shown exactly as typed, never run or
rendered as markup, never ending the file's script elements."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from playwright.sync_api import expect

from posviz.tokens import clip_tokens, tokenize
from tests.helpers.hostile import CATEGORIES, HOSTILE
from tests.helpers.load_fixtures import settle
from tests.helpers.viewer import file_only
from ui import documents
from ui.i18n import text

pytestmark = pytest.mark.browser

LIMIT = 8_000_000  # bytes a lesson file may take
FIELDS = {"text": ("home", {}),  # every field a reader types into, and a page that records it
          "attention_typed": ("attention", {"attention_order": "typed"})}
MARKUP = CATEGORIES["markup"] + CATEGORIES["markup_variants"]

# Whether anything typed became markup or ran: an element with an on... attribute, a frame, an
# image, a script the file does not hold itself, or the marker the corpus's scripts set.
RAN_JS = """(scripts) => [...document.querySelectorAll('*')].some((e) =>
    [...e.attributes].some((a) => a.name.toLowerCase().startsWith('on')))
  || document.querySelectorAll('img, iframe, object, embed').length > 0
  || document.scripts.length !== scripts
  || window.__pwned !== undefined || window.posvizRan === true"""
SENTENCE = "刚想到了 <b>bold</b> $x$"

# the tokens of each chip, as the reader sees them (the small label is the first node)
CHIPS_JS = """(section) => [...section.querySelectorAll('.posviz-chips')].map((line) =>
  [...line.querySelectorAll('.posviz-chip')].map((chip) => chip.lastChild.textContent.slice(1)))"""


def offline(browser, requests: list[str]):
    """A page that may load nothing but the file itself (and the data: URLs inside it)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    file_only(page, requests)
    return page


def test_the_guided_lesson_downloads_as_one_file_that_works_with_no_network(
        server, browser, tmp_path, artifacts):
    app = browser.new_context(viewport={"width": 1400, "height": 1000},
                              accept_downloads=True).new_page()
    app.goto(f"{server}/lesson?scene=3&lang=zh&text={SENTENCE}&pos=false")
    settle(app)
    button = app.locator("[data-testid=stSidebar]").get_by_role("button",
                                                               name="下载整堂课（HTML）")
    with app.expect_download() as info:
        button.click()
    assert info.value.suggested_filename == "posviz-lesson-zh.html"
    saved = tmp_path / "lesson.html"
    info.value.save_as(saved)
    app.context.close()
    assert saved.stat().st_size <= LIMIT

    requests: list[str] = []
    page = offline(browser, requests)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(saved.as_uri())
    sections = page.locator("section.posviz-document")
    expect(sections).to_have_count(len(documents.scenes()))
    assert page.evaluate("document.documentElement.lang") == "zh-Hans"
    expect(page.locator("h1")).to_have_count(1)  # the lesson's title once, then its contents
    expect(page.locator("h1")).to_have_text(text("lesson.title", "zh"))
    links = page.locator("nav.posviz-contents a")
    expect(links).to_have_count(len(documents.scenes()))
    expect(links.nth(3)).to_have_text(f"4. {text('lesson.order.head', 'zh')}")
    tokens = clip_tokens(tokenize(SENTENCE))[0]
    for n in range(len(documents.scenes())):
        section = sections.nth(n)
        section.scroll_into_view_if_needed()
        expect(section.locator("h2").first).to_contain_text(f"{n + 1}.")
        hosts = section.locator(".posviz-chart-host:not(.posviz-answer *)")  # answers: hidden
        for i in range(hosts.count()):  # a chart draws when it comes near the view
            hosts.nth(i).scroll_into_view_if_needed()
            expect(hosts.nth(i).locator(".main-svg").first).to_be_attached(timeout=15_000)
        assert section.locator(".katex-error").count() == 0
        chips = section.evaluate(CHIPS_JS)
        if n == 0:  # the sentence with its first token copied to its end
            assert chips[0] == [*tokens, tokens[0]]
        if n == 3:  # the sentence, then reversed
            assert chips[:2] == [tokens, tokens[::-1]]
    assert page.locator(".posviz-chart-host .js-plotly-plot").count() >= len(documents.scenes())
    assert page.locator(".katex").count() >= 2  # scenes 5 and 6 set their formulas
    assert page.locator("b", has_text="bold").count() == 0  # typed markup stays text
    end = sections.nth(len(documents.scenes()) - 1)  # the lesson's end, its links within it
    expect(end.locator("#lesson-end")).to_have_text(text("ending.head", "zh"))
    end.locator("a[href='#concept-check']").click()
    expect(end.locator("#concept-check")).to_be_in_viewport()
    question = sections.nth(0).locator(".posviz-question")
    expect(question.locator(".posviz-answer")).to_be_hidden()
    question.locator(".posviz-reveal").click()
    expect(question.locator(".posviz-answer")).to_be_visible()
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=artifacts / "offline-lesson.png")
    assert not requests and not errors, (requests, errors)
    page.close()


def _documents(field: str, texts: list[str]) -> list[dict]:
    page, query = FIELDS[field]
    return [{"title": str(i), "blocks": documents.blocks(page, urlencode(query | {
        field: typed}), "en")} for i, typed in enumerate(texts)]


def _script_elements(made: str) -> int:
    """How many script elements a file holds, counted by their end tags as HTML finds them (in
    any case, `</script` followed by a space, / or >)."""
    return len(re.findall(r"</script[\s/>]", made, re.IGNORECASE))


@pytest.mark.parametrize("field", FIELDS)
def test_no_typed_text_ends_a_script_element_of_a_file(field):
    """Every text of the hostile corpus, typed into each field, leaves the file with exactly
    the script elements it is made of (a `</SCRIPT` in a setting ended the file's data early)."""
    alone = _script_elements(documents.offline_html("none", [], "en"))
    made = documents.offline_html("hostile", _documents(field, HOSTILE), "en")
    assert _script_elements(made) == alone
    assert "<!--" not in made


def opened_watched(browser, saved) -> tuple[object, list[str], list[str]]:
    """A file opened offline, with the requests it tried and its script errors kept, and an
    alert() (what an injected script calls) marking window.posvizRan."""
    requests: list[str] = []
    page = offline(browser, requests)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script("window.alert = () => { window.posvizRan = true; };")
    page.goto(saved.as_uri())
    return page, requests, errors


@pytest.mark.parametrize("field", FIELDS)
def test_markup_typed_into_any_field_stays_text_in_a_file(browser, tmp_path, field):
    """The markup of the hostile corpus and its case and encoding variants, typed into each
    field and opened from a file: the settings show each exactly as typed; nothing ran."""
    saved = tmp_path / f"{field}.html"
    saved.write_text(documents.offline_html(field, _documents(field, MARKUP), "en"),
                     encoding="utf-8")
    page, requests, errors = opened_watched(browser, saved)
    sections = page.locator("section.posviz-document")
    expect(sections).to_have_count(len(MARKUP))
    if field != "text":  # the typed order is shown as the setting's value
        shown = page.evaluate("""() => [...document.querySelectorAll('section.posviz-document')]
          .map((s) => [...s.querySelectorAll('.posviz-setting-value')]
          .map((v) => v.textContent))""")
        assert [typed in values for typed, values in zip(MARKUP, shown, strict=True)] == [
            True] * len(MARKUP)
    assert not page.evaluate(RAN_JS, _script_elements(saved.read_text("utf-8")))
    assert not requests and not errors, (requests, errors)
    page.close()


def test_every_hostile_text_goes_through_a_file_as_text(browser, tmp_path):
    """The home page's document for each text of the hostile corpus, all in one file made as
    the downloads are: each document's chips show the tokens exactly as typed, and nothing in
    them ran or became markup."""
    made = [{"title": str(i), "blocks": documents.blocks("home", urlencode(
        {"text": typed}), "en")} for i, typed in enumerate(HOSTILE)]
    saved = tmp_path / "hostile.html"
    saved.write_text(documents.offline_html("hostile", made, "en"), encoding="utf-8")
    page, requests, errors = opened_watched(browser, saved)
    sections = page.locator("section.posviz-document")
    expect(sections).to_have_count(len(HOSTILE))
    for i, typed in enumerate(HOSTILE):
        tokens = clip_tokens(tokenize(typed))[0]
        chips = sections.nth(i).evaluate(CHIPS_JS)
        assert (chips[0] if chips else []) == tokens, (i, typed)
    assert not page.evaluate("window.posvizRan === true")
    assert page.locator("section.posviz-document img, section.posviz-document script").count() == 0
    assert not requests and not errors, (requests, errors)
    page.close()


# The width of each text's first character in the file, over the font size.
QUOTE_WIDTHS_JS = """() => [...document.querySelectorAll(
  '.posviz-document p:not(.posviz-setting)')].map((p) => {
  const range = document.createRange();
  const text = [...p.childNodes].find((n) => n.nodeType === 3);
  range.setStart(text, 0);
  range.setEnd(text, 1);
  return range.getBoundingClientRect().width / parseFloat(getComputedStyle(p).fontSize);
})"""


# Of a file's formulas: the fonts of their letters not KaTeX's, and the parts KaTeX may break
# inside (more than one base: the app keeps each part whole, ui.doc.formula_markdown).
FORMULA_FONTS_JS = """() => {
  const letters = [...document.querySelectorAll('.posviz-formula .katex-html *')]
    .filter((e) => !e.childElementCount && e.textContent.trim());
  const parts = [...document.querySelectorAll('.posviz-formula-part')];
  return [letters.length, letters.map((e) => getComputedStyle(e).fontFamily)
            .filter((font) => !font.startsWith('KaTeX')),
          parts.length,
          parts.filter((p) => p.querySelectorAll('.katex-html > .katex-base').length !== 1).length];
}"""


@pytest.mark.parametrize(("lang", "widest"), [("en", 0.6), ("zh", 1.1)])
def test_a_files_font_follows_its_language(browser, tmp_path, lang, widest):
    """English quotes are drawn by a Latin font (a CJK font's are a full em wide); Chinese
    text by a CJK font; a formula in KaTeX's fonts in either language, each of its parts kept
    whole (on a phone a line breaks between parts, not inside one); a setting's label ends in
    the language's colon (Chinese: the full-width ：)."""
    saved = tmp_path / f"{lang}.html"
    saved.write_text(documents.offline_html("quotes", [{"title": "", "blocks": [
        {"t": "markdown", "text": "“quoted” — a dash"},
        {"t": "markdown", "text": "刚想到了"},
        {"t": "formula", "parts": [
            r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}(QK^\top / \sqrt{d})\,V",
            r"\sin(1) + \cos(2) = x \parallel y"]},
        {"t": "setting", "label": "d", "value": "16"}]}], lang), encoding="utf-8")
    page, requests, errors = opened_watched(browser, saved)
    page.locator(".posviz-document p").first.wait_for()
    quote, han = page.evaluate(QUOTE_WIDTHS_JS)
    assert quote < widest and han > 0.9, (quote, han)  # a Han character is a full em anyway
    letters, other_fonts, parts, breakable = page.evaluate(FORMULA_FONTS_JS)
    assert letters > 20 and not other_fonts, other_fonts
    assert parts == 2 and not breakable
    colon = page.evaluate("getComputedStyle(document.querySelector('.posviz-setting-label'),"
                          " '::after').content")
    assert colon == ('"："' if lang == "zh" else '": "')
    assert not requests and not errors
    page.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_today_files_contents_link_to_its_sections(browser, tmp_path, lang):
    """The page on today's models as a file: each heading carries its anchor as its id, and a
    link of the contents list scrolls to its section."""
    saved = tmp_path / "today.html"
    saved.write_bytes(documents.page_file("today", f"text={SENTENCE}", lang))
    page, requests, errors = opened_watched(browser, saved)
    expect(page.locator("#schemes-clinic")).to_have_text(text("schemes.clinic_head", lang))
    page.locator(".posviz-markdown li a[href='#schemes-clinic']").click()
    expect(page.locator("#schemes-clinic")).to_be_in_viewport()
    assert page.locator(".posviz-markdown li a[href^='#']").count() == 16
    assert not requests and not errors, (requests, errors)
    page.close()
