"""A lecture room in the app: start or join one, lead it or follow the lecturer, answer questions
live, and show the projector its join panel.

Who the session is in its room is settled by ui.membership at the top of every page; the room
itself lives in the rooms package (SQLite or Redis, shared by every server process). Following
is a switch of the student's own (`?follow=false` when off): on, the tab goes to the room's
screen; off, the student explores the app.

The room element (static/room.js) does the rest in the browser: a student's tab that follows
goes to the room's screen (/_posviz/follow/<code>, static/viewer.js), which shows the lecturer's
view without a page run per student; a student exploring alone stays here; a lecturer's tab
publishes its view once a run has finished and the address has settled.
"""

from __future__ import annotations

import hmac
import io
import ipaddress
import time
from urllib.parse import urlencode, urlsplit

import segno
import streamlit as st

from rooms import (
    LETTERS,
    Poll,
    RoomError,
    StoreDown,
    normal_code,
    shared_query,
    shared_rooms,
    signing,
    spaced,
)
from rooms.address import network_address
from rooms.export import answers_csv
from rooms.records import SECOND, next_step
from rooms.signing import TICKET_SECONDS, Voter
from rooms.throttle import STARTS
from ui import check, config
from ui.chart import chart, module
from ui.i18n import text
from ui.markup import entities
from ui.membership import (
    LIMIT_VALUES,
    Member,
    back_to,
    blocked,
    client_network,
    count_wrong,
    gone_note,
    holder,
    leave,
    note,
    notes,
    refusing,
    rooms_led,
)
from ui.poll_bars import picture_rows, poll_bars, sure_bars
from ui.report import report_file
from ui.state import PERSONAL, flag, remembered, to_url
from ui.tick import every

TALLY_SECONDS = 1.0  # how often a lecturer's live counts are read again
JOIN_SECONDS = 10.0  # how often the projector's QR code and word are drawn again
HEADCOUNT_SECONDS = 5.0  # how often the lecturer's count of connected students is read again

_ELEMENT = st.components.v2.component("posviz_room", js=module("room.js"))


# ---- starting, joining, leaving -------------------------------------------------------------


def passphrase() -> str:
    """The passphrase that guards Start a room on a public server ("" for none)."""
    return config.lecturer_password()


@refusing
def _start(field: str) -> None:
    store, network = shared_rooms(), client_network()
    if wait := store.wait(STARTS, network):
        note("too_many_starts", seconds=int(wait) + 1)
        return
    if passphrase():
        typed = st.session_state.pop(field, "") or ""
        if blocked("too_many_passphrases"):
            return
        if not hmac.compare_digest(typed.encode("utf-8", "surrogatepass"),
                                   passphrase().encode("utf-8", "surrogatepass")):
            count_wrong()
            note("passphrase_wrong")
            return
    store.spend(STARTS, network, force=True)
    code, key = store.create()
    store.hold_key(code, key, holder())  # a reload before the key's cookie is set keeps it
    st.session_state.get("room_forgot", set()).discard(code)
    st.session_state.update(kept_room=code, room_key=key, kept_room_show_join=True)


@refusing
def _join(field: str) -> None:
    typed = st.session_state.get(field, "")
    code = normal_code(typed)
    if code is None:
        note("bad_code")
    elif blocked(code=code):
        pass
    elif shared_rooms().room(code) is None:
        count_wrong()
        gone_note(code)
    else:
        st.session_state.update(kept_room=code, kept_follow=True)
        st.session_state[field] = ""


@refusing
def _close(code: str) -> None:
    shared_rooms().close(code)
    note("closed", code=spaced(code))
    leave()


def join_box(where, lang: str, field: str = "room_join", inline: bool = False) -> None:
    """Where a student types the code the lecturer shows (home page and sidebar): a field for
    six digits (a phone shows its number pad: static/chart.js) and its button, beside it if
    inline."""
    form = where.form(f"{field}_form", border=False, enter_to_submit=True)
    field_at, button_at = form.columns([3, 1]) if inline else (form, form)
    field_at.text_input(text("room.join_label", lang), key=field, max_chars=24,
                        placeholder=text("room.join_placeholder", lang),
                        help=text("room.join_help", lang))
    button_at.form_submit_button(text("room.join", lang), key=f"{field}_go", on_click=_join,
                                 args=(field,))


def start_box(where, s, suffix: str = "") -> None:
    """Start a room (home page and sidebar): the button, and the passphrase's field when the
    server asks for one (keys end in suffix, so that both places can be on one page)."""
    field = f"room_passphrase{suffix}"
    if passphrase():
        where.text_input(s.t("room.passphrase"), key=field, type="password", max_chars=200,
                         help=s.t("room.passphrase_help"))
    where.button(s.t("room.start"), key=f"room_start{suffix}", on_click=_start, args=(field,),
                 help=s.t("room.start_help"), width="stretch")


# ---- the sidebar ------------------------------------------------------------------------


def public_base() -> str:
    """The address students open: POSVIZ_PUBLIC_URL, else the one this browser used."""
    configured = config.public_url()
    if configured:
        return configured.rstrip("/") + "/"
    used = urlsplit(st.context.url or "http://localhost:8501/")
    return f"{used.scheme}://{used.netloc}/"


def _only_this_machine(base: str) -> bool:
    host = urlsplit(base).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _network_base(base: str) -> str | None:
    """This machine's address on its network, with base's scheme and port."""
    parts, address = urlsplit(base), network_address()
    port = f":{parts.port}" if parts.port else ""
    return None if address is None else f"{parts.scheme}://{address}{port}/"


def student_link(code: str, ticket: bool = False) -> str:
    """The room's link for students (the app, which sends a follower to the room's screen);
    with its ticket of now (in the QR code), the room's screen itself, whose voter id then
    shows it was in the hall, and which joins even while a script floods the class's network
    address with wrong codes. The ticket changes every signing.TICKET_SECONDS."""
    if ticket:
        ticketed = urlencode({"t": signing.ticket(shared_rooms().secret, code, time.time())})
        return f"{public_base()}_posviz/follow/{code}?{ticketed}"
    return f"{public_base()}?{urlencode({'room': code})}"


def section(s, m: Member | None, page: str) -> None:
    """The sidebar's room box: start or join one; lead it; or follow it."""
    box = st.sidebar.container(border=True)
    box.markdown(f"**{s.t('room.head')}**")
    if forgotten := st.session_state.pop("room_forget", None):
        with st.sidebar:  # the browser drops the key's cookie
            _ELEMENT(data={"forget": forgotten, "page": page}, key="posviz_room",
                     width="stretch")
    if st.session_state.get("rooms_down"):
        box.warning(s.t("room.down"))
        if code := st.session_state.get("kept_room"):
            with st.sidebar:  # the tab comes back to its room once the store answers
                _ELEMENT(data={"down": code, "page": page}, key="posviz_room",
                         width="stretch")
        return
    if m is None:
        for code in rooms_led():  # a new tab of a lecturer's browser: back to the room
            box.markdown(s.t("room.you_lead", code=spaced(code)))
            box.button(s.t("room.back_to_room", code=spaced(code)), key=f"room_back_{code}",
                       on_click=back_to, args=(code,), type="primary", width="stretch")
        start_box(box, s)
        join_box(box, s.lang, "room_join_side")
        return
    if m.lecturer:
        _lead(box, s, m, page)
    else:
        _follow(box, s, m, page)


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
               **remembered("room_show_join", False, flag))
    with box.expander(s.t("room.ask_head")):  # what a lecturer reaches for, first
        _ask_form(s, m)
    with box.expander(s.t("check.head")):
        check.panel(s, m)
    box.download_button(s.t("room.download"), data=lambda: answers_csv(shared_rooms(), m.code),
                        file_name=f"posviz-room-{m.code}.csv", mime="text/csv",
                        on_click="ignore", width="stretch")
    box.download_button(s.t("report.download"), data=lambda: report_file(
        shared_rooms(), m.code, s.lang, time.time()), file_name=f"posviz-room-{m.code}.html",
        mime="text/html", on_click="ignore", width="stretch")
    with box.popover(s.t("room.close"), width="stretch"):
        st.caption(s.t("room.close_help"))
        st.button(s.t("room.close_confirm"), key="room_close", on_click=_close, args=(m.code,),
                  type="primary")
    box.caption(s.t("room.student_link"))
    box.code(student_link(m.code), language=None, wrap_lines=True)
    with box.popover(s.t("room.lecturer_link"), width="stretch"):
        st.caption(s.t("room.lecturer_link_help"))
        if st.button(s.t("room.lecturer_link_show"), key="room_show_key", type="primary"):
            try:
                token = shared_rooms().lead_link(m.code, st.session_state.room_key)
            except (StoreDown, RoomError):  # the rooms, or this room, went meanwhile
                st.warning(s.t("room.down"))
            else:
                st.warning(s.t("room.lecturer_link_warning"))  # for this run only
                mine = urlencode({"room": m.code, "lead": token})
                st.code(f"{public_base()}{page}?{'&'.join(filter(None, (view, mine)))}",
                        language=None, wrap_lines=True)
    with box.popover(s.t("room.leave"), width="stretch"):
        st.caption(s.t("room.leave_lead_help"))
        st.button(s.t("room.leave_confirm"), key="room_leave", on_click=leave)
    _element(m, page, s.lang, lead=True)


def _follow(box, s, m: Member, page: str) -> None:
    box.markdown(s.t("room.member", code=spaced(m.code)))
    box.button(s.t("room.leave"), key="room_leave", on_click=leave, width="stretch")


def student_bar(s, m: Member | None, page: str) -> None:
    """At the top of a student's page (a phone hides the sidebar): the room and the switch
    that follows the lecturer."""
    if m is None or m.lecturer:
        return
    bar = st.container(border=True, horizontal=True, vertical_alignment="center")
    bar.markdown(s.t("room.member", code=spaced(m.code)), width="content")
    following = bar.toggle(s.t("room.follow"), help=s.t("room.follow_help"),
                           **remembered("follow", True, flag))
    to_url("follow", following, True, "false")
    _element(m, page, s.lang, lead=False, following=following)


@st.fragment
def _headcount(where, code: str, lang: str) -> None:
    """Who is really there, read again every HEADCOUNT_SECONDS (which also tells the room its
    lecturer is still here)."""
    every(HEADCOUNT_SECONDS, "tick_headcount")
    store = shared_rooms()
    try:
        room = store.room(code)
        if room is None or room.closed:  # ended, or lost by the store: the page says which
            st.rerun(scope="app")
        store.lecturer_here(code)
        where.caption(text("room.headcount", lang, n=store.headcount(code),
                           voted=store.voters(code)))
    except StoreDown:
        where.warning(text("room.down", lang))


def _element(m: Member, page: str, lang: str, lead: bool, following: bool = False) -> None:
    """The room element: keeps the tab in its room (static/room.js); draws nothing itself. page is
    the page's URL path ("" for home). A lecturer's key goes to the browser once, for the
    server to set it in its HttpOnly cookie: the tab says when that is done (`granted`), and
    no run after it sends the key again."""
    proof = signing.joined(shared_rooms().secret, m.code, m.room.expires)
    data = {"code": m.code, "page": page, "joined": proof, "follow": following, "lang": lang}
    if lead:
        granted = m.key_kept or st.session_state.get("room_granted") == m.code
        data |= {"lead": True} | ({} if granted else {"grant": st.session_state.room_key})
    with st.sidebar:
        _ELEMENT(data=data, key="posviz_room", width="stretch", on_granted_change=_granted)


def _granted() -> None:
    """The tab handed the key of its room over: the browser's HttpOnly cookie holds it now."""
    st.session_state.room_granted = st.session_state.get("kept_room")


def _ask_form(s, m: Member) -> None:
    with st.form("room_ask", clear_on_submit=False, border=False):
        st.text_area(s.t("room.ask_question"), key="room_ask_question", max_chars=300,
                     height=90)
        st.text_area(s.t("room.ask_options"), key="room_ask_options", height=130,
                     help=s.t("room.ask_options_help"))
        st.selectbox(s.t("room.ask_correct"), ["", *LETTERS], key="room_ask_correct",
                     format_func=lambda c: c or s.t("room.ask_none"))
        st.form_submit_button(s.t("room.ask"), key="room_ask", on_click=_ask, args=(m.code,),
                              type="primary")
    for said in notes(s.lang, ASK):  # beside the form: the page's top may be on the projector
        st.warning(said)


ASK = "ask"  # the place of the ask form's messages (ui.membership.note)
ASKED_AGAIN = 3.0
"""Seconds after a question went up in which an empty Ask is the same click's echo (a double
click): ignored, not refused."""


@refusing(place=ASK)
def _ask(code: str) -> None:
    question = st.session_state.room_ask_question
    options = [line for line in st.session_state.room_ask_options.splitlines() if line.strip()]
    correct = st.session_state.room_ask_correct
    if (not question.strip() and not options and not correct
            and time.monotonic() - st.session_state.get("room_asked_at", -ASKED_AGAIN)
            < ASKED_AGAIN):
        return
    if correct and LETTERS.index(correct) >= len(options) >= 2:
        note("correct_missing", ASK, letter=correct, n=len(options))
        return
    shared_rooms().ask(code, question, options, LETTERS.index(correct) if correct else None)
    st.session_state.update(room_ask_question="", room_ask_options="", room_ask_correct="",
                            kept_room_show_join=False,  # the question on the first screen
                            room_asked_at=time.monotonic())


# ---- the join code on the page ----------------------------------------------------------


@st.cache_data(max_entries=64)
def _qr_png(link: str) -> bytes:
    out = io.BytesIO()
    segno.make(link, error="m").save(out, kind="png", scale=12, border=3)
    return out.getvalue()


def join_panel(s, m: Member | None) -> None:
    """The lecturer's join code, link and QR code across the page (the projector's view)."""
    if m is None or not m.lecturer or not st.session_state.get("kept_room_show_join"):
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
    code_col.markdown(s.t("room.join_body"))
    code_col.code(link, language=None, wrap_lines=True)
    if _only_this_machine(link):
        code_col.warning(s.t("room.localhost", suggestion=_network_base(link) or
                             "http://<this machine's address>:8501/"))
    with qr_col:
        _presence(m.code, s.lang)


@st.fragment
def _presence(code: str, lang: str) -> None:
    """The QR code with the room's ticket of now, and the projector's word of now: both change
    every TICKET_SECONDS (a photo of them posted outside the hall stops working within
    minutes), so they are drawn again every JOIN_SECONDS."""
    every(JOIN_SECONDS, "tick_presence")
    word = signing.word(shared_rooms().secret, code, time.time())
    held = st.container(key="posviz_presence")  # the QR code fits the screen's height, and
    held.html(f'<p class="posviz-room-word"><span>{text("room.word_head", lang)}</span> '
              f'<b lang="en">{word}</b></p>')  # the word stays in view, large, above it
    held.caption(text("room.word", lang, minutes=TICKET_SECONDS // 60))
    held.image(_qr_png(student_link(code, ticket=True)), width="stretch",
               caption=text("room.qr_caption", lang), output_format="PNG")  # JPEG would blur
    held.html("<style>.posviz-room-word {margin: 0; font-size: 1.4rem; text-align: center} "
              ".posviz-room-word b {font-size: 2.6rem; letter-spacing: .12em} "
              ".st-key-posviz_presence img {max-height: max(14rem, 100vh - 24rem); "
              "width: auto !important; max-width: 100%; aspect-ratio: 1; object-fit: contain; "
              "margin: 0 auto; display: block}</style>")


# ---- questions ------------------------------------------------------------------------------


def options_list(where, labels: list[str]) -> None:
    """The options of a question, lettered A, B, ..., shown exactly as typed."""
    letters = LETTERS[:len(labels)]
    items = "".join(f"<li><b>{letter}</b>&ensp;{entities(label)}</li>"
                    for letter, label in zip(letters, labels, strict=True))
    where.html(f'<ol class="posviz-options">{items}</ol><style>.posviz-options {{'
               "list-style: none; padding: 0; margin: .2rem 0 .6rem; font-size: 1.1rem}"
               ".posviz-options li {margin: .25rem 0}</style>")


@refusing
def _vote(code: str, poll_id: str, voter: Voter, option: int, sure: bool | None = None) -> None:
    shared_rooms().vote(code, poll_id, voter.token, option, client_network(), sure=sure)


@refusing
def _second_round(code: str, poll_id: str) -> None:
    shared_rooms().second_round(code, poll_id)


@refusing
def _set_aside(code: str, network: str) -> None:
    note("answers_set_aside", n=shared_rooms().set_aside(code, network))


@refusing
def _reveal(code: str, poll_id: str, correct: int | None) -> None:
    shared_rooms().reveal(code, poll_id, correct)


@refusing
def _put_away(code: str) -> None:
    shared_rooms().put_away(code)


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


@st.fragment
def _tally(code: str, poll_id: str, letters: str, lang: str, show: bool,
           correct: int | None) -> None:
    """The lecturer's live count of answers in the question's current round, read again every
    TALLY_SECONDS, with what to do next (Peer Instruction's thresholds, when the right option
    is known); how they split, by confidence, only if show (the hall sees the projector: a
    split shown before the reveal sways those still deciding)."""
    every(TALLY_SECONDS, f"tick_tally_{poll_id}")
    store = shared_rooms()
    try:
        split = store.split(code, poll_id)
        here = store.headcount(code)
        current = split and store.current(code, poll_id)
        suspects = store.suspects(code, current.id) if current else []
    except StoreDown:
        st.warning(text("room.down", lang))
        return
    if split is None:
        return
    tally = split.rounds[-1]
    if len(split.rounds) == 2:
        first = split.rounds[0]
        st.markdown(f"**{text('room.round_two', lang)}** " + text(
            "room.first_round_right", lang, share=_share(first.right_share(correct)),
            n=first.total) * (show and correct is not None))
    if show:
        chart(sure_bars(tally, list(letters), text("room.live_title", lang),
                        text("room.answers_axis", lang),
                        tuple(text(f"room.{k}", lang) for k in ("sure", "guessing", "unsaid"))),
              f"tally_{poll_id}", toolbar=False)
    st.caption(text("room.answered", lang, n=tally.total, here=here))
    if correct is not None:
        share = tally.right_share(correct)
        step = "reveal" if len(split.rounds) == 2 and share is not None else next_step(share)
        said = text(f"room.step.{step}", lang)
        if show and share is not None:
            said = text("room.right_so_far", lang, share=_share(share), n=tally.total) + " " + said
        st.info(said)
    for suspect in suspects:  # answers from a network with fewer screens: a script, likely
        st.warning(text("room.suspect" if suspect.screens else "room.suspect_none", lang,
                        answers=suspect.answers, screens=suspect.screens,
                        unfollowed=suspect.unfollowed))
        st.button(text("room.set_aside", lang, n=suspect.unfollowed),
                  key=f"aside_{poll_id}_{suspect.network}", on_click=_set_aside,
                  args=(code, suspect.network))


def show_poll(where, s, m: Member, poll: Poll, labels: list[str],
              correct: int | None = None) -> None:
    """A poll as this member sees it: options with letters; the lecturer's live counts and
    Reveal, or a student's answer buttons; once revealed, everyone's distribution and the
    right option. labels are the options in the reader's language."""
    store = shared_rooms()
    letters = LETTERS[:len(poll.options)]
    options_list(where, labels)
    current = store.current(m.code, poll.id) or poll
    answer = None if m.lecturer or m.voter is None else store.my_answer(
        m.code, current.id, m.voter.token)
    mine = None if answer is None else answer.option
    if poll.revealed:
        _revealed(where, s, m.code, poll, letters)
        if mine is not None and poll.correct is not None:
            where.caption(s.t("room.right" if mine == poll.correct else "room.wrong",
                              mine=letters[mine], right=letters[poll.correct]))
        return
    if m.lecturer:
        show = where.toggle(s.t("room.show_counts"), key=f"counts_{poll.id}",
                            help=s.t("room.show_counts_help"))
        with where:
            _tally(m.code, poll.id, letters, s.lang, show,
                   poll.correct if correct is None else correct)
        buttons = where.container(horizontal=True)
        if current.id == poll.id and not poll.id.endswith(SECOND) \
                and not poll.id.startswith("check-"):  # a first round, not the check's
            buttons.button(s.t("room.second_round"), key=f"again_{poll.id}",
                           help=s.t("room.second_round_help"), on_click=_second_round,
                           args=(m.code, poll.id))
        buttons.button(s.t("room.reveal"), key=f"reveal_{poll.id}", on_click=_reveal,
                       args=(m.code, poll.id, correct), type="primary")
        return
    if m.voter is None:  # this browser has no voter id for the room: the room's screen gives one
        where.link_button(s.t("room.answer_on_screen"), f"{public_base()}_posviz/follow/"
                          f"{m.code}?{urlencode({'lang': s.lang})}", type="primary")
        return
    if current.id.endswith(SECOND):
        where.markdown(f"**{s.t('room.round_two')}**")
    where.markdown(s.t("room.tap"))
    for i, (column, letter) in enumerate(zip(where.columns(len(letters)), letters,
                                             strict=True)):
        column.button(letter, key=f"vote_{current.id}_{i}", on_click=_vote,
                      args=(m.code, poll.id, m.voter, i), width="stretch",
                      type="primary" if mine == i else "secondary")
    where.caption(s.t("room.not_voted") if mine is None else
                  s.t("room.voted", mine=letters[mine]))
    if answer is not None:  # how sure: one tap, optional
        sure = where.container(horizontal=True, vertical_alignment="center")
        sure.markdown(s.t("room.how_sure"), width="content")
        for value, key in ((True, "sure"), (False, "guessing")):
            sure.button(s.t(f"room.{key}"), key=f"sure_{current.id}_{key}", on_click=_vote,
                        args=(m.code, poll.id, m.voter, mine, value),
                        type="primary" if answer.sure is value else "secondary")


def _revealed(where, s, code: str, poll: Poll, letters: str) -> None:
    """A revealed question: each round's answers (side by side when there were two), how many
    changed their answer between them, and the right option in words."""
    split = shared_rooms().split(code, poll.id)
    rounds = split.rounds if split else ()
    columns = where.columns(len(rounds)) if len(rounds) > 1 else [where]
    for number, (column, tally) in enumerate(zip(columns, rounds, strict=False), start=1):
        title = (s.t("room.round_results", round=number, n=tally.total) if len(rounds) > 1
                 else s.t("room.results", n=tally.total))
        chart(poll_bars(tally.counts, list(letters), title, s.t("room.answers_axis"),
                        correct=poll.correct), f"poll_{poll.id}_{number}", where=column,
              toolbar=False)
    if len(rounds) > 1:
        moves = ("；" if s.lang == "zh" else "; ").join(
            f"{letters[a]} → {letters[b]}: {n}" for a, b, n in split.moves[:3])
        where.caption(s.t("room.changed", both=split.both, n=split.changed,
                          moves=f" ({moves})" if moves else ""))
    if poll.correct is not None:  # in words, not by the bar's colour alone
        where.markdown(s.t("room.right_answer", right=letters[poll.correct]))


def class_picture(where, s, poll_id: str, tokens: tuple[str, ...], weights, truth: int) -> None:
    """A revealed predicted picture (the app's page in a room): the class's predictions beside
    the model's attention row, and how many predicted the model's key."""
    m = s.room
    if m is None:
        return
    try:
        split = shared_rooms().split(m.code, poll_id)
    except StoreDown:
        where.warning(s.t("room.down"))
        return
    if split is None:
        return
    tally = split.rounds[-1]
    shares = [n / tally.total if tally.total else 0.0 for n in tally.counts]
    labels = [f"{key} {token}" for key, token in enumerate(tokens)]
    chart(picture_rows(labels, shares, [float(w) for w in weights], truth,
                       s.t("lesson.pick_title", n=len(tokens) - 1),
                       (s.t("lesson.pick_class"), s.t("lesson.pick_model")),
                       s.t("common.key_axis")), f"picture_{poll_id}", where=where,
          toolbar=False)
    where.caption(s.t("lesson.pick_right", k=tally.counts[truth] if truth < len(
        tally.counts) else 0, total=tally.total, cell=truth))


def lesson_poll(where, s, m: Member | None, scene: str, question: str, labels: list[str],
                correct: int) -> bool | None:
    """A lesson scene's question as a poll of the room. The lecturer's visit opens it (with
    the texts in the lecturer's language, as the CSV lists them). Returns whether the answer
    is revealed, or None where the page asks on its own: outside a room, or for a student
    ahead of the lecturer."""
    if m is None:
        return None
    store = shared_rooms()
    try:
        if m.lecturer:
            poll = store.lesson_poll(m.code, scene, question, labels)
        else:
            poll = store.poll(m.code, f"scene-{scene}")
            if poll is None:
                return None
        show_poll(where, s, m, poll, labels, correct)
    except StoreDown:
        where.warning(s.t("room.down"))
        return None
    return poll.revealed


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
            box.link_button(s.t("room.answer_on_screen"), f"{public_base()}_posviz/follow/"
                            f"{m.code}?{urlencode({'lang': s.lang})}", type="primary")
        return
    poll = shared_rooms().poll(m.code, m.room.live)
    if poll is None:
        return
    box = st.container(border=True)
    box.markdown(f"**{s.t('room.question_head')}**")
    box.html(f'<p style="font-size: 1.3rem; margin: 0">{entities(poll.question)}</p>')
    show_poll(box, s, m, poll, list(poll.options))
    if m.lecturer:
        box.button(s.t("room.put_away"), key="room_put_away", on_click=_put_away,
                   args=(m.code,))
