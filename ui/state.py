"""Settings kept for a whole session and mirrored in the URL, so links and reloads keep them.

Streamlit resets a widget's own state when a page switch redraws it, and drops a bound query
parameter on the first switch of a session opened from a link; posviz keeps the shared
settings in plain session keys instead (`kept_<key>`) and writes them to the URL itself.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

PERSONAL = frozenset(("lang", "present", "room", "key", "lead", "lead_refused", "follow", "t"))
"""Query parameters that belong to one reader, never to the view a room shares."""


def history_navigation() -> bool:
    """Whether this run shows a URL the browser went to by itself: Back, Forward, or a room
    follower's move to the lecturer's view. Such a run takes every setting from the URL."""
    ctx = get_script_run_ctx()
    return bool(ctx and ctx.is_history_navigation)


def kept(key: str) -> str:
    """The plain session key that keeps a setting's value for the session: `kept_<key>`."""
    return f"kept_{key}"


def remembered(key: str, default: object, parse: Callable[[str], object]) -> dict:
    """Widget arguments that keep a setting for the whole session, seeded from the URL.

    The value lives under a plain session key, `kept_<key>`, is copied there by the widget's
    on_change callback, and is put back into the widget at every run. On a session's first
    run, and on a history navigation, it comes from the URL (`?key=...`, read by parse) or is
    the default.
    """
    held = kept(key)
    if held not in st.session_state or history_navigation():
        raw = st.query_params.get(key)
        st.session_state[held] = default if raw is None else parse(raw)
    st.session_state[key] = st.session_state[held]
    return dict(key=key, on_change=_remember, args=(key,))


def flag(raw: str) -> bool:
    """A switch's value from the URL: anything but false/0/off/no is on."""
    return raw.lower() not in ("false", "0", "off", "no")


def _remember(key: str) -> None:
    st.session_state[kept(key)] = st.session_state[key]


def to_url(key: str, value: object, default: object, shown: str) -> None:
    """Keep a setting in the URL as `?key=shown`, and out of it while it has its default."""
    if value == default:
        st.query_params.pop(key, None)
    else:
        st.query_params[key] = shown


def coded_radio(where, label: str, options: list[str], *, key: str, format_func,
                **kwargs: object) -> str:
    """A radio kept for the session and in the URL by its option code (`?key=code`).

    Its labels may follow the UI language (bind="query-params" would put the displayed label
    in the URL, so a link would work in one language only and a language switch would leave
    the radio with nothing selected). An unknown code in a link falls back to the first option.
    """
    bound = remembered(key, options[0], lambda raw: raw if raw in options else options[0])
    value = where.radio(label, options, format_func=format_func, **bound, **kwargs)
    to_url(key, value, options[0], value)
    return value
