"""Which model the real-model page reads: the lecturer's pick among the models on this
computer, or one the lecturer has opened, for a student."""


import ui
from posviz import pretrained
from ui.cached import real
from ui.markup import literal

COMMAND = "hf download HuggingFaceTB/SmolLM2-135M"  # a small model into the cache (~270 MB)


def chosen(d: ui.Doc, s: ui.Settings, held: real.Models, lecturer: bool
           ) -> tuple[str, pretrained.Found]:
    """The model the page reads, and where it is: the one typed, or the first offered. The
    lecturer is offered the models listed on this computer (listed once; Look again lists them
    anew) and may type a path; a student those the lecturer has opened, and is told one thing
    of anything else."""
    if lecturer and d.button(s.t("real.look_again"), key="real_look_again",
                             help=s.t("real.look_again_help")):
        held.refresh()
    listed = [f.name for f in held.listed()] if lecturer else []
    opened = held.opened()
    own = [f.name for f in held.own()]
    typed = d.text_input(s.t("real.model" if lecturer else "real.model_student"), key="model",
                         help=s.t("real.model_help" if lecturer else "real.model_student_help")
                         ).strip()
    if lecturer:
        if listed:
            d.caption(s.t("real.found", names=", ".join(map(literal, listed))))
        elif not typed and not opened:  # posviz's own is read: said so, and how to get one
            d.info(s.t("real.none", command=COMMAND))
    if not opened and not lecturer and not typed:
        d.info(s.t("real.none_opened"))
    d.caption(s.t("real.own", names=", ".join(map(literal, own))))
    name = typed or (listed or opened or own)[0]
    try:
        return name, held.find(name, lecturer)
    except real.NotOpen:
        not_open(d, s, opened + own)
    except pretrained.Refused as refused:
        d.error(s.t(f"real.refused.{refused.reason}", name=literal(name),
                    detail=literal(refused.detail)))
        d.stop()


def not_open(d: ui.Doc, s: ui.Settings, names: list[str]) -> None:
    """A student's one answer to a model the lecturer has not opened, whatever was typed."""
    d.error(s.t("real.not_open", names=", ".join(map(literal, names))))
    d.stop()
