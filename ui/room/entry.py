"""Into a room and out of it: Start a room (the lecturer's alone: ui.lecturer; a browser not
yet proven the lecturer's types the server's passphrase, if it has one), Join one by its code,
Close it; the Start and Join boxes of the home page and the sidebar."""

from __future__ import annotations

import hmac

import streamlit as st

from rooms import StoreDown, normal_code, spaced
from rooms.throttle import STARTS
from ui import config
from ui.i18n import text
from ui.lecturer import proven
from ui.room import keys
from ui.room.membership import (
    blocked,
    client_network,
    count_wrong,
    gone_note,
    holder,
    leave,
    note,
    refusing,
)
from ui.services import rooms


def passphrase() -> str:
    """The passphrase that guards Start a room on a public server ("" for none)."""
    return config.lecturer_password()


@refusing
def _start(field: str) -> None:
    store, network = rooms(), client_network()
    if wait := store.wait(STARTS, network):
        note("too_many_starts", seconds=int(wait) + 1)
        return
    lecturer = proven()  # with a passphrase, it is asked of every browser
    if not lecturer and not passphrase():  # a student's browser: rooms are the lecturer's
        note("not_lecturer")
        return
    if not lecturer:
        typed = st.session_state.pop(field, "") or ""
        if blocked("too_many_passphrases"):
            return
        if not hmac.compare_digest(typed.encode("utf-8", "surrogatepass"),
                                   passphrase().encode("utf-8", "surrogatepass")):
            count_wrong()
            note("passphrase_wrong")
            return
        st.session_state[keys.PROVEN] = True  # the lecturer, for this session
    store.spend(STARTS, network, force=True)
    code, key = store.create()
    store.hold_key(code, key, holder())  # a reload before the key's cookie is set keeps it
    st.session_state.get(keys.FORGOT, set()).discard(code)
    st.session_state.update({keys.ROOM: code, keys.KEY: key, keys.KEPT_SHOW_JOIN: True})


@refusing
def _join(field: str) -> None:
    typed = st.session_state.get(field, "")
    code = normal_code(typed)
    if code is None:
        note("bad_code")
    elif blocked(code=code):
        pass
    elif rooms().room(code) is None:
        count_wrong()
        gone_note(code)
    else:
        st.session_state.update({keys.ROOM: code, keys.KEPT_FOLLOW: True})
        st.session_state[field] = ""


@refusing
def close(code: str) -> None:
    """End the room for everyone (the lecturer's Close, confirmed)."""
    rooms().close(code)
    note("closed", code=spaced(code))
    leave()


@refusing
def new_word(code: str) -> None:
    """A new projector's word for the room at once (its lecturer saw the word being guessed):
    every word shown before is wrong from now on."""
    rooms().new_word(code)
    note("new_word")


def app_switch(where, s, code: str) -> None:
    """The lecturer's switch: off (a new room), a student's "Explore on my own" opens the room's
    screen's own sentence box; on, the app at the lecturer's view. The room keeps it."""
    try:
        room = rooms().room(code)
    except StoreDown:
        return
    if room is None:
        return
    st.session_state[keys.APP_OPEN] = room.app_open  # as the room has it, whoever set it
    where.toggle(s.t("room.app_open"), help=s.t("room.app_open_help"),
                 key=keys.APP_OPEN, on_change=_set_app_open, args=(code,))


@refusing
def _set_app_open(code: str) -> None:
    rooms().set_app_open(code, bool(st.session_state[keys.APP_OPEN]))


def join_box(where, lang: str, home: bool = False) -> None:
    """Where a student types the code the lecturer shows (the home page's, with its button
    beside the field, or the sidebar's): a field for six digits (a phone shows its number pad:
    assets/viewer/src/room/join.js) and its button."""
    field = keys.JOIN_HOME if home else keys.JOIN_SIDE
    form = where.form(keys.join_form(field), border=False, enter_to_submit=True)
    field_at, button_at = form.columns([3, 1]) if home else (form, form)
    field_at.text_input(text("room.join_label", lang), key=field, max_chars=24,
                        placeholder=text("room.join_placeholder", lang),
                        help=text("room.join_help", lang))
    button_at.form_submit_button(text("room.join", lang), key=keys.join_go(field),
                                 on_click=_join, args=(field,))


def start_box(where, s, home: bool = False) -> None:
    """Start a room (the home page's, or the sidebar's): the button, and the passphrase's field
    when the server asks for one of a browser not yet proven the lecturer's; a student's
    browser on a server without a passphrase is told who starts rooms instead."""
    suffix = keys.HOME if home else ""
    field = keys.PASSPHRASE + suffix
    lecturer = proven()
    if not lecturer and not passphrase():
        where.caption(s.t("room.lecturer_only"))
        return
    if not lecturer:
        where.text_input(s.t("room.passphrase"), key=field, type="password", max_chars=200,
                         help=s.t("room.passphrase_help"))
    where.button(s.t("room.start"), key=keys.START + suffix, on_click=_start, args=(field,),
                 help=s.t("room.start_help"), width="stretch")
