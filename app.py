"""posviz home: the typed sentence as a picture and as tokens, meaning vs place, and the
lessons: the guided lesson first (start here), then a room to join or start."""

from urllib.parse import urlsplit

import streamlit as st

import ui
from posviz.tokens import repeated
from ui.cached import lesson as cached
from ui.room import entry

CARDS_PER_ROW = 4
# A join field for six digits with its button beside it, and lesson cards of one height in
# each row.
HOME_CSS = """<style>
.st-key-home_rooms [data-testid=stForm] {max-width: 20rem}
.st-key-home_rooms [data-testid=stForm] [data-testid=stHorizontalBlock] {align-items: flex-end}
[data-testid=stLayoutWrapper]:has(> [class*=st-key-home_card_]) {flex-grow: 1}
[class*=st-key-home_card_] {height: 100%}
.st-key-home_start {border-left: .3rem solid #ff4b4b; padding-left: .75rem; gap: .25rem}
.st-key-home_start [data-testid=stPageLink] p {font-size: 1.25rem; font-weight: 700}
</style>"""


def missing_page() -> bool:
    """Whether the browser asked for an address that names no page, so that Streamlit runs this
    home page in its place (st.context.url: the browser's address without its query; None in
    a test)."""
    path = urlsplit(st.context.url or "").path.strip("/")
    base = st.get_option("server.baseUrlPath").strip("/")
    if base and (path == base or path.startswith(f"{base}/")):
        path = path[len(base):].strip("/")
    return bool(path)


def not_found(s: ui.Settings) -> None:
    """Say in the reader's language that the address names no page, with a link to every
    lesson (drawn in the app only: a document is always of a page that exists)."""
    with st.container(border=True, key="home_not_found"):
        st.warning(s.t("home.not_found"), icon=":material/link_off:")
        with st.container(horizontal=True):
            for name, path in ui.lesson_pages():
                st.page_link(path, label=s.t(f"{name}.nav"), query_params=ui.shared_query(s))
            ui.close_not_found_dialog()


def start_here(d: ui.Doc, s: ui.Settings) -> None:
    """The first offer to a reader in no room: the guided lesson, above the fold on a desk and
    on a phone (a room's join field and Start a room come after it)."""
    box = d.container(key="home_start")
    box.link(s.t("home.start"), dict(ui.lesson_pages())["lesson"], ui.shared_query(s))
    box.caption(s.t("home.start_blurb"))


def body(d: ui.Doc, s: ui.Settings) -> None:
    if d.live and missing_page():
        not_found(s)
    d.markdown(s.t("home.intro"))
    if d.live:
        st.html(HOME_CSS)
    if not (s.room is not None if d.live else d.room):
        start_here(d, s)
    if d.live and s.room is None:
        join, start = st.container(key="home_rooms", border=True).columns(
            [3, 2], vertical_alignment="bottom")
        entry.join_box(join, s.lang, home=True)
        entry.start_box(start, s, home=True)

    ui.need_tokens(d, s)
    seq = tuple(s.tokens)
    d.chart(cached.embedding_figure(seq, ("panel_e", "panel_p", "panel_x"), s.position,
                                    s.lang), "home_sentence")
    yours, turned = d.columns(2)
    yours.caption(s.t("home.your_tokens"))
    yours.chips(s.tokens)
    turned.caption(s.t("home.reversed"))
    turned.chips(s.tokens[::-1], [str(t) for t in range(len(s.tokens))][::-1])
    d.caption(s.t("home.reversal"))
    if repeats := repeated(s.tokens):
        d.caption(s.t("home.repeats"))
        d.chips(list(repeats), [", ".join(map(str, ts)) for ts in repeats.values()])

    meaning, place = d.columns(2, border=True)
    meaning.markdown(f"#### {s.t('home.meaning_head')}\n\n{s.t('home.meaning_body')}")
    place.markdown(f"#### {s.t('home.place_head')}\n\n{s.t('home.place_body')}")

    d.subheader(s.t("home.lessons"))
    cards, lessons = d.container(key="home_cards"), ui.lesson_pages()
    for first in range(0, len(lessons), CARDS_PER_ROW):
        row = lessons[first:first + CARDS_PER_ROW]
        for column, (name, path) in zip(cards.columns(CARDS_PER_ROW), row, strict=False):
            card = column.container(border=True, key=f"home_card_{name}")
            card.link(f"**{s.t(f'{name}.nav')}**", path, ui.shared_query(s))
            card.caption(s.t(f"{name}.blurb"))


if __name__ == "__main__":
    ui.run("home", body)
