"""A room's answers as CSV, for the lecturer's spreadsheet."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import UTC, datetime

from rooms.records import LETTERS, SECOND, StoreDown
from rooms.rules import Rooms

HEADER = ["room", "question_id", "round", "question", "voter", "answer", "answer_text",
          "right_answer", "confidence", "answered_at_utc", "network"]
GAINS_HEADER = ["room", "question", "students_both_sittings", "most_from_one_network",
                "right_before_percent", "right_after_percent", "normalized_gain"]
CONFIDENCE = {True: "sure", False: "guessing", None: ""}


def answers_csv(store: Rooms, code: str) -> str:
    """Every answer of the room as CSV (UTF-8 with a byte order mark, for spreadsheets): ids,
    never the signed cookies; a store that fails says so in the file."""
    return _sheet(HEADER, code, lambda: [
        [code, a.poll.removesuffix(SECOND), a.round, spreadsheet_cell(a.question),
         spreadsheet_cell(a.voter), LETTERS[a.option], spreadsheet_cell(a.option_text),
         "" if a.correct is None else LETTERS[a.correct], CONFIDENCE[a.sure],
         datetime.fromtimestamp(a.at, UTC).isoformat(timespec="seconds"),
         spreadsheet_cell(a.network)] for a in store.answers(code)])


def gains_csv(store: Rooms, code: str) -> str:
    """The concept check's gain per question as CSV: the students who sat it before and after
    (and the most of them from one network), their right shares (%) each time and the
    normalized gain (empty where it is undefined)."""
    return _sheet(GAINS_HEADER, code, lambda: [
        [code, g.number, g.paired, g.from_one, _number(g.pre), _number(g.post),
         _number(g.gain, 3)]
        for g in store.gains(code)])


def _sheet(header: list[str], code: str, read: Callable[[], list[list[object]]]) -> str:
    """A CSV for spreadsheets (UTF-8 with a byte order mark): the header, then the rows read
    from the store, or a line saying the store could not be read."""
    out = io.StringIO()
    sheet = csv.writer(out)
    sheet.writerow(header)
    try:
        sheet.writerows(read())
    except StoreDown as down:
        sheet.writerow([code, "", f"the answers could not be read: {down}"])
    return "\ufeff" + out.getvalue()


def _number(value: float | None, digits: int = 1) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def spreadsheet_cell(value: str) -> str:
    """A typed text made safe for a spreadsheet: a leading = + - @ would run as a formula."""
    return "'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value
