"""The app's layer, as a page sees it: the one place besides pages/ that imports streamlit.

A page is a `body(d, s)` that draws through a Doc (ui.doc) from the shared Settings (ui.shared),
and ends with `ui.run("<name>", body)`: in the app, the shared sidebar, the room and the body
drawn with Streamlit (ui.page); as a document for a room's screen or a file, the same body
recorded as JSON blocks (ui.documents). Everything else lives in its own module: the lecture
room in ui.room, links between pages in ui.navigation, the browser-side view element in ui.view,
the settings kept in the session and the URL in ui.state.
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
