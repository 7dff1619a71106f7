"""Every key the lecture room keeps in a session's st.session_state, named once, with what it
holds. The room's modules use these names, never the strings; AppTest and the browser tests
find the room's widgets by the same keys, and a widget's key is also its element's class,
`st-key-<key>`, which CSS and static/ scripts select.

A setting kept for the session (ui.state.remembered) has two keys: the widget's own, which is
also its URL parameter (`?follow=false`), and `kept_<key>` (ui.state.kept), which outlives a
page switch.
"""

from __future__ import annotations

from ui.state import kept

# ---- the session's place in its room (ui.room.membership) -----------------------------------

ROOM = "kept_room"  # the code of the room this session is in ("" for none; a link seeds it)
KEY = "room_key"  # the key of that room while this session leads it, else None
SEEN = "room_seen"  # the code of the last room this session was in, or its QR code's ticket named
DOWN = "rooms_down"  # whether the store failed this run (the sidebar says so)
FORGET = "room_forget"  # a room whose key's cookie the browser is to delete, once (ui.room.element)
FORGOT = "room_forgot"  # the codes whose key this session let go: their cookies here are stale
LEADS_TRIED = "room_leads_tried"  # the lecturer links this session tried (each is tried once)
GRANTED = "room_granted"  # the room whose key the browser's HttpOnly cookie holds now
NOTES = "room_notes_"  # + a place: the room's messages waiting there, as (catalog key, values)


def notes(place: str) -> str:
    """The key of the messages waiting in a place ("page", or beside a form)."""
    return f"{NOTES}{place}"


# ---- the room's settings kept for the session (ui.state.remembered) -------------------------

FOLLOW = "follow"  # a student's switch: the tab follows the lecturer's view
KEPT_FOLLOW = kept(FOLLOW)
SHOW_JOIN = "room_show_join"  # the lecturer's switch: the join panel across the page
KEPT_SHOW_JOIN = kept(SHOW_JOIN)
HIDE_JOIN = "room_hide_join"  # the join panel's own button that puts it away
APP_OPEN = "room_app_open"  # the lecturer's switch: Explore on my own opens the app (the room
# keeps it: Room.app_open)
CHECK_SHOW = "check_show"  # the lecturer's switch: the concept check's gains across the page
KEPT_CHECK_SHOW = kept(CHECK_SHOW)

# ---- fields whose values the room reads -----------------------------------------------------

JOIN_SIDE = "room_join_side"  # the sidebar's Join field: the code as typed; a field whose key
JOIN_HOME = "room_join_home"  # starts `room_join` gets a phone's number pad (src/room/join.js)
PASSPHRASE = "room_passphrase"  # + a place's suffix: the passphrase typed to Start a room
ASK_QUESTION = "room_ask_question"  # the lecturer's own question: its text as typed,
ASK_OPTIONS = "room_ask_options"  # its options, one a line,
ASK_CORRECT = "room_ask_correct"  # and the letter of the right one ("" for none)
ASKED_AT = "room_asked_at"  # when (time.monotonic) the last question went up

# ---- buttons, switches and elements (a button holds True for the run after its click) -------

START = "room_start"  # + a place's suffix: Start a room
HOME = "_home"  # the suffix of the home page's START and PASSPHRASE (the sidebar's have none)
BACK = "room_back_"  # + a code: back to a room this browser leads (a new tab of it)
CLOSE = "room_close"  # Close the room, confirmed
LEAVE = "room_leave"  # Leave the room
SHOW_KEY = "room_show_key"  # show a one-time lecturer link
NEW_WORD = "room_new_word"  # a new projector's word (the word being guessed)
PROVEN = "lecturer_proven"  # this session typed the lecturer's passphrase
ASK_FORM = "room_ask"  # the lecturer's question form, and its Ask button
PUT_AWAY = "room_put_away"  # take the lecturer's question off the screens
ELEMENT = "posviz_room"  # the room element (static/room.js)
PRESENCE = "posviz_presence"  # the join panel's QR code and word (sized by their CSS)
CHECK_GAINS_CSV = "check_gains_csv"  # the concept check's gains as CSV
# the clocks (ui.room.tick) of the fragments drawn again while the page is idle:
TICK_HEADCOUNT = "tick_headcount"  # the lecturer's count of students
TICK_PRESENCE = "tick_presence"  # the join panel's QR code and word
TICK_CHECK = "tick_check"  # the concept check's sittings

REVEAL = "reveal_"  # + a poll's id: Reveal its answer (ui.view's R key presses a scene's)


def join_form(field: str) -> str:
    """The Join form around a join field (JOIN_SIDE, JOIN_HOME)."""
    return f"{field}_form"


def join_go(field: str) -> str:
    """The Join button beside a join field."""
    return f"{field}_go"


def tick_tally(poll_id: str) -> str:
    """The clock of a poll's live count."""
    return f"tick_tally_{poll_id}"


def show_counts(poll_id: str) -> str:
    """The lecturer's switch that shows how a poll's answers split before the reveal."""
    return f"counts_{poll_id}"


def second_round(poll_id: str) -> str:
    """Send a poll to a second round."""
    return f"again_{poll_id}"


def reveal(poll_id: str) -> str:
    """Reveal a poll's answer."""
    return f"{REVEAL}{poll_id}"


def set_aside(poll_id: str, network: str) -> str:
    """Set aside the answers of a suspect network to a poll."""
    return f"aside_{poll_id}_{network}"


def vote(poll_id: str, option: int) -> str:
    """A student's answer button: option (0 for A) of a poll's current round."""
    return f"vote_{poll_id}_{option}"


def sure(poll_id: str, said: str) -> str:
    """How sure a student is of an answer ("sure" or "guessing")."""
    return f"sure_{poll_id}_{said}"


def check_start(phase: str) -> str:
    """Start a sitting of the concept check ("pre" or "post")."""
    return f"check_start_{phase}"


def check_end(phase: str) -> str:
    """End a sitting of the concept check."""
    return f"check_end_{phase}"
