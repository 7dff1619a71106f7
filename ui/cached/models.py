"""The trained-models page's checkpoints, report and figures, cached; only that page imports
this module, as it pulls in torch."""

import json

import plotly.graph_objects as go
import streamlit as st

from posviz import classifier
from posviz.alibi import causal_mask
from posviz.embedding import cosine_similarity
from posviz.figures import models as figures
from posviz.figures.attention import map_grid
from posviz.figures.common import SQUARE_TICKS, token_heatmap
from posviz.model import (
    MODEL_SCHEMES,
    attention_maps,
    learned_table,
    load_checkpoint,
    next_token_probabilities,
    top_predictions,
)
from posviz.schemes import position_scheme
from posviz.sinusoidal import sinusoidal
from posviz.tokens import token_labels
from posviz.train import MODELS
from ui.i18n import text
from ui.turns import Line

TOP_K = 5
SEEDS = 5
"""The live experiment's seeds, 0 to SEEDS - 1: a few to compare, each a training of its own."""


@st.cache_resource(show_spinner=False)
def trained(scheme: str):
    """A committed checkpoint, loaded once per server."""
    return load_checkpoint(MODELS / f"{scheme}.pt")


@st.cache_data(show_spinner=False)
def report() -> dict:
    return json.loads((MODELS / "report.json").read_text("utf-8"))


@st.cache_resource(show_spinner=False)
def experiments() -> dict:
    """Finished live runs of this server, by (scheme, seed): curves and trained classifier."""
    return {}


@st.cache_resource(show_spinner=False)
def stretches() -> dict:
    """This server's finished run of the context-extension experiment (posviz.extension), by
    its recalibration steps: run once, shown to every reader after."""
    return {}


@st.cache_resource(show_spinner=False)
def trainings() -> Line:
    """The line of this server's readers who asked for a live run (the classifiers, or the
    stretched RoPE model): one trains at a time."""
    return Line()


def finished(seed: int) -> bool:
    """Whether every classifier of the live experiment has a finished run for seed."""
    return all((name, seed) in experiments() for name in classifier.CLASSIFIER_SCHEMES)


def names(lang: str) -> dict[str, str]:
    """Each trained model's scheme named in lang (its words in posviz.schemes)."""
    return {name: text(position_scheme(name, "models").words["models"], lang)
            for name in MODEL_SCHEMES}


@st.cache_resource(max_entries=32, show_spinner=False)
def sentence_figures(scheme: str, tokens: tuple[str, ...], lang: str) -> tuple[go.Figure, ...]:
    """The attention maps of every layer and head, and the top-5 guesses at each position."""
    model, vocab = trained(scheme)
    ids = vocab.encode(list(tokens))
    labels = token_labels(vocab.seen(list(tokens)))
    maps = attention_maps(model, ids)                                   # (L, H, T, T)
    n_layers, n_heads = maps.shape[:2]
    titles = [text("models.head_panel", lang, layer=layer + 1, head=head + 1)
              for layer in range(n_layers) for head in range(n_heads)]
    attention = map_grid(maps.reshape(n_layers * n_heads, len(ids), len(ids)),
                         causal_mask(len(ids)), labels, titles, n_cols=n_heads,
                         title=text("models.maps_title", lang, scheme=names(lang)[scheme]),
                         x_title=text("common.key_axis", lang),
                         y_title=text("common.query_axis", lang),
                         value_name=text("models.weight", lang))
    top, probabilities = top_predictions(next_token_probabilities(model, ids), TOP_K)
    guesses = figures.top_predictions(
        probabilities, [vocab.decode(row) for row in top], labels,
        title=text("models.top_title", lang, scheme=names(lang)[scheme]),
        x_title=text("models.rank", lang), y_title=text("models.after_axis", lang),
        value_name=text("models.probability", lang))
    return attention, guesses


@st.cache_resource(show_spinner=False)
def position_figures(lang: str) -> tuple[go.Figure, ...]:
    """The learned table beside the sinusoidal one, and each one's cosine similarities."""
    table = learned_table(trained("learned")[0])                        # (max_len, D)
    wave = sinusoidal(*table.shape)
    rows = [str(t) for t in range(table.shape[0])]
    channels = [str(c) for c in range(table.shape[1])]
    out = []
    for kind, matrix in (("learned", table), ("sinusoidal", wave)):
        out.append(token_heatmap(matrix, rows, channels, title=text(f"models.table_{kind}", lang),
                                 x_title=text("common.dimension_axis", lang),
                                 y_title=text("common.position_axis", lang),
                                 value_name=text("common.value", lang)))
    for kind, matrix in (("learned", table), ("sinusoidal", wave)):
        out.append(token_heatmap(cosine_similarity(matrix), rows, rows,
                                 title=text(f"models.similarity_{kind}", lang),
                                 x_title=text("common.position_axis", lang),
                                 y_title=text("common.position_axis", lang),
                                 value_name=text("models.cosine", lang), zmin=-1.0, zmax=1.0,
                                 ticks=SQUARE_TICKS // 2))  # half a page wide: half the labels
    return tuple(out)
