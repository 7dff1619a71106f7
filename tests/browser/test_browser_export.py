"""Export, links and presentation mode in the real app: the files a lecturer takes away. (A
chart's own exports, its data table and its tool bar are checked where the viewer draws them,
by the same chart module: tests/browser/test_viewer_charts.py.)"""

import csv
import io
import zipfile

import numpy as np
import pytest
from playwright.sync_api import expect

from posviz.embedding import token_embeddings
from posviz.tokens import token_labels, tokenize
from tests.helpers.load_fixtures import SENTENCE_BOX, charts_drawn, settle
from ui.i18n import text

pytestmark = pytest.mark.browser

SENTENCE = "刚想到了刚"


@pytest.fixture
def page(server, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000},
                                  accept_downloads=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = context.new_page()
    yield page
    context.close()


def download(page, click) -> tuple[str, bytes]:
    with page.expect_download() as info:
        click()
    return info.value.suggested_filename, open(info.value.path(), "rb").read()


def test_one_click_packs_every_chart_of_the_page_into_a_zip(server, page):
    page.goto(f"{server}/attention?lang=zh&text={SENTENCE}")
    settle(page)
    n = charts_drawn(page)
    name, data = download(page, lambda: page.get_by_role(
        "button", name=text("common.export.zip", "zh")).click())
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert name == "posviz-attention.zip" and archive.testzip() is None
    names = archive.namelist()
    for ext in ("png", "svg"):
        assert len([f for f in names if f.endswith(f".{ext}")]) == n
    assert all(archive.read(f) for f in names)
    first_map = next(f for f in names if f.endswith(".csv"))
    table = list(csv.reader(io.StringIO(archive.read(first_map).decode())))
    assert [r[0] for r in table[1:]] == token_labels(tokenize(SENTENCE))


def test_the_sum_charts_matrices_are_saved_as_e_p_and_their_sum(server, page):
    page.goto(f"{server}/embedding?text={SENTENCE}")
    settle(page)
    charts_drawn(page)
    _, data = download(page, lambda: page.get_by_role(
        "button", name=text("common.export.zip", "en")).click())
    archive = zipfile.ZipFile(io.BytesIO(data))

    def matrix(part: str) -> np.ndarray:
        rows = list(csv.reader(io.StringIO(archive.read(f"sum-{part}.csv").decode())))
        return np.array([r[1:] for r in rows[1:]], dtype=np.float32)

    e, p, total = matrix("E"), matrix("P"), matrix("E+P")
    np.testing.assert_array_equal(e, token_embeddings(tokenize(SENTENCE), 16).astype(np.float32))
    np.testing.assert_allclose(e + p, total, atol=1e-6)


def test_copy_link_copies_a_link_that_restores_the_exact_view(server, page, browser):
    """Page-local controls, the sentence, the language and both switches survive the link."""
    page.goto(f"{server}/alibi?text=dog%20bites%20man&lang=zh&pos=false&alibi_heads=16"
              "&alibi_trained=64")
    settle(page)
    page.get_by_role("button", name=text("common.export.link", "zh")).click()
    expect(page.get_by_text(text("common.export.copied", "zh"))).to_be_visible()
    link = page.evaluate("navigator.clipboard.readText()")

    fresh = browser.new_page(viewport={"width": 1400, "height": 1000})
    fresh.goto(link)
    settle(fresh)
    expect(fresh.locator("h1").first).to_have_text(text("alibi.title", "zh"))
    expect(fresh.locator(SENTENCE_BOX)).to_have_value(
        "dog bites man")
    assert not fresh.locator("[data-testid=stSidebar] input[type=checkbox]").first.is_checked()
    for label, value in ((text("alibi.n_heads", "zh"), "16"),
                         (text("alibi.trained_len", "zh"), "64")):
        slider = fresh.locator("[data-testid=stSlider]", has_text=label).first
        expect(slider.get_by_role("slider")).to_have_value(value)
    fresh.close()


def test_presentation_mode_enlarges_the_page_and_tucks_the_sidebar_away(server, page):
    page.goto(f"{server}/sinusoidal?present=true")
    settle(page)
    charts_drawn(page)
    # the page's style is a style-only st.html (Streamlit's event container); once, under CI's
    # load, the root font was read before it applied: waited for, not read once
    page.wait_for_function("parseFloat(getComputedStyle(document.documentElement).fontSize)"
                           " >= 20", timeout=10_000)
    expect(page.locator("[data-testid=stSidebar]")).to_have_attribute("data-collapsed", "true")
    tick = page.locator(".posviz-chart .xtick text").first
    assert float(tick.evaluate("t => parseFloat(t.style.fontSize)")) >= 20
