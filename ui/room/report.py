"""The lecture's report: one self-contained HTML file (drawn as the offline lesson is) of a
room's questions, each with its rounds, how its answers split and how sure they were, who
changed their answer between rounds, and the concept check's gain per question."""

from __future__ import annotations

from datetime import UTC, datetime

from rooms import LETTERS, Poll, Rooms, spaced
from rooms.records import SECOND, Split
from ui.doc import Doc
from ui.documents import offline_html
from ui.i18n import text
from ui.markup import literal
from ui.room.check import gains_table_columns
from ui.room.poll_bars import poll_bars


def report_file(store: Rooms, code: str, lang: str, now: float) -> bytes:
    """The room's report in lang, as it stands at now (seconds since the epoch)."""
    d = Doc(lang=lang)
    d.title(text("report.title", lang, code=spaced(code)))
    d.caption(text("report.made", lang, when=datetime.fromtimestamp(now, UTC).strftime(
        "%Y-%m-%d %H:%M UTC"), voters=store.voters(code)))
    asked = [poll for poll in store.polls(code)
             if not poll.id.endswith(SECOND) and not poll.id.startswith("check-")]
    if not asked:
        d.markdown(text("report.none", lang))
    for number, poll in enumerate(asked, start=1):
        _question(d, lang, number, poll, store.split(code, poll.id))
    gains = store.gains(code)
    d.header(text("check.head", lang))
    d.caption(text("check.sat", lang, pre=store.sitters(code, "pre"),
                   post=store.sitters(code, "post")))
    if gains and any(g.paired for g in gains):
        d.table(gains_table_columns(gains, lang))
        d.caption(text("check.gain_help", lang))
    else:
        d.markdown(text("check.none_both", lang))
    title = f"{text('report.title', lang, code=spaced(code))} · posviz"
    return offline_html(title, [{"title": "", "blocks": d.blocks}], lang).encode("utf-8")


def _question(d: Doc, lang: str, number: int, poll: Poll, split: Split) -> None:
    """One question: its text as typed, a table of its options by round and confidence, each
    round's bars, and who moved."""
    d.header(text("report.question", lang, n=number))
    d.markdown(literal(poll.question))
    letters = LETTERS[:len(poll.options)]
    columns: dict[str, list[object]] = {
        text("report.option", lang): [f"{letter} ✓" if i == poll.correct else letter
                                      for i, letter in enumerate(letters)],
        text("report.answer", lang): list(poll.options)}
    for n, tally in enumerate(split.rounds, start=1):
        prefix = f"{text('report.round', lang, n=n)} · " if len(split.rounds) > 1 else ""
        columns[prefix + text("report.answers", lang)] = list(tally.counts)
        columns[prefix + text("room.sure", lang)] = list(tally.sure)
        columns[prefix + text("room.guessing", lang)] = list(tally.guessing)
    d.table(columns)
    if not poll.revealed:
        d.caption(text("report.not_revealed", lang))
    charts = d.columns(len(split.rounds)) if len(split.rounds) > 1 else [d]
    for n, (where, tally) in enumerate(zip(charts, split.rounds, strict=True), start=1):
        title = (text("room.round_results", lang, round=n, n=tally.total)
                 if len(split.rounds) > 1 else text("room.results", lang, n=tally.total))
        where.chart(poll_bars(tally.counts, list(letters), title, text("room.answers_axis", lang),
                              correct=poll.correct), f"report_{poll.id}_{n}")
    if len(split.rounds) > 1:
        moves = ("；" if lang == "zh" else "; ").join(
            f"{letters[a]} → {letters[b]}: {k}" for a, b, k in split.moves)
        d.caption(text("room.changed", lang, both=split.both, n=split.changed,
                       moves=f" ({moves})" if moves else ""))
