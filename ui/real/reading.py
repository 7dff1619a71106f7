"""The loaded model's reading of the sentence: its scheme, its tokens, its attention maps with
position on and off, another order, the port-bug clinic and its next tokens."""

import numpy as np

import ui
from posviz import pretrained
from posviz.tokens import token_labels
from ui.cached import real
from ui.real.maps import other_order, two_maps
from ui.real.port import port_clinic
from ui.real.words import choice, scheme_text, shown
from ui.summary import number


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
