"""Two engines, one set of numbers: the Python engine writes golden cases (random sentences of 1
to 128 tokens in Chinese, English, emoji, combining marks, zero-width joiners and right-to-left
scripts; random strings for the tokenizer), the browser's engine (static/engine.js, as built)
computes them in Chromium from the sentence alone, and every array must match to 1e-12, every
token exactly. The page has no network: the engine is its only script."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from posviz.attention import ATTENTION_SCHEMES
from posviz.figures.attention import (
    NARROW_EM,
    NARROWEST_ROW,
    PANEL_TALL,
    STACKED_TALL,
    TICK_SIZE,
    _columns,
    _label_width,
    _stacked_row,
    left_margin,
    order_gap,
    panel_geometry,
    panel_rule,
)
from posviz.figures.common import FONT_SIZE, plain
from posviz.schemes import browser_schemes
from posviz.splitmix import normals, text_stream, uniforms
from posviz.tokens import clip_tokens, token_labels, tokenize
from tests.conftest import ROOT
from tests.helpers import golden
from tests.helpers.live_figures import live_figures
from ui.i18n import LANGS
from ui.summary import browser_words, number, summary

pytestmark = pytest.mark.browser

HOST = "http://posviz.engine"
ENGINE = ROOT / "static" / "engine.js"
TOLERANCE = 1e-12


@pytest.fixture(scope="module")
def tab(browser):
    """A blank page that can import the built engine from HOST/engine.js and nothing else."""
    context = browser.new_context()
    asked: list[str] = []

    def answer(route):
        url = route.request.url
        if url == f"{HOST}/engine.js":
            route.fulfill(body=ENGINE.read_bytes(), content_type="text/javascript")
        elif url == f"{HOST}/":
            route.fulfill(body="<!doctype html><title>engine</title>", content_type="text/html")
        else:
            asked.append(url)
            route.abort()
    context.route("**/*", answer)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{HOST}/")
    yield page
    context.close()
    assert not asked and not errors, (asked, errors)


def run(tab, script: str, *args):
    """The script's answer for args, both ways as JSON text (golden.BROWSER_JS)."""
    return json.loads(tab.evaluate(script, [f"{HOST}/engine.js", json.dumps(args)]))


def test_the_browser_draws_posviz_random_numbers_bit_for_bit(tab):
    drawn = run(tab, """async ([url]) => JSON.stringify(await (async () => {
        const { splitmix: sm } = await import(url);
        const hex = ([h, l]) => h.toString(16).padStart(8, '0') + l.toString(16).padStart(8, '0');
        return { stream: hex(sm.text_stream('刚')), lone: hex(sm.text_stream('a\\ud800')),
                 uniforms: Array.from(sm.uniforms(7, sm.text_stream('x'), 1000)),
                 normals: Array.from(sm.normals(3, sm.text_stream('layer 1 wv'), 4097)) };
    })())""")
    assert int(drawn["stream"], 16) == text_stream("刚") == 0x19B8251B660E1026
    assert int(drawn["lone"], 16) == text_stream("a\ud800")
    assert drawn["uniforms"] == uniforms(7, text_stream("x"), 1000).tolist()
    assert drawn["normals"] == normals(3, text_stream("layer 1 wv"), 4097).tolist()


def test_the_browser_computes_every_live_figure_of_500_sentences_as_python_does(tab):
    """Every figure's array, for the browser's own tokens of each sentence; then the bag of
    tokens on the browser's numbers alone: with no position and no mask, the reversed sentence
    gets the same maps, moved with its tokens."""
    cases = golden.cases(500, seed=59)
    assert {c["scheme"] for c in cases} == set(ATTENTION_SCHEMES)  # every scheme, partial RoPE too
    lengths = []
    for start in range(0, len(cases), 100):
        batch = cases[start:start + 100]
        sent = [c | {"text": golden.code_points(c["text"])} for c in batch]
        got = run(tab, golden.BROWSER_JS, sent, golden.SHIFTS, golden.LONGEST, browser_schemes())
        data = np.frombuffer(b"".join(map(base64.b64decode, got["data"])), dtype=np.float64)
        shapes = iter(got["shapes"])
        at = 0
        for case, tokens in zip(batch, got["tokens"], strict=True):
            want_tokens, want = golden.expected(case)
            assert [golden.from_code_points(t) for t in tokens] == want_tokens, case["text"]
            lengths.append(len(want_tokens))
            arrays = {}
            for name in golden.FIGURES:
                shape = next(shapes)
                size = int(np.prod(shape))
                arrays[name] = data[at:at + size].reshape(shape)
                at += size
                assert arrays[name].shape == want[name].shape, (name, case)
                assert np.array_equal(np.isnan(arrays[name]), np.isnan(want[name])), name
                gap = np.nanmax(np.abs(arrays[name] - want[name]), initial=0.0)
                assert gap <= TOLERANCE, (name, gap, case)
            assert np.array_equal(arrays["embedding"], want["embedding"])  # drawn bit for bit
            if golden.bag(case):
                flipped = arrays["reversed"][..., ::-1, ::-1]
                assert np.abs(flipped - arrays["attention"]).max() <= TOLERANCE
        assert at == len(data)
    assert min(lengths) == 1 and max(lengths) == golden.LONGEST and len(lengths) == 500


def random_strings(count: int, seed: int) -> list[str]:
    """count random strings of 0 to 24 code points from every pool of the sentences and from
    the hard cases of grapheme clusters (Hangul jamo, Indic conjuncts, prepend marks, emoji
    modifiers, regional indicators, controls, lone surrogates)."""
    rng = np.random.default_rng(seed)
    hard = ("\u1100\u1161\u11a8\u0600\u0915\u094d\u0937\u200d\u200c\u0301\u0308\U0001f3fd\U0001f1e8"
            "\U0001f1f3\u20e3\ufe0f\ufe0e\r\n\u0085\u2028\u00ad\u034f\u0e33\u0e40\u17b6\u093f"
            "\ud800\udc00\ud83d\U0001f9d1\u2764\u261d\U000e0067\U000e007f\u0001\u007f")
    pools = [list("".join(pool)) for pool in golden.POOLS] + [list(hard)]
    out = []
    for _ in range(count):
        points: list[str] = []
        for _ in range(rng.integers(0, 25)):
            pool = pools[rng.integers(len(pools))]
            points.append(pool[rng.integers(len(pool))])
        text = "".join(points)
        out.append(text.replace("\ud800\udc00", "\ud800x").replace("\ud83d\udc00", "\ud83dx"))
    return out


def test_the_browser_tokenizes_5000_random_strings_as_python_does(tab):
    strings = random_strings(5000, seed=59)
    got = run(tab, golden.TOKENIZE_JS, *[golden.code_points(s) for s in strings])
    differ = [(s, tokenize(s), [golden.from_code_points(t) for t in tokens])
              for s, tokens in zip(strings, got, strict=True)
              if [golden.from_code_points(t) for t in tokens] != tokenize(s)]
    assert not differ, differ[:5]


def test_the_browser_reads_a_sample_of_every_plane_as_python_does(tab):
    """One code point in 251 of all of Unicode (a prime stride, so no block is always met at
    its start), alone and between two letters: the browser's Unicode tables against the
    `regex` module's (docs/engines.md; a probe over every code point found no difference)."""
    points = [c for c in range(0, 0x110000, 251) if not 0xD800 <= c <= 0xDFFF]
    strings = [chr(c) for c in points] + [f"a{chr(c)}b" for c in points]
    got = run(tab, golden.TOKENIZE_JS, *[golden.code_points(s) for s in strings])
    differ = [s for s, tokens in zip(strings, got, strict=True)
              if [golden.from_code_points(t) for t in tokens] != tokenize(s)]
    assert len(strings) > 8_000 and not differ, [hex(ord(c)) for s in differ[:20] for c in s]


PANELS_JS = """
async ([url, given]) => {
  const [sets, rule, font] = JSON.parse(given);
  const { panels } = await import(url);
  panels.use_panel_rule(rule);
  return JSON.stringify(sets.map(([points, n_panels, n_cols]) => {
    const orders = points.map((labels) => labels.map((cps) => String.fromCodePoint(...cps)));
    const [labels] = orders;
    const gap = panels.order_gap(orders);
    return {
      widths: labels.map((label) => panels.label_width(label)), gap,
      columns: panels.columns(orders.length, gap), rows_left: panels.left_margin(labels, font),
      stacked_row: panels.stacked_row(labels),
      wide: panels.panel_geometry(labels, n_panels, n_cols, rule.narrowest_row, rule.panel_tall),
      narrow: panels.panel_geometry(labels, n_panels, 1, panels.stacked_row(labels),
                                    rule.stacked_tall),
    };
  }));
}
"""
"""The browser's layout of maps of panels (engine/panels.js, with the rule Python sent) for each
sentence's labels and its reversal's (as code points), in n_panels panels of n_cols a row, and the
room left of a chart's token rows in the figures' font (E, P and E + P)."""


def same_values(got: object, want: object, where: str) -> None:
    """Integers, booleans and strings exactly, floats to TOLERANCE, lists and dicts item by item."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and got.keys() == want.keys(), where
        for key in want:
            same_values(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list | tuple):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (one, other) in enumerate(zip(got, want, strict=True)):
            same_values(one, other, f"{where}[{i}]")
    elif isinstance(want, bool | str):
        assert got == want, (where, got, want)
    elif isinstance(want, int):
        assert got == want and float(got).is_integer(), (where, got, want)
    else:
        assert abs(got - want) <= TOLERANCE, (where, got, want)


def test_the_browser_lays_out_the_maps_of_500_sentences_as_python_does(tab):
    """posviz.figures.attention's layout of its maps of panels for each sentence's labels (as
    the figure writes them, escaped): the labels' widths (the wide characters are Python's
    Unicode tables, sent), the gap between order_maps' panels, the columns, and panel_geometry
    side by side and stacked (upright or turned keys, margins, height, least width, each row's
    domain), in 1 to 9 panels; and the room left of E, P and E + P's rows in their font."""
    cases = golden.cases(500, seed=59)
    sets, wants = [], []
    for index, case in enumerate(cases):
        tokens, _ = clip_tokens(tokenize(case["text"]), golden.LONGEST)
        orders = [[plain(label) for label in token_labels(seq)] for seq in (tokens, tokens[::-1])]
        n_panels, n_cols = 1 + index % 9, 1 + index % 3
        labels = orders[0]
        gap = order_gap(orders)
        sets.append([[[golden.code_points(label) for label in each] for each in orders],
                     n_panels, n_cols])
        wants.append({
            "widths": [_label_width(label) for label in labels], "gap": gap,
            "columns": _columns(2, gap), "rows_left": left_margin(labels, FONT_SIZE),
            "stacked_row": _stacked_row(labels),
            "wide": panel_geometry(labels, n_panels, n_cols, NARROWEST_ROW, PANEL_TALL),
            "narrow": panel_geometry(labels, n_panels, 1, _stacked_row(labels), STACKED_TALL)})
    got = run(tab, PANELS_JS, sets, panel_rule(), FONT_SIZE)
    for index, (one, want) in enumerate(zip(got, wants, strict=True)):
        same_values(one, want, f"case {index}")
    assert {want["wide"]["upright"] for want in wants} == {True, False}  # both ways of keys
    narrow = [TICK_SIZE * NARROW_EM * len(label) for each in sets for label in each[0][0]]
    widths = [w for want in wants for w in want["widths"]]
    assert any(abs(w - n) > 1 for w, n in zip(widths, narrow, strict=True))  # wide characters


SUMMARY_JS = """async ([url, given]) => {
  const { summary } = await import(url);
  const [figures, words] = JSON.parse(given);
  return JSON.stringify(figures.map((figure) => summary.summary(figure, words)));
}"""


def test_the_browser_says_what_every_live_figure_of_120_sentences_shows_as_python_does(tab):
    """engine/summary.js (with the words Python sends) says of each live figure of each
    sentence, in each language, exactly what ui/summary.py says of it: its maps' rows, largest
    weights and hidden cells, its lines' points and its bars' values, character for character.
    120 sentences (1 to 128 tokens): the arrays under the words are held on 500 above, and
    Python's drawing of 7 figures a sentence in two languages is most of this test's time."""
    cases = golden.cases(120, seed=59)
    said = 0
    for lang in LANGS:
        for start in range(0, len(cases), 50):
            figures, names, want = [], [], []
            for case in cases[start:start + 50]:
                tokens, _ = clip_tokens(tokenize(case["text"]), golden.LONGEST)
                for name, figure in live_figures(tokens, lang).items():
                    figures.append(figure)
                    names.append((name, case["text"]))
                    want.append(summary(figure, lang))
            got = run(tab, SUMMARY_JS, figures, browser_words(lang))
            differ = [(name, g, w) for name, g, w in zip(names, got, want, strict=True) if g != w]
            assert not differ, differ[:3]
            said += len(want)
    assert said >= 2 * 120 * 7


NUMBER_JS = """async ([url, given]) => {
  const { summary } = await import(url);
  const named = { nan: NaN, inf: Infinity, "-inf": -Infinity };
  return JSON.stringify(JSON.parse(given)[0].map((v) => summary.number(
    v in named ? named[v] : Number(v))));
}"""


def test_the_browser_writes_every_number_as_python_does(tab):
    """Zero (signed), negatives, the tiny (1e-16, the least double), the huge (past 1e21, the
    largest double), the halves Python rounds to even (0.125, 100.5, 2.5e-3 ...), the edges of
    each notation (1e-3, 100, 99.95), NaN and infinities, and 20,000 random values of every
    size: summary.js's number() writes each as ui.summary.number does."""
    rng = np.random.default_rng(59)
    edges = [0.0, -0.0, 1e-16, -1e-16, 5e-324, -5e-324, 1e-3, -1e-3, 9.995e-4, 0.00099999,
             1.7976931348623157e308, -1.7976931348623157e308, 1e21, 1e22, 123456789012345678901.5,
             2.0 ** 53 + 2, 100.0, -100.0, 99.95, 99.949999, 99.5, -99.5, 100.5, 101.5, -100.5,
             2.5, 0.125, 0.0125, 0.375, 1.0625, 0.0015, -0.0015, 0.5, 1.0, 10.0, 0.1, 0.01, 12.5,
             1234.5, 1e16, -1e16, 3.14159, float("nan"), float("inf"), float("-inf")]
    sizes = 10.0 ** rng.uniform(-20, 25, 10_000) * rng.choice([-1, 1], 10_000)
    halves = rng.integers(-2 ** 20, 2 ** 20, 10_000) / 2.0 ** rng.integers(1, 12, 10_000)
    values = edges + sizes.tolist() + halves.tolist()
    got = run(tab, NUMBER_JS, [repr(v) for v in values])
    differ = [(v, g, number(v)) for v, g in zip(values, got, strict=True) if g != number(v)]
    assert not differ, differ[:10]
