"""A real model: a language model from this computer reads the typed sentence with its own
tokenizer; its attention and next-token guesses with position on and off."""

import numpy as np

import ui
from posviz import pretrained
from posviz.figures.attention import map_grid, twin_maps
from posviz.tokens import token_labels
from ui import orders
from ui.config import models_folder
from ui.markup import literal
from ui.summary import number

COMMAND = "hf download HuggingFaceTB/SmolLM2-135M"  # a small model into the cache (~270 MB)
SLOPES_SHOWN = 8
SPACE = "␣"  # a token of spaces alone, made visible


def size(n_bytes: int | None, s: ui.Settings) -> str:
    """Bytes as a reader says them: 270.3 MB, 1.2 GB."""
    if n_bytes is None:
        return s.t("real.free_unknown")
    for unit, scale in (("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{n_bytes} B"


def scheme_text(scheme: pretrained.Scheme, s: ui.Settings) -> str:
    """What the scheme is, with its numbers, and what switching it off does."""
    n = scheme.numbers
    if scheme.kind == "rope":
        scaling = "" if n["type"] == "default" else s.t(
            "real.scheme.scaling", kind=literal(str(n["type"])), factor=n.get("factor", "?"))
        return s.t("real.scheme.rope", base=f"{n['base']:,.0f}", share=f"{n['fraction']:.0%}",
                   trained=f"{n['trained']:,}" if n["trained"] else "?", scaling=scaling)
    if scheme.kind == "sinusoidal":
        return s.t("real.scheme.sinusoidal", base=f"{n['base']:,.0f}", width=n["width"])
    if scheme.kind == "learned":
        return s.t("real.scheme.learned", size=f"{n['size']:,}", width=n["width"])
    if scheme.kind == "alibi":
        slopes = ", ".join(number(x) for x in n["slopes"][:SLOPES_SHOWN])
        return s.t("real.scheme.alibi", heads=n["heads"],
                   slopes=slopes + (", …" if len(n["slopes"]) > SLOPES_SHOWN else ""))
    return s.t("real.scheme.none")


def shown(piece: pretrained.Piece) -> str:
    """A token as the page shows it: its characters (a * if it holds part of one; ␣ for a
    token of spaces alone), or the tokenizer's own name for a token it adds."""
    if piece.special:
        return piece.token
    return (piece.text if piece.text.strip() else SPACE) + ("*" if piece.split else "")


def choice(top: list[tuple[str, float]], s: ui.Settings) -> str:
    """The likeliest next tokens, each as it reads and its probability (under 0.5 %: <1%); a
    token that decodes to part of a character, or to nothing, says so."""
    def read(token: str) -> str:
        if not token.strip():
            return f"“{SPACE}”" if token else s.t("real.empty_token")
        return s.t("real.partial_token") if "\ufffd" in token else f"“{token}”"

    return " · ".join(f"{read(token)} {'<1%' if p < 0.005 else f'{p:.0%}'}"
                      for token, p in top)


def other_order(d: ui.Doc, s: ui.Settings, loaded: pretrained.Loaded,
                pieces: list[pretrained.Piece], labels: list[str], layer: int, head: int) -> None:
    """The same tokens in another order, compared token by token with position on and off:
    what is left with position off is what the causal mask alone tells apart."""
    d.subheader(s.t("real.twin_head"))
    d.markdown(s.t("real.twin_intro"))
    order = orders.picked(d, s, [shown(p) for p in pieces], "real",
                          frozenset(p.position for p in pieces if p.special))
    if order is None:
        return
    on = pretrained.twin(loaded, s.text, order)[1]
    reading, off = pretrained.twin(loaded, s.text, order, position=False)
    d.caption(s.t("real.twin_changes"))
    c1, c2 = d.columns(2)
    c1.metric(s.t("real.twin_on"), share(on.gaps.max()), border=True)
    c2.metric(s.t("real.twin_off"), share(off.gaps.max()), border=True)
    d.warning(s.t("real.mask_leaks", off=share(off.gaps.max())))
    mine, moved = reading.weights[layer - 1, head - 1], off.weights[layer - 1, head - 1]
    seen = np.tril(np.ones(mine.shape, dtype=bool))
    panels = [s.t(f"attention.panel_{key}") for key in ("original", "aligned", "difference")]
    d.chart(twin_maps(mine, moved, seen, off.mask, moved - mine, labels, panels,
                      title=s.t("real.twin_title", layer=layer, head=head),
                      x_title=s.t("real.key"), y_title=s.t("real.query"),
                      value_name=s.t("real.weight"),
                      difference_name=s.t("attention.difference"),
                      flat_note=s.t("attention.difference_flat")), "real_twin")
    d.caption(s.t("real.twin_caption"))
    d.markdown(f"**{s.t('real.gaps_head')}**")
    d.table({s.t("attention.col.layer"): range(1, len(on.gaps) + 1),
             s.t("real.with"): list(map(share, on.gaps)),
             s.t("real.without"): list(map(share, off.gaps)),
             s.t("real.without_last"): list(map(share, off.last_gaps))})
    d.caption(s.t("real.gaps_caption"))


def share(x: float) -> str:
    """A relative change as a percentage."""
    return f"{x:.1%}"


def body(d: ui.Doc, s: ui.Settings) -> None:
    ui.need_tokens(d, s)
    d.markdown(s.prose("real"))
    folder = models_folder()
    names = [f.name for f in (*pretrained.in_folder(folder), *pretrained.cached())]
    own = [f.name for f in pretrained.own()]
    typed = d.text_input(s.t("real.model"), key="model", help=s.t("real.model_help")).strip()
    if names:
        d.caption(s.t("real.found", names=", ".join(map(literal, names))))
    else:
        d.info(s.t("real.none", command=COMMAND))
    d.caption(s.t("real.own", names=", ".join(map(literal, own))))
    name = typed or (names or own)[0]
    try:
        about = pretrained.card(pretrained.find(name, folder))
    except pretrained.Refused as refused:
        d.error(s.t(f"real.refused.{refused.reason}", name=literal(name)))
        d.stop()
    d.markdown(s.t("real.reading", name=literal(name)))
    c1, c2, c3 = d.columns(3)
    c1.metric(s.t("real.parameters"), f"{about.parameters:,}")
    c2.metric(s.t("real.needed"), size(about.needed, s))
    c3.metric(s.t("real.free"), size(about.available, s))
    try:
        loaded = pretrained.load(name, folder)
    except pretrained.Refused as refused:
        d.error(s.t(f"real.refused.{refused.reason}", name=literal(name),
                    needed=size(about.needed, s),
                    free=size(about.available, s)))
        d.stop()

    if not s.position:
        d.info(s.t("real.both_ways"))
    d.subheader(s.t("real.scheme_head"))
    d.markdown(scheme_text(loaded.scheme, s))

    on = pretrained.read(loaded, s.text)
    off = pretrained.read(loaded, s.text, position=False)
    d.subheader(s.t("real.tokens_head"))
    if on.total > len(on.pieces):
        d.warning(s.t("real.clipped", kept=len(on.pieces), total=on.total))
    if not on.pieces:
        d.info(s.t("common.empty"))
        d.stop()
    d.chips([shown(p) for p in on.pieces])
    d.caption(s.t("real.tokens_caption_one" if len(on.pieces) == 1 else "real.tokens_caption",
                  n=len(on.pieces)))
    if any(p.split for p in on.pieces):
        d.caption(s.t("real.split_caption"))
    trained = loaded.scheme.numbers.get("trained") if loaded.scheme.kind == "rope" else None
    if trained and len(on.pieces) > trained:
        d.info(s.t("real.past_trained", trained=trained, last=len(on.pieces) - 1))

    d.subheader(s.t("real.maps_head"))
    layers, heads = on.weights.shape[:2]
    left, right = d.columns(2)
    layer = left.slider(s.t("real.layer"), 1, layers, 1, key="real_layer") if layers > 1 else 1
    head = right.slider(s.t("real.head"), 1, heads, 1, key="real_head") if heads > 1 else 1
    n = len(on.pieces)
    labels = token_labels([shown(p) for p in on.pieces])
    maps = np.stack([on.weights[layer - 1, head - 1], off.weights[layer - 1, head - 1]])
    d.chart(map_grid(maps, np.tril(np.ones((n, n), dtype=bool)), labels,
                     [s.t("real.with"), s.t("real.without")],
                     title=s.t("real.maps_title", layer=layer, head=head),
                     x_title=s.t("real.key"), y_title=s.t("real.query"),
                     value_name=s.t("real.weight"), n_cols=2), "real_maps")
    change = np.abs(on.weights - off.weights)
    where = np.unravel_index(np.argmax(change), change.shape)
    d.metric(s.t("real.difference"), number(float(change.max())))
    if change.max() > 0:
        d.caption(s.t("real.difference_at", layer=where[0] + 1, head=where[1] + 1,
                      q=where[2], k=where[3]))
    d.caption(s.t("real.maps_caption"))
    other_order(d, s, loaded, on.pieces, labels, layer, head)

    d.subheader(s.t("real.next_head"))
    d.text_table({s.t("real.position_col"): labels,
                  s.t("real.with"): [choice(top, s) for top in on.top],
                  s.t("real.without"): [choice(top, s) for top in off.top]})
    d.caption(s.t("real.next_caption"))


if __name__ == "__main__":
    ui.run("real", body)
