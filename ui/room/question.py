"""The lecturer's own question: asked from the sidebar's form, shown on every member's page as a
poll until the lecturer takes it away (the concept check, while it is on, as a link to the room's
screen, where it is answered)."""

from __future__ import annotations

import time

import streamlit as st

from rooms import LETTERS, StoreDown
from ui.markup import entities
from ui.room import keys
from ui.room.links import screen_link
from ui.room.membership import Member, note, notes, refusing
from ui.room.polls import show_poll
from ui.services import rooms

ASK = "ask"  # the place of the ask form's messages (ui.room.membership.note)
ASKED_AGAIN = 3.0
"""Seconds after a question went up in which an empty Ask is the same click's echo (a double
click): ignored, not refused."""


def ask_form(s, m: Member) -> None:
    """The form that puts the lecturer's question on every screen: its text, its options and
    the right one, with the form's messages beside it."""
    with st.form(keys.ASK_FORM, clear_on_submit=False, border=False):
        st.text_area(s.t("room.ask_question"), key=keys.ASK_QUESTION, max_chars=300,
                     height=90)
        st.text_area(s.t("room.ask_options"), key=keys.ASK_OPTIONS, height=130,
                     help=s.t("room.ask_options_help"))
        st.selectbox(s.t("room.ask_correct"), ["", *LETTERS], key=keys.ASK_CORRECT,
                     format_func=lambda c: c or s.t("room.ask_none"))
        st.form_submit_button(s.t("room.ask"), key=keys.ASK_FORM, on_click=_ask, args=(m.code,),
                              type="primary")
    for said in notes(s.lang, ASK):  # beside the form: the page's top may be on the projector
        st.warning(said)


@refusing(place=ASK)
def _ask(code: str) -> None:
    question = st.session_state[keys.ASK_QUESTION]
    options = [line for line in st.session_state[keys.ASK_OPTIONS].splitlines() if line.strip()]
    correct = st.session_state[keys.ASK_CORRECT]
    if (not question.strip() and not options and not correct
            and time.monotonic() - st.session_state.get(keys.ASKED_AT, -ASKED_AGAIN)
            < ASKED_AGAIN):
        return
    if correct and LETTERS.index(correct) >= len(options) >= 2:
        note("correct_missing", ASK, letter=correct, n=len(options))
        return
    rooms().ask(code, question, options, LETTERS.index(correct) if correct else None)
    st.session_state.update({keys.ASK_QUESTION: "", keys.ASK_OPTIONS: "", keys.ASK_CORRECT: "",
                             keys.KEPT_SHOW_JOIN: False,  # the question on the first screen
                             keys.ASKED_AT: time.monotonic()})


@refusing
def _put_away(code: str) -> None:
    rooms().put_away(code)


def live_question(s, m: Member | None) -> None:
    """The lecturer's own question, on every member's page until it is taken away."""
    if m is None or not m.room.live:
        return
    try:
        _live_question(s, m)
    except StoreDown:
        st.warning(s.t("room.down"))


def _live_question(s, m: Member) -> None:
    if m.room.live.startswith("check-"):  # the concept check: answered on the room's screen
        if not m.lecturer:
            box = st.container(border=True)
            box.markdown(f"**{s.t('check.head')}**")
            box.link_button(s.t("room.answer_on_screen"), screen_link(m.code, s.lang),
                            type="primary")
        return
    poll = rooms().poll(m.code, m.room.live)
    if poll is None:
        return
    box = st.container(border=True)
    box.markdown(f"**{s.t('room.question_head')}**")
    box.html(f'<p style="font-size: 1.3rem; margin: 0">{entities(poll.question)}</p>')
    show_poll(box, s, m, poll, list(poll.options))
    if m.lecturer:
        box.button(s.t("room.put_away"), key=keys.PUT_AWAY, on_click=_put_away,
                   args=(m.code,))
