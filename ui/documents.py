"""The app's pages as documents (ui.doc): what a room's followers are sent, and the files a
reader downloads.

A page is its script's `body(d, s)`, run here with a recording Doc: the script is imported
under a name of its own (its `if __name__ == "__main__"` part, which draws it with Streamlit,
stays out), and its controls take the values of the view's query string.
"""

from __future__ import annotations

import contextlib
import functools
import html
import importlib.util
import json
import logging
import re
import sys
import threading
from collections.abc import Container, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from urllib.parse import parse_qs, quote, urlencode

from posviz.figures.attention import panel_rule
from posviz.figures.common import NICE_STEPS
from posviz.schemes import browser_schemes
from rooms import LETTERS, spaced
from rooms.kept import Kept
from rooms.screens import Screens
from ui import config, shared
from ui.answer_key import check_questions
from ui.blocks import check_document, fields, walk
from ui.chart import chart_labels, version
from ui.doc import Doc, Stop
from ui.i18n import LANGS, catalog, lang_tag, text
from ui.state import PERSONAL
from ui.summary import browser_words

log = logging.getLogger("posviz.documents")
_drawing = threading.local()  # set while this thread draws a document, outside any page run


class _OutsideAPageRun(logging.Filter):
    """Streamlit warns when its caches are used outside a page run ("missing
    ScriptRunContext"); a document is drawn so on purpose, and the caches work there."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(_drawing, "on", False)


logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(
    _OutsideAPageRun())
ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "static"
LESSON = "lesson"


def pages() -> dict[str, str]:
    """Every page's name and script: "home" (app.py) and each lesson page."""
    return {"home": "app.py"} | dict(shared.lesson_pages())


@functools.cache
def _module(script: str) -> ModuleType:
    name = "posviz_page_" + Path(script).stem
    spec = importlib.util.spec_from_file_location(name, ROOT / script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scenes() -> tuple[str, ...]:
    """The guided lesson's scenes, in order (pages/0_lesson.py)."""
    return _module(pages()[LESSON]).SCENES


def page_name(path: str) -> str:
    """A view's page as a name pages() knows: its URL path ("" for home); unknown: home."""
    return path if path in pages() else "home"


def blocks(page: str, query: str, lang: str, revealed: Container[str] | None = None,
           room: bool = False, controls: bool = False) -> list[dict]:
    """The document of a page (a name from pages()) for the view's query string, in lang.
    revealed: the room's polls whose answers are shown (None: every answer, behind a button);
    room: drawn for a lecture room's followers; controls: in the words of the app, whose
    reader has its controls (as the app records its pages), not of a screen without them."""
    return drawn(page, parse_qs(query, keep_blank_values=True), lang, revealed, room, controls)


def drawn(page: str, params: Mapping[str, Sequence[str]], lang: str,
          revealed: Container[str] | None = None, room: bool = False,
          controls: bool = False) -> list[dict]:
    """The document of a page for a view's parameters (name -> values), in lang."""
    s = shared.settings(params, lang, controls)
    d = Doc(params, revealed, lang=lang, room=room)
    shared.head(d, s, page)
    _drawing.on = True
    try:
        with contextlib.suppress(Stop):
            _module(pages()[page]).body(d, s)
    finally:
        _drawing.on = False
    return d.blocks


def checked(blocks: list[dict]) -> list[dict]:
    """The document, checked against ui/blocks.py's declarations (raising ValueError) when the
    server runs with POSVIZ_CHECK_DOCUMENTS=1 (ui.config)."""
    if config.check_documents():
        check_document(blocks)
    return blocks


def document(page: str, query: str, lang: str,
             revealed: frozenset[str]) -> tuple[str, tuple[str, ...]]:
    """A room's view (its page's URL path and query string) as a document in lang: the blocks
    as JSON, and the polls it asks. Made once per view, language and revealed answers, whatever
    the room: two rooms on one view share it (kept while DOCUMENT_BYTES hold it). A view that
    fails to draw gives a note (and the server's log its traceback), tried again on the next
    change."""
    key = (page, query, lang, revealed)
    if (kept := _DOCUMENTS.get(key)) is not None:
        return kept
    try:
        made = checked(blocks(page_name(page), query, lang, revealed, room=True))
        drawn = json.dumps(made, ensure_ascii=False, separators=(",", ":")), tuple(asked(made))
    except Exception:
        log.exception("the view %r ? %r could not be drawn as a document", page, query)
        note = [{"t": "note", "kind": "warning", "text": text("viewer.unavailable", lang)}]
        return json.dumps(note, ensure_ascii=False), ()
    _DOCUMENTS.put(key, drawn)
    return drawn


DOCUMENT_BYTES = 64 << 20
_DOCUMENTS: Kept[tuple, tuple[str, tuple[str, ...]]] = Kept(
    DOCUMENT_BYTES, lambda drawn: sys.getsizeof(drawn[0]))
"""The documents of the views lately shown, at most DOCUMENT_BYTES of them."""


def live(asking: Mapping, lang: str) -> str:
    """The room's own question in front of the class (the rooms' `live`: {"id", "question",
    "options"}), or its concept check ({"id", "check": [{"id", "question", "options"}, ...]}),
    as a document in lang (JSON). A question of the check is in the reader's language when the
    catalog has it (the room keeps the lecturer's words, the CSV's)."""
    d = Doc(lang=lang)
    if "check" in asking:
        sitting = d.check(text("viewer.check_head", lang), text("viewer.check_body", lang))
        catalog = check_questions(lang)
        for n, question in enumerate(asking["check"], start=1):
            number = int(question["id"].rsplit("-", 1)[-1])
            words, options, _ = (catalog[number - 1] if 1 <= number <= len(catalog)
                                 and len(catalog[number - 1][1]) == len(question["options"])
                                 else (question["question"], question["options"], None))
            sitting.asked(question["id"], text("viewer.check_lead", lang, n=n,
                                               total=len(asking["check"])), words, options)
    else:
        d.asked(asking["id"], text("room.question_head", lang), asking["question"],
                asking["options"])
    return json.dumps(checked(d.blocks), ensure_ascii=False, separators=(",", ":"))


def asked(made: list[dict]) -> list[str]:
    """The polls a document's questions ask."""
    return [block["poll"] for block in walk(made) if block["t"] == "question"]


def scene_query(query: str, scene: int) -> str:
    """The query string of the lesson's scene (other settings kept)."""
    params = [(k, v) for k, values in parse_qs(query, keep_blank_values=True).items()
              for v in values if k != "scene"]
    return urlencode([*params, ("scene", str(scene))])


def _asset(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


_SCRIPT_BREAKS = re.compile(r"<(/script|!--)", re.IGNORECASE)


def _script(source: str) -> str:
    """A script's text made safe to stand inside a <script> element: no `</script` (in any
    case: HTML ends the element at `</SCRIPT` too) and no `<!--`, each escaped as JavaScript
    reads it the same (`<\\/script`, `<\\!--`)."""
    return _SCRIPT_BREAKS.sub(lambda found: "<\\" + found[1], source)


_JSON_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def script_json(value: object) -> str:
    """A value as JSON that is inert inside any <script> element: every character past ASCII
    (the line separators U+2028 and U+2029 among them) and every <, > and & (which only strings
    can hold) written as \\u escapes, which JSON and JavaScript read back unchanged. Typed text
    (a sentence, a typed order) goes into the room's page and the offline files this way."""
    return json.dumps(value).translate(_JSON_ESCAPES)


def viewer_strings(lang: str) -> dict[str, str]:
    """The viewer's own words in lang (static/viewer.js): every one of the catalog's viewer
    section (assets/i18n/viewer.toml), and its charts' export buttons."""
    return ({key.removeprefix("viewer."): text(key, lang) for key in catalog()
             if key.startswith("viewer.")}
            | chart_labels(lang) | {"down": text("room.down", lang)})


def viewer_page(code: str, proof: str, lang: str, chosen: bool, state: str, voter: str = "",
                wait: int = 0) -> str:
    """The page a room's follower opens (served at /_posviz/follow/<code>): static/viewer.js
    with the room's code, this browser's proof of membership, and both languages' words.
    lang is the reader's (chosen: asked for in the link, over one the browser kept); state is
    the room's: open, ended (to a member), unknown (a wrong code), or too_many (past a limit,
    for wait seconds); voter: the browser's voter id, "present", "code" (only the room's code
    shown) or "" (none: the screen asks for the projector's word when its reader answers)."""
    def url(name: str) -> str:
        return f"_posviz/asset/{name}?v={version(name)}"
    config = {"code": code, "spaced": spaced(code) if code else "", "proof": proof,
              "lang": lang, "chosen": chosen, "state": state, "voter": voter, "wait": wait,
              "langs": LANGS, "tags": {each: lang_tag(each) for each in LANGS},
              "strings": {each: viewer_strings(each) for each in LANGS},
              "kinds": fields(), "letters": LETTERS, "schemes": browser_schemes(),
              "panels": panel_rule(), "steps": list(NICE_STEPS),
              "summary": {each: browser_words(each) for each in LANGS},
              "plotly": url("plotly-posviz.min.js")}
    return f"""<!doctype html>
<html lang="{lang_tag(lang)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<base href="../../"><title>posviz</title>
<link rel="stylesheet" href="{url("katex.min.css")}">
<link rel="stylesheet" href="{url("viewer.css")}">
<link rel="preload" as="script" href="{url("plotly-posviz.min.js")}">
<script type="application/json" id="posviz-room">{script_json(config)}</script>
<script defer src="{url("katex.min.js")}"></script>
<script defer src="{url("markdown-it.min.js")}"></script>
<script type="module" src="{url("viewer.js")}"></script>
</head>
<body><main id="posviz-viewer"></main></body></html>
"""


def offline_html(title: str, documents: list[dict], lang: str, heading: str = "") -> str:
    """One self-contained HTML file: the documents (each {"title", "blocks"}; with more than
    one, a list of contents by their titles goes first, under heading if given), drawn in the
    browser by the viewer with plotly, KaTeX and markdown-it inlined, opening from disk with no
    network at all."""
    for each in documents:
        checked(each["blocks"])
    data = {"lang": lang, "strings": viewer_strings(lang), "documents": documents,
            "heading": heading, "kinds": fields(), "letters": LETTERS,
            "schemes": browser_schemes(), "panels": panel_rule(), "steps": list(NICE_STEPS),
            "summary": browser_words(lang)}
    chart = "data:text/javascript;charset=utf-8," + quote(_asset("chart.js"), safe="")
    return f"""<!doctype html>
<html lang="{lang_tag(lang)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{_asset("katex.min.css")}</style>
<style>{_asset("viewer.css")}</style>
<script>{_script(_asset("plotly-posviz.min.js"))}</script>
<script>{_script(_asset("katex.min.js"))}</script>
<script>{_script(_asset("markdown-it.min.js"))}</script>
<script type="importmap">{script_json({"imports": {"./chart.js": chart}})}</script>
<script type="application/json" id="posviz-file">{script_json(data)}</script>
</head>
<body><main id="posviz-viewer"></main>
<script type="module">{_script(_asset("viewer.js"))}</script>
</body></html>
"""


def lesson_file(query: str, lang: str) -> bytes:
    """The guided lesson's scenes for the view's sentence and switches, as one file: the
    lesson's title once, a list of the scenes, then each scene (without the title each scene's
    page repeats)."""
    documents = []
    for n in range(1, len(scenes()) + 1):
        made = [block for block in blocks(LESSON, scene_query(query, n), lang)
                if not (block["t"] == "heading" and block["level"] == 1)]
        head = next(block["text"] for block in made if block["t"] == "heading")
        documents.append({"title": head, "blocks": made})
    title = text("lesson.title", lang)
    return offline_html(f"{title} · posviz", documents, lang, heading=title).encode("utf-8")


def page_file(page: str, query: str, lang: str) -> bytes:
    """A page, as its reader sees it now, as one file."""
    return offline_html(f"{text(f'{page}.title', lang)} · posviz",
                        [{"title": "", "blocks": blocks(page, query, lang)}],
                        lang).encode("utf-8")


SCREENS = Screens(document=document, live=live, viewer=viewer_page, langs=tuple(LANGS),
                  static=STATIC, personal=PERSONAL)
"""How the rooms' routes show a room to its followers (serve.py)."""
