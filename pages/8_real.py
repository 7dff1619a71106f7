"""A real model: a language model from this computer reads the typed sentence with its own
tokenizer; its attention and next-token guesses with position on and off, and beside a buggy
port's run where a bug of the port-bug clinic applies (posviz.ported). The lecturer picks the
model (ui.lecturer); a student reads one the lecturer has opened. Its parts are ui.real's."""

import ui
from posviz import pretrained
from ui.cached import real
from ui.lecturer import is_lecturer
from ui.markup import literal
from ui.real.model import chosen, not_open
from ui.real.reading import draw
from ui.real.words import size


def body(d: ui.Doc, s: ui.Settings) -> None:
    ui.need_tokens(d, s)
    d.markdown(s.prose("real"))
    held = real.models()
    lecturer = is_lecturer(s)
    name, found = chosen(d, s, held, lecturer)
    try:
        about = held.card(found)
    except pretrained.Refused as refused:
        d.error(s.t(f"real.refused.{refused.reason}", name=literal(name),
                    detail=literal(refused.detail)))
        d.stop()
    d.markdown(s.t("real.reading", name=literal(name)))
    c1, c2, c3 = d.columns(3)
    c1.metric(s.t("real.parameters"), f"{about.parameters:,}")
    c2.metric(s.t("real.needed"), size(about.needed, s))
    c3.metric(s.t("real.free"), size(about.available, s))
    try:
        loaded = held.load(found, lecturer)
    except real.NotOpen:
        not_open(d, s, held.opened() + [f.name for f in held.own()])
    except pretrained.Refused as refused:
        d.error(s.t(f"real.refused.{refused.reason}", name=literal(name),
                    needed=size(about.needed, s), free=size(about.available, s),
                    detail=literal(refused.detail)))
        d.stop()
    if opened := held.opened():  # once loaded: the model this page reads is among them
        d.caption(s.t("real.opened", names=", ".join(map(literal, opened))))
    try:
        draw(d, s, held, loaded)
    except pretrained.Refused as refused:  # a run the model cannot give as posviz reads it
        d.error(s.t(f"real.refused.{refused.reason}", name=literal(name),
                    detail=literal(refused.detail)))


if __name__ == "__main__":
    ui.run("real", body)
