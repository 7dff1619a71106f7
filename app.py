"""posviz home: the typed sentence as tokens, meaning vs place, and the lessons."""

import streamlit as st

import ui
from posviz.tokens import repeated


def body(d: ui.Doc, s: ui.Settings) -> None:
    d.markdown(s.t("home.intro"))
    if d.live and s.room is None:
        ui.room.join_box(st.container(border=True), s.lang, "room_join_home")

    d.subheader(s.t("home.your_tokens"))
    ui.need_tokens(d, s)
    d.chips(s.tokens)
    d.caption(s.t("home.reversal"))
    d.chips(s.tokens[::-1], [str(t) for t in range(len(s.tokens))][::-1])
    if repeats := repeated(s.tokens):
        d.caption(s.t("home.repeats"))
        d.chips(list(repeats), [", ".join(map(str, ts)) for ts in repeats.values()])

    meaning, place = d.columns(2, border=True)
    meaning.markdown(f"#### {s.t('home.meaning_head')}\n\n{s.t('home.meaning_body')}")
    place.markdown(f"#### {s.t('home.place_head')}\n\n{s.t('home.place_body')}")

    d.subheader(s.t("home.lessons"))
    for column, (name, path) in zip(d.columns(3) * 3, ui.lesson_pages(), strict=False):
        card = column.container(border=True)
        card.link(f"**{s.t(f'{name}.nav')}**", path, ui.shared_query(s))
        card.caption(s.t(f"{name}.blurb"))


if __name__ == "__main__":
    ui.run("home", body)
