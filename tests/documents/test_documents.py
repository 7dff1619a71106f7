"""Every page is written once (ui.doc): what Streamlit draws and the document a room's followers
and the downloaded files are shown agree, block for block and figure for figure.

Each case runs a page in AppTest with its drawing recorded, and compares
- the recorded blocks with the page's document made afresh from the run's URL alone
  (ui.documents, as the server makes it for a room): the same controls read the same values;
- the document with the elements Streamlit drew in the page's main area: the same titles,
  texts, captions, messages, metrics and formulas, in order, and the same figure specs.
A page that draws something outside its document, or reads a control differently from its
URL, fails here. Every Chinese chart title is made of words assets/viewer/src/chart/words.js lists,
so that its lines break only between them.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from urllib.parse import urlencode

import pytest
from streamlit.testing.v1 import AppTest

from posviz import ports
from tests.conftest import ROOT
from tests.helpers.controls import ROUTES, at_extreme, numeric_controls, opened
from tests.helpers.figure_data import chart_specs
from tests.helpers.hostile import CATEGORIES
from tests.helpers.words import unlisted, wrapped_titles
from ui import documents
from ui.blocks import walk
from ui.blocks_streamlit import formula_markdown
from ui.i18n import text

KINDS = ("title", "header", "subheader", "caption", "markdown", "info", "warning", "error",
         "success")
SAMPLE = [group[-1] for group in CATEGORIES.values()]  # one hostile text of each kind


@pytest.fixture(autouse=True)
def memory_held_still(monkeypatch):
    """The real-model page shows the memory free, read afresh by each of the two runs compared:
    held at one figure, so that another process's allocation between them is no difference."""
    monkeypatch.setattr("posviz.pretrained.checking.available_memory", lambda: 8 << 30)


def name_of(route: str | None) -> str:
    return "home" if route is None else documents.page_name(
        next(name for name, path in documents.pages().items() if path == route))


def url_query(at: AppTest) -> str:
    return urlencode([(key, value) for key, values in at.query_params.items()
                      for value in (values if isinstance(values, list) else [values])])


def expected(blocks: list[dict]) -> dict[str, list]:
    """What Streamlit draws for a document, element kind by kind, in the page's order."""
    out: dict[str, list] = defaultdict(list)
    levels = {1: "title", 2: "header", 3: "subheader"}
    for block in walk(blocks):
        kind = block["t"]
        if kind == "heading":
            out[levels[block["level"]]].append(block["text"])
        elif kind in ("markdown", "caption"):
            out[kind].append(block["text"])
        elif kind == "note":
            out[block["kind"]].append(block["text"])
        elif kind == "formula":
            out["markdown"].append(formula_markdown(block["parts"]))
        elif kind == "metric":
            out["metric"].append((block["label"], block["value"]))
        elif kind == "chart":
            out["chart"].append(json.loads(block["figure"]))
        elif kind == "question":
            out["markdown"].append(f"**{block['lead']}** {block['text']}")
    return out


def drawn(at: AppTest, lang: str) -> dict[str, list]:
    """What Streamlit drew in the page's main area, element kind by kind."""
    out = {kind: [e.value for e in at.main.get(kind)] for kind in KINDS}
    out["caption"] = [c for c in out["caption"] if c != text("lesson.keys", lang)]  # chrome
    out["metric"] = [(e.label, e.value) for e in at.main.get("metric")]
    out["chart"] = chart_specs(at)
    return out


def agree(at: AppTest, page: str, lang: str, revealed: frozenset[str] = frozenset()
          ) -> list[dict]:
    """Check the run's recorded document against the document made from its URL (with the
    answers of revealed shown, as in a room), and against what Streamlit drew; returns the
    document."""
    assert not at.exception, at.exception
    recorded = at.session_state["posviz_doc"]
    made = documents.blocks(page, url_query(at), lang, revealed, controls=True)
    assert recorded == made
    want, got = expected(made), drawn(at, lang)
    for kind in KINDS:  # Streamlit drops a text's outer blank lines
        assert [t.strip() for t in got[kind]] == [t.strip() for t in want.get(kind, [])], kind
    for kind in ("metric", "chart"):
        assert got[kind] == want.get(kind, []), kind
    if lang == "zh":  # every word of a title is one words.js decided never to break inside
        for figure in want.get("chart", []):
            for title in wrapped_titles(figure):
                assert not unlisted(title), (
                    f"{unlisted(title)} in the title {title!r}: list its words in "
                    "assets/viewer/src/chart/words.js")
    return made


@pytest.mark.parametrize("bug", [bug.key for bug in ports.bugs()])
def test_every_bug_of_the_clinic_is_titled_in_listed_words(bug):
    """Each bug the clinic offers titles its maps in words words.js lists, on a Chinese page."""
    blocks = documents.blocks("today", urlencode({"bug": bug, "text": "刚想到了"}), "zh")
    titles = [title for block in walk(blocks) if block["t"] == "chart"
              for title in wrapped_titles(json.loads(block["figure"]))]
    assert any(text(f"schemes.bug.{bug}.name", "zh") in title for title in titles)
    assert not [title for title in titles if unlisted(title)], [unlisted(t) for t in titles]


def recording(at: AppTest) -> AppTest:
    at.session_state["posviz_record"] = True
    return at.run()


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_at_its_defaults_agrees_with_its_document(route, lang):
    at = recording(opened(route, "刚想到了", lang))
    made = agree(at, name_of(route), lang)
    assert expected(made)["chart"] or route is None  # every page but home draws charts


MOVED = {  # a link with every control of a page away from its default, as a lecturer moves them
    "embedding": {"embedding_d": 24},
    "sinusoidal": {"sinusoidal_d": 64, "sinusoidal_n": 40, "sinusoidal_base": 500.0,
                   "sinusoidal_layout": "concatenated", "sinusoidal_max_k": 12,
                   "sinusoidal_channels": [0, 5], "sinusoidal_p": 7, "sinusoidal_k": -2},
    "rope": {"rope_pairing": text("rope.pairings.half", "en"), "rope_pair": 5,
             "rope_vectors": "k", "rope_token": 1, "rope_at": 20, "rope_query": 2, "rope_key": 1,
             "rope_offset": 50, "rope_dim": 64,
             "rope_base": "500,000", "rope_scale": 8, "rope_trained": "8,192"},
    "alibi": {"alibi_heads": 4, "alibi_head": 2, "alibi_trained": 64, "alibi_test": 256,
              "alibi_buckets": 16, "alibi_max_distance": 64},
    "attention": {"attention_causal": False, "attention_scheme": "rope", "attention_heads": 2,
                  "attention_layers": 3, "attention_order": "shuffle", "attention_seed": 5,
                  "attention_keep_last": True},
    "models": {"models_scheme": "rope", "models_seed": 2},
    "today": {"bug": "v4_yarn_on_sliding"},
}


OPTION = {"rope_pairing": "half", "rope_base": 500_000, "rope_trained": 8_192}
"""Options a link names by their labels, and their values."""


def spelled(value: object) -> list[str]:
    """A control's value as a link spells it."""
    if isinstance(value, bool):
        return [str(value).lower()]
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


@pytest.mark.parametrize("page", MOVED)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_with_its_controls_moved_agrees_with_its_document(page, lang):
    """Every control of the page set by its link (as a follower's view arrives): Streamlit's
    widgets take those values, and the document reads the same ones."""
    at = AppTest.from_file(str(ROOT / documents.pages()[page]), default_timeout=120)
    query = {key: spelled(value) for key, value in MOVED[page].items()}
    at.query_params.update({key: values if len(values) > 1 else values[0]
                            for key, values in query.items()} | {"text": "a b c d", "lang": lang})
    at.session_state["posviz_record"] = True
    at.run()
    agree(at, page, lang)
    for key, value in MOVED[page].items():
        assert at.session_state[key] == OPTION.get(key, value), key


@pytest.mark.parametrize("route", ROUTES)
def test_every_page_with_position_off_and_controls_at_their_ends_agrees(route):
    """Position off and every numeric control at its low end, then at its high end, each run
    opened afresh from the URL those values give."""
    at = opened(route, "the cat sat on the mat and the dog")
    at.toggle(key="pos").set_value(False).run()
    for end in ("low", "high"):
        at_extreme(at, end)
        assert not at.exception
        moved = {c.key: getattr(at, c.kind)(key=c.key).value for c in numeric_controls(at)}
        again = AppTest.from_file(str(ROOT / (route or "app.py")), default_timeout=120)
        again.query_params.update({key: spelled(value)[0] for key, value in moved.items()}
                                  | {"text": "the cat sat on the mat and the dog",
                                     "pos": "false"})
        again.session_state["posviz_record"] = True
        again.run()
        agree(again, name_of(route), "en")


@pytest.mark.parametrize("scene", range(1, len(documents.scenes()) + 1))
def test_every_lesson_scene_agrees_with_its_document(scene):
    """Each scene, opened in the app as a browser opens it (the lesson's end links to the other
    pages, which a page run alone has not), draws its document's blocks."""
    at = opened("pages/0_lesson.py", "刚想到了刚", "zh")
    at.query_params["scene"] = str(scene)
    at.run()
    made = agree(at, "lesson", "zh")
    name = documents.scenes()[scene - 1]
    questions = [b for b in made if b["t"] == "question" and b["poll"].startswith("scene-")]
    assert [q["poll"] for q in questions] == ([f"scene-{name}"] if questions else [])
    if questions:  # revealed: the answer, and what comes with it, in both
        at.toggle(key=f"lesson_reveal_{name}").set_value(True).run()
        made = agree(at, "lesson", "zh", frozenset([f"scene-{name}"]))
        assert [b for b in made if b["t"] == "question"
                and b["poll"] == f"scene-{name}"][0]["answer"]


@pytest.mark.parametrize("typed", SAMPLE)
def test_typed_hostile_text_agrees_on_home_and_a_scene(typed):
    for route, query in ((str(ROOT / "app.py"), {}), (str(ROOT / "pages/0_lesson.py"),
                                                        {"scene": "4"})):
        at = AppTest.from_file(route, default_timeout=120)
        at.query_params.update(text=typed, **query)
        at.session_state["posviz_record"] = True
        at.run()
        agree(at, "home" if route.endswith("app.py") else "lesson", "en")


@pytest.mark.parametrize("page", list(documents.pages()))
def test_every_page_downloads_as_one_file_with_its_document(page):
    """Each page's file holds its document for the reader's view (opened offline by
    tests/documents/test_offline_file.py), every script inlined: nothing is fetched."""
    query = urlencode({"text": "刚想到了 </script><script>alert(1)</script>", "pos": "false"})
    made = documents.page_file(page, query, "zh").decode("utf-8")
    assert len(made) <= 8_000_000
    marker = '<script type="application/json" id="posviz-file">'
    start = made.index(marker) + len(marker)
    data = json.loads(made[start:made.index("</script>", start)].replace("<\\/", "</"))
    assert data["documents"][0]["blocks"] == documents.blocks(page, query, "zh")
    assert data["lang"] == "zh" and '<html lang="zh-Hans">' in made
    markup = re.sub(r"(?s)(<script[^>]*>|<style>).*?(</script>|</style>)", r"\1\2", made)
    assert not re.search(r"\ssrc=|<link\b", markup)  # nothing to fetch


def test_a_view_that_cannot_be_drawn_gives_the_followers_a_note_not_a_traceback(monkeypatch,
                                                                                caplog):
    class Broken:
        @staticmethod
        def body(d, s):
            raise RuntimeError("a page that fails")
    monkeypatch.setattr(documents, "_module", lambda script: Broken)
    made, polls = documents.document("alibi", "text=x", "zh", frozenset())
    assert json.loads(made) == [{"t": "note", "kind": "warning",
                                 "text": text("viewer.unavailable", "zh")}] and polls == ()
    assert "a page that fails" in caplog.text


def test_a_tables_numbers_read_alike_in_the_app_and_in_its_document():
    """One rounding rule for every renderer (ui.markup.cell_text): the app's data grid shows
    the very strings that a room's screen and a downloaded file draw from the document."""
    at = AppTest.from_file(str(ROOT / "pages/1_embedding.py"), default_timeout=120)
    at.query_params.update(text="the cat sat on the mat the cat")
    at.session_state["posviz_record"] = True
    at.run()
    [block] = [b for b in walk(at.session_state["posviz_doc"]) if b["t"] == "table"]
    assert block["rows"] == at.dataframe[0].value.astype(str).values.tolist()
    cells = {cell for row in block["rows"] for cell in row[3:]}
    assert "0" in cells and all(re.fullmatch(r"0|\d+\.\d{3}", c) for c in cells), cells


# Words that send a reader to a control: the app's sidebar, typing, a switch, a pick, a slider,
# a mouse. A room's screen and a downloaded file have none of them (a phone, no mouse either).
CONTROL_WORDS = re.compile(
    r"\bsidebar\b|\b[Tt]ype (a|at|the|one)\b|\b[Ss]witch (position|the)\b"
    r"|\b[Pp]ick (one|an|another)\b|\b[Cc]hoose a\b|\b[Pp]ress Enter\b|\b[Tt]ry\b"
    r"|\bsliders?\b|\b[Hh]over\b|\b[Tt]urn (on|off) “|侧边栏|请(至少)?输入|试试|请选|请换|滑块"
    r"|悬停|鼠标|打开“|关闭“")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("query", ["text=x&pos=false", "text=", "text=我我",
                                   "text=the+cat+saw+the+dog&pos=false"])
def test_no_document_sends_its_reader_to_a_control_the_screen_lacks(query, lang):
    """A room's screen and a file draw a page's document with none of the app's controls: what
    it says is the same fact in words that name no sidebar, nothing to type or pick (the
    catalog's `_viewer` twins), here for one token with position off, for no sentence, for
    a sentence that reads the same reversed and for a sentence with position off."""
    for page in documents.pages():
        made = documents.blocks(page, query, lang)
        said = [json.dumps({k: v for k, v in block.items() if k != "figure"},
                           ensure_ascii=False) for block in walk(made)]
        sent = [line for line in said if CONTROL_WORDS.search(line)]
        assert not sent, f"{page}: {sent}"
        app = documents.blocks(page, query, lang, controls=True)  # the app keeps its words
        assert len(app) == len(made)

