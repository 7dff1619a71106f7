"""The room store, against both backends: SQLite in a temporary folder and a real redis-server."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rooms
from rooms import (
    CLOSED_SECONDS,
    CODE_VOTES,
    LEADS,
    LECTURER_IDLE,
    PRESENT_SECONDS,
    ROOM_SECONDS,
    Limits,
    Rate,
    RoomError,
    StoreDown,
    Suspect,
    normal_code,
    open_rooms,
    shared_query,
    spaced,
)
from rooms.routes.service import RoomService
from tests.conftest import ROOT
from tests.helpers.hostile import HOSTILE
from tests.helpers.load_fixtures import free_port, redis_serving, run_apart
from ui.state import PERSONAL


def test_a_new_room_has_a_six_digit_code_a_key_and_version_one(store):
    code, key = store.create()
    assert len(code) == 6 and code.isdigit()
    room = store.room(code)
    assert room.version == 1 and not room.closed and room.live == ""
    assert store.holds_key(code, key)
    assert not store.holds_key(code, key + "x") and not store.holds_key(code, "")
    assert not store.holds_key("123", key) and not store.holds_key(code, None)


def test_a_lecturer_link_leads_once_and_never_after_its_room_ends(backend, clock):
    store, other = backend(clock=clock), backend(clock=clock)  # two server processes
    code, key = store.create()
    token = store.lead_link(code, key)
    assert key not in token and store.holds_key(code, store.redeem(code, token))
    assert other.redeem(code, token) is None and store.redeem(code, token) is None  # once
    spare, wrong = store.lead_link(code, key), other.lead_link(code, key)
    assert store.redeem(code, wrong + "x") is None and store.redeem("123456", wrong) is None
    with pytest.raises(RoomError, match="not_lecturer"):
        store.lead_link(code, key + "x")
    store.close(code)
    assert store.redeem(code, spare) is None  # a room that ended makes no lecturer
    with pytest.raises(RoomError, match="room_closed"):
        store.lead_link(code, key)


def test_links_racing_for_one_token_lead_exactly_once(backend, clock):
    code, key = backend(clock=clock).create()
    token = backend(clock=clock).lead_link(code, key)
    stores = [backend(clock=clock) for _ in range(8)]
    with ThreadPoolExecutor(8) as pool:
        keys = list(pool.map(lambda each: each.redeem(code, token), stores))
    assert keys.count(key) == 1 and keys.count(None) == 7


def test_a_room_keeps_its_newest_unused_lecturer_links(store, clock):
    code, key = store.create()
    tokens = []
    for _ in range(LEADS + 3):
        tokens.append(store.lead_link(code, key))
        clock.now += 1
    assert [store.redeem(code, token) for token in tokens[:3]] == [None] * 3
    assert all(store.redeem(code, token) == key for token in tokens[3:])


def test_codes_are_read_as_typed():
    assert normal_code(" 482-913 ") == "482913"
    assert normal_code("４８２ ９１３") == "482913"  # full-width digits from a Chinese keyboard
    assert normal_code("482.913") == "482913"
    assert normal_code("٤٨٢٩١٣") == "482913"
    for bad in ("48291", "4829133", "abcdef", "", None, 482913, "482913" * 10, "٤٨٢٩١٣x"):
        assert normal_code(bad) is None, bad
    assert spaced("482913") == "482 913"


@pytest.mark.parametrize("raw", HOSTILE)
def test_hostile_codes_are_refused_or_clean(raw):
    code = normal_code(raw)
    assert code is None or (len(code) == 6 and code.isascii() and code.isdigit())


@pytest.mark.parametrize("typed", HOSTILE)
def test_every_hostile_question_is_stored_on_one_bounded_line_or_refused(store, typed):
    code, _ = store.create()
    try:
        poll = store.ask(code, typed, [typed[:100] or "a", "b"])
    except RoomError as refused:
        assert refused.reason in ("empty_question", "long_question", "empty_option",
                                  "long_option")
        assert store.room(code).live == ""
        return
    assert poll.question == " ".join(typed.split()) and len(poll.question) <= 300
    assert "\n" not in poll.question and all(len(o) <= 100 for o in poll.options)
    assert store.poll(code, poll.id) == poll  # stored exactly as shown


def test_unknown_and_malformed_codes_find_no_room(store):
    store.create()
    assert store.room("000000") is None or store.room("000000").code == "000000"
    for raw in HOSTILE:
        assert store.room(raw) is None or store.room(raw).code == normal_code(raw)


def test_the_view_drops_personal_parameters_and_bumps_the_version_only_on_change(store):
    """The app names the parameters personal to one reader; the room keeps the rest."""
    code, _ = store.create()
    assert store.set_view(code, "rope", "rope_pair=3&lang=zh&key=abc&room=1&text=%E5%88%9A",
                          PERSONAL) == 2
    room = store.room(code)
    assert (room.page, room.query) == ("rope", "rope_pair=3&text=%E5%88%9A")
    assert store.set_view(code, "rope", "text=%E5%88%9A&rope_pair=3&present=true",
                          PERSONAL) == 3
    assert store.set_view(code, "rope", "text=%E5%88%9A&rope_pair=3&present=true",
                          PERSONAL) == 3


class _Blank:
    """Screens that draw every view as an empty document (the room's head is what is read)."""

    def document(self, page, query, lang, revealed):
        return "[]", ()


def test_the_lecturer_lets_students_into_the_app_and_every_follower_is_told(backend, clock):
    """A new room keeps "Explore on my own" on the room's screen; the lecturer's choice is kept
    (another process reads it), grows the version and goes to followers with the view."""
    store, other = backend(clock=clock), backend(clock=clock)  # two server processes
    code, _ = store.create()

    def sent() -> bool:
        service = RoomService(other, _Blank)
        return json.loads(run_apart(service.hub.reply(other.room(code), "en")).plain)["app"]

    assert other.room(code).app_open is False and sent() is False
    store.set_app_open(code, True)
    assert (other.room(code).app_open, other.room(code).version) == (True, 2)
    assert sent() is True
    store.set_app_open(code, True)  # no change: no new version for the followers
    assert other.room(code).version == 2
    store.set_app_open(code, False)
    assert other.room(code).app_open is False and sent() is False
    with pytest.raises(RoomError, match="bad_setting"):
        store.set_app_open(code, "yes")
    store.close(code)
    with pytest.raises(RoomError, match="room_closed"):
        store.set_app_open(code, True)


@pytest.mark.parametrize(("page", "query", "reason"), [
    ("../etc", "", "bad_view"), ("Rope", "", "bad_view"), ("rope", "a b=1", "bad_view"),
    ("rope", "x=" + "y" * 9000, "view_too_long"), ("rope", "<script>=1", "bad_view")])
def test_a_malformed_view_is_refused(store, page, query, reason):
    code, _ = store.create()
    with pytest.raises(RoomError) as refused:
        store.set_view(code, page, query)
    assert refused.value.reason == reason
    assert store.room(code).version == 1


def test_closing_ends_the_room_for_everyone(store):
    code, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b"])
    store.close(code)
    room = store.room(code)
    assert room.closed and room.version == 3  # opened 1, asked 2 (a live poll), closed 3
    for refused in (lambda: store.set_view(code, "", ""),
                    lambda: store.vote(code, poll.id, store.new_voter(code, True), 0),
                    lambda: store.ask(code, "Again?", ["a", "b"])):
        with pytest.raises(RoomError, match="room_closed"):
            refused()


def test_a_room_ends_by_itself_after_twelve_hours(store, clock):
    code, _ = store.create()
    clock.now += ROOM_SECONDS - 1
    assert store.room(code) is not None
    clock.now += 2
    assert store.room(code) is None
    assert store.versions([code]) == {}
    with pytest.raises(RoomError, match="no_room"):
        store.set_view(code, "", "")


def test_the_number_of_rooms_is_capped_and_expired_rooms_free_their_place(backend, clock):
    store = backend(clock=clock, limits=Limits(rooms=3))
    for _ in range(3):
        store.create()
    with pytest.raises(RoomError, match="rooms_full"):
        store.create()
    clock.now += ROOM_SECONDS + 1
    store.create()


def test_a_lesson_poll_opens_once(store):
    code, _ = store.create()
    first = store.lesson_poll(code, "order", "Will it change?", ["yes", "no"])
    again = store.lesson_poll(code, "order", "Something else?", ["x", "y", "z"])
    assert first == again and first.options == ("yes", "no") and first.id == "scene-order"
    assert store.room(code).version == 1  # a lesson poll shows within its scene: no bump


def test_the_lecturers_question_goes_in_front_of_everyone(store):
    code, _ = store.create()
    poll = store.ask(code, "  Which   encoding\nextrapolates? ", ["RoPE", " ALiBi "])
    assert poll.id == "q1" and poll.question == "Which encoding extrapolates?"
    assert poll.options == ("RoPE", "ALiBi")
    room = store.room(code)
    assert room.live == "q1" and room.version == 2
    assert store.ask(code, "Next?", ["a", "b"]).id == "q2"
    store.put_away(code)
    assert store.room(code).live == "" and store.room(code).version == 4


@pytest.mark.parametrize(("question", "options", "reason"), [
    ("", ["a", "b"], "empty_question"), ("   ", ["a", "b"], "empty_question"),
    ("q" * 301, ["a", "b"], "long_question"), ("ok?", ["a"], "option_count"),
    ("ok?", ["a"] * 7, "option_count"), ("ok?", ["a", ""], "empty_option"),
    ("ok?", ["a", "b" * 101], "long_option"), ("ok?", "ab", "bad_option"),
    (None, ["a", "b"], "bad_question"), ("ok?", ["a", 3], "bad_option")])
def test_a_malformed_question_is_refused(store, question, options, reason):
    code, _ = store.create()
    with pytest.raises(RoomError) as refused:
        store.ask(code, question, options)
    assert refused.value.reason == reason


def test_one_vote_per_student_a_second_replaces_the_first(store):
    code, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b", "c"])
    alice, bob = store.new_voter(code, True), store.new_voter(code, True)
    store.vote(code, poll.id, alice, 0)
    store.vote(code, poll.id, bob, 0)
    store.vote(code, poll.id, alice, 2)
    assert store.counts(code, poll.id) == [1, 0, 1]
    assert store.my_vote(code, poll.id, alice) == 2 and store.my_vote(code, poll.id, "x") is None


@pytest.mark.parametrize(("voter", "option", "reason"), [
    ("short", 0, "bad_voter"), ("<script>alert(1)</script>", 0, "bad_voter"),
    (None, 0, "bad_voter"), ("a" * 65, 0, "bad_voter"), ("SIGNED", 3, "bad_option"),
    ("SIGNED", -1, "bad_option"), ("SIGNED", True, "bad_option"),
    ("SIGNED", "0", "bad_option"), ("SIGNED", 0.0, "bad_option")])
def test_a_malformed_vote_is_refused(store, voter, option, reason):
    code, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b", "c"])
    voter = store.new_voter(code, True) if voter == "SIGNED" else voter
    with pytest.raises(RoomError) as refused:
        store.vote(code, poll.id, voter, option)
    assert refused.value.reason == reason
    assert store.counts(code, poll.id) == [0, 0, 0]


def test_no_vote_for_a_poll_that_does_not_exist(store):
    code, _ = store.create()
    for poll_id in ("q1", "scene-order", "q1; DROP TABLE votes", "../x", 3):
        with pytest.raises(RoomError, match="no_poll"):
            store.vote(code, poll_id, store.new_voter(code, True), 0)


def test_a_revealed_poll_takes_no_more_votes(store):
    code, _ = store.create()
    poll = store.lesson_poll(code, "order", "Will it change?", ["yes", "no"])
    voter = store.new_voter(code, True)
    store.vote(code, poll.id, voter, 0)
    store.reveal(code, poll.id, correct=1)
    assert store.poll(code, poll.id).revealed and store.poll(code, poll.id).correct == 1
    assert store.room(code).version == 2
    with pytest.raises(RoomError, match="poll_closed"):
        store.vote(code, poll.id, voter, 1)
    assert store.counts(code, poll.id) == [1, 0]
    with pytest.raises(RoomError, match="bad_option"):
        store.reveal(code, poll.id, correct=2)


def test_the_right_option_given_with_a_question_shows_only_once_revealed(store):
    code, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b", "c"], correct=2)
    assert store.poll(code, poll.id).correct == 2 and not store.poll(code, poll.id).revealed
    store.reveal(code, poll.id)
    assert store.poll(code, poll.id).revealed and store.poll(code, poll.id).correct == 2
    with pytest.raises(RoomError, match="bad_option"):
        store.ask(code, "Which?", ["a", "b"], correct=2)


def test_the_voters_that_never_followed_are_capped_and_a_follower_never_is(backend, clock):
    """The poll stuffing: ids that vote without following the room fill its cap of such
    voters, and are refused past it; a voter whose screen follows (now, or earlier) is never
    refused, and one already counted may still change their mind."""
    store = backend(clock=clock, limits=Limits(voters=3))
    code, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b"])
    voters = [store.new_voter(code, True) for _ in range(6)]
    for voter in voters[:3]:
        store.vote(code, poll.id, voter, 0)
    with pytest.raises(RoomError, match="room_full"):
        store.vote(code, poll.id, voters[3], 0)
    store.vote(code, poll.id, voters[0], 1)
    store.vote(code, poll.id, voters[3], 1, network="n", following=True)  # its screen follows
    store.seen(code, {voters[4]: "n"})  # it followed a while ago
    clock.now += PRESENT_SECONDS * 2
    store.vote(code, poll.id, voters[4], 0, network="n")
    assert store.counts(code, poll.id) == [3, 2]
    store.seen(code, dict.fromkeys(voters, ""))  # being connected is not voting
    assert (store.voters(code), store.headcount(code)) == (5, 6)


def test_voters_with_only_the_code_count_thirty_a_minute_from_one_network(backend, clock):
    """From one network, voters who showed only the room's code count CODE_VOTES.burst at
    once and CODE_VOTES.per_minute a minute after; then the room asks for the projector's word
    (RoomError need_word, with the seconds to wait). Voters who showed a proof of presence, and
    voters of other networks, are not held back."""
    store = backend(clock=clock)
    code, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b"])
    counted = 0
    for _ in range(CODE_VOTES.burst + 5):
        try:
            store.vote(code, poll.id, store.new_voter(code), 0, network="hall")
            counted += 1
        except RoomError as refused:
            assert refused.reason == "need_word" and 0 < refused.wait <= 2
    assert counted == CODE_VOTES.burst
    store.vote(code, poll.id, store.new_voter(code, True), 1, network="hall")
    store.vote(code, poll.id, store.new_voter(code), 1, network="elsewhere")
    clock.now += 60  # a minute later, another minute's worth
    for _ in range(int(CODE_VOTES.per_minute)):
        store.vote(code, poll.id, store.new_voter(code), 0, network="hall")
    assert store.counts(code, poll.id) == [CODE_VOTES.burst + int(CODE_VOTES.per_minute), 2]


def test_a_voter_id_votes_in_its_own_room_only_and_ends_with_it(backend, clock):
    store = backend(clock=clock)
    first, _ = store.create()
    second, _ = store.create()
    poll = store.ask(second, "Which?", ["a", "b"])
    mine = store.new_voter(first, True)
    with pytest.raises(RoomError, match="bad_voter"):
        store.vote(second, poll.id, mine, 0)
    assert store.voter(first, mine).present and store.voter(second, mine) is None
    upgraded = store.new_voter(first, True, same=store.voter(first, store.new_voter(first)))
    assert store.voter(first, upgraded).present
    clock.now += ROOM_SECONDS + 1
    assert store.voter(first, mine) is None  # ended with its room


def test_a_network_answering_past_its_screens_is_shown_and_set_aside(backend, clock):
    """A script with a fresh ticket mints ids and answers without following: the lecturer
    sees its network (answers, screens, answers from ids that never followed), and setting
    it aside takes exactly those answers away, in every question, and refuses their ids from
    then on; the hall's own answers from the same network, from screens, stay."""
    store = backend(clock=clock)
    code, _ = store.create()
    first = store.ask(code, "One?", ["a", "b"])
    second = store.lesson_poll(code, "order", "Two?", ["a", "b"])
    hall = [store.new_voter(code, True) for _ in range(4)]
    store.seen(code, dict.fromkeys(hall, "campus"))
    script = [store.new_voter(code, True) for _ in range(12)]
    for voter in hall:
        store.vote(code, first.id, voter, 0, network="campus", following=True)
    for voter in script:
        store.vote(code, first.id, voter, 1, network="campus")
        store.vote(code, second.id, voter, 1, network="campus")
    for voter in script[:4]:  # too few elsewhere to be shown
        store.vote(code, second.id, voter, 0, network="cafe")
    assert store.suspects(code, first.id) == [Suspect("campus", 16, 4, 12)]
    assert store.suspects(code, second.id) == [Suspect("campus", 8, 4, 8)]
    assert store.set_aside(code, "campus") == 24  # their answers from elsewhere too
    assert store.counts(code, first.id) == [4, 0] and store.counts(code, second.id) == [0, 0]
    assert store.suspects(code, first.id) == []
    with pytest.raises(RoomError, match="set_aside"):
        store.vote(code, first.id, script[0], 1, network="campus")
    store.vote(code, first.id, hall[0], 1, network="campus")  # a screen still changes its mind


def test_rates_are_shared_by_every_store_on_the_same_data(backend, clock):
    """A rate limit's tokens live in the store: two server processes (two stores) draw on
    the same budget; take refuses past it, force counts down to none, and time refills it."""
    rate = Rate("test", burst=3, per_minute=6)
    one, other = backend(clock=clock), backend(clock=clock)
    assert [one.spend(rate, "net"), other.spend(rate, "net"), one.spend(rate, "net")] == [0] * 3
    assert other.spend(rate, "net") == pytest.approx(10) and one.wait(rate, "net") > 0
    assert one.wait(rate, "another") == 0
    clock.now += 10
    assert other.wait(rate, "net") == 0 and one.spend(rate, "net") == 0
    for _ in range(5):
        other.spend(rate, "net", force=True)
    assert one.wait(rate, "net") == pytest.approx(10)


def test_the_number_of_polls_in_a_room_is_capped(backend, clock):
    store = backend(clock=clock, limits=Limits(polls=2))
    code, _ = store.create()
    store.ask(code, "One?", ["a", "b"])
    store.lesson_poll(code, "order", "Two?", ["a", "b"])
    with pytest.raises(RoomError, match="polls_full"):
        store.ask(code, "Three?", ["a", "b"])


def test_two_hundred_students_voting_at_once_are_counted_exactly(store):
    code, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b", "c", "d"])
    voters = [store.new_voter(code, True) for _ in range(200)]
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda i: store.vote(code, poll.id, voters[i], i % 4), range(200)))
    assert store.counts(code, poll.id) == [50, 50, 50, 50]


def test_votes_racing_a_reveal_are_either_counted_before_it_or_refused(store):
    code, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b"])
    accepted, go = [], threading.Event()

    def vote(voter):
        go.wait()
        try:
            store.vote(code, poll.id, voter, 0)
            accepted.append(voter)
        except RoomError as refused:
            assert refused.reason == "poll_closed"

    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(vote, store.new_voter(code, True)) for _ in range(100)]
        go.set()
        store.reveal(code, poll.id)
        [f.result() for f in futures]
    assert store.counts(code, poll.id) == [len(accepted), 0]


def test_everything_is_back_after_a_restart(backend, clock):
    """A new store object on the same data (a server process started again) sees it all."""
    store = backend(clock=clock)
    code, key = store.create()
    store.set_view(code, "lesson", "scene=4&text=abc")
    poll = store.lesson_poll(code, "order", "Will it change?", ["yes", "no"])
    voter = store.new_voter(code, True)
    store.vote(code, poll.id, voter, 1)
    again = backend(clock=clock)
    assert again.holds_key(code, key)
    assert again.room(code) == store.room(code)
    assert again.counts(code, poll.id) == [0, 1] and again.my_vote(code, poll.id, voter) == 1


def test_answers_list_every_vote_with_its_texts(store):
    code, _ = store.create()
    first = store.lesson_poll(code, "order", "Will it change?", ["yes", "no"])
    second = store.ask(code, "Which <b>one</b>?", ["a, b", '"c"'])
    alice, bob = store.new_voter(code, True), store.new_voter(code, True)
    store.vote(code, first.id, alice, 1)
    store.vote(code, second.id, bob, 0)
    store.vote(code, second.id, alice, 1)
    store.reveal(code, first.id, correct=1)
    rows = store.answers(code)
    alice, bob = store.voter(code, alice).id, store.voter(code, bob).id
    assert [(a.poll, a.voter, a.option, a.option_text, a.correct) for a in rows] == [
        ("scene-order", alice, 1, "no", 1), ("q1", bob, 0, "a, b", None),
        ("q1", alice, 1, '"c"', None)]
    assert rows[1].question == "Which <b>one</b>?"


def test_headcount_counts_students_seen_lately(store, clock):
    code, _ = store.create()
    store.seen(code, {store.new_voter(code, True): "" for _ in range(5)})
    clock.now += PRESENT_SECONDS / 2
    late = [store.new_voter(code, True) for _ in range(3)]
    store.seen(code, dict.fromkeys([*late, "bad id!", ""], ""))
    assert store.headcount(code) == 8
    clock.now += PRESENT_SECONDS * 0.75
    assert store.headcount(code) == 3


def test_versions_reports_each_known_room(store):
    code, _ = store.create()
    other, _ = store.create()
    store.close(other)
    assert store.versions([code, other, "999999"]) == {code: (1, False), other: (2, True)}


def test_shared_query_keeps_repeated_parameters_in_order():
    assert shared_query("a=1&b=2&a=3&lang=zh", PERSONAL) == "a=1&b=2&a=3"
    assert shared_query("?text=%E5%88%9A+x") == "text=%E5%88%9A+x"


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(votes=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2)), max_size=30))
def test_counts_are_each_students_last_vote(backend, votes):
    """Model check: whatever the order of votes, the tally is the tally of the last ones."""
    store = backend()
    code, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b", "c"])
    voters = [store.new_voter(code, True) for _ in range(6)]
    last = {}
    for who, option in votes:
        store.vote(code, poll.id, voters[who], option)
        last[who] = option
    assert store.counts(code, poll.id) == [list(last.values()).count(o) for o in range(3)]


def test_only_voter_ids_the_server_signed_vote_or_count(backend, clock):
    """The id flood: thousands of invented ids (and ids signed with another secret, or for
    another room) waiting on the room fill neither the voters nor the connected count; a real
    student still votes."""
    store = backend(clock=clock, limits=Limits(voters=3))
    code, _ = store.create()
    other, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b"])
    forged = [f"{code}.1900000000.p.{i:016d}.{'A' * 22}" for i in range(1500)]
    stranger = backend(clock=clock, secret=b"another server").new_voter(code, True)
    elsewhere = store.new_voter(other, True)
    store.seen(code, dict.fromkeys([*forged, stranger, elsewhere, "student-0001"], ""))
    assert (store.voters(code), store.headcount(code)) == (0, 0)
    for voter in (forged[0], stranger, elsewhere, stranger.split(".")[0] + ".", "student-0001"):
        with pytest.raises(RoomError, match="bad_voter"):
            store.vote(code, poll.id, voter, 0)
    late = store.new_voter(code, True)
    store.vote(code, poll.id, late, 1)
    assert [(a.voter, a.option) for a in store.answers(code)] == [
        (store.voter(code, late).id, 1)]
    assert store.voter(code, late).token == late and store.voter(code, late[:-1] + "x") is None


def test_connected_followers_are_bounded_and_expire(backend, clock):
    store = backend(clock=clock, limits=Limits(present=5))
    code, _ = store.create()
    store.seen(code, {store.new_voter(code, True): "" for _ in range(8)})
    assert store.headcount(code) == 5
    clock.now += PRESENT_SECONDS + 1
    store.seen(code, {store.new_voter(code, True): "" for _ in range(4)})  # the gone made room
    assert store.headcount(code) == 4


def test_a_closed_room_frees_its_place_at_once_and_goes_within_the_hour(backend, clock):
    """The room flood: a closed room no longer counts against the cap of open rooms."""
    store = backend(clock=clock, limits=Limits(rooms=3))
    codes = [store.create()[0] for _ in range(3)]
    with pytest.raises(RoomError, match="rooms_full"):
        store.create()
    store.close(codes[0])
    store.create()
    assert store.room(codes[0]).closed  # its answers stay readable for a while
    clock.now += CLOSED_SECONDS + 1
    assert store.room(codes[0]) is None


def test_a_room_whose_lecturer_is_gone_two_hours_ends(backend, clock):
    store = backend(clock=clock, limits=Limits(rooms=2))
    kept, _ = store.create()
    left, _ = store.create()
    for _ in range(3):  # the lecturer of one room is still here, every hour
        clock.now += LECTURER_IDLE / 2
        store.lecturer_here(kept)
    assert store.versions([kept, left]) == {kept: (1, False), left: (1, True)}
    assert not store.room(kept).closed and store.room(left).closed
    store.create()  # the ended room's place is free
    with pytest.raises(RoomError, match="room_closed"):
        store.set_view(left, "", "")


def test_the_operator_lists_and_purges_rooms(store, clock):
    first, _ = store.create()
    clock.now += 1
    second, _ = store.create()
    poll = store.ask(second, "Which?", ["a", "b"])
    store.vote(second, poll.id, store.new_voter(second, True), 0)
    store.close(first)
    assert [(r.code, r.closed) for r in store.kept()] == [(first, True), (second, False)]
    store.purge(second)
    assert store.room(second) is None and store.answers(second) == []
    assert [r.code for r in store.kept()] == [first]


# ---- a store that fails, and mends ------------------------------------------------------------


def test_a_deleted_sqlite_file_is_a_new_empty_store(tmp_path):
    store = open_rooms(f"sqlite:///{tmp_path / 'rooms.sqlite3'}")
    code, _ = store.create()
    for made in tmp_path.glob("rooms.sqlite3*"):
        made.unlink()
    assert store.room(code) is None  # lost with its file, and the store goes on
    assert store.room(store.create()[0]) is not None


def test_a_corrupt_sqlite_file_is_moved_aside_for_a_fresh_one(tmp_path):
    path = tmp_path / "rooms.sqlite3"
    store = open_rooms(f"sqlite:///{path}")
    code, _ = store.create()
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"this is not a database at all " * 400)
    garbage.replace(path)  # the file and its write-ahead log overwritten
    for journal in tmp_path.glob("rooms.sqlite3-*"):
        journal.unlink()
    with pytest.raises(StoreDown, match="not a database"):
        store.room(code)
    assert len(list(tmp_path.glob("rooms.sqlite3.corrupt-*"))) == 1
    store.health()
    assert store.room(code) is None and store.create()


@pytest.fixture
def read_only(tmp_path):
    """Makes a folder read-only for this process, even as root (an immutable folder), and
    writable again at the end."""
    class Freezer:
        frozen: set = set()

        def __call__(self, folder) -> None:
            if os.geteuid() == 0:
                subprocess.run(["chattr", "+i", str(folder)], check=True)
            else:
                folder.chmod(0o555)
            self.frozen.add(folder)

        def thaw(self, folder) -> None:
            if os.geteuid() == 0:
                subprocess.run(["chattr", "-i", str(folder)], check=True)
            else:
                folder.chmod(0o755)
            self.frozen.discard(folder)

    freezer = Freezer()
    yield freezer
    for folder in list(freezer.frozen):
        freezer.thaw(folder)


def test_a_read_only_sqlite_folder_is_down_until_it_is_writable(tmp_path, read_only):
    folder = tmp_path / "data"
    url = f"sqlite:///{folder / 'rooms.sqlite3'}"
    creator = open_rooms(url)
    code, _ = creator.create()
    creator.backend.disconnect()  # the last connection closed: its write-ahead log is gone
    store = open_rooms(url)  # a server started on the folder once it was read-only
    read_only(folder)
    for refused in (store.health, store.create, lambda: store.room(code)):
        with pytest.raises(StoreDown, match="unable to open"):
            refused()
    read_only.thaw(folder)
    store.health()
    assert store.room(code) is not None


def test_a_stopped_redis_is_down_and_its_rooms_are_back_when_it_restarts(tmp_path):
    port = free_port()
    with redis_serving(tmp_path, port) as url:
        store = open_rooms(url)
        code, _ = store.create()
    for refused in (store.health, store.create, lambda: store.room(code)):
        with pytest.raises(StoreDown, match="ConnectionError"):
            refused()
    with redis_serving(tmp_path, port):
        store.health()
        assert store.room(code) is not None  # kept in its append-only file


def test_the_default_store_and_secret_live_in_the_project_folder(tmp_path, monkeypatch):
    """Relative SQLite paths and data/secret start at the project folder, wherever the server
    was started from."""
    monkeypatch.delenv("POSVIZ_ROOM_STORE", raising=False)
    monkeypatch.setenv("POSVIZ_SECRET", "a secret of this test's own")  # data/secret untouched
    monkeypatch.chdir(tmp_path)
    assert rooms.ROOT == ROOT
    assert open_rooms(clock=lambda: 1_800_000_000.0).backend.path == ROOT / "data" / "rooms.sqlite3"


def test_the_limits_are_purged_on_their_own_clock_and_a_refusal_writes_nothing(store, clock):
    """A budget's row goes once the budget is full again, with no room created meanwhile
    (SQLite purges, Redis expires); a request refused by a budget writes nothing."""
    from rooms.throttle import WRONG

    store.spend(WRONG, "net-a", force=True)
    clock.now += 24 * 3600  # far past when that budget is full again
    for _ in range(WRONG.burst):
        store.spend(WRONG, "net-b")
    backend = store.backend
    if hasattr(backend, "client"):  # Redis expires keys on its own clock, not the test's
        assert backend.client.ttl("posviz:limit:wrong:net-b") <= 61
        return
    rows = dict(backend._db.execute("SELECT key, at FROM limits").fetchall())
    assert set(rows) == {"wrong:net-b"}
    assert store.spend(WRONG, "net-b") > 0 and store.spend(WRONG, "net-b", force=True) == 0
    assert dict(backend._db.execute("SELECT key, at FROM limits").fetchall()) == rows
