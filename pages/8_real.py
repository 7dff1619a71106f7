"""A real model: a language model from this computer reads the typed sentence with its own
tokenizer; its attention and next-token guesses with position on and off, and beside a buggy
port's run where a bug of the port-bug clinic applies (posviz.ported). The lecturer picks the
model (ui.lecturer); a student reads one the lecturer has opened."""

import numpy as np

import ui
from posviz import ported, ports, pretrained
from posviz.figures.attention import map_grid, twin_maps
from posviz.tokens import token_labels
from ui import orders
from ui.cached import real
from ui.lecturer import is_lecturer
from ui.markup import literal
from ui.summary import number
from ui.today.tables import report_link

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


def rotary_text(rotary: pretrained.Rotary, s: ui.Settings) -> str:
    """One kind of RoPE: its base, the share of each head's channels it turns, its scaling."""
    scaling = "" if rotary.rope_type == "default" else s.t(
        "real.scheme.scaling", kind=literal(rotary.rope_type),
        factor=number(rotary.factor) if rotary.factor is not None else "?")
    pairing = s.t("real.scheme.neighbours") if rotary.pairing == "neighbours" else ""
    return s.t("real.scheme.rotary", base=f"{rotary.base:,.0f}" if rotary.base else "?",
               share=f"{rotary.fraction:.0%}", scaling=scaling) + pairing


def layer_list(layers: tuple[int, ...], s: ui.Settings) -> str:
    """Layers (from 0) as a reader counts them (from 1), with the word for one or several."""
    numbers = s.t("real.scheme.list_sep").join(str(k + 1) for k in layers)
    return s.t("real.scheme.layer_one" if len(layers) == 1 else "real.scheme.layer_many",
               n=numbers)


def length_text(numbers: dict, s: ui.Settings) -> str:
    """The lengths a RoPE model is said to be made for: posviz's own, the length it was trained
    on; a real model's, the length its configuration is made for, and the length of pre-training
    only where its configuration names one (Llama 3.1: 8,192, stretched to 131,072)."""
    if numbers.get("trained"):
        return s.t("real.scheme.trained", trained=f"{numbers['trained']:,}")
    length = f"{numbers['length']:,}" if numbers.get("length") else "?"
    if numbers.get("pretrained"):
        return s.t("real.scheme.stretched", length=length,
                   pretrained=f"{numbers['pretrained']:,}")
    return s.t("real.scheme.length", length=length)


def scheme_text(scheme: pretrained.Scheme, s: ui.Settings) -> str:
    """What the scheme is, with its numbers, and what switching it off does; per layer where
    the layers differ; and what the model's other layers do."""
    n = scheme.numbers
    if scheme.kind == "rope":
        trained = length_text(n, s)
        if len(scheme.rotary) == 1 and not scheme.unturned:
            said = s.t("real.scheme.rope", rotary=rotary_text(scheme.rotary[0], s),
                       trained=trained)
        else:
            kinds = [s.t("real.scheme.rope_layers", layers=layer_list(r.layers, s),
                         kind=s.t("real.scheme.kind", kind=literal(r.layer_type))
                         if r.layer_type else "", rotary=rotary_text(r, s))
                     for r in scheme.rotary]
            if scheme.unturned:
                kinds.append(s.t("real.scheme.nope_layers", layers=layer_list(scheme.unturned, s)))
            said = s.t("real.scheme.rope_mixed", kinds=s.t("real.scheme.and").join(kinds),
                       trained=trained)
    elif scheme.kind == "sinusoidal":
        said = s.t("real.scheme.sinusoidal", size=f"{n['size']:,}" if n.get("size") else "?",
                   width=n.get("width") or "?")
    elif scheme.kind == "learned":
        said = s.t("real.scheme.learned", size=f"{n['size']:,}", width=n["width"])
    elif scheme.kind == "alibi":
        slopes = ", ".join(number(x) for x in n["slopes"][:SLOPES_SHOWN])
        said = s.t("real.scheme.alibi", heads=n["heads"],
                   slopes=slopes + (", …" if len(n["slopes"]) > SLOPES_SHOWN else ""))
    else:  # checked as a bag only where every layer is attention
        said = s.t("real.scheme.none_attention" if scheme.ordered else "real.scheme.none")
    if scheme.beside:
        said = s.t("real.scheme.beside", said=said, n=len(scheme.beside), layers=scheme.layers)
    if scheme.ordered:
        kinds = ", ".join(literal(k) for k in dict.fromkeys(scheme.ordered))
        said = s.t("real.scheme.other", said=said, n=len(scheme.ordered),
                   layers=scheme.layers, kinds=kinds)
    return said


def shown(piece: pretrained.Piece) -> str:
    """A token as the page shows it: its characters (a * if it holds part of one; ␣ for a
    token of spaces alone), or the tokenizer's own name for a token it adds."""
    if piece.special:
        return piece.token
    return (piece.text if piece.text.strip() else SPACE) + ("*" if piece.split else "")


def spelled(guess: pretrained.Guess, s: ui.Settings) -> str:
    """A next token as the page shows it: its characters in quotes (a token of spaces alone
    as ␣), or, when they are not all characters a reader can see (a piece of a character, a
    control character), its bytes."""
    if not guess.raw:
        return s.t("real.empty_token")
    if guess.whole:
        return f"“{SPACE}”" if not guess.text.strip() else f"“{guess.text}”"
    return s.t("real.bytes_token", bytes=" ".join(f"{b:02X}" for b in guess.raw))


def choice(top: list[pretrained.Guess], s: ui.Settings) -> str:
    """The likeliest next tokens, each as it reads (spelled) and its probability (under
    0.5 %: <1%)."""
    return " · ".join(f"{spelled(g, s)} {'<1%' if g.p < 0.005 else f'{g.p:.0%}'}" for g in top)


def other_order(d: ui.Doc, s: ui.Settings, held: real.Models, loaded: pretrained.Loaded,
                pieces: list[pretrained.Piece], labels: list[str], layer: int, named: int,
                head: int) -> None:
    """The same tokens in another order, compared token by token with position on and off:
    what is left with position off is what the causal mask alone tells apart."""
    d.subheader(s.t("real.twin_head"))
    d.markdown(s.t("real.twin_intro"))
    order = orders.picked(d, s, [shown(p) for p in pieces], "real",
                          frozenset(p.position for p in pieces if p.special))
    if order is None:
        return
    on = held.twin(loaded, s.text, order)[1]
    reading, off = held.twin(loaded, s.text, order, position=False)
    d.caption(s.t("real.twin_changes"))
    c1, c2 = d.columns(2)
    c1.metric(s.t("real.twin_on"), share(on.gaps.max()), border=True)
    c2.metric(s.t("real.twin_off"), share(off.gaps.max()), border=True)
    d.warning(s.t("real.mask_leaks", off=share(off.gaps.max())))
    mine, moved = reading.weights[layer - 1, head - 1], off.weights[layer - 1, head - 1]
    seen = np.tril(np.ones(mine.shape, dtype=bool))
    panels = [s.t(f"attention.panel_{key}") for key in ("original", "aligned", "difference")]
    d.chart(twin_maps(mine, moved, seen, off.mask, moved - mine, labels, panels,
                      title=s.t("real.twin_title", layer=named, head=head),
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


def two_maps(d: ui.Doc, s: ui.Settings, runs: tuple[pretrained.Reading, pretrained.Reading],
             labels: list[str], layer: int, head: int, names: tuple[str, str], title: str,
             name: str) -> None:
    """Two runs' attention maps at one layer and head, side by side under the causal mask."""
    n = len(runs[0].pieces)
    maps = np.stack([run.weights[layer - 1, head - 1] for run in runs])
    d.chart(map_grid(maps, np.tril(np.ones((n, n), dtype=bool)), labels, list(names),
                     title=title, x_title=s.t("real.key"), y_title=s.t("real.query"),
                     value_name=s.t("real.weight"), n_cols=2), name)


def port_numbers(port: ported.Port, s: ui.Settings) -> dict[str, object]:
    """What a port's description names: its layers and its numbers on this model."""
    n = port.numbers
    said = {"layers": layer_list(port.layers, s)}
    if port.bug == "halves_as_pairs":
        return said | {"widths": s.t("real.scheme.list_sep").join(map(str, n["widths"]))}
    if port.bug == "one_base":
        return said | {"base": f"{n['base']:,.0f}", "bases": s.t("real.scheme.and").join(
            f"{literal(kind)} {base:,.0f}" for kind, base in n["own"].items())}
    return said | {"kind": literal(n["kind"] or ""), "turned": n["turned"],
                   "half": n["half"], "width": n["width"], "lanes": 2 * n["turned"],
                   "still": n["half"] - n["turned"], "base": f"{n['base']:,.0f}"}


def port_clinic(d: ui.Doc, s: ui.Settings, held: real.Models, loaded: pretrained.Loaded,
                on: pretrained.Reading, labels: list[str], numbers: list[int], layer: int,
                head: int) -> None:
    """The model's own run beside a buggy port's, for each bug of the clinic that applies to
    the model transformers built; the bug's public reports. Nothing if none applies."""
    try:
        found = {p.key: p for p in held.ports(loaded)}
    except pretrained.Refused as refused:  # the run that finds them, watched by hooks
        d.error(s.t("real.port_fails", detail=literal(refused.detail)))
        return
    if not found:
        return
    d.subheader(s.t("real.port_head"))
    d.markdown(s.t("real.port_intro"))
    key = d.coded_radio(s.t("real.port_label"), list(found), key="real_port",
                        format_func=lambda k: s.t(f"real.port.{found[k].bug}.name",
                                                  base=f"{found[k].numbers.get('base', 0):,.0f}"))
    port = found[key]
    d.markdown(s.t(f"real.port.{port.bug}.what", **port_numbers(port, s)))
    try:
        wrong = held.read(loaded, s.text, port=port)
    except pretrained.Refused as refused:  # the model's own code, run with the port's change
        d.error(s.t("real.port_fails", detail=literal(refused.detail)))
        return
    two_maps(d, s, (on, wrong), labels, layer, head, (s.t("real.port_own"), s.t("real.port_wrong")),
             s.t("real.port_title", layer=numbers[layer - 1], head=head), "real_port_maps")
    if numbers[layer - 1] - 1 not in port.layers:
        d.caption(s.t("real.port_same_layer", layer=numbers[layer - 1]))
    change = np.abs(wrong.weights - on.weights)
    d.metric(s.t("real.port_largest"), number(float(change.max())))
    if change.max() > 0:
        where = np.unravel_index(np.argmax(change), change.shape)
        d.caption(s.t("real.port_at", layer=numbers[where[0]], head=where[1] + 1, q=where[2],
                      k=where[3], own=f"{on.weights[where]:.3f}",
                      wrong=f"{wrong.weights[where]:.3f}"))
    reported = d.container(border=True)
    reported.markdown(s.t(f"real.port.{port.bug}.found_in"))
    for report in (r for table in port.reports for r in ports.reports(table)):
        reported.markdown(s.t(f"schemes.role.{report['role']}", link=report_link(report["url"]))
                          + (" " + s.t("schemes.figure", figure=report["figure"])
                             if "figure" in report else ""))
        reported.caption(literal(report["quote"]))


def share(x: float) -> str:
    """A relative change as a percentage."""
    return f"{x:.1%}"


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


def draw(d: ui.Doc, s: ui.Settings, held: real.Models, loaded: pretrained.Loaded) -> None:
    """The loaded model's reading of the sentence: its scheme, tokens, maps, another order and
    its next tokens."""
    if not s.position:
        d.info(s.t("real.both_ways"))
    d.subheader(s.t("real.scheme_head"))
    d.markdown(scheme_text(loaded.scheme, s))

    on = held.read(loaded, s.text)
    off = held.read(loaded, s.text, position=False)
    d.subheader(s.t("real.tokens_head"))
    if on.total > len(on.pieces):
        d.warning(s.t("real.clipped", kept=len(on.pieces), total=on.total))
    if not on.pieces:
        d.info(s.t("common.empty"))
        d.stop()
    d.chips([shown(p) for p in on.pieces])
    d.caption(s.t("real.tokens_caption_one" if len(on.pieces) == 1 else "real.tokens_caption",
                  n=len(on.pieces), ours=s.t("real.tokens_ours_app" if s.controls
                                             else "real.tokens_ours_view", sidebar=len(s.tokens))))
    if any(p.split for p in on.pieces):
        d.caption(s.t("real.split_caption"))
    lengths = loaded.scheme.numbers if loaded.scheme.kind == "rope" else {}
    trained = lengths.get("trained") or lengths.get("pretrained")
    if trained and len(on.pieces) > trained:
        d.info(s.t("real.past_trained" if lengths.get("trained") else "real.past_pretrained",
                   trained=trained, last=len(on.pieces) - 1))
    elif not trained and lengths.get("length") and len(on.pieces) > lengths["length"]:
        d.info(s.t("real.past_length", length=lengths["length"], last=len(on.pieces) - 1))

    d.subheader(s.t("real.maps_head"))
    numbers = [k + 1 for k in loaded.scheme.attention] or list(range(1, len(on.weights) + 1))
    layers, heads = on.weights.shape[:2]
    left, right = d.columns(2)
    layer = left.slider(s.t("real.layer"), 1, layers, 1, key="real_layer") if layers > 1 else 1
    head = right.slider(s.t("real.head"), 1, heads, 1, key="real_head") if heads > 1 else 1
    if numbers != list(range(1, layers + 1)):
        left.caption(s.t("real.attention_layers", n=layers, layers=loaded.scheme.layers,
                         names=s.t("real.scheme.list_sep").join(map(str, numbers))))
    labels = token_labels([shown(p) for p in on.pieces])
    two_maps(d, s, (on, off), labels, layer, head, (s.t("real.with"), s.t("real.without")),
             s.t("real.maps_title", layer=numbers[layer - 1], head=head), "real_maps")
    change = np.abs(on.weights - off.weights)
    where = np.unravel_index(np.argmax(change), change.shape)
    d.metric(s.t("real.difference"), number(float(change.max())))
    if change.max() > 0:
        d.caption(s.t("real.difference_at", layer=numbers[where[0]], head=where[1] + 1,
                      q=where[2], k=where[3]))
    d.caption(s.t("real.maps_caption"))
    other_order(d, s, held, loaded, on.pieces, labels, layer, numbers[layer - 1], head)
    port_clinic(d, s, held, loaded, on, labels, numbers, layer, head)

    d.subheader(s.t("real.next_head"))
    d.text_table({s.t("real.position_col"): labels,
                  s.t("real.with"): [choice(top, s) for top in on.top],
                  s.t("real.without"): [choice(top, s) for top in off.top]})
    d.caption(s.t("real.next_caption"))


if __name__ == "__main__":
    ui.run("real", body)
