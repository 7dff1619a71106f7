"""The port-bug clinic on a real model: its own run beside a buggy port's, for each bug that
applies to it, with the bug's public reports."""

import numpy as np

import ui
from posviz import ported, ports, pretrained
from ui.cached import real
from ui.markup import literal
from ui.real.maps import two_maps
from ui.real.words import layer_list
from ui.summary import number
from ui.today.tables import report_link


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
