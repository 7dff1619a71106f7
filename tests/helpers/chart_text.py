"""The words of a page's drawn charts and formulas, read in the browser: what the legibility
check (tests/helpers/drawn.py) does not see. Each check takes the selector of the part of the
page it reads (Streamlit's main column, the viewer's document, one part of a file)."""

from __future__ import annotations

from tests.helpers.words import broken_words

# The page's formulas that KaTeX could not read, and those wider than their line (a phone
# would hide their end: a formula is set smaller until it fits). line: what holds one formula
# line (Streamlit's Markdown container; the viewer's formula part).
FORMULAS_JS = """([root, line]) => {
  const scope = document.querySelector(root);
  const formulas = [...scope.querySelectorAll('.katex')];
  const broken = scope.querySelectorAll('.katex-error').length;
  const cut = formulas.map((f) => f.closest(line))
    .filter((box) => box && box.scrollWidth > box.clientWidth + 1).length;
  return [broken, cut];
}"""
STREAMLIT_FORMULA = "[data-testid=stMarkdownContainer]"
VIEWER_FORMULA = ".posviz-formula-part"

# Charts wider than their column by more than a few pixels (they scroll sideways: static/chart.js's
# SLIGHT) that do not say so, and chart and axis titles with a line broken inside an equation
# ("d =" at a line's end, "= 16" at the next one's start) or inside a few bracketed characters
# ("查询（位" above "置）"), and the lines of every title drawn on more than one (read for a
# Chinese word broken in two: tests/helpers/words.py).
CHART_TEXT_JS = r"""([root]) => {
  const scope = document.querySelector(root);
  const charts = [...scope.querySelectorAll('.posviz-chart')]
    .filter((c) => c.offsetParent !== null && c.clientWidth > c.parentElement.clientWidth + 24);
  const silent = charts.filter((c) => {
    const cue = c.parentElement.querySelector('.posviz-scroll-cue');
    return !cue || !cue.offsetHeight || !cue.textContent.trim();
  }).map((c) => c.dataset.name);
  const group = /[(\[（［【〈《「『〔]([^()\[\]（）［］【】〈〉《》「」『』〔〕]*)$/;
  const rest = /^([^()\[\]（）［］【】〈〉《》「」『』〔〕]*)[)\]）］】〉》」』〕]/;
  const titles = [...scope.querySelectorAll('.gtitle, text[class$=title]')]
    .map((t) => [...t.querySelectorAll('tspan.line')].map((l) => l.textContent.trim()))
    .filter((lines) => lines.length > 1);
  const broken = titles.flatMap((lines) => lines.flatMap((line, i) => {
    const next = lines[i + 1] || '', opened = line.match(group), closed = next.match(rest);
    const split = opened && closed && [...opened[1] + closed[1]].length <= 6;
    return /\s=$|^=\s/.test(line) || split ? [split ? `${line} / ${next}` : line] : [];
  }));
  return [silent, broken, titles];
}"""

# The titles of the charts' tool bar buttons not in the page's language: English ones on a
# Chinese page (plotly.js's own words, "Zoom", "Pan", ...), Chinese ones on an English page.
TOOLBAR_WORDS_JS = """([root, lang]) => {
  const chinese = /[\u4e00-\u9fff]/;
  return [...document.querySelectorAll(`${root} .modebar-btn[data-title]`)]
    .map((b) => b.dataset.title).filter((t) => chinese.test(t) !== (lang === 'zh'));
}"""


def chart_text(page, root: str, lang: str, line: str) -> list[str]:
    """What is wrong with the words of the charts and formulas drawn in root, one line each."""
    found = []
    broken, cut = page.evaluate(FORMULAS_JS, [root, line])
    if broken or cut:
        found.append(f"{broken} formulas KaTeX cannot read, {cut} cut off")
    silent, split, titles = page.evaluate(CHART_TEXT_JS, [root])
    if silent:
        found.append(f"charts that scroll sideways without a cue: {silent}")
    if split:
        found.append(f"titles broken inside an equation or a bracket: {split}")
    if inside := [broken for lines in titles for broken in broken_words(lines)]:
        found.append(f"titles broken inside a Chinese word: {inside}")
    if foreign := page.evaluate(TOOLBAR_WORDS_JS, [root, lang]):
        found.append(f"tool bar buttons not in the page's language: {sorted(set(foreign))}")
    return found
