"""The app's layer (the one package that imports streamlit), as a page sees it.

A page is a `body(d, s)` that draws through a Doc (ui.doc) with the shared Settings (ui.shared).
`ui.run("<name>", body)` runs it in the app: the shared sidebar, the lecture room, then the body
drawn with Streamlit (ui.page); ui.documents records the same body as JSON blocks, for a room's
screen or a file. The rest lives in modules of its own: the lecture room in ui.room (the rooms
it reads, the app's as given, in ui.services), links between pages in ui.navigation, the
elements that act in the browser in ui.view, the settings kept in the session and the URL in
ui.state.
"""

from __future__ import annotations

from collections.abc import Callable

from ui.doc import Doc, StreamlitDoc
from ui.navigation import in_app, shared_query
from ui.shared import DEFAULT_TEXT, Settings, guard, lesson_pages, need_tokens, page_name
from ui.view import announce, close_not_found_dialog, open_at_top

__all__ = ["DEFAULT_TEXT", "Doc", "Settings", "StreamlitDoc", "announce",
           "close_not_found_dialog", "guard", "in_app", "lesson_pages", "need_tokens",
           "open_at_top", "page_name", "run", "shared_query"]


def run(name: str, body: Callable[[Doc, Settings], None]) -> None:
    """Run the page name in the app: the shared sidebar, then body drawn with Streamlit
    (ui.page.run). ui.page, and with it the lecture room, is loaded by the first page that
    runs: a page drawn as a document needs neither."""
    from ui import page

    page.run(name, body)
