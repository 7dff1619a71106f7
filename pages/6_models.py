"""Trained models: learned attention, next-token guesses, learned positions, extrapolation, and
a live experiment on telling order without position."""

import math

import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import ui
from posviz import classifier
from posviz.corpus import UNKNOWN, vocabulary
from posviz.figures import models as figures
from posviz.model import SCHEMES
from ui.cached import models as cached
from ui.i18n import text

WAIT = 0.5  # seconds between two showings of a queued reader's place


def curves_figure(histories: dict, lang: str) -> go.Figure:
    return figures.training_curves(
        histories, cached.names(lang), title=text("models.live_title", lang),
        step_title=text("models.step", lang), loss_title=text("models.loss", lang),
        accuracy_title=text("models.accuracy", lang), chance_name=text("models.chance", lang))


def training_text(s: ui.Settings, k: int, name: str, left: float | None) -> str:
    """Which classifier trains (k of n, its name), and about how long the rest will take."""
    estimate = (s.t("models.left_unknown") if left is None else
                s.t("models.left", seconds=math.ceil(left)))
    return s.t("models.training", k=k, n=len(classifier.SCHEMES),
               scheme=cached.names(s.lang)[name], left=estimate)


def trained_text(s: ui.Settings, took: dict[str, float]) -> str:
    """How long the classifiers trained here took, each and together."""
    each = " · ".join(s.t("models.took_one", scheme=cached.names(s.lang)[name],
                          seconds=f"{seconds:.1f}") for name, seconds in took.items())
    return s.t("models.trained", n=len(took), seconds=f"{sum(took.values()):.1f}", each=each)


def train(s: ui.Settings, seed: int, status: DeltaGenerator, chart: ui.Doc) -> None:
    """Train the seed's three classifiers here, one after another, showing in status (a
    Streamlit placeholder) which one trains and the time left, and drawing their curves in
    chart as they go (one training at a time in this process: a reader queued behind another
    sees their place)."""
    runs = cached.experiments()
    line = cached.trainings()
    with line.joined() as ticket:  # left however the run ends: finished, stopped or rerun
        while (ahead := line.wait(ticket, timeout=WAIT)) and not cached.finished(seed):
            # drawn at every step: Streamlit stops a run whose reader has gone at its next element
            chart.info(s.t("models.queued_second") if ahead == 1 else
                       s.t("models.queued", place=ahead + 1, waiting=ahead - 1))
        histories, took = {}, {}
        n = len(classifier.SCHEMES)
        with classifier.torch_threads(1):
            for k, name in enumerate(classifier.SCHEMES, 1):
                if (name, seed) in runs:  # done: for another reader, or by a run cut short
                    histories[name] = runs[(name, seed)][0]
                    continue
                to_come = sum((later, seed) not in runs for later in classifier.SCHEMES[k:])
                for p in classifier.train_classifier(name, seed):
                    histories[name] = p.history
                    left = classifier.seconds_left(list(took.values()), p.step / p.steps, to_come)
                    status.progress((k - 1 + p.step / p.steps) / n,
                                    text=training_text(s, k, name, left))
                    chart.chart(curves_figure(histories, s.lang), f"models_live_{name}_{p.step}")
                took[name] = p.seconds
                runs[(name, seed)] = (p.history, p.model)
    if took:
        status.progress(1.0, text=trained_text(s, took))


def body(d: ui.Doc, s: ui.Settings) -> None:
    ui.need_tokens(d, s)
    d.markdown(s.prose("models"))

    picked = d.coded_radio(s.t("models.scheme"), list(SCHEMES), key="models_scheme",
                           format_func=cached.names(s.lang).get, horizontal=True,
                           disabled=not s.position, help=s.t("models.scheme_help"))
    scheme = picked if s.position else "none"
    if not s.position:
        d.info(s.t("models.position_off"))
    model, vocab = cached.trained(scheme)
    tokens = s.tokens
    if scheme == "learned" and len(tokens) > model.config.max_len:
        d.warning(s.t("models.learned_cut", rows=model.config.max_len, n=len(tokens)))
        tokens = tokens[: model.config.max_len]
    seen = vocab.seen(tokens)
    d.caption(s.t("models.seen", n=len(vocab)))
    d.chips(seen)
    if unknown := seen.count(UNKNOWN):
        d.warning(s.t("models.unknown", n=unknown))
    if len(tokens) > model.config.max_len:
        d.caption(s.t("models.beyond", trained=model.config.max_len))

    attention, guesses = cached.sentence_figures(scheme, tuple(tokens), s.lang)
    d.subheader(s.t("models.maps_head"))
    d.chart(attention, "models_attention")
    d.caption(s.t("models.maps_caption"))
    d.subheader(s.t("models.top_head"))
    d.chart(guesses, "models_top5")
    d.caption(s.t("models.top_caption"))

    d.subheader(s.t("models.positions_head"))
    learned_fig, wave_fig, learned_sim, wave_sim = cached.position_figures(s.lang)
    left, right = d.columns(2)
    left.chart(learned_fig, "models_learned_table")
    right.chart(wave_fig, "models_sinusoidal_table")
    left.chart(learned_sim, "models_learned_similarity")
    right.chart(wave_sim, "models_sinusoidal_similarity")
    d.caption(s.t("models.positions_caption"))

    d.subheader(s.t("models.extrapolation_head"))
    r = cached.report()
    train_len = r["settings"]["train_len"]
    d.chart(figures.extrapolation(
        {name: r["models"][name]["position_loss"] for name in SCHEMES}, cached.names(s.lang),
        train_len, title=s.t("models.extrapolation_title", last=r["settings"]["eval_len"] - 1),
        x_title=s.t("common.position_axis"), y_title=s.t("models.loss"),
        trained_name=s.t("models.trained_length", n=train_len)), "models_extrapolation")
    d.caption(s.t("models.extrapolation_caption", n=train_len, last=train_len - 1))
    models = [(name, r["models"][name]) for name in SCHEMES]
    d.table({
        s.t("models.col.scheme"): [cached.names(s.lang)[name] for name, _ in models],
        s.t("models.col.eval_loss", n=train_len): [f"{m['eval_loss']:.3f}" for _, m in models],
        s.t("models.col.p_gang"): [f"{m['probes'][0]['p_target']:.3g}" for _, m in models],
        s.t("models.col.p_le"): [f"{m['probes'][1]['p_target']:.3g}" for _, m in models],
        s.t("models.col.size"): [f"{m['bytes'] / 1e6:.2f}" for _, m in models],
        s.t("models.col.seconds"): [f"{m['seconds']:.1f}" for _, m in models]})
    d.caption(s.t("models.table_caption", steps=r["settings"]["steps"], seconds=r["seconds"]))
    d.markdown(s.prose("models_scale"))

    d.subheader(s.t("models.experiment_head"))
    d.markdown(s.prose("models_experiment"))
    seed = d.number_input(s.t("models.seed"), 0, cached.SEEDS - 1, 0, key="models_seed",
                          help=s.t("models.seed_help", n=cached.SEEDS, last=cached.SEEDS - 1))
    done = cached.finished(seed)
    start = not done and d.button(s.t("models.train"), key="models_train", type="primary")
    status = st.empty() if start else None  # a document has no progress bar: it never trains
    chart = d.empty()
    if start:
        train(s, seed, status, chart)
        done = True
    if not done:
        return
    runs = cached.experiments()
    chart.chart(curves_figure({name: runs[(name, seed)][0] for name in classifier.SCHEMES},
                              s.lang), "models_live")
    d.caption(s.t("models.live_caption"))
    d.markdown(f"**{s.t('models.verdict_head')}**")
    words = vocabulary()
    typed_ids, reversed_ids = words.encode(s.tokens), words.encode(s.tokens[::-1])
    d.table({
        s.t("models.col.classifier"): [cached.names(s.lang)[name]
                                       for name in classifier.SCHEMES],
        s.t("models.col.typed"): [
            f"{classifier.in_order_probability(runs[(name, seed)][1], typed_ids):.4f}"
            for name in classifier.SCHEMES],
        s.t("models.col.reversed"): [
            f"{classifier.in_order_probability(runs[(name, seed)][1], reversed_ids):.4f}"
            for name in classifier.SCHEMES]})
    d.caption(s.t("models.verdict_caption"))


if __name__ == "__main__":
    ui.run("models", body)
