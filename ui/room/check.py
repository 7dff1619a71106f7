"""The concept check: six questions on the lesson's ideas (assets/i18n/check.toml) that a
lecturer puts on every screen of a room at its start and again at its end, and the gain per
question over the students who answered both times, paired by their signed voter ids."""

from __future__ import annotations

import streamlit as st

from rooms import StoreDown
from rooms.export import gains_csv
from rooms.records import PHASES, Gain
from ui.answer_key import check_questions
from ui.chart import chart
from ui.i18n import text
from ui.room import keys
from ui.room.membership import Member, refusing
from ui.room.poll_bars import gains_bars
from ui.room.tick import every
from ui.services import rooms
from ui.state import flag, remembered

CHECK_SECONDS = 2.0  # how often the lecturer's count of students in a sitting is read again


@refusing
def _open(code: str, phase: str, lang: str) -> None:
    rooms().open_check(code, phase, check_questions(lang))


@refusing
def _close(code: str, phase: str) -> None:
    rooms().close_check(code, phase)


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{value:.0f}%"


def gain_cell(g: Gain, lang: str) -> str:
    """<g> to two places, or a dash that says why there is none: no student answered the
    question at both sittings, or every one who did was right before (nothing to learn)."""
    if g.gain is not None:
        return f"{g.gain:.2f}"
    return text("check.gain_unpaired" if not g.paired else "check.gain_all_right", lang)


def gains_table_columns(gains: list[Gain], lang: str) -> dict[str, list[str]]:
    """The gains as table columns: question, its idea, students, the most of them from one
    network (many from one network: a script, or one lab's shared address), right before and
    after (%), <g>."""
    values = [[str(g.number) for g in gains], [text(f"check.q{g.number}.idea", lang)
                                               for g in gains],
              [str(g.paired) for g in gains], [str(g.from_one) for g in gains],
              [_percent(g.pre) for g in gains], [_percent(g.post) for g in gains],
              [gain_cell(g, lang) for g in gains]]
    return {text(f"check.column_{k}", lang): column for k, column in zip(
        ("question", "idea", "both", "one_network", "before", "after", "gain"), values,
        strict=True)}


def panel(s, m: Member) -> None:
    """The lecturer's check: start and end each sitting (one at a time on the screens), how
    many students answered, and once both sittings have answers, the gains and their CSV."""
    st.caption(s.t("check.help"))
    st.toggle(s.t("check.show"), help=s.t("check.show_help"),
              **remembered(keys.CHECK_SHOW, False, flag))
    _sittings(s, m)


@st.fragment
def _sittings(s, m: Member) -> None:
    every(CHECK_SECONDS, keys.TICK_CHECK)
    store = rooms()
    try:
        room = store.room(m.code)
        if room is None or room.closed:
            return
        sat = {phase: store.sitters(m.code, phase) for phase in PHASES}
        opened = {phase: bool(store.check(m.code, phase)) for phase in PHASES}
        gains = store.gains(m.code)
    except StoreDown:
        st.warning(s.t("room.down"))
        return
    for phase in PHASES:
        if room.live == f"check-{phase}":
            st.info(s.t("check.on_screen", n=sat[phase]))
            st.button(s.t(f"check.end_{phase}"), key=keys.check_end(phase), on_click=_close,
                      args=(m.code, phase), type="primary", width="stretch")
        elif not room.live.startswith("check-") and not opened[phase]:  # each sitting once
            st.button(s.t(f"check.start_{phase}"), key=keys.check_start(phase),
                      on_click=_open, args=(m.code, phase, s.lang), width="stretch",
                      type="primary" if phase == "pre" or opened["pre"] else "secondary")
    if any(opened.values()):
        st.caption(s.t("check.sat", pre=sat["pre"], post=sat["post"]))
    if gains and any(g.paired for g in gains):
        st.markdown(f"**{s.t('check.gains_head')}**")
        st.markdown("\n".join(s.t("check.gain_line", n=g.number, before=_percent(g.pre),
                                   after=_percent(g.post), gain=gain_cell(g, s.lang),
                                   both=g.paired) for g in gains))
        st.download_button(s.t("check.download"), data=gains_csv(store, m.code),
                           file_name=f"posviz-room-{m.code}-gains.csv", mime="text/csv",
                           on_click="ignore", width="stretch", key=keys.CHECK_GAINS_CSV)
    elif opened["post"]:
        st.caption(s.t("check.none_both"))


def gains_panel(s, m: Member | None) -> None:
    """Across the page, once the lecturer switches it on: the gain per question, as bars and
    as a table (the projector's view of what the lecture taught)."""
    if m is None or not m.lecturer or not st.session_state.get(keys.KEPT_CHECK_SHOW):
        return
    try:
        gains = rooms().gains(m.code)
    except StoreDown:
        st.warning(s.t("room.down"))
        return
    panel = st.container(border=True)
    panel.markdown(f"### {s.t('check.gains_head')}")
    if not gains or not any(g.paired for g in gains):
        panel.markdown(s.t("check.none_both"))
        return
    chart(gains_bars(gains, [s.t(f"check.q{g.number}.idea") for g in gains],
                     s.t("check.chart_title"), (s.t("check.column_before"),
                                                s.t("check.column_after")),
                     s.t("check.chart_axis")), "check_gains", where=panel)
    panel.table(gains_table_columns(gains, s.lang), hide_index=True)
    panel.caption(s.t("check.gain_help"))
