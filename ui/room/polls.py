"""A question as a poll of the room, as each member sees it: its lettered options; a student's
answer buttons and how sure they are; the lecturer's live count, a second round after a
discussion, the networks whose answers outnumber their screens, and Reveal; once revealed,
each round's answers and who changed theirs. A lesson scene's question is one such poll."""

from __future__ import annotations

import streamlit as st

from rooms import LETTERS, Poll, StoreDown
from rooms.records import SECOND, next_step
from rooms.signing import Voter
from ui.chart import chart
from ui.i18n import text
from ui.markup import options_html
from ui.room import keys
from ui.room.links import screen_link
from ui.room.membership import Member, client_network, note, refusing
from ui.room.poll_bars import poll_bars, sure_bars
from ui.room.tick import every
from ui.services import rooms

TALLY_SECONDS = 1.0  # how often a lecturer's live counts are read again


def options_list(where, labels: list[str]) -> None:
    """The options of a question, lettered A, B, ..., shown exactly as typed."""
    where.html(options_html(labels))


@refusing
def _vote(code: str, poll_id: str, voter: Voter, option: int, sure: bool | None = None) -> None:
    rooms().vote(code, poll_id, voter.token, option, client_network(), sure=sure)


@refusing
def _second_round(code: str, poll_id: str) -> None:
    rooms().second_round(code, poll_id)


@refusing
def _set_aside(code: str, network: str) -> None:
    note("answers_set_aside", n=rooms().set_aside(code, network))


@refusing
def _reveal(code: str, poll_id: str, correct: int | None) -> None:
    rooms().reveal(code, poll_id, correct)


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f}"


@st.fragment
def _tally(code: str, poll_id: str, letters: str, lang: str, show: bool,
           correct: int | None) -> None:
    """The lecturer's live count of answers in the question's current round, read again every
    TALLY_SECONDS, with what to do next (Peer Instruction's thresholds, when the right option
    is known); how they split, by confidence, only if show (the hall sees the projector: a
    split shown before the reveal sways those still deciding)."""
    every(TALLY_SECONDS, keys.tick_tally(poll_id))
    store = rooms()
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
                  key=keys.set_aside(poll_id, suspect.network), on_click=_set_aside,
                  args=(code, suspect.network))


def show_poll(where, s, m: Member, poll: Poll, labels: list[str],
              correct: int | None = None) -> None:
    """A poll as this member sees it: options with letters; the lecturer's live counts and
    Reveal, or a student's answer buttons; once revealed, everyone's distribution and the
    right option. labels are the options in the reader's language."""
    store = rooms()
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
        show = where.toggle(s.t("room.show_counts"), key=keys.show_counts(poll.id),
                            help=s.t("room.show_counts_help"))
        with where:
            _tally(m.code, poll.id, letters, s.lang, show,
                   poll.correct if correct is None else correct)
        buttons = where.container(horizontal=True)
        if current.id == poll.id and not poll.id.endswith(SECOND) \
                and not poll.id.startswith("check-"):  # a first round, not the check's
            buttons.button(s.t("room.second_round"), key=keys.second_round(poll.id),
                           help=s.t("room.second_round_help"), on_click=_second_round,
                           args=(m.code, poll.id))
        buttons.button(s.t("room.reveal"), key=keys.reveal(poll.id), on_click=_reveal,
                       args=(m.code, poll.id, correct), type="primary")
        return
    if m.voter is None:  # this browser has no voter id for the room: the room's screen gives one
        where.link_button(s.t("room.answer_on_screen"), screen_link(m.code, s.lang),
                          type="primary")
        return
    if current.id.endswith(SECOND):
        where.markdown(f"**{s.t('room.round_two')}**")
    where.markdown(s.t("room.tap"))
    for i, (column, letter) in enumerate(zip(where.columns(len(letters)), letters,
                                             strict=True)):
        column.button(letter, key=keys.vote(current.id, i), on_click=_vote,
                      args=(m.code, poll.id, m.voter, i), width="stretch",
                      type="primary" if mine == i else "secondary")
    where.caption(s.t("room.not_voted") if mine is None else
                  s.t("room.voted", mine=letters[mine]))
    if answer is not None:  # how sure: one tap, optional
        sure = where.container(horizontal=True, vertical_alignment="center")
        sure.markdown(s.t("room.how_sure"), width="content")
        for value, said in ((True, "sure"), (False, "guessing")):
            sure.button(s.t(f"room.{said}"), key=keys.sure(current.id, said), on_click=_vote,
                        args=(m.code, poll.id, m.voter, mine, value),
                        type="primary" if answer.sure is value else "secondary")


def _revealed(where, s, code: str, poll: Poll, letters: str) -> None:
    """A revealed question: each round's answers (side by side when there were two), how many
    changed their answer between them, and the right option in words."""
    split = rooms().split(code, poll.id)
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


def lesson_poll(where, s, m: Member | None, scene: str, question: str, labels: list[str],
                correct: int) -> bool | None:
    """A lesson scene's question as a poll of the room. The lecturer's visit opens it (with
    the texts in the lecturer's language, as the CSV lists them). Returns whether the answer
    is revealed, or None where the page asks on its own: outside a room, or for a student
    ahead of the lecturer."""
    if m is None:
        return None
    store = rooms()
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
