"""The lecturer's join panel across the page, for the projector: the room's code, the student
link, and the QR code with the projector's word, both drawn again as their ticket changes."""

from __future__ import annotations

import io
import time

import segno
import streamlit as st

from rooms import signing, spaced
from rooms.signing import TICKET_SECONDS
from ui.i18n import text
from ui.room import keys
from ui.room.links import network_base, only_this_machine, student_link
from ui.room.membership import Member
from ui.room.tick import every
from ui.services import rooms

JOIN_SECONDS = 10.0  # how often the projector's QR code and word are drawn again


@st.cache_data(max_entries=64)
def _qr_png(link: str) -> bytes:
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=12, border=3)
    return out.getvalue()


def room_word(code: str) -> int:
    """How many new words the room's lecturer asked for (signing.word's turn)."""
    room = rooms().room(code)
    return 0 if room is None else room.word


def join_panel(s, m: Member | None) -> None:
    """The lecturer's join code, link and QR code across the page (while the lecturer's switch
    shows it)."""
    if m is None or not m.lecturer or not st.session_state.get(keys.KEPT_SHOW_JOIN):
        return
    link = student_link(m.code)
    panel = st.container(border=True)
    code_col, qr_col = panel.columns([3, 2] if not s.present else [2, 3],
                                     vertical_alignment="center")  # a projector: a large QR
    code_col.markdown(s.t("room.join_title"))
    code_col.html(f'<div class="posviz-room-code-box"><div class="posviz-room-code">'
                  f'{spaced(m.code)}</div></div>'
                  '<style>.posviz-room-code-box {container-type: inline-size}'
                  '.posviz-room-code {font-size: min(5rem, 17cqi); '  # fits its column
                  'font-weight: 700; white-space: nowrap; '
                  'letter-spacing: .08em; line-height: 1.1; font-variant-numeric: tabular-nums}'
                  '</style>')
    code_col.button(s.t("room.hide_join"), key=keys.HIDE_JOIN, help=s.t("room.hide_join_help"),
                    on_click=_hide)  # on a projector the panel fills the first screen
    code_col.markdown(s.t("room.join_body"))
    code_col.code(link, language=None, wrap_lines=True)
    if only_this_machine(link):
        code_col.warning(s.t("room.localhost", suggestion=network_base(link) or
                             "http://<this machine's address>:8501/"))
    with qr_col:
        _presence(m.code, s.lang)


def _hide() -> None:
    """The class has joined: the page's own content on the first screen again (the sidebar's
    switch brings the panel back)."""
    st.session_state[keys.KEPT_SHOW_JOIN] = False


@st.fragment
def _presence(code: str, lang: str) -> None:
    """The QR code with the room's ticket of now, and the projector's word of now: both change
    every TICKET_SECONDS (a photo of them posted outside the hall stops working within
    minutes), so they are drawn again every JOIN_SECONDS."""
    every(JOIN_SECONDS, keys.TICK_PRESENCE)
    word = signing.word(rooms().secret, code, time.time(), room_word(code))
    held = st.container(key=keys.PRESENCE)  # the QR code fits the screen's height, and
    held.html(f'<p class="posviz-room-word"><span>{text("room.word_head", lang)}</span> '
              f'<b lang="en">{word}</b></p>')  # the word stays in view, large, above it
    held.caption(text("room.word", lang, minutes=TICKET_SECONDS // 60))
    held.image(_qr_png(student_link(code, ticket=True)), width="stretch",
               caption=text("room.qr_caption", lang), output_format="PNG")  # JPEG would blur
    held.html("<style>.posviz-room-word {margin: 0; font-size: 1.4rem; text-align: center} "
              ".posviz-room-word b {font-size: 2.6rem; letter-spacing: .12em} "
              f".st-key-{keys.PRESENCE} img {{max-height: max(14rem, 100vh - 24rem); "
              "width: auto !important; max-width: 100%; aspect-ratio: 1; object-fit: contain; "
              "margin: 0 auto; display: block}</style>")
