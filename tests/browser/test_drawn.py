"""The screen sweep's checks (tests/helpers/drawn.py) catch each defect they look for: charts drawn
by posviz's own plotly.js build on a page made for each case, with no server."""

import json

import numpy as np
import pytest

from posviz.figures.alibi import t5_buckets
from posviz.figures.common import token_heatmap
from posviz.figures.rope import line_chart
from posviz.relative import buckets_by_distance
from posviz.tokens import token_labels, tokenize
from tests.conftest import ROOT
from tests.helpers.drawn import TICK_GAP, problems

pytestmark = pytest.mark.browser

# One chart, drawn as the app draws it: a .posviz-chart of the given width in a column.
DRAW_JS = """async ([figure, config, width, column]) => {
  document.body.innerHTML = `<div id="column" style="width: ${column}px; overflow: hidden">
    <div class="posviz-chart" data-name="case" style="width: ${width}px"></div></div>`;
  const div = document.querySelector('.posviz-chart');
  await Plotly.newPlot(div, figure.data, figure.layout, config);
}"""


@pytest.fixture(scope="module")
def page(browser):
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.set_content("<!doctype html><html><body></body></html>")
    page.add_script_tag(path=str(ROOT / "static" / "plotly-posviz.min.js"))
    yield page
    page.close()


def drawn(page, figure: dict, *, width: int = 700, column: int | None = None,
          config: dict | None = None, min_font: float = 11) -> list[str]:
    """What the checks say about one figure (its JSON) drawn width pixels wide."""
    page.evaluate(DRAW_JS, [figure, config or {}, width, column or width])
    return problems(page, min_font)


def figure(fig) -> dict:
    return json.loads(fig.to_json())


def line(**layout: object) -> dict:
    spec = figure(line_chart(np.arange(50), {"first curve": np.arange(50.0),
                                             "second curve": np.arange(50.0) ** 0.5},
                             title="A title", x_title="position", y_title="value"))
    spec["layout"].update(layout)
    return spec


def test_a_chart_as_posviz_draws_it_passes(page):
    assert drawn(page, line()) == []
    labels = token_labels(tokenize("the quick brown fox jumps over the lazy dog again and again"))
    heatmap = figure(token_heatmap(np.eye(len(labels)), labels, labels, title="t",
                                   x_title="key", y_title="query"))
    assert drawn(page, heatmap, width=500) == []  # key labels on a slant: their own boxes


def test_a_legend_drawn_over_an_axis_title_is_caught(page):
    """The T5 chart with the legend it used to have (under the plot, in the plot's frame)."""
    r, both, causal = buckets_by_distance(300)
    spec = figure(t5_buckets(r, both, causal, 128, title="t", names=("bidirectional (encoder)",
                                                                       "causal (decoder)"),
                             x_title="r = key position − query position", y_title="bucket",
                             max_label="max distance ±128"))
    assert drawn(page, spec) == []
    spec["layout"]["legend"] = dict(orientation="h", yanchor="top", y=-0.12, x=0)
    found = drawn(page, spec)
    assert any("legend entry" in p and 'overlaps axis title "r = key' in p for p in found), found


def test_labels_on_top_of_each_other_are_caught(page):
    found = drawn(page, line(xaxis=dict(title=dict(text="position"), tickangle=0, dtick=1)),
                  width=400)
    assert any('tick label "' in p and 'overlaps tick label "' in p for p in found), found


# The plot's width and the widths of its x tick labels, as drawn.
TICKS_JS = """() => {
  const div = document.querySelector('.posviz-chart');
  return [div._fullLayout._size.w,
          ...[...div.querySelectorAll('.xtick text')].map((t) => t.getBBox().width)];
}"""


@pytest.mark.parametrize("gap", [1, 6])
@pytest.mark.parametrize("labels", [("10<br>english", "20<br>phone"), ("12", "13")])
def test_tick_labels_too_close_to_read_apart_are_caught(page, gap, labels):
    """Two tick labels a pixel apart ("english", "phone"; 12, 13) read as one; six apart do not."""
    ticks = dict(tickvals=[0, 1], ticktext=list(labels), tickangle=0)
    drawn(page, line(xaxis=ticks | dict(range=[-0.5, 1.5])))
    plot, first, second = page.evaluate(TICKS_JS)
    spacing = (first + second) / 2 + gap  # pixels between the two ticks: the labels gap apart
    reach = (plot / spacing - 1) / 2  # the range beyond each tick that gives that spacing
    found = drawn(page, line(xaxis=ticks | dict(range=[-reach, 1 + reach])))
    first, second = (label.replace("<br>", "") for label in labels)
    caught = [p for p in found if f'tick label "{first}" runs into tick label "{second}"' in p]
    assert bool(caught) == (gap < TICK_GAP), found


def test_text_past_the_chart_edge_is_caught(page):
    long_title = "A title far too long for the chart it names, running on past its edge"
    found = drawn(page, line(title=dict(text=long_title, x=0.5)), width=360)
    assert any(f'title "{long_title[:40]}" is cut off' in p for p in found), found
    note = dict(text="a note in the margin", xref="paper", x=1, xanchor="left", y=0.5,
                showarrow=False)
    found = drawn(page, line(annotations=[note]))
    assert any('annotation "a note in the margin" is cut off' in p for p in found), found


def test_text_smaller_than_the_screen_allows_is_caught(page):
    found = drawn(page, line(xaxis=dict(tickfont=dict(size=9))))
    assert any(p.startswith('case: tick label "') and "9.0 px, under 11 px" in p
               for p in found), found
    found = drawn(page, line(), min_font=16)  # the projector's minimum
    assert any("14.0 px, under 16 px" in p for p in found), found
    log_axis = line(yaxis=dict(type="log", exponentformat="power"))  # 10 with a superscript
    assert any("under 11 px" in p for p in drawn(page, log_axis)), "superscripts count"


def test_a_legend_that_scrolls_entries_away_is_caught(page):
    spec = line(showlegend=True, legend=dict(orientation="v"), height=260)
    spec["data"] = [dict(type="scatter", x=[0, 1], y=[n, n], name=f"line {n}")
                    for n in range(30)]
    found = drawn(page, spec)
    assert "case: its legend scrolls entries out of sight" in found, found


def test_a_tool_bar_shown_over_the_title_is_caught(page):
    spec = line(title=dict(text="A title as wide as the chart, under its tool bar", x=0.5,
                           y=1, yref="container", yanchor="top", pad=dict(t=2)))
    assert drawn(page, spec, width=420) == []  # the bar shows on hover only
    found = drawn(page, spec, width=420, config={"displayModeBar": True})
    assert any("overlaps the tool bar" in p for p in found), found


def test_a_chart_cut_off_by_its_column_is_caught(page):
    found = drawn(page, line(), width=800, column=400)
    assert "case: the chart is wider than the page and does not scroll" in found, found


# Two charts in a row of columns, as Streamlit lays them out (side by side, or stacked as on a
# phone): the left one's plot starts top_left pixels from its top.
ROW_JS = """async ([left, right, stacked]) => {
  const direction = stacked ? 'column' : 'row';
  document.body.innerHTML = `<div data-testid="stHorizontalBlock"
    style="display: flex; flex-direction: ${direction}; width: 1000px">
    <div data-testid="stColumn" style="flex: 1"><div class="posviz-chart" data-name="left">
    </div></div><div data-testid="stColumn" style="flex: 1"><div class="posviz-chart"
    data-name="right"></div></div></div>`;
  const [a, b] = document.querySelectorAll('.posviz-chart');
  await Plotly.newPlot(a, left.data, left.layout, {});
  await Plotly.newPlot(b, right.data, right.layout, {});
}"""


def test_charts_side_by_side_whose_plots_do_not_line_up_are_caught(page):
    wrapped = line(title=dict(text="A title<br>on two lines"), margin=dict(t=130))
    page.evaluate(ROW_JS, [wrapped, line(margin=dict(t=100)), False])
    found = problems(page, 11)
    assert any(p.startswith("left and right: side by side, their plots start 30 px apart")
               for p in found), found
    page.evaluate(ROW_JS, [wrapped, line(margin=dict(t=130)), False])
    assert problems(page, 11) == []  # the same room above both plots
    page.evaluate(ROW_JS, [wrapped, line(), True])
    assert problems(page, 11) == []  # stacked, as on a phone: nothing to line up


def test_point_labels_on_each_other_or_on_an_arrow_head_are_caught(page):
    """The RoPE plane as it was drawn on a projector: token labels written by a text trace just
    beyond their tips, two tips close together ("2 到" over "3 了"), one label on another
    arrow's head ("1 想")."""
    tips = [[-0.8, 1.45], [-0.45, 1.2], [-0.55, 0.05], [1.6, -0.5]]
    labels = ["2 到", "3 了", "1 想", "0 刚"]
    spec = line(xaxis=dict(range=[-2, 2]), yaxis=dict(range=[-2, 2], scaleanchor="x"))
    spec["data"] = [
        dict(type="scatter", x=[x for x, _ in tips], y=[y for _, y in tips], mode="markers",
             marker=dict(symbol="arrow", size=18), showlegend=False),
        dict(type="scatter", x=[-0.86, -0.5, -0.28, 1.75], y=[1.52, 1.3, 0.05, -0.56],
             mode="text", text=labels, textfont=dict(size=29), cliponaxis=False,
             showlegend=False)]
    found = drawn(page, spec, width=560)
    assert any('point label "2 到" overlaps point label "3 了"' in p for p in found), found
    assert any('point label "1 想" overlaps a point\'s marker' in p for p in found), found
    spec["data"][1]["x"], spec["data"][1]["y"] = [-1.3, 0.2, -1.3, 1.3], [1.75, 1.5, -0.4, -1.1]
    assert drawn(page, spec, width=560) == []  # the same labels, set apart: clear


def test_a_line_or_a_marker_too_faint_for_its_background_is_caught(page):
    """Scene 6's first arrow as it was, Plasma's navy: 13:1 on white, 1.2:1 on a dark theme's
    page; and a blue line faded to 30% on white."""
    spec = line()
    spec["data"] = [dict(type="scatter", x=[0, 1], y=[0, 1], mode="lines+markers",
                         line=dict(color="#0d0887"), marker=dict(size=12))]
    spec["layout"]["shapes"] = [dict(type="line", x0=0, y0=1, x1=1, y1=0, opacity=0.3,
                                     line=dict(color="#0072b2"))]
    found = drawn(page, spec)
    assert found == ["case: a shape's line in rgb(0, 114, 178) at 0.30 has a contrast of "
                     "1.55:1 on rgb(255,255,255), under 3:1"], found
    spec["layout"]["shapes"][0]["opacity"] = 1  # 5.2:1
    assert drawn(page, spec) == []
    page.evaluate("document.body.style.background = '#0e1117'")
    found = problems(page, 11)
    page.evaluate("document.body.style.background = ''")
    assert any("case: line in rgb(13, 8, 135) has a contrast of 1.2" in p for p in found), found
    assert any("case: marker in rgb(13, 8, 135) has a contrast of 1.2" in p for p in found), found
