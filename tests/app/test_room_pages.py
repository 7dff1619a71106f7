"""Rooms in the app's pages (AppTest, one session at a time): start, join, lead, follow, vote,
reveal, ask, close; and every hostile input as a room code, a lecturer link and a question."""

from __future__ import annotations

import json
import re
import time
from urllib.parse import parse_qsl, urlsplit

import pytest
from streamlit.testing.v1 import AppTest

from rooms import shared_rooms, signing, throttle
from rooms.export import answers_csv
from tests.conftest import ROOT
from tests.helpers.figure_data import chart_specs
from tests.helpers.hostile import CATEGORIES
from ui import documents
from ui.answer_key import CHECK
from ui.i18n import text

# Every group of the hostile corpus at its two ends. The whole corpus goes through the store and the
# room's routes (tests/rooms/test_rooms.py, tests/rooms/test_rooms_http.py); a page adds no code
# path of its own per input, and each page run here takes a tenth of a second.
SAMPLE = [text for group in CATEGORIES.values() for text in dict.fromkeys((group[0], group[-1]))]

HOME, LESSON, ROPE = (str(ROOT / p) for p in ("app.py", "pages/0_lesson.py", "pages/3_rope.py"))


@pytest.fixture(autouse=True)
def store(tmp_path, monkeypatch):
    """A fresh SQLite store for every test (the app reads POSVIZ_ROOM_STORE)."""
    monkeypatch.setenv("POSVIZ_ROOM_STORE", f"sqlite:///{tmp_path / 'rooms.sqlite3'}")
    shared_rooms.cache_clear()
    yield shared_rooms()
    shared_rooms.cache_clear()


def opened(page: str = HOME, **query: str) -> AppTest:
    at = AppTest.from_file(page, default_timeout=60)
    at.query_params.update(query)
    at.run()
    assert not at.exception
    return at


def shown(at: AppTest) -> str:
    """Every text the run drew (markdown, captions, messages, html, code)."""
    parts = [e.value for kind in ("markdown", "caption", "warning", "info", "success", "error",
                                  "code") for e in getattr(at, kind)]
    parts += [e.proto.body for e in at.get("html")]
    return "\n".join(str(p) for p in parts)


def lecturer(store, page: str = HOME, **query: str) -> tuple[AppTest, str, str]:
    """A session opened from a one-time lecturer link of a new room."""
    code, key = store.create()
    return opened(page, room=code, lead=store.lead_link(code, key), **query), code, key


def test_starting_a_room_makes_this_session_its_lecturer(store):
    at = opened()
    at.button(key="room_start").click().run()
    assert not at.exception
    code = at.session_state["kept_room"]
    assert store.room(code) is not None and at.query_params["room"] == code
    assert f"{code[:3]} {code[3:]}" in shown(at)          # the join code, read aloud in two
    assert any(f"?room={code}" in c.value for c in at.code)  # the student link
    assert at.get("imgs") or at.get("image")                 # its QR code


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_address_to_use_instead_is_set_as_code(store, lang):
    """Opened at localhost, the join panel says phones cannot use this address and names one
    they can: as code, so that no link runs on into the text after it (in Chinese, the
    full-width bracket and the words after it became part of the link)."""
    at = opened(lang=lang)
    at.button(key="room_start").click().run()
    said = [w.value for w in at.warning if "POSVIZ_PUBLIC_URL" in w.value]
    assert len(said) == 1 and re.search(r"`https?://[^`\s]+`", said[0]), said


def test_the_lecturer_link_drives_the_room_and_leaves_the_address_bar(store):
    at, code, key = lecturer(store, LESSON, scene="4")
    assert "lead" not in at.query_params
    assert at.session_state["room_key"] == key
    assert at.button(key="reveal_scene-order")  # a lecturer reveals; no vote buttons
    assert not [b for b in at.button if b.key and b.key.startswith("vote_")]


def test_a_lecturer_link_leads_one_session_once(store):
    code, key = store.create()
    token = store.lead_link(code, key)
    first = opened(LESSON, room=code, lead=token, scene="4")
    again = opened(LESSON, room=code, lead=token, scene="4")  # from the history, after Leave
    assert first.session_state["room_key"] == key and not again.session_state["room_key"]
    assert "has been used already" in shown(again)  # read on the page, not followed away
    assert again.toggle(key="follow").value is False


@pytest.mark.parametrize(("name", "value"), [
    ("lead", "wrong-token-of-decent-length"), ("lead", ""), ("lead", "x" * 500),
    *(("lead", sample) for sample in SAMPLE), ("key", "the-room-key")])
def test_a_wrong_link_gives_a_follower_never_control(store, name, value):
    code, key = store.create()
    at = opened(LESSON, room=code, scene="4", **{name: key if value == "the-room-key" else value})
    assert name not in at.query_params
    assert not at.session_state["room_key"]
    assert at.toggle(key="follow")  # the student's switch
    assert not [b for b in at.button if b.key and b.key.startswith("reveal_")]


def test_joining_by_the_typed_code(store):
    code, _ = store.create()
    at = opened()
    at.text_input(key="room_join_home").input(f" {code[:3]}-{code[3:]} ")
    at.button(key="room_join_home_go").click().run()
    assert not at.exception and at.session_state["kept_room"] == code
    assert at.toggle(key="follow").value


@pytest.mark.parametrize(("typed", "message"), [
    ("12345", "six digits"), ("abcdef", "six digits"), ("000000", "no open room")])
def test_a_code_that_leads_nowhere_says_why_and_keeps_what_was_typed(store, typed, message):
    at = opened()
    at.text_input(key="room_join_home").input(typed)
    at.button(key="room_join_home_go").click().run()
    assert not at.exception and not at.session_state["kept_room"]
    assert message in shown(at)
    assert at.text_input(key="room_join_home").value == typed


@pytest.mark.parametrize("raw", SAMPLE)
def test_hostile_room_codes_in_a_link_get_a_message_not_a_traceback(store, raw):
    at = opened(room=raw)
    assert not at.session_state["kept_room"]
    assert "six digits" in shown(at) or "no open room" in shown(at) or raw.strip() == ""


def test_a_student_without_a_voter_id_answers_on_the_rooms_screen(store):
    """A tab that came by a link to the app has no voter id for the room (only the room's
    screen issues one, in an HttpOnly cookie): its question offers the room's screen, where
    it answers, instead of buttons that could not count."""
    code, key = store.create()
    lecturer_view = opened(LESSON, room=code, lead=store.lead_link(code, key), scene="4")
    assert lecturer_view.button(key="reveal_scene-order")
    student = opened(LESSON, room=code, scene="4")
    assert not [b for b in student.button if b.key and b.key.startswith("vote_")]
    screen = next(b for b in student.get("link_button")
                  if b.proto.label == text("room.answer_on_screen", "en"))
    assert screen.proto.url == f"http://localhost:8501/_posviz/follow/{code}?lang=en"


def test_the_reveal_reaches_the_student_with_the_distribution_and_the_answer(store):
    code, key = store.create()
    teacher = opened(LESSON, room=code, lead=store.lead_link(code, key), scene="4")
    student = opened(LESSON, room=code, scene="4")
    store.vote(code, "scene-order", store.new_voter(code, True), 0)
    teacher.button(key="reveal_scene-order").click().run()
    assert store.poll(code, "scene-order").revealed and store.poll(code, "scene-order").correct == 1
    student.run()
    assert "How the room answered (answers: 1)" in "\n".join(
        json.dumps(spec) for spec in chart_specs(student))
    assert student.success[0].value.startswith("**B.**")
    assert not [b for b in student.button if b.key and b.key.startswith("vote_")]


def test_a_student_ahead_of_the_lecturer_asks_on_their_own(store):
    code, _ = store.create()
    student = opened(LESSON, room=code, scene="5")  # the lecturer never opened scene 5
    assert student.toggle(key="lesson_reveal_sinusoidal")


def test_the_join_panel_puts_itself_away_and_the_sidebar_brings_it_back(store):
    """On a projector the join panel fills the first screen, and Next changes nothing seen:
    the panel's own button hides it (the sidebar is hidden in presentation mode), and the
    sidebar's switch shows it again."""
    at, code, _ = lecturer(store, LESSON, present="true")
    at.toggle(key="room_show_join").set_value(True).run()
    assert at.button(key="room_hide_join").proto.label == text("room.hide_join", "en")
    at.button(key="room_hide_join").click().run()
    assert not at.exception
    assert not at.toggle(key="room_show_join").value
    assert not [b for b in at.button if b.key == "room_hide_join"]  # the panel is gone
    at.toggle(key="room_show_join").set_value(True).run()
    assert at.button(key="room_hide_join")


def test_the_lecturers_question_reaches_every_page_and_goes_away(store):
    at, code, _ = lecturer(store)
    at.toggle(key="room_show_join").set_value(True).run()  # the join panel on the projector
    at.text_area(key="room_ask_question").input("Which **encoding** extrapolates?")
    at.text_area(key="room_ask_options").input("RoPE\n\nALiBi\n<b>learned</b>")
    at.selectbox(key="room_ask_correct").select("B")
    at.button(key="room_ask").click().run()
    assert not at.exception
    assert not at.toggle(key="room_show_join").value  # the question takes the first screen
    room = store.room(code)
    assert room.live == "q1"
    assert store.poll(code, "q1").options == ("RoPE", "ALiBi", "<b>learned</b>")
    student = opened(ROPE, room=code)
    html = "\n".join(e.proto.body for e in student.get("html"))
    assert "&#60;&#98;&#62;" in html  # typed markup stays text
    assert "**encoding**" not in "\n".join(m.value for m in student.markdown)
    store.vote(code, "q1", store.new_voter(code, True), 1)  # a student on the room's screen
    at.button(key="reveal_q1").click().run()
    student.run()
    assert "How the room answered (answers: 1)" in "\n".join(
        json.dumps(spec) for spec in chart_specs(student))
    assert "The right answer: **B**" in shown(at)  # in words, not by a colour alone
    at.button(key="room_put_away").click().run()
    assert store.room(code).live == ""


def test_a_right_answer_past_the_options_is_said_and_a_double_click_asks_once(store):
    """Three options with D marked right: the lecturer is told beside the form (the page's top
    may be on the projector), and nothing is asked; a second click on Ask right after the
    question went up (the form already emptied) says nothing."""
    at, code, _ = lecturer(store)
    at.text_area(key="room_ask_question").input("Which one?")
    at.text_area(key="room_ask_options").input("RoPE\nALiBi\nNoPE")
    at.selectbox(key="room_ask_correct").select("D")
    at.button(key="room_ask").click().run()
    assert store.poll(code, "q1") is None
    said = text("room.note.correct_missing", "en", letter="D", n=3)
    assert said in [w.value for w in at.sidebar.warning]  # beside the form, not projected
    assert said not in [w.value for w in at.main.warning]
    assert at.text_area(key="room_ask_options").value == "RoPE\nALiBi\nNoPE"  # kept
    at.selectbox(key="room_ask_correct").select("C")
    at.button(key="room_ask").click().run()
    assert store.poll(code, "q1").correct == 2
    at.button(key="room_ask").click().run()  # the double click's second half
    assert not at.warning and text("room.note.empty_question", "en") not in shown(at)
    assert store.poll(code, "q2") is None


@pytest.mark.parametrize("question", SAMPLE)
def test_hostile_questions_are_asked_as_text_or_refused_with_a_message(store, question):
    at, code, _ = lecturer(store)
    at.text_area(key="room_ask_question").input(question[:300])
    at.text_area(key="room_ask_options").input(f"{question[:100]}\nno")
    at.button(key="room_ask").click().run()
    assert not at.exception
    poll = store.poll(code, "q1")
    if poll is None:
        assert at.warning  # refused, and said why
    else:
        markdown = "\n".join(m.value for m in at.markdown)
        assert poll.question not in markdown or poll.question.isalnum()


def test_closing_the_room_ends_it_for_everyone(store):
    at, code, _ = lecturer(store)
    student = opened(room=code)
    at.button(key="room_close").click().run()
    assert not at.exception and not at.session_state["kept_room"]
    assert store.room(code).closed
    student.run()
    assert "is closed" in shown(student) and not student.session_state["kept_room"]


def test_the_answers_download_as_csv_with_typed_formulas_defused(store):
    code, _ = store.create()
    poll = store.ask(code, "=cmd|' /C calc'!A0", ["+1", "-2", "@3"])
    voters = (store.voter(code, store.new_voter(code, True)) for _ in iter(int, 1))
    plain = next(v for v in voters if v.id[0].isalnum())
    dash = next(v for v in voters if v.id[0] == "-")  # ids may start so
    store.vote(code, poll.id, plain.token, 2, network="net")
    store.vote(code, poll.id, dash.token, 1, network="-net")
    table = answers_csv(store, code)
    assert table.startswith("\ufeffroom,question_id,round,question,voter,answer,answer_text,"
                            "right_answer,confidence,")
    assert f"{code},q1,1,'=cmd|' /C calc'!A0,{plain.id},C,'@3,,," in table
    assert f"{code},q1,1,'=cmd|' /C calc'!A0,'{dash.id},B,'-2,,," in table
    assert plain.token not in table and dash.token not in table  # ids, never credentials
    assert table.rstrip().endswith(",'-net")


def test_a_lecturer_whose_view_is_too_long_for_the_room_is_told(store):
    at, code, _ = lecturer(store, text="word " * 2000)
    assert "longer than 8192 characters" in shown(at)
    assert at.text_input(key="text").value == "word " * 2000  # kept, all of it


def element_data(at: AppTest) -> dict | None:
    """The data the run gave the room element (static/room.js), or None."""
    for drawn in at.get("bidi_component"):
        if drawn.proto.component_name == "posviz_room":
            return json.loads(drawn.proto.json)
    return None


def test_the_key_goes_to_the_browser_once_and_leave_has_the_server_delete_it(store):
    """The key reaches the page only to be handed to the server (which sets its HttpOnly
    cookie); Leave has the browser ask the server to delete that cookie, and coming back to the
    room, this session is no lecturer of it."""
    at, code, key = lecturer(store)
    assert element_data(at).items() >= {"lead": True, "grant": key}.items()
    at.run()
    assert element_data(at)["grant"] == key  # until the tab says it handed it over
    at.session_state["room_granted"] = code  # what the tab's trigger makes its callback do
    at.run()
    assert "grant" not in element_data(at) and key not in json.dumps(element_data(at))
    at.button(key="room_leave").click().run()
    assert not at.exception and not at.session_state["kept_room"]
    assert element_data(at) == {"forget": code, "page": ""}
    at.text_input(key="room_join_home").input(code)
    at.button(key="room_join_home_go").click().run()
    assert at.session_state["kept_room"] == code and not at.session_state["room_key"]


def test_the_lecturer_link_is_shown_once_behind_a_warning_and_opens_this_view(store):
    at, code, key = lecturer(store, LESSON, scene="4")
    at.button(key="room_show_key").click().run()
    link = next(c.value for c in at.code if "lead=" in c.value)
    assert "Whoever opens this link first leads the room with you" in shown(at)
    assert link.startswith("http://localhost:8501/lesson?") and "scene=4" in link
    assert f"room={code}" in link and "lang=" not in link and key not in link
    at.run()
    assert "lead=" not in shown(at)
    token = dict(parse_qsl(urlsplit(link).query))["lead"]
    assert store.redeem(code, token) == key  # the link leads, once


def test_one_address_starts_a_few_rooms_then_is_told_to_wait(store):
    started = []
    for _ in range(6):
        at = opened()
        at.button(key="room_start").click().run()
        started.append(at.session_state["kept_room"])
    assert all(started[:5]) and not started[5]
    assert "Too many rooms started from your network" in shown(at)
    assert len(store.kept()) == 5


def test_a_passphrase_guards_start_a_room(store, monkeypatch):
    monkeypatch.setenv("POSVIZ_LECTURER_PASSWORD", "correct horse")
    at = opened()
    at.text_input(key="room_passphrase").input("wrong horse")
    at.button(key="room_start").click().run()
    assert not at.session_state["kept_room"] and "not this server's lecturer passphrase" in \
        shown(at)
    at.text_input(key="room_passphrase").input("correct horse")
    at.button(key="room_start").click().run()
    assert store.room(at.session_state["kept_room"]) is not None


def test_twenty_wrong_codes_and_even_the_right_one_waits(store):
    """The guessing burst through the join box: after 20 wrong codes from one address, the
    real code is refused too, with a message saying how long to wait."""
    code, _ = store.create()
    at = opened()
    for n in range(21):
        at.text_input(key="room_join_home").input(f"{100_000 + n:06d}")
        at.button(key="room_join_home_go").click().run()
    at.text_input(key="room_join_home").input(code)
    at.button(key="room_join_home_go").click().run()
    assert not at.session_state["kept_room"]
    assert "Too many wrong room codes from your network" in shown(at)


def test_the_qr_codes_ticket_joins_while_the_address_is_refused_for_wrong_codes(store,
                                                                               monkeypatch):
    """A script floods the class's address with wrong codes: a student typing the right code
    waits, one scanning the QR code (its link carries the room's ticket) joins at once."""
    monkeypatch.setattr(store, "clock", lambda: 1_800_000_000.0)  # no refill, however slow
    code, _ = store.create()
    at = opened()
    refused = text("room.note.too_many", "en").split("{")[0]
    for n in range(throttle.WRONG.burst + 1):
        at.text_input(key="room_join_home").input(f"{100_000 + n:06d}")
        at.button(key="room_join_home_go").click().run()
    assert refused in shown(at)
    assert not opened(room=code).session_state["kept_room"]
    scanned = opened(room=code, t=signing.ticket(store.secret, code, time.time()))
    assert scanned.session_state["kept_room"] == code and "t" not in scanned.query_params
    forged = opened(room=code, t=signing.ticket(b"another server", code, time.time()))
    assert not forged.session_state["kept_room"]


def test_a_lecturer_whose_room_the_server_lost_is_told_to_start_a_new_one(store):
    at, code, _ = lecturer(store, LESSON, scene="2")
    store.backend.path.unlink()
    at.run()
    assert not at.exception and not at.session_state["kept_room"]
    assert f"Your room {code[:3]} {code[3:]} is no longer on this server" in shown(at)
    assert at.button(key="room_start")


def test_a_room_the_server_lost_is_named_as_such(store):
    """A student in a room whose store lost it (a deleted file) is told the server lost it,
    not to check the digits."""
    code, _ = store.create()
    at = opened(LESSON, room=code, scene="2")
    assert at.session_state["kept_room"] == code
    store.backend.path.unlink()
    at.run()
    assert not at.exception and not at.session_state["kept_room"]
    assert "which you were in, is no longer on this server" in shown(at)
    assert "Check the digits" not in shown(at)


def test_a_store_that_fails_gives_a_message_and_the_lesson_goes_on(store, monkeypatch):
    """Rooms unreachable (a Redis that is not there): the room parts of the page say so in the
    reader's language, the lesson itself is drawn, and the tab stays in its room to come back."""
    code, key = store.create()
    for lang, words in (("en", "Lecture rooms are unavailable right now"),
                        ("zh", "课堂房间暂时无法使用")):
        monkeypatch.setenv("POSVIZ_ROOM_STORE", f"sqlite:///{store.backend.path}")
        shared_rooms.cache_clear()
        at = opened(LESSON, room=code, lead=store.lead_link(code, key), scene="2", lang=lang)
        monkeypatch.setenv("POSVIZ_ROOM_STORE", "redis://127.0.0.1:9/0")  # nothing listens
        shared_rooms.cache_clear()
        at.run()
        assert not at.exception and words in shown(at)
        assert at.get("plotly_chart") or at.get("bidi_component")  # the scene's figure
        assert at.session_state["kept_room"] == code
        assert element_data(at) == {"down": code, "page": "lesson"}
        assert not [b for b in at.button if b.key == "room_start"]


@pytest.mark.parametrize("typed", SAMPLE)
def test_every_hostile_passphrase_is_refused_with_a_message(store, monkeypatch, typed):
    monkeypatch.setenv("POSVIZ_LECTURER_PASSWORD", "correct horse")
    at = opened()
    at.text_input(key="room_passphrase").input(typed)
    at.button(key="room_start").click().run()
    assert not at.exception and not at.session_state["kept_room"]
    assert "not this server's lecturer passphrase" in shown(at)


def test_the_split_of_answers_stays_off_the_projector_until_the_lecturer_shows_it(store):
    """Before the reveal the lecturer's screen (the hall's) counts answers without their split,
    unless the lecturer switches it on."""
    at, code, _ = lecturer(store, LESSON, scene="4")
    store.vote(code, "scene-order", store.new_voter(code, True), 1)
    at.run()
    assert "Answers: 1" in shown(at)
    assert not any("Answers so far" in str(spec) for spec in chart_specs(at))
    at.toggle(key="counts_scene-order").set_value(True).run()
    assert any("Answers so far" in str(spec) for spec in chart_specs(at))


def test_the_lecturer_sees_a_network_answering_past_its_screens_and_sets_it_aside(store):
    """Answers from one network whose browsers never followed the room (a script with a
    ticket): the lecturer's count says so, with the numbers, and one click takes them away."""
    at, code, _ = lecturer(store, LESSON, scene="4")
    hall = [store.new_voter(code, True) for _ in range(3)]
    store.seen(code, dict.fromkeys(hall, "campus"))
    for voter in hall:
        store.vote(code, "scene-order", voter, 1, network="campus", following=True)
    for _ in range(12):
        store.vote(code, "scene-order", store.new_voter(code, True), 0, network="campus")
    at.run()
    said = text("room.suspect", "en", answers=15, screens=3, unfollowed=12)
    assert said in shown(at)
    at.button(key="aside_scene-order_campus").click().run()
    assert not at.exception and store.counts(code, "scene-order") == [0, 3]
    assert "12 answers were set aside." in shown(at) and said not in shown(at)
    for _ in range(6):  # a network where no screen follows at all
        store.vote(code, "scene-order", store.new_voter(code, True), 0, network="lab")
    at.run()
    assert text("room.suspect_none", "en", answers=6, unfollowed=6) in shown(at)
    assert "only 0 screens" not in shown(at)


def test_the_lecturer_is_told_what_to_do_and_opens_a_second_round(store):
    """Scene 4's right option is B: two right of three is 67%, inside Peer Instruction's 35-70%,
    so the tally says discuss and vote again; the button opens round 2, whose answers count
    apart; the reveal shows both rounds and who moved."""
    at, code, _ = lecturer(store, LESSON, scene="4")
    voters = [store.new_voter(code, True) for _ in range(3)]
    for voter, option in zip(voters, [0, 1, 1], strict=True):
        store.vote(code, "scene-order", voter, option, sure=True)
    at.run()
    assert "Let neighbours discuss, then vote again" in shown(at)
    assert "67%" not in shown(at)  # the share only with the split shown
    at.toggle(key="counts_scene-order").set_value(True).run()
    assert "Right so far: 67% of 3 answers." in shown(at)
    at.button(key="again_scene-order").click().run()
    assert not at.exception and store.poll(code, "scene-order.2") is not None
    assert "Round 2: the class discusses" in shown(at)
    assert "again_scene-order" not in {b.key for b in at.button}
    for voter in voters:
        store.vote(code, "scene-order", voter, 1)
    at.run()
    assert "over 70% are right. Reveal the answer" in shown(at)
    at.button(key="reveal_scene-order").click().run()
    specs = "\n".join(json.dumps(spec) for spec in chart_specs(at))
    assert "Round 1 (answers: 3)" in specs and "Round 2 (answers: 3)" in specs
    assert ("Of the 3 students who answered both rounds, 1 changed their answer (A → B: 1)."
            in shown(at))


def test_the_concept_check_runs_before_and_after_and_its_gains_reach_the_page(store):
    at, code, _ = lecturer(store, LESSON, scene="1")
    at.button(key="check_start_pre").click().run()
    assert store.room(code).live == "check-pre" and len(store.check(code, "pre")) == 6
    assert store.check(code, "pre")[0].question == text("check.q1.text", "en")
    students = [store.new_voter(code, True) for _ in range(4)]
    for i, voter in enumerate(students):
        store.vote(code, "check-pre-1", voter, CHECK[0] if i == 0 else 3)
    at.run()
    assert "Answered so far: 4 students." in shown(at)
    at.button(key="check_end_pre").click().run()
    assert store.room(code).live == ""
    assert "check_start_pre" not in {b.key for b in at.button}  # a sitting runs once
    at.button(key="check_start_post").click().run()
    for voter in students[:3]:
        store.vote(code, "check-post-1", voter, CHECK[0])
    at.button(key="check_end_post").click().run()
    assert not at.exception
    assert "Q1: 33% → 100%, ⟨g⟩ 1.00 (3 students)" in shown(at)  # the sidebar's line
    at.toggle(key="check_show").set_value(True).run()
    table = at.table[0].value  # across the page: the whole table
    assert list(table.iloc[0]) == ["1", "order without position", "3", "3", "33%", "100%", "1.00"]
    specs = "\n".join(json.dumps(spec) for spec in chart_specs(at))
    assert "Right before and after the lecture, per idea" in specs
    assert "1. order without position" in specs
    csv_data = at.get("download_button")
    assert any("gains" in str(button.proto) for button in csv_data)


def test_the_lecturers_own_question_goes_to_a_second_round_and_reveals_both(store):
    at, code, _ = lecturer(store)
    poll = store.ask(code, "Which extrapolates?", ["RoPE", "ALiBi"], correct=1)
    voters = [store.new_voter(code, True) for _ in range(2)]
    for voter in voters:
        store.vote(code, poll.id, voter, 0)
    at.run()
    assert "under 35% are right. Explain the idea again" in shown(at)
    at.button(key="again_q1").click().run()
    assert store.room(code).live == "q1.2" and "Round 2: the class discusses" in shown(at)
    assert "again_q1.2" not in {b.key for b in at.button}  # no third round
    store.vote(code, poll.id, voters[0], 1)
    at.button(key="reveal_q1.2").click().run()
    assert not at.exception and store.poll(code, "q1").revealed
    specs = "\n".join(json.dumps(spec) for spec in chart_specs(at))
    assert "Round 1 (answers: 2)" in specs and "Round 2 (answers: 1)" in specs


def test_the_class_predicts_the_causal_map_before_it_is_shown(store):
    """Scene 8 in a room: before the map is shown, the class taps the first key a middle token
    (1 of 刚想到了) gives no attention at all; the mask decides it (key 2), not a near-tie of
    seeded weights. The map stays hidden (on the projector and every follower's screen) until
    the reveal, which shows the class's picture beside the model's row and how many were
    right."""
    at, code, _ = lecturer(store, LESSON, scene="8", text="刚想到了")
    poll = store.poll(code, "scene-causalpick")
    assert poll.options == ("0 刚", "1 想", "2 到", "3 了")
    assert "in the row of token 1 (想), which is the first key" in shown(at)
    causal_map = "Layer 1, mean over"
    assert causal_map not in json.dumps(chart_specs(at), ensure_ascii=False)
    assert "The map is hidden until the lecturer reveals" in shown(at)
    query = "scene=8&text=%E5%88%9A%E6%83%B3%E5%88%B0%E4%BA%86"
    followed = json.dumps(documents.blocks("lesson", query, "en", frozenset(), room=True),
                          ensure_ascii=False)
    assert "scene-causalpick" in followed and causal_map not in followed
    assert causal_map in json.dumps(documents.blocks("lesson", query, "en"),
                                    ensure_ascii=False)  # a file, or no room: as always
    for key in (2, 2, 1):
        store.vote(code, poll.id, store.new_voter(code, True), key)
    at.button(key="reveal_scene-causalpick").click().run()
    assert not at.exception
    assert store.poll(code, poll.id).correct == 2  # the first key past token 1: the mask's
    specs = json.dumps(chart_specs(at), ensure_ascii=False)
    assert causal_map in specs and "Token 1's attention: the class's predictions" in specs
    assert "2 of 3 picked the right key (2)." in shown(at)
    followed = json.dumps(documents.blocks("lesson", query, "en", frozenset({poll.id}),
                                           room=True), ensure_ascii=False)
    assert causal_map in followed and "The mask's answer: key 2" in followed
    assert "sum to 100%" in followed


def test_a_predicted_picture_needs_two_tokens_and_alibi_asks_only_with_position(store):
    at, code, _ = lecturer(store, LESSON, scene="8", text="刚")
    assert store.poll(code, "scene-causalpick") is None and not at.exception
    at, code, _ = lecturer(store, LESSON, scene="7", text="刚想到了", pos="false")
    assert store.poll(code, "scene-alibipick") is None
    at, code, _ = lecturer(store, LESSON, scene="7", text="a very long sentence of nine words "
                           "or so here")
    assert store.poll(code, "scene-alibipick").options[-1] == "5 nine"  # the first six
