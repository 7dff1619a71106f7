"""The lesson's live figures (ui/lesson/scenes.py: each chart a viewer redraws for a typed
sentence) as the Python engine draws them for a sentence, position on, by chart name: what the
browser's drawing of a typed sentence is held to."""

from __future__ import annotations

import json

from posviz.permutation import reversal
from ui.cached import alibi
from ui.cached import lesson as cached
from ui.chart import figure_json

LIVE = {
    "lesson_meaning": lambda seq, lang: cached.embedding_figure(
        (*seq, seq[0]), ("panel_e",), True, lang, "lesson.meaning.fig"),
    "lesson_position": lambda seq, lang: cached.position_figure(len(seq), lang),
    "lesson_sum": lambda seq, lang: cached.embedding_figure(
        seq, ("panel_e", "panel_p", "panel_x"), True, lang),
    "lesson_order": lambda seq, lang: cached.order_figure(
        seq, tuple(reversal(len(seq)).tolist()), lang),
    "lesson_order_change": lambda seq, lang: cached.change_figure(
        seq, tuple(reversal(len(seq)).tolist()), lang),
    "lesson_sinusoidal": lambda seq, lang: cached.sinusoidal_figures(len(seq), lang)[0],
    "lesson_rope": lambda seq, lang: cached.rope_figure(seq, True, lang),
    "lesson_alibi": lambda seq, lang: alibi.grid_figure(seq, cached.ALIBI_HEADS, True, lang,
                                                        room=True),
    "lesson_causal": lambda seq, lang: cached.causal_figure(seq, "sinusoidal", lang),
}
ORDERS = ("lesson_order", "lesson_order_change")  # drawn for two tokens or more


def live_figures(tokens: list[str], lang: str) -> dict[str, dict]:
    """Each live figure for the tokens, as the browser receives it (plotly's JSON, read)."""
    seq = tuple(tokens)
    return {name: json.loads(figure_json(draw(seq, lang))) for name, draw in LIVE.items()
            if len(seq) > 1 or name not in ORDERS}
