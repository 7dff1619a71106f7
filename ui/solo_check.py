"""The concept check taken alone: the six questions a lecturer asks a room before and after the
lecture (assets/i18n/check.toml, their right options in ui.answer_key), answered by a student on
their own, who then sees their score and why each right option is right. The answers live in
this browser tab's session only: nothing is sent to a room or stored on the server."""

from __future__ import annotations

import streamlit as st

from rooms import LETTERS
from ui.answer_key import check_questions
from ui.doc import Doc
from ui.markup import literal
from ui.shared import Settings

ANCHOR = "concept-check"  # the check's heading, which the lesson's end links to
PICK = "solo_check_{n}"   # a question's radio (session only, never in the URL)
DONE = "solo_check_done"  # whether the student has checked their answers
LEFT = "solo_check_left"  # how many were unanswered when they tried to


def picks(total: int) -> list[int | None]:
    """The option each question's radio holds (None: not answered)."""
    return [st.session_state.get(PICK.format(n=n)) for n in range(1, total + 1)]


def score(chosen: list[int | None], rights: list[int]) -> int:
    """How many questions were answered with their right option."""
    return sum(pick == right for pick, right in zip(chosen, rights, strict=True))


def _check(total: int) -> None:
    left = picks(total).count(None)
    st.session_state[LEFT] = left
    st.session_state[DONE] = not left


def _again(total: int) -> None:
    for n in range(1, total + 1):
        st.session_state.pop(PICK.format(n=n), None)
    st.session_state[DONE] = False
    st.session_state[LEFT] = 0


def section(d: Doc, s: Settings, in_room: bool) -> None:
    """The check's heading, then each question with its options (in the app a radio, which is
    disabled once checked) and its answer with the reason: in the app once the student checks
    their answers, with whether they were right and their score; in a file behind a button. A
    lecture room runs the check itself (ui.room.check): there it is only named."""
    d.subheader(s.t("ending.check_head"), anchor=ANCHOR)
    if in_room:
        d.caption(s.t("ending.check_in_room"))
        return
    d.markdown(s.t("ending.check_intro"))
    questions = check_questions(s.lang)
    total = len(questions)
    done = d.live and bool(st.session_state.get(DONE))
    if done:  # the score first, where the student pressed Check; each reason below
        st.metric(s.t("ending.score"), s.t("ending.score_value", right=score(
            picks(total), [right for _, _, right in questions]), total=total), border=True)
    for n, (question, options, right) in enumerate(questions, start=1):
        def asked(box, labels: list[str], n: int = n) -> bool:
            box.radio(s.t("ending.pick"), range(len(labels)), index=None,
                      key=PICK.format(n=n), disabled=done,
                      format_func=lambda i, labels=labels: f"{LETTERS[i]}. {literal(labels[i])}")
            return done

        answer = d.question(f"solo-check-{n}", s.t("ending.lead", n=n, total=total),
                            literal(question), options, asked)
        if answer is None:
            continue
        if d.live:  # the student's own answer, beside the right one
            pick = st.session_state.get(PICK.format(n=n))
            said = s.t("ending.right" if pick == right else "ending.wrong", letter=LETTERS[pick])
            (answer.success if pick == right else answer.warning)(said)
        answer.markdown(s.t("ending.answer", letter=LETTERS[right],
                            option=literal(options[right]), reason=s.t(f"check.q{n}.reason")))
    if d.live:
        buttons(s, [right for _, _, right in questions], done)


def buttons(s: Settings, rights: list[int], done: bool) -> None:
    """Check my answers (a warning while any is unanswered), or Take it again."""
    total = len(rights)
    if not done:
        if left := st.session_state.get(LEFT):
            st.warning(s.t("ending.unanswered", left=left))
        st.button(s.t("ending.submit"), key="solo_check_submit", type="primary",
                  on_click=_check, args=(total,))
        return
    st.button(s.t("ending.again"), key="solo_check_again", on_click=_again, args=(total,))
