"""A chart where the viewer draws it (static/chart.js, the same module in the app, on a room's
screen and in the offline files): the files it exports, its data table, its tool bar, and markup
typed as the sentence in its labels. Offline files opened from disk with no network, laid out as
the app lays out a desk's pages (tests/helpers/viewer.py)."""

from __future__ import annotations

import base64
import csv
import io
import re
from urllib.parse import urlencode

import numpy as np
import pytest
from playwright.sync_api import expect

from posviz.embedding import cosine_similarity, token_embeddings
from posviz.tokens import token_labels, tokenize
from tests.helpers.markup import MARKUP, shown_as_text
from tests.helpers.screens import SCREENS
from tests.helpers.viewer import drawn_whole, every_view, opened, tables, views
from ui import documents
from ui.i18n import text

pytestmark = pytest.mark.browser

DESK = SCREENS[0]
SENTENCE = "刚想到了刚"
TYPED = f"刚 {MARKUP}"  # 64 tokens: not cut


def page_file(tmp_path, page: str, lang: str = "en", **settings: str):
    """A page as the app downloads it, in a file."""
    path = tmp_path / f"{page}-{lang}.html"
    path.write_bytes(documents.page_file(page, urlencode({"text": SENTENCE} | settings), lang))
    return path


@pytest.fixture
def shown(browser, tmp_path):
    """Open a page's file on a desk (opened(page, lang=, **settings)); no file may ask a host
    or log a script error."""
    found: list[str] = []
    contexts = []

    def opening(page: str, lang: str = "en", **settings: str):
        context, tab = opened(browser, DESK, page_file(tmp_path, page, lang, **settings), found)
        contexts.append(context)
        drawn_whole(tab)
        return tab
    yield opening
    for context in contexts:
        context.close()
    assert not found, found


def download(page, click) -> tuple[str, bytes]:
    with page.expect_download() as info:
        click()
    return info.value.suggested_filename, open(info.value.path(), "rb").read()


def test_a_chart_saves_its_matrix_as_csv_and_npy_and_its_picture_as_svg_and_png(shown):
    """The similarity matrix of E comes back from the CSV and the .npy exactly as computed."""
    page = shown("embedding")
    tokens = tokenize(SENTENCE)
    expected = cosine_similarity(token_embeddings(tokens, 16)).astype(np.float32)
    chart = page.locator(".posviz-chart[data-name=similarity_panel_e]")
    chart.scroll_into_view_if_needed()
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


def test_a_line_charts_data_table_speaks_the_readers_language(shown):
    """A chart of lines: its data table (and CSV) heads each point's line and its x and y with
    the reader's word and the axes' titles, not plotly's "trace", "x" and "y"."""
    page = shown("sinusoidal", "zh")
    table = page.locator(".posviz-chart[data-name=offset]").locator("xpath=..").locator(
        ".posviz-data")
    table.locator("summary").click()
    head = table.locator("thead th").all_inner_texts()
    assert head == [text("summary.series", "zh"), text("sinusoidal.offset_axis", "zh"),
                    text("sinusoidal.dot_axis", "zh")]
    assert table.locator("tbody th").first.inner_text() == text("sinusoidal.closed_form", "zh")


def test_a_charts_data_table_holds_its_numbers_with_their_labels(shown):
    """Scene 2's map of positions: its table names each row and column by its position (plotly
    sends numeric labels as typed arrays); scene 6's arrows: their points, not a legend's empty
    entries, x and y rounded alike; both under the chart's own name."""
    for scene, check in ((2, "positions"), (6, "arrows")):
        page = shown("lesson", scene=str(scene))
        page.locator(".posviz-data summary").first.click()
        table = page.locator(".posviz-data table").first
        if check == "positions":
            expect(table.locator("tbody th").nth(10)).to_have_text("10")
            assert table.locator("thead th").all_inner_texts()[1:4] == ["0", "1", "2"]
            continue
        rows = table.locator("tbody tr")
        expect(rows.first).to_be_visible()
        cells = [row.locator("td").all_inner_texts() for row in rows.all()]
        assert len(cells) >= 4 and any(float(y) != 0 for _, y in cells), cells
        digits = [v.lstrip("-").replace(".", "").lstrip("0") for row in cells for v in row]
        assert all(len(d) <= 4 for d in digits), cells  # x rounded as y is: 4 significant digits


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


def test_the_chart_buttons_of_posviz_show_a_glyph_not_a_filled_square(shown):
    page = shown("embedding")
    inks = page.locator(".posviz-chart[data-name=sum]").evaluate(INK_JS)
    assert [title for title, _ in inks] == [text(f"common.export.{key}", "en")
                                            for key in ("svg", "csv", "npy")]
    assert all(0.15 < ink < 0.7 for _, ink in inks), inks


def test_the_tool_bar_never_covers_a_charts_title(shown):
    """Hovered, each chart of the page shows its tool bar clear of its title (wide and narrow
    charts, short and long titles)."""
    page = shown("embedding")
    charts = page.locator(".posviz-chart.js-plotly-plot")
    for n in range(charts.count()):
        chart = charts.nth(n)
        chart.scroll_into_view_if_needed()
        chart.hover(position={"x": 5, "y": 5})
        bar = chart.locator(".modebar")
        bar.wait_for()
        title, shown_bar = chart.locator(".gtitle").bounding_box(), bar.bounding_box()
        assert (title["y"] >= shown_bar["y"] + shown_bar["height"]
                or title["x"] + title["width"] <= shown_bar["x"]), (n, title, shown_bar)


@pytest.fixture(scope="module")
def every(browser, tmp_path_factory):
    """Every page and scene in one file, markup typed as the sentence and position switched
    off, drawn whole on a desk; and the view each chart is in. No file may ask a host or log a
    script error."""
    path = tmp_path_factory.mktemp("every") / "every.html"
    html, where = every_view({"text": TYPED, "pos": "false"}, "en")
    path.write_text(html, encoding="utf-8")
    found: list[str] = []
    context, page = opened(browser, DESK, path, found)
    drawn_whole(page)
    yield page, where
    context.close()
    assert not found, found


def test_markup_typed_as_the_sentence_stays_text_in_every_chart(every):
    """Every page and scene shows the markup as text, in its words and in its charts' labels,
    and nothing of it runs or renders."""
    page, _ = every
    for n, (view, *_) in enumerate(views(), start=1):
        shown_as_text(page, view, f"#scene-{n}")


# Every chart's own CSV and .npy buttons pressed, the files each hands the browser kept rather
# than downloaded (a browser lets a page save no burst of files without the reader's click
# each: the downloads themselves are test_a_chart_saves_its_matrix_...'s): of each chart, its
# name, whether it has a map, and its files' names and bytes (base64).
EXPORT_ALL_JS = """async ([csv, npy]) => {
  const saving = [];
  const click = HTMLAnchorElement.prototype.click;
  HTMLAnchorElement.prototype.click = function keep() {
    const name = this.download;
    saving.push(fetch(this.href).then((r) => r.blob()).then((blob) => new Promise((done) => {
      const reader = new FileReader();
      reader.onload = () => done([name, reader.result.split(',')[1]]);
      reader.readAsDataURL(blob);
    })));
  };
  const charts = [...document.querySelectorAll('.posviz-chart')].map((chart) => {
    const before = saving.length;
    [csv, npy].map((title) => chart.querySelector(`.modebar-btn[data-title="${title}"]`))
      .filter(Boolean).forEach((button) => button.click());
    return [chart.dataset.name, chart.data.some((t) => t.type === 'heatmap'), before,
            saving.length];
  });
  HTMLAnchorElement.prototype.click = click;
  const files = await Promise.all(saving);
  return charts.map(([name, map, from, to]) => [name, map, files.slice(from, to)]);
}"""


def test_every_chart_of_every_view_exports_its_numbers(every):
    """Each chart of every page and scene saves a CSV of each table of its data table, headed
    alike, with all its rows (the table shows the first 100), each row of lines named as in the
    table; each chart with a map saves a .npy too, holding each map's CSV numbers."""
    page, where = every
    held = dict(tables(page))
    exported = page.evaluate(EXPORT_ALL_JS, [text(f"common.export.{key}", "en")
                                             for key in ("csv", "npy")])
    maps = {name: has_map for name, has_map, _ in exported}
    saved = {name: {file: base64.b64decode(data) for file, data in files}
             for name, _, files in exported}
    assert set(maps) == set(where) == set(held), "every chart drawn, with its data table"
    for name, has_map in maps.items():
        files = saved[name]
        assert all(re.fullmatch(rf"posviz-{re.escape(name)}(-[^.]+)?\.(csv|npy)", f)
                   for f in files), files
        read = [list(csv.reader(io.StringIO(files[f].decode("utf-8-sig"))))
                for f in files if f.endswith(".csv")]
        assert sorted(lines[0] for lines in read) == sorted(head for head, _ in held[name]), name
        for lines in read:  # all its table's rows (the table shows the first 100)
            rows = next(rows for head, rows in held[name] if head == lines[0])
            assert len(lines) - 1 >= len(rows), (name, len(lines), len(rows))
            if lines[0][0]:  # lines or bars: each row named by its line, as in the table
                assert [row[0] for row in lines[1:len(rows) + 1]] == rows, name
        if has_map:
            matrices = []
            for f in files:
                if f.endswith(".npy"):
                    stack = np.load(io.BytesIO(files[f]))
                    matrices += list(stack) if stack.ndim == 3 else [stack]
            for lines in read:
                numbers = np.array([[float(v) if v else np.nan for v in row[1:]]
                                    for row in lines[1:]], dtype=np.float32)
                assert any(np.array_equal(m, numbers, equal_nan=True) for m in matrices), name


