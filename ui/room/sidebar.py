"""The room's place on the page outside the lesson: the sidebar's room box (start or join one;
lead it: headcount, join panel switch, own question, concept check, CSV, report, Close, links,
Leave; or follow it) and, at the top of a student's page, the room and the follow switch (a
phone hides the sidebar)."""

from __future__ import annotations

import time
from urllib.parse import urlencode

import streamlit as st

from rooms import RoomError, StoreDown, shared_query, spaced
from rooms.export import answers_csv
from rooms.throttle import GUESSED_SHOWN
from ui.i18n import text
from ui.room import check, element, keys
from ui.room.entry import app_switch, close, join_box, new_word, start_box
from ui.room.links import lecturer_link, student_link
from ui.room.membership import LIMIT_VALUES, Member, back_to, leave, rooms_led
from ui.room.question import ask_form
from ui.room.report import report_file
from ui.room.tick import every
from ui.services import rooms
from ui.state import PERSONAL, flag, remembered, to_url

HEADCOUNT_SECONDS = 5.0  # how often the lecturer's count of connected students is read again


def section(s, m: Member | None, page: str) -> None:
    """The sidebar's room box: start or join one; lead it; or follow it. page is the page's URL
    path ("" for home)."""
    box = st.sidebar.container(border=True)
    box.markdown(f"**{s.t('room.head')}**")
    if forgotten := st.session_state.pop(keys.FORGET, None):
        element.forget(forgotten, page)
    if st.session_state.get(keys.DOWN):
        box.warning(s.t("room.down"))
        if code := st.session_state.get(keys.ROOM):
            element.back_when_up(code, page)
        return
    if m is None:
        for code in rooms_led():  # a new tab of a lecturer's browser: back to the room
            box.markdown(s.t("room.you_lead", code=spaced(code)))
            box.button(s.t("room.back_to_room", code=spaced(code)), key=keys.BACK + code,
                       on_click=back_to, args=(code,), type="primary", width="stretch")
        start_box(box, s)
        join_box(box, s.lang)
        return
    if m.lecturer:
        _lead(box, s, m, page)
    else:
        _follow(box, s, m)


def _lead(box, s, m: Member, page: str) -> None:
    box.markdown(s.t("room.leading", code=spaced(m.code)))
    address = [(k, v) for k in st.query_params for v in st.query_params.get_all(k)]
    try:
        view = shared_query(urlencode(address), PERSONAL)
    except RoomError:  # the class keeps the last view it was sent
        view = ""
        box.warning(text("room.note.view_too_long", s.lang, **LIMIT_VALUES))
    _headcount(box, m.code, s.lang)
    box.toggle(s.t("room.show_join"), help=s.t("room.show_join_help"),
               **remembered(keys.SHOW_JOIN, False, flag))
    app_switch(box, s, m.code)
    with box.expander(s.t("room.ask_head")):  # what a lecturer reaches for, first
        ask_form(s, m)
    with box.expander(s.t("check.head")):
        check.panel(s, m)
    box.download_button(s.t("room.download"), data=lambda: answers_csv(rooms(), m.code),
                        file_name=f"posviz-room-{m.code}.csv", mime="text/csv",
                        on_click="ignore", width="stretch")
    box.download_button(s.t("report.download"), data=lambda: report_file(
        rooms(), m.code, s.lang, time.time()), file_name=f"posviz-room-{m.code}.html",
        mime="text/html", on_click="ignore", width="stretch")
    with box.popover(s.t("room.close"), width="stretch"):
        st.caption(s.t("room.close_help"))
        st.button(s.t("room.close_confirm"), key=keys.CLOSE, on_click=close, args=(m.code,),
                  type="primary")
    box.caption(s.t("room.student_link"))
    box.code(student_link(m.code), language=None, wrap_lines=True)
    with box.popover(s.t("room.lecturer_link"), width="stretch"):
        st.caption(s.t("room.lecturer_link_help"))
        if st.button(s.t("room.lecturer_link_show"), key=keys.SHOW_KEY, type="primary"):
            try:
                token = rooms().lead_link(m.code, st.session_state[keys.KEY])
            except (StoreDown, RoomError):  # the rooms, or this room, went meanwhile
                st.warning(s.t("room.down"))
            else:
                st.warning(s.t("room.lecturer_link_warning"))  # for this run only
                st.code(lecturer_link(page, view, m.code, token), language=None,
                        wrap_lines=True)
    with box.popover(s.t("room.leave"), width="stretch"):
        st.caption(s.t("room.leave_lead_help"))
        st.button(s.t("room.leave_confirm"), key=keys.LEAVE, on_click=leave)
    element.keep(m, page, s.lang, lead=True)


def _follow(box, s, m: Member) -> None:
    box.markdown(s.t("room.member", code=spaced(m.code)))
    box.button(s.t("room.leave"), key=keys.LEAVE, on_click=leave, width="stretch")


def student_bar(s, m: Member | None, page: str) -> None:
    """At the top of a student's page (a phone hides the sidebar): the room and the switch
    that follows the lecturer."""
    if m is None or m.lecturer:
        return
    bar = st.container(border=True, horizontal=True, vertical_alignment="center")
    bar.markdown(s.t("room.member", code=spaced(m.code)), width="content")
    following = bar.toggle(s.t("room.follow"), help=s.t("room.follow_help"),
                           **remembered(keys.FOLLOW, True, flag))
    to_url(keys.FOLLOW, following, True, "false")
    element.keep(m, page, s.lang, lead=False, following=following)


@st.fragment
def _headcount(where, code: str, lang: str) -> None:
    """Who is really there, read again every HEADCOUNT_SECONDS (which also tells the room its
    lecturer is still here)."""
    every(HEADCOUNT_SECONDS, keys.TICK_HEADCOUNT)
    store = rooms()
    try:
        room = store.room(code)
        if room is None or room.closed:  # ended, or lost by the store: the page says which
            st.rerun(scope="app")
        store.lecturer_here(code)
        where.caption(text("room.headcount", lang, n=store.headcount(code),
                           voted=store.voters(code)))
        if (wrong := store.guessed(code)) >= GUESSED_SHOWN:  # more than a class mistypes
            where.warning(text("room.guessed", lang, n=wrong))
            where.button(text("room.new_word", lang), key=keys.NEW_WORD, on_click=new_word,
                         args=(code,), help=text("room.new_word_help", lang))
    except StoreDown:
        where.warning(text("room.down", lang))

