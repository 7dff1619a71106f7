"""The class's thinking in the room store, against both backends: confidence with each answer,
a question's second round after a discussion, and the concept check before and after with its
gain per question (paired by signed voter id). The gains are checked against a plain
computation over the room's CSV, as a lecturer's spreadsheet would do it."""

from __future__ import annotations

import csv
import io
import random

import pytest

from rooms.export import answers_csv, gains_csv
from rooms.records import RoomError, check_poll, next_step

CHECK = [(f"Question {n}?", ["a", "b", "c", "d"], n % 4) for n in range(1, 7)]


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def test_each_answer_keeps_how_sure_its_student_was(store):
    code, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b"], correct=1)
    sure, guessing, silent = (store.new_voter(code, True) for _ in range(3))
    store.vote(code, poll.id, sure, 1, sure=True)
    store.vote(code, poll.id, guessing, 1)
    store.vote(code, poll.id, guessing, 0, sure=False)  # changed its mind, and said it guesses
    store.vote(code, poll.id, silent, 1)
    (tally,) = store.split(code, poll.id).rounds
    assert tally.counts == (1, 2) and tally.sure == (0, 1) and tally.guessing == (1, 0)
    assert tally.right_share(1) == pytest.approx(200 / 3)
    assert store.my_answer(code, poll.id, guessing).sure is False
    with pytest.raises(RoomError, match="bad_option"):
        store.vote(code, poll.id, silent, 1, sure="yes")
    listed = rows(answers_csv(store, code))
    assert sorted(r["confidence"] for r in listed) == ["", "guessing", "sure"]
    assert {r["round"] for r in listed} == {"1"}


def test_a_second_round_is_counted_apart_and_shows_who_moved(backend, clock):
    store = backend(clock=clock)
    code, _ = store.create()
    poll = store.lesson_poll(code, "order", "Will it change?", ["yes", "no"])
    voters = [store.new_voter(code, True) for _ in range(5)]
    for voter, option in zip(voters, [0, 0, 0, 1, 1], strict=True):
        store.vote(code, poll.id, voter, option)
    version = store.room(code).version
    second = store.second_round(code, poll.id)
    assert second.id == "scene-order.2" and store.room(code).version == version + 1
    assert store.current(code, poll.id) == second
    assert store.second_round(code, poll.id) == second  # opened once
    for voter, option in zip(voters[:4], [1, 1, 0, 1], strict=True):  # the same id: round 2
        store.vote(code, poll.id, voter, option, sure=True)
    assert store.counts(code, poll.id) == [3, 2] and store.counts(code, second.id) == [1, 3]
    split = store.split(code, second.id)
    assert [t.counts for t in split.rounds] == [(3, 2), (1, 3)]
    assert split.both == 4 and split.moves == ((0, 1, 2),) and split.changed == 2
    store.reveal(code, poll.id, correct=1)
    assert store.poll(code, poll.id).revealed and store.poll(code, second.id).revealed
    with pytest.raises(RoomError, match="poll_closed"):
        store.vote(code, poll.id, voters[4], 0)
    with pytest.raises(RoomError, match="poll_closed"):
        store.second_round(code, poll.id)
    again = backend(clock=clock)  # a server restart loses neither round
    assert again.split(code, poll.id) == split
    listed = rows(answers_csv(again, code))
    assert [(r["question_id"], r["round"]) for r in listed].count(("scene-order", "2")) == 4


def test_the_lecturers_own_question_moves_on_screen_to_its_second_round(store):
    code, _ = store.create()
    poll = store.ask(code, "Which?", ["a", "b"])
    assert store.room(code).live == poll.id
    store.second_round(code, poll.id)
    assert store.room(code).live == poll.id + ".2"


@pytest.mark.parametrize(("share", "step"), [
    (None, "wait"), (0.0, "explain"), (34.9, "explain"), (35.0, "discuss"), (55.0, "discuss"),
    (70.0, "discuss"), (70.1, "reveal"), (100.0, "reveal")])
def test_the_next_step_follows_peer_instructions_thresholds(share, step):
    assert next_step(share) == step


def test_a_class_of_five_hundred_sits_the_check_twice_and_its_gains_match_the_csv(store):
    """500 students, some only before, some only after; a script's invented and unsigned ids
    and a voter id signed for another room count nowhere."""
    code, _ = store.create()
    other, _ = store.create()
    chance = random.Random(7)
    students = [store.new_voter(code, True) for _ in range(500)]
    before = students[:470]              # 30 arrive late
    after = students[20:]                # 20 leave early
    store.open_check(code, "pre", CHECK)
    assert store.room(code).live == "check-pre"
    for voter in before:
        for n, (_, _, right) in enumerate(CHECK, start=1):
            store.vote(code, check_poll("pre", n), voter, right if chance.random() < .35
                       else (right + 1) % 4, sure=chance.random() < .5)
    foreign = store.new_voter(other, True)
    for forged in ("0" * 40, "not-signed", foreign, None):
        with pytest.raises(RoomError, match="bad_voter"):
            store.vote(code, check_poll("pre", 1), forged, 0)
    store.close_check(code, "pre")
    assert store.room(code).live == "" and all(p.revealed for p in store.check(code, "pre"))
    store.open_check(code, "post", CHECK)
    for voter in after:
        for n, (_, _, right) in enumerate(CHECK, start=1):
            store.vote(code, check_poll("post", n), voter, right if chance.random() < .7
                       else (right + 2) % 4)
    store.close_check(code, "post")

    listed = rows(answers_csv(store, code))
    answered: dict[tuple[str, str], dict[str, bool]] = {}
    for r in listed:
        _, sitting, number = r["question_id"].split("-")
        answered.setdefault((sitting, number), {})[r["voter"]] = r["answer"] == r["right_answer"]
    gains = {g.number: g for g in store.gains(code)}
    assert sorted(gains) == list(range(1, 7))
    for n in range(1, 7):
        pre, post = answered[("pre", str(n))], answered[("post", str(n))]
        both = pre.keys() & post.keys()
        assert len(both) == 450 == gains[n].paired
        pre_share = 100 * sum(pre[v] for v in both) / len(both)
        post_share = 100 * sum(post[v] for v in both) / len(both)
        assert gains[n].pre == pytest.approx(pre_share)
        assert gains[n].post == pytest.approx(post_share)
        assert gains[n].gain == pytest.approx((post_share - pre_share) / (100 - pre_share))
    sheet = rows(gains_csv(store, code))
    assert [int(r["question"]) for r in sheet] == list(range(1, 7))
    assert all(float(r["normalized_gain"]) == pytest.approx(gains[int(r["question"])].gain,
                                                             abs=5e-4) for r in sheet)


def test_a_check_opened_again_keeps_its_answers_and_a_bad_check_is_refused(store):
    code, _ = store.create()
    store.open_check(code, "pre", CHECK[:2])
    voter = store.new_voter(code, True)
    store.vote(code, check_poll("pre", 1), voter, 1)
    store.open_check(code, "pre", CHECK[:2])
    assert store.my_vote(code, check_poll("pre", 1), voter) == 1
    assert store.gains(code) == []  # no sitting after yet
    with pytest.raises(RoomError):
        store.open_check(code, "during", CHECK)
    with pytest.raises(RoomError):
        store.open_check(code, "post", [("Q?", ["a", "b"], 5)])
    with pytest.raises(RoomError, match="no_poll"):
        store.second_round(code, check_poll("pre", 1))


def test_everyone_right_before_has_no_gain_to_speak_of(store):
    code, _ = store.create()
    voter = store.new_voter(code, True)
    for sitting in ("pre", "post"):
        store.open_check(code, sitting, CHECK[:1])
        store.vote(code, check_poll(sitting, 1), voter, CHECK[0][2])
    (gain,) = store.gains(code)
    assert (gain.paired, gain.pre, gain.post, gain.gain) == (1, 100.0, 100.0, None)


def test_the_check_counts_the_halls_answers_and_says_how_many_pairs_share_a_network(store):
    """A voter id by the code alone (a script at home) is asked for the projector's word on
    the concept check, before and after; the gains name the most pairs from one network."""
    code, _ = store.create()
    home = store.new_voter(code, False)
    hall = [store.new_voter(code, True) for _ in range(5)]
    networks = ["lab", "lab", "lab", "phone-1", "phone-2"]
    _, options, right = CHECK[0]
    for sitting, option in (("pre", (right + 1) % len(options)), ("post", right)):
        store.open_check(code, sitting, CHECK[:1])
        with pytest.raises(RoomError, match="need_word"):
            store.vote(code, check_poll(sitting, 1), home, option, network="home")
        for voter, network in zip(hall, networks, strict=True):
            store.vote(code, check_poll(sitting, 1), voter, option, network=network)
        store.close_check(code, sitting)
    (gain,) = store.gains(code)
    assert (gain.paired, gain.from_one, gain.pre, gain.post) == (5, 3, 0.0, 100.0)
    (row,) = rows(gains_csv(store, code))
    assert (row["students_both_sittings"], row["most_from_one_network"]) == ("5", "3")
