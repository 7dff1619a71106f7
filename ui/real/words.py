"""How the real-model page says a model in words: a size in bytes, its position scheme with
its numbers, its tokens and its next-token guesses, a relative change."""


import ui
from posviz import pretrained
from ui.markup import literal
from ui.summary import number

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


def share(x: float) -> str:
    """A relative change as a percentage."""
    return f"{x:.1%}"
