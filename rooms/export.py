"""A room's answers as CSV, for the lecturer's spreadsheet."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

from rooms.records import LETTERS, StoreDown
from rooms.store import RoomStore

HEADER = ["room", "question_id", "question", "voter", "answer", "answer_text", "right_answer",
          "answered_at_utc", "network"]


def answers_csv(store: RoomStore, code: str) -> str:
    """Every answer of the room as CSV (UTF-8 with a byte order mark, for spreadsheets): ids,
    never the signed cookies; a store that fails says so in the file."""
    out = io.StringIO()
    rows = csv.writer(out)
    rows.writerow(HEADER)
    try:
        answers = store.answers(code)
    except StoreDown as down:
        rows.writerow([code, "", f"the answers could not be read: {down}"])
        answers = []
    for a in answers:
        rows.writerow([code, a.poll, spreadsheet_cell(a.question), spreadsheet_cell(a.voter),
                       LETTERS[a.option], spreadsheet_cell(a.option_text),
                       "" if a.correct is None else LETTERS[a.correct],
                       datetime.fromtimestamp(a.at, UTC).isoformat(timespec="seconds"),
                       spreadsheet_cell(a.network)])
    return "\ufeff" + out.getvalue()


def spreadsheet_cell(value: str) -> str:
    """A typed text made safe for a spreadsheet: a leading = + - @ would run as a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value
