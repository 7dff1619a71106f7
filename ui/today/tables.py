"""The Today page's shared tables: a model's published values with their sources, and the
sentence's tokens with how far back each stands from the last."""

from __future__ import annotations

from posviz import ports
from posviz.modern import published
from posviz.tokens import back_from_last
from ui.doc import Doc
from ui.shared import Settings


def sources_table(d: Doc, s: Settings, model: str) -> None:
    """A model's published values: each key, its value and where it was read."""
    values = published()[model].values()
    d.text_table({s.t("today.src.key"): [e["key"] for e in values],
                  s.t("today.src.value"): [str(e["value"]) for e in values],
                  s.t("today.src.source"): [e["source"] for e in values]})


def sources(d: Doc, s: Settings, head: str, models: tuple[tuple[str, str], ...]) -> None:
    """An expander titled by the key head holding each model's sources_table, under its name."""
    shown = d.expander(s.t(head))
    for model, name in models:
        shown.markdown(f"**{name}**")
        sources_table(shown, s, model)


def back_table(d: Doc, s: Settings, columns: dict[str, list]) -> None:
    """A table of the sentence's tokens, how far back each is from the last, and columns."""
    d.text_table({s.t("today.cope_col.token"): s.tokens,
                  s.t("today.cope_col.back"): back_from_last(len(s.tokens)), **columns})


def report_link(url: str) -> str:
    """A report's link as Markdown, named owner/repo #number."""
    return f"[{ports.named(url)}]({url})"
