"""posviz home: the typed sentence as tokens, meaning vs place, and the lessons."""

import streamlit as st

import ui
from posviz.tokens import repeated

s = ui.page("home")
st.markdown(s.t("home.intro"))
if s.room is None:
    ui.room.join_box(st.container(border=True), s.lang, "room_join_home")

st.subheader(s.t("home.your_tokens"))
ui.need_tokens(s)
ui.token_chips(s.tokens)
st.caption(s.t("home.reversal"))
ui.token_chips(s.tokens[::-1], [str(t) for t in range(len(s.tokens))][::-1])
if repeats := repeated(s.tokens):
    st.caption(s.t("home.repeats"))
    ui.token_chips(list(repeats), [", ".join(map(str, ts)) for ts in repeats.values()])

meaning, place = st.columns(2, border=True)
meaning.markdown(f"#### {s.t('home.meaning_head')}\n\n{s.t('home.meaning_body')}")
place.markdown(f"#### {s.t('home.place_head')}\n\n{s.t('home.place_body')}")

st.subheader(s.t("home.lessons"))
for column, (name, path) in zip(st.columns(3) * 3, ui.lesson_pages(), strict=False):
    card = column.container(border=True)
    card.page_link(path, label=f"**{s.t(f'{name}.nav')}**", query_params=ui.shared_query(s))
    card.caption(s.t(f"{name}.blurb"))
