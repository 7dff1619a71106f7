"""The Today page's port-bug clinic: seven bugs that ports of 2026's models shipped, the model's
rotation beside the port's on the sentence, from which distance each bug matters, and the
issues and pull requests that found or fixed it (posviz.ports)."""

from __future__ import annotations

from posviz import ports
from posviz.permutation import readable
from ui.cached import schemes as cached
from ui.doc import Doc
from ui.markup import literal
from ui.shared import Settings
from ui.summary import number
from ui.today import contents
from ui.today.tables import report_link


def largest_change(d: Doc, s: Settings, read: ports.Reading) -> None:
    """The cell whose weight the port moved most, and its two weights."""
    i, j = read.largest
    right, wrong = read.largest_weights
    d.metric(s.t("schemes.largest"), readable(read.change), border=True)
    d.caption(s.t("schemes.largest_caption", query=i, cell=j, right=f"{right:.3f}",
                  wrong=f"{wrong:.3f}"))


def reported(d: Doc, s: Settings, key: str) -> None:
    """The reports that found or fixed a bug, each with what it measured and its words."""
    box = d.container(border=True)
    for report in ports.reports(key):
        box.markdown(s.t(f"schemes.role.{report['role']}", link=report_link(report["url"]))
                     + (" " + s.t("schemes.figure", figure=report["figure"])
                        if "figure" in report else ""))
        box.caption(literal(report["quote"]))


def section(d: Doc, s: Settings) -> None:
    contents.heading(d, s, "schemes.clinic_head")
    d.markdown(s.prose("clinic"))
    keys = [b.key for b in ports.bugs()]
    key = d.coded_radio(s.t("schemes.bug_label"), keys, key="bug",
                        format_func=lambda k: s.t(f"schemes.bug.{k}.name"))
    d.markdown(s.t(f"schemes.bug.{key}.what",
                   **{name: number(v) for name, v in ports.quoted(key).items()}))
    tokens = tuple(s.tokens)
    d.chart(cached.maps_figure(tokens, key, (s.t("schemes.panel_right"),
                                             s.t("schemes.panel_wrong")), False, s.lang),
            "today_clinic_maps")
    largest_change(d, s, cached.reading(tokens, key))
    d.chart(cached.drift_figure(s.lang, key), "today_clinic_drift")
    _, _, onsets = cached.drifts()
    said = ("schemes.onset_never" if onsets[key] is None else
            "schemes.onset_at_image" if ports.bug(key).image else "schemes.onset_at")
    d.caption(s.t(said, n=number(onsets[key] or 0), share=f"{ports.ONSET:.0%}"))
    reported(d, s, key)
    d.markdown(s.t("schemes.clinic_table_head"))
    d.text_table({s.t("schemes.col.bug"): [s.t(f"schemes.bug.{k}.name") for k in keys],
                  s.t("schemes.col.onset"): [s.t("schemes.never") if onsets[k] is None
                                             else number(onsets[k]) for k in keys],
                  s.t("schemes.col.reported"): [s.t(f"schemes.bug.{k}.reported")
                                                if ports.measured(k) else s.t("schemes.no_figure")
                                                for k in keys]})
