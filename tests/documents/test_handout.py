"""The lesson file as a live handout: opened from disk on a phone with the network cut, a
sentence typed into its box redraws every live figure with the browser's engine, and each
figure's arrays are the Python engine's for that sentence (to 1e-12); a figure the browser
cannot compute says, beside it, that it still shows the lesson's sentence. Hostile text typed
into the box stays text, bounded. `python -m ui.handout` writes the file without a server."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from posviz.alibi import causal_alibi_bias, heads_shown, hide_masked
from posviz.attention import HEAD_DIM, attention_stack
from posviz.embedding import token_embeddings
from posviz.figures.attention import BAR_DIGITS
from posviz.permutation import compare_runs, reversal
from posviz.rope import apply_rope, pair_coordinates
from posviz.sinusoidal import sinusoidal
from posviz.tokens import MAX_TOKENS, clip_tokens, token_labels, tokenize
from tests.documents.test_offline_file import RAN_JS
from tests.helpers.hostile import HOSTILE
from tests.helpers.live_figures import live_figures
from tests.helpers.viewer import file_only
from ui import handout
from ui.cached import lesson
from ui.i18n import text
from ui.summary import summary

pytestmark = pytest.mark.browser

TYPED = "了到想刚"
TOLERANCE = 1e-12
PHONE = dict(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)

# A drawn chart's value maps (not the grey layers under hidden cells), NaN as null.
DRAWN_JS = """(host) => {
  const gd = host.querySelector('.posviz-chart');
  if (!gd || !gd.data) return null;
  return JSON.stringify(gd.data.filter((t) => t.type === 'heatmap' && t.hoverinfo !== 'skip')
    .map((t) => ({ z: Array.from(t.z, (row) => Array.from(row, (v) => (Number.isNaN(v) ? null
                                                                         : v))),
                   y: Array.from(t.y) })));
}"""


def expected(tokens: list[str]) -> dict[str, list[np.ndarray]]:
    """Each live chart's maps for the sentence, as the Python engine computes them."""
    copied = [*tokens, tokens[0]]
    e = token_embeddings(tokens, lesson.EMBED_D)
    p = sinusoidal(len(tokens), lesson.EMBED_D)

    def mean(seq: list[str], layers: int, scheme: str, causal: bool, layer: int) -> np.ndarray:
        x = token_embeddings(seq, HEAD_DIM * lesson.HEADS)
        return attention_stack(x, layers, lesson.HEADS, scheme, causal).mean_weights(layer)

    bias = causal_alibi_bias(lesson.ALIBI_HEADS, len(tokens))
    return {
        "lesson_meaning": [token_embeddings(copied, lesson.EMBED_D)],
        "lesson_sum": [e, p, e + p],
        "lesson_order": [mean(seq, lesson.LAYERS, "none", False, -1)
                         for seq in (tokens, tokens[::-1])],
        "lesson_alibi": [bias[h - 1] for h in heads_shown(lesson.ALIBI_HEADS)],
        "lesson_causal": [hide_masked(mean(tokens, 1, "sinusoidal", True, 0))],
    }


FRAMED = {"lesson_position": MAX_TOKENS, "lesson_sinusoidal": lesson.SINE_N}
STALE = ("lesson_leak", "lesson_today", "lesson_port")


@pytest.fixture(scope="module")
def handout_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("handout") / "lesson.html"
    assert handout.main(["--lang", "zh", "--out", str(out)]) == out
    return out


def phone(browser, requests: list[str]):
    context = browser.new_context(**PHONE)
    file_only(context, requests)
    return context.new_page()


# The RoPE plane as drawn for a typed sentence: the spec the chart was last given (its arrows'
# heads, shafts, labels and ranges) and the labels of its heads (which sentence it shows).
PLANE_JS = """(host) => {
  const gd = host.querySelector('.posviz-chart');
  if (!gd || !gd.posvizSource) return null;
  const { data, layout } = gd.posvizSource.figure;
  const heads = data.filter((t) => t.showlegend === false && t.marker
                                   && t.marker.symbol === 'arrow');
  return JSON.stringify({
    heads: heads.map((t) => ({ x: Array.from(t.x), y: Array.from(t.y),
                               labels: Array.from(t.customdata) })),
    keys: data.filter((t) => t.showlegend !== false).map((t) => [t.name, t.line.dash || '']),
    arcs: data.filter((t) => t.hoverinfo === 'skip').map((t) => Array.from(t.x).length),
    shapes: layout.shapes.map((s) => [s.x1, s.y1, s.line.color, s.line.width, s.line.dash || '']),
    notes: layout.annotations.map((a) => [a.x, a.y, a.text, a.arrowcolor]),
    ranges: [layout.xaxis.range, layout.yaxis.range], spread: layout.meta.spread });
}"""


def plane_expected(tokens: list[str], position: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Scene 6's arrows for the sentence, (T, 2) before and after, by the Python engine."""
    _, q, _, _, _ = lesson.rope_head(tuple(tokens))
    positions = np.arange(len(tokens)) if position else np.zeros(len(tokens))
    return (pair_coordinates(q, lesson.ROPE_PAIR),
            pair_coordinates(apply_rope(q, positions), lesson.ROPE_PAIR))


def plane_drawn(page, labels: list[str]) -> dict:
    """Scene 6's plane, once it is drawn for the sentence whose labels are given."""
    chart = host(page, "lesson_rope")
    chart.scroll_into_view_if_needed()
    handle = chart.element_handle()
    page.wait_for_function(f"""(host) => {{
      const got = ({PLANE_JS})(host);
      return got !== null && JSON.stringify(JSON.parse(got).heads[0].labels)
        === {json.dumps(json.dumps(labels, ensure_ascii=False, separators=(",", ":")))};
    }}""", arg=handle)
    return json.loads(page.evaluate(PLANE_JS, handle))


def assert_plane_is_pythons(drawn: dict, tokens: list[str], lang: str) -> None:
    """The arrows are the Python engine's numbers (1e-12); the rest of the figure (legend
    keys, arcs, shafts, labels and their colours, ranges) is what Python's figure draws for
    that sentence."""
    want = json.loads(lesson.rope_figure(tuple(tokens), True, lang).to_json())
    for got, coordinates in zip(drawn["heads"], plane_expected(tokens), strict=True):
        assert np.abs(np.array([got["x"], got["y"]]).T - coordinates).max() <= TOLERANCE
    assert [t["customdata"] for t in want["data"] if t.get("showlegend") is False
            and t.get("marker", {}).get("symbol") == "arrow"] == [
                h["labels"] for h in drawn["heads"]]
    assert drawn["keys"] == [[t["name"], t["line"].get("dash", "")] for t in want["data"]
                             if t.get("showlegend") is not False]
    arcs = [t for t in want["data"] if t.get("hoverinfo") == "skip"]
    assert drawn["arcs"] == [len(tokens) * 64 for _ in arcs]
    shapes = want["layout"]["shapes"]
    assert [s[2:] for s in drawn["shapes"]] == [
        [s["line"]["color"], s["line"]["width"], s["line"].get("dash", "")] for s in shapes]
    assert np.allclose([s[:2] for s in drawn["shapes"]], [[s["x1"], s["y1"]] for s in shapes],
                       rtol=0, atol=TOLERANCE)
    notes = want["layout"].get("annotations", [])
    assert [n[2:] for n in drawn["notes"]] == [[n["text"], n["arrowcolor"]] for n in notes]
    assert np.allclose(drawn["ranges"], [want["layout"][k]["range"] for k in ("xaxis", "yaxis")],
                       rtol=0, atol=1e-6)  # the arcs are float32 in both
    assert drawn["spread"] == want["layout"]["meta"]["spread"]


# A bar chart's bars as drawn: each trace's labels, values and the text written on its bars.
BARS_JS = """(host) => {
  const gd = host.querySelector('.posviz-chart');
  if (!gd || !gd.data) return null;
  return JSON.stringify(gd.data.filter((t) => t.type === 'bar').map((t) => ({
    x: Array.from(t.x), y: Array.from(t.y), text: Array.from(t.text) })));
}"""


def change_expected(tokens: list[str]) -> list[np.ndarray]:
    """Scene 4's answer for the sentence: each token's largest change when it is reversed, for
    each of the chart's schemes, by the Python engine."""
    order = reversal(len(tokens))
    x = token_embeddings(tokens, HEAD_DIM * lesson.HEADS)
    return [compare_runs(*(attention_stack(inputs, lesson.LAYERS, lesson.HEADS, scheme, False)
                           for inputs in (x, x[order])), order).token_gaps
            for scheme in lesson.CHANGE_SCHEMES]


def assert_change_is_pythons(page, tokens: list[str], labels: list[str]) -> None:
    """Scene 4's answer, revealed with a tap: its bars are the Python engine's numbers for the
    sentence (1e-12), each written as Python writes the value drawn (BAR_DIGITS)."""
    scene = page.locator("#scene-4")
    scene.locator(".posviz-reveal").first.tap()
    chart = host(page, "lesson_order_change")
    chart.scroll_into_view_if_needed()
    handle = chart.element_handle()
    page.wait_for_function(f"""(host) => {{
      const got = ({BARS_JS})(host);
      return got !== null && JSON.parse(got)[0].x[0] === {json.dumps(labels[0])}
        && JSON.parse(got)[0].x.length === {len(labels)};
    }}""", arg=handle)
    drawn = json.loads(page.evaluate(BARS_JS, handle))
    for bars, want in zip(drawn, change_expected(tokens), strict=True):
        assert bars["x"] == labels
        assert np.abs(np.array(bars["y"]) - want).max() <= TOLERANCE
        assert bars["text"] == [f"{v:.{BAR_DIGITS}g}" for v in bars["y"]]


def host(page, name: str):
    return page.locator(f".posviz-chart-host:has(.posviz-chart[data-name='{name}'])")


def drawn_for(page, name: str, labels: list[str]) -> list[dict]:
    """The chart's drawn maps, once it is drawn for the whole sentence whose labels are given:
    its first map's first row and the row of the sentence's last token (a sentence still being
    typed draws its first words first, whose first row is the same)."""
    chart = host(page, name)
    chart.scroll_into_view_if_needed()
    handle = chart.element_handle()
    page.wait_for_function(f"""(host) => {{
      const got = ({DRAWN_JS})(host);
      const rows = got === null ? [] : JSON.parse(got)[0].y;  // the sentence's own order
      const is = (row, label) => row === label || row === '◆ ' + label;
      return is(rows[0], {json.dumps(labels[0])})
        && is(rows[{len(labels) - 1}], {json.dumps(labels[-1])});
    }}""", arg=handle)
    return json.loads(page.evaluate(DRAWN_JS, handle))


def as_array(z: list) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in z], dtype=float)


NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:e[+-]\d+)?")


def alike(heard: str, said: str) -> bool:
    """Two summaries alike: the same words, and the same numbers but where both are rounding
    noise (at most TOLERANCE: the two engines agree to that, not to the digits of 1e-15)."""
    if NUMBER.split(heard) != NUMBER.split(said):
        return False
    return all(a == b or max(abs(float(a.replace(",", ""))), abs(float(b.replace(",", ""))))
               <= TOLERANCE for a, b in zip(NUMBER.findall(heard), NUMBER.findall(said),
                                            strict=True))


def assert_heard_as_pythons(page, tokens: list[str], lang: str) -> None:
    """What a screen reader is told of each live chart (the text its aria-describedby names) is
    what ui/summary.py says of the figure drawn, character for character, and what it says of
    Python's figure for the typed sentence (its numbers to TOLERANCE)."""
    figures = live_figures(tokens, lang)
    assert {"lesson_sum", "lesson_order", "lesson_order_change", "lesson_rope",
            "lesson_causal"} <= set(figures)  # maps, bars and lines
    for name, figure in figures.items():
        chart = host(page, name)
        chart.scroll_into_view_if_needed()
        expect(chart).to_have_attribute("aria-describedby", re.compile(r"^posviz-summary-\d+$"))
        described = page.locator(f"#{chart.get_attribute('aria-describedby')}")
        drawn = json.loads(page.evaluate(
            "(host) => JSON.stringify(host.querySelector('.posviz-chart').posvizSource.figure)",
            chart.element_handle()))
        heard = described.text_content()  # the charts are drawn for the tokens by now
        assert heard == summary(drawn, lang), name
        assert alike(heard, summary(figure, lang)), (name, heard, summary(figure, lang))


def test_a_phone_types_a_sentence_into_the_handout_and_every_live_figure_is_computed(
        browser, handout_file, artifacts):
    """From disk, offline, on a 390 x 844 phone: tap the box, type 了到想刚 (no Enter)."""
    requests: list[str] = []
    page = phone(browser, requests)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(handout_file.as_uri())
    box = page.locator("#posviz-try-input")
    expect(box).to_be_visible()
    expect(box).to_have_attribute("placeholder", text("viewer.try_placeholder", "zh"))
    box.tap()
    page.keyboard.type(TYPED)
    tokens = clip_tokens(tokenize(TYPED))[0]
    expect(page.locator(".posviz-try-status")).to_have_text(
        text("viewer.try_tokens", "zh", n=len(tokens)))
    expect(page.locator(".posviz-try-more")).to_be_hidden()  # four chips: all in sight
    labels = token_labels(tokens)
    for name, maps in expected(tokens).items():
        drawn = drawn_for(page, name, labels)
        assert len(drawn) == len(maps), name
        for got, want in zip(drawn, maps, strict=True):
            got_z = as_array(got["z"])
            assert got_z.shape == want.shape, name
            assert np.array_equal(np.isnan(got_z), np.isnan(want)), name
            assert np.nanmax(np.abs(got_z - want), initial=0.0) <= TOLERANCE, name
        assert host(page, name).locator(
            "xpath=preceding-sibling::p[1][contains(@class,'live')]").count() == 1, name
    for name, rows in FRAMED.items():
        chart = host(page, name)
        chart.scroll_into_view_if_needed()
        frame = page.wait_for_function("""(host) => {
          const gd = host.querySelector('.posviz-chart');
          const rect = gd && gd.layout && (gd.layout.shapes || []).find((s) => s.type === 'rect');
          return rect && rect.y1;
        }""", arg=chart.element_handle()).json_value()
        assert frame == min(len(tokens), rows) - 0.5, name
    assert_plane_is_pythons(plane_drawn(page, labels), tokens, "zh")
    assert_change_is_pythons(page, tokens, labels)
    assert_heard_as_pythons(page, tokens, "zh")
    for name in STALE:  # said beside it, not shown as the student's
        note = host(page, name).locator("xpath=preceding-sibling::p[1]")
        expect(note).to_have_class("posviz-live-note stale")
        expect(note).to_have_text(text("viewer.try_stale", "zh"))
    host(page, "lesson_sum").scroll_into_view_if_needed()
    page.screenshot(path=artifacts / "handout-phone.png")
    page.locator(".posviz-try-reset").tap()  # the lesson's sentence again, every note gone
    expect(page.locator(".posviz-live-note")).to_have_count(0)
    assert not requests and not errors, (requests, errors)
    page.context.close()


LONG = ("the cat sat on the mat while it was raining and nobody knew why position matters to "
        "attention in a transformer while jumps happen")
SIZED = {"lesson_meaning": lambda seq: lesson.embedding_figure(
             (*seq, seq[0]), ("panel_e",), True, "en", "lesson.meaning.fig"),
         "lesson_sum": lambda seq: lesson.embedding_figure(
             seq, ("panel_e", "panel_p", "panel_x"), True, "en")}
"""The live charts whose layout grows with the sentence, and Python's figure for a sentence."""

# The layout a chart was last given (its height, margins, each axis' domain and row labelling,
# those of its narrow layout) and whether any two of its drawn tick labels overlap.
SIZES_JS = """(host) => {
  const gd = host.querySelector('.posviz-chart');
  const sized = (shape) => shape && ({ height: shape.height, margin: shape.margin,
    least: (shape.meta || {}).least ?? null,
    axes: Object.keys(shape).filter((k) => /^yaxis\\d*$/.test(k)).sort()
      .map((k) => [k, shape[k].domain || null, shape[k].dtick || null]) });
  const { layout } = gd.posvizSource.figure;
  const boxes = [...gd.querySelectorAll('.xtick text, .ytick text')]
    .map((t) => t.getBoundingClientRect()).filter((r) => r.width && r.height);
  const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5
    && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  return JSON.stringify({ main: sized(layout), narrow: sized(layout.meta.narrow) || null,
    drawn: gd._fullLayout.height, labels: boxes.length,
    overlaps: boxes.filter((a, i) => boxes.slice(i + 1).some((b) => meet(a, b))).length });
}"""


def sized(layout: dict | None) -> dict | None:
    """SIZES_JS's summary of a Python layout."""
    if layout is None:
        return None
    axes = sorted(k for k in layout if k.startswith("yaxis"))
    return {"height": layout["height"], "margin": layout["margin"],
            "least": layout.get("meta", {}).get("least"),
            "axes": [[k, layout[k].get("domain"), layout[k].get("dtick")] for k in axes]}


# Of a map of panels (scene 4's orders), what its layout lays out from the labels: height,
# margins, least width, each axis' place, range and key labels, each panel title's place; and
# those of its narrow layout.
LAID_OUT_JS = """(host) => {
  const { layout } = host.querySelector('.posviz-chart').posvizSource.figure;
  const fields = ['domain', 'range', 'tickvals', 'ticktext', 'tickangle'];
  const laid = (shape) => ({ height: shape.height, margin: shape.margin,
    least: shape.meta.min_width, notes: shape.annotations.map((a) => [a.x, a.y]),
    axes: Object.keys(shape).filter((k) => /^[xy]axis\\d*$/.test(k)).sort()
      .map((k) => [k, ...fields.map((f) => shape[k][f] ?? null)]) });
  return JSON.stringify({ main: laid(layout), narrow: laid(layout.meta.narrow) });
}"""


def laid_out(layout: dict) -> dict:
    """LAID_OUT_JS's summary of a Python layout."""
    fields = ["domain", "range", "tickvals", "ticktext", "tickangle"]
    axes = sorted(k for k in layout if k[1:5] == "axis")
    return {"height": layout["height"], "margin": layout["margin"],
            "least": layout["meta"]["min_width"],
            "notes": [[note["x"], note["y"]] for note in layout["annotations"]],
            "axes": [[k, *(layout[k].get(f) for f in fields)] for k in axes]}


def assert_order_is_pythons(page, tokens: list[str], labels: list[str]) -> None:
    """Scene 4's maps, laid out for the typed sentence as Python lays its figure out."""
    drawn_for(page, "lesson_order", labels)
    got = json.loads(page.evaluate(LAID_OUT_JS, host(page, "lesson_order").element_handle()))
    backwards = tuple(reversal(len(tokens)).tolist())
    want = json.loads(lesson.order_figure(tuple(tokens), backwards, "en").to_json())["layout"]
    assert got["main"] == laid_out(want)
    assert got["narrow"] == laid_out(want["meta"]["narrow"])


def test_a_long_sentence_typed_on_a_phone_grows_each_chart_as_python_would(browser, tmp_path):
    """24 English tokens typed into the English handout on a phone: each chart whose layout
    depends on the sentence's length gets Python's layout for that sentence (height, rows,
    narrow layout), no two tick labels drawn meet, scene 4's maps are laid out as Python lays
    them out from the labels, and the RoPE plane without its labels and arcs (beyond
    MAX_TIP_LABELS tokens) is Python's figure too."""
    out = handout.main(["--lang", "en", "--out", str(tmp_path / "lesson-en.html")])
    requests: list[str] = []
    page = phone(browser, requests)
    page.goto(out.as_uri())
    box = page.locator("#posviz-try-input")
    expect(box).to_have_attribute("placeholder", text("viewer.try_placeholder", "en"))
    box.tap()
    page.keyboard.type(LONG)
    tokens = clip_tokens(tokenize(LONG))[0]
    assert len(tokens) > 20
    labels = token_labels(tokens)
    more = page.locator(".posviz-try-more")  # the chips scroll, and say so
    expect(more).to_be_visible()
    expect(more).to_have_text(text("viewer.try_more", "en"))
    for name, python in SIZED.items():
        drawn_for(page, name, labels)
        got = json.loads(page.evaluate(SIZES_JS, host(page, name).element_handle()))
        want = json.loads(python(tuple(tokens)).to_json())["layout"]
        assert got["main"] == sized(want), name
        assert got["narrow"] == sized(want["meta"].get("narrow")), name
        assert got["drawn"] >= (got["narrow"] or got["main"])["height"], name
        assert got["labels"] > 3 and not got["overlaps"], (name, got)
    assert_order_is_pythons(page, tokens, labels)
    assert_plane_is_pythons(plane_drawn(page, labels), tokens, "en")
    assert_change_is_pythons(page, tokens, labels)
    assert not requests
    page.context.close()


def test_hostile_text_typed_into_the_handout_stays_text_and_bounded(browser, handout_file):
    """Markup, 10,000 characters, unpaired surrogates, bidi overrides, set and then typed into
    the tapped box: shown inert, the box and the chips bounded, no sideways scroll, and a note
    past the figures' MAX_TOKENS."""
    requests: list[str] = []
    page = phone(browser, requests)
    page.goto(handout_file.as_uri())
    scripts = page.evaluate("document.scripts.length")
    box = page.locator("#posviz-try-input")
    long = "刚" * 10_000
    for typed in [*HOSTILE[:40], "\u202eevil\u202c <b>x</b>", "a\ud800b\udfff", long]:
        box.evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", typed)
        n = len(tokenize(typed))
        status = page.locator(".posviz-try-status")
        if n > MAX_TOKENS:
            expect(status).to_have_text(text("viewer.try_cut", "zh", n=n, max=MAX_TOKENS))
        elif n:
            expect(status).to_have_text(text("viewer.try_tokens", "zh", n=n))
        assert not page.evaluate(RAN_JS, scripts), typed[:40]
    chips = page.locator(".posviz-try-chips")
    expect(chips.locator(".posviz-chip")).to_have_count(MAX_TOKENS)
    assert chips.evaluate("(el) => el.getBoundingClientRect().height") <= 844 / 3
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # typed as a reader would, the box tapped: markup and bidi overrides, then a long paste
    box.evaluate("(el) => { el.value = ''; el.dispatchEvent(new Event('input')); }")
    box.tap()
    markup = "<img src=x onerror=alert(1)> \u202eevil\u202c"
    page.keyboard.type(markup)
    page.keyboard.insert_text(long)
    n = len(tokenize(markup + long))
    expect(page.locator(".posviz-try-status")).to_have_text(
        text("viewer.try_cut", "zh", n=n, max=MAX_TOKENS))
    assert not page.evaluate(RAN_JS, scripts)
    assert chips.locator("img").count() == 0
    expect(chips.locator(".posviz-chip").first).to_have_text(f"0 {tokenize(markup)[0]}")
    for bounded in (box, chips):
        assert bounded.evaluate("(el) => el.getBoundingClientRect().height") <= 844 / 3
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not requests
    page.context.close()
