"""The lecture's report (ui/room/report.py): one self-contained file of a room's questions with
their rounds and confidence, and the concept check's gains; a typed question stays text."""

from __future__ import annotations

import json
import re

import pytest

from rooms import open_rooms
from rooms.records import check_poll
from tests.helpers.hostile import CATEGORIES
from ui import documents
from ui.answer_key import CHECK, check_questions
from ui.blocks import walk
from ui.i18n import text
from ui.markup import literal
from ui.room.report import report_file

NOW = 1_800_000_000.0


def read(made: bytes) -> list[dict]:
    """The blocks a report file holds (its one document)."""
    data = re.search(r'<script type="application/json" id="posviz-file">(.*?)</script>',
                     made.decode("utf-8"), re.S).group(1)
    (document,) = json.loads(data)["documents"]
    return document["blocks"]


@pytest.fixture
def store(tmp_path):
    return open_rooms(f"sqlite:///{tmp_path / 'rooms.sqlite3'}")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_report_holds_each_round_its_confidence_who_moved_and_the_gains(store, lang):
    code, _ = store.create()
    poll = store.lesson_poll(code, "order", "Will it change?", ["yes", "no"])
    students = [store.new_voter(code, True) for _ in range(4)]
    for voter, option, sure in zip(students, [0, 0, 1, 1], [True, False, None, True],
                                   strict=True):
        store.vote(code, poll.id, voter, option, sure=sure)
    store.second_round(code, poll.id)
    for voter in students[:3]:
        store.vote(code, poll.id, voter, 1, sure=True)
    store.reveal(code, poll.id, correct=1)
    for phase, right in (("pre", [0, 0, 0, 1]), ("post", [1, 1, 1, 1])):
        store.open_check(code, phase, check_questions(lang))
        for voter, ok, network in zip(students, right, ["lab"] * 3 + ["phone"], strict=True):
            store.vote(code, check_poll(phase, 1), voter, CHECK[0] if ok else 3,
                       network=network)
        store.close_check(code, phase)
    made = report_file(store, code, lang, NOW)
    blocks = list(walk(read(made)))
    tables = [b for b in blocks if b["t"] == "table"]
    counts = tables[0]["rows"]  # option, text, then per round: answers, sure, guessing
    assert [row[:2] for row in counts] == [["A", "yes"], ["B ✓", "no"]]
    assert [row[2:] for row in counts] == [["2", "1", "1", "0", "0", "0"],
                                           ["2", "1", "0", "3", "3", "0"]]
    assert sum(b["t"] == "chart" for b in blocks) == 2  # round 1 beside round 2
    moved = "A → B: 2"
    assert any(moved in b.get("text", "") for b in blocks)
    gains = tables[1]["rows"]
    # 4 students answered both sittings, 3 of them from one network (the lab's)
    assert gains[0] == ["1", text("check.q1.idea", lang), "4", "3", "25%", "100%", "1.00"]
    assert [row[2:] for row in gains[1:]] == [  # answered by none: the dash says so
        ["0", "0", "—", "—", text("check.gain_unpaired", lang)]] * 5
    assert "2026-12" not in made.decode() and "2027-01-15" in made.decode()  # its own clock


def test_a_typed_question_stays_text_and_the_file_stays_whole(store):
    code, _ = store.create()
    typed = CATEGORIES["markup"][:3]
    for question in typed:
        store.ask(code, question, ["</script><b>x</b>", "$\\frac{1}{0}$"])
    made = report_file(store, code, "en", NOW).decode("utf-8")
    alone = documents.offline_html("none", [], "en")
    assert len(re.findall(r"</script[\s/>]", made, re.I)) == len(
        re.findall(r"</script[\s/>]", alone, re.I))
    blocks = read(made.encode())
    cells = [cell for b in walk(blocks) if b["t"] == "table" for row in b["rows"]
             for cell in row]
    assert "</script><b>x</b>" in cells and "$\\frac{1}{0}$" in cells
    shown = [b["text"] for b in walk(blocks) if b["t"] == "markdown"]
    assert all(any(literal(q) == text for text in shown) for q in typed)


def test_a_room_with_no_question_says_so(store):
    code, _ = store.create()
    blocks = read(report_file(store, code, "zh", NOW))
    assert any(b.get("text") == text("report.none", "zh") for b in blocks)
