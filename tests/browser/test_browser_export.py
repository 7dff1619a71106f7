"""Export, links and presentation mode in the real app: the files a lecturer takes away."""

import csv
import io
import zipfile

import numpy as np
import pytest
from playwright.sync_api import expect

from posviz.embedding import cosine_similarity, token_embeddings
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


def test_a_chart_saves_its_matrix_as_csv_and_npy_and_its_picture_as_svg_and_png(server, page):
    """The similarity matrix of E comes back from the CSV and the .npy exactly as computed."""
    page.goto(f"{server}/embedding?text={SENTENCE}")
    settle(page)
    charts_drawn(page)
    tokens = tokenize(SENTENCE)
    expected = cosine_similarity(token_embeddings(tokens, 16)).astype(np.float32)
    chart = page.locator(".posviz-chart[data-name=similarity_panel_e]")
    chart.hover()

    def button(key):
        return lambda: chart.locator(
            f".modebar-btn[data-title='{text(f'common.export.{key}', 'en')}']").click()

    name, data = download(page, button("csv"))
    rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
    assert name == "posviz-similarity_panel_e.csv"
    assert rows[0][1:] == token_labels(tokens) and [r[0] for r in rows[1:]] == token_labels(tokens)
    np.testing.assert_array_equal(np.array([r[1:] for r in rows[1:]], dtype=np.float32), expected)

    name, data = download(page, button("npy"))
    assert name.endswith(".npy")
    np.testing.assert_array_equal(np.load(io.BytesIO(data)), expected)

    name, data = download(page, button("svg"))
    assert name.endswith(".svg") and data.startswith(b"<svg") and "刚".encode() in data

    name, data = download(page, lambda: chart.locator(".modebar-btn[data-title*='PNG']").click())
    assert name.endswith(".png") and data.startswith(b"\x89PNG") and len(data) > 5_000


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


# How much of each of a chart's own tool bar buttons' icons is ink, within the box around its
# ink: its path filled as plotly fills it (nonzero rule) on a canvas of the icon's size.
INK_JS = """(chart) => [...chart.querySelectorAll('.modebar-btn')].filter(
    (b) => /SVG|CSV|npy|矢量|表格/.test(b.dataset.title)).map((b) => {
  const svg = b.querySelector('svg');
  const [, , w, h] = svg.getAttribute('viewBox').split(' ').map(Number);
  const canvas = Object.assign(document.createElement('canvas'), { width: w * 4, height: h * 4 });
  const ctx = canvas.getContext('2d');
  ctx.scale(4, 4);
  ctx.fill(new Path2D(svg.querySelector('path').getAttribute('d')));
  const alpha = ctx.getImageData(0, 0, w * 4, h * 4).data.filter((_, i) => i % 4 === 3);
  const inked = [...alpha.keys()].filter((i) => alpha[i] > 127);
  const xs = inked.map((i) => i % (w * 4)), ys = inked.map((i) => Math.floor(i / (w * 4)));
  const box = (Math.max(...xs) - Math.min(...xs) + 1) * (Math.max(...ys) - Math.min(...ys) + 1);
  return [b.dataset.title, inked.length / box];
})"""


def test_a_line_charts_data_table_speaks_the_readers_language(server, page):
    """A chart of lines: its data table (and CSV) heads each point's line and its x and y with
    the reader's word and the axes' titles, not plotly's "trace", "x" and "y"."""
    page.goto(f"{server}/sinusoidal?lang=zh")
    settle(page)
    chart = page.locator(".posviz-chart[data-name=offset]")
    chart.scroll_into_view_if_needed()
    charts_drawn(page)
    table = chart.locator("xpath=..").locator(".posviz-data")
    table.locator("summary").click()
    head = table.locator("thead th").all_inner_texts()
    assert head == [text("summary.series", "zh"), text("sinusoidal.offset_axis", "zh"),
                    text("sinusoidal.dot_axis", "zh")]
    assert table.locator("tbody th").first.inner_text() == text("sinusoidal.closed_form", "zh")


def test_the_chart_buttons_of_posviz_show_a_glyph_not_a_filled_square(server, page):
    page.goto(f"{server}/embedding?text={SENTENCE}")
    settle(page)
    charts_drawn(page)
    inks = page.locator(".posviz-chart[data-name=sum]").evaluate(INK_JS)
    assert [title for title, _ in inks] == [text(f"common.export.{key}", "en")
                                            for key in ("svg", "csv", "npy")]
    assert all(0.15 < ink < 0.7 for _, ink in inks), inks


def test_the_tool_bar_never_covers_a_charts_title(server, page):
    """Hovered, each chart of the page shows its tool bar clear of its title (wide and narrow
    charts, short and long titles)."""
    page.goto(f"{server}/embedding?text={SENTENCE}")
    settle(page)
    charts_drawn(page)
    charts = page.locator(".posviz-chart.js-plotly-plot")
    for n in range(charts.count()):
        chart = charts.nth(n)
        chart.scroll_into_view_if_needed()
        chart.hover(position={"x": 5, "y": 5})
        bar = chart.locator(".modebar")
        bar.wait_for()
        title, shown = chart.locator(".gtitle").bounding_box(), bar.bounding_box()
        assert (title["y"] >= shown["y"] + shown["height"]
                or title["x"] + title["width"] <= shown["x"]), (n, title, shown)


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
