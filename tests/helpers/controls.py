"""A page's controls, found in the AppTest element tree, and the settings at their extremes.

Shared by tests/app/test_extremes.py and the benchmark (`python -m tests.benchmarks.benchmark`), so
a control a page adds is exercised and measured without listing it anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from streamlit import config
from streamlit.testing.v1 import AppTest

from tests.conftest import PAGES

TIMEOUT = 120
NUMERIC = ("slider", "number_input", "select_slider")
SHARED = ("lang", "text", "pos")  # the sidebar's keys: not a page's own controls
ROUTES = [None, *PAGES]           # None is the home page (app.py)

LONGEST = " ".join("tok" + chr(97 + i % 26) * (1 + i // 26) for i in range(64))  # 64 tokens
"""A sentence of exactly MAX_TOKENS distinct word tokens."""


@dataclass(frozen=True)
class Control:
    """One numeric control: its kind, key, and smallest and largest allowed values."""

    kind: str
    key: str
    low: object
    high: object
    url_high: str  # the largest value as its bound query parameter spells it


def opened(route: str | None, text: str | None = None, lang: str = "en") -> AppTest:
    """The app opened at home by a link that carries the sentence and the language (as a shared
    link does: one run, where typing them would take two more), then switched to route (a path
    in pages/), as a browser does.

    The page records its document and its choices' values (ui.run). Errors keep their message
    here (the app's config hides it from a room's screen).
    """
    config.set_option("client.showErrorDetails", "full")
    at = AppTest.from_file("../../app.py", default_timeout=TIMEOUT)
    at.session_state["posviz_record"] = True
    if lang != "en":
        at.query_params["lang"] = lang
    if text is not None:
        at.query_params["text"] = text
    at.run()
    if route:
        at.switch_page(route).run()
    return at


def option_values(at: AppTest, widget) -> list:
    """The option values (not their labels) of a radio or select_slider, as the page's last
    run recorded them (the element tree holds only the labels)."""
    return at.session_state["posviz_choices"][widget.key]


def numeric_controls(at: AppTest) -> list[Control]:
    """Every slider, number input and select slider the last run drew, shared ones left out."""
    found = []
    for kind in NUMERIC:
        for widget in at.get(kind):
            if widget.key is None or widget.key in SHARED:
                continue
            if kind == "select_slider":
                values = option_values(at, widget)
                found.append(Control(kind, widget.key, values[0], values[-1], widget.options[-1]))
            elif widget.min is not None and widget.max is not None:
                high = widget.max
                found.append(Control(kind, widget.key, widget.min, high,
                                     str(int(high) if float(high).is_integer() else high)))
    return found


def page_radios(at: AppTest) -> dict[str, list]:
    """The page's own radios (key -> option values): choices that can reveal other controls."""
    return {radio.key: option_values(at, radio) for radio in at.radio
            if radio.key is not None and radio.key not in SHARED}


def set_value(at: AppTest, control: Control, value: object) -> None:
    """Give one control a value; the caller runs the script."""
    getattr(at, control.kind)(key=control.key).set_value(value)


def at_extreme(at: AppTest, end: str, keys: set[str] | None = None, rounds: int = 3) -> None:
    """Set every control (or those in keys) to its "low" or "high" end and run.

    Repeated while the ends move: one control's range can follow another (the ALiBi head
    number goes up to the head count).
    """
    for _ in range(rounds):
        pending = [(c, getattr(c, end)) for c in numeric_controls(at)
                   if (keys is None or c.key in keys)]
        pending = [(c, v) for c, v in pending
                   if getattr(at, c.kind)(key=c.key).value != v]
        if not pending:
            return
        for control, value in pending:
            set_value(at, control, value)
        at.run()
        if at.exception:
            return


def maximum_query(at: AppTest) -> dict[str, str]:
    """The query string that opens the page the last run drew with every control at its top."""
    return {c.key: c.url_high for c in numeric_controls(at)}
