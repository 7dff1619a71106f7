"""Trained models: learned attention, next-token guesses, learned positions, extrapolation, and
a live experiment on telling order without position."""

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

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


s = ui.page("models")
ui.need_tokens(s)
st.markdown(s.prose("models"))

picked = ui.coded_radio(st, s.t("models.scheme"), list(SCHEMES), key="models_scheme",
                        format_func=cached.names(s.lang).get, horizontal=True,
                        disabled=not s.position, help=s.t("models.scheme_help"))
scheme = picked if s.position else "none"
if not s.position:
    st.info(s.t("models.position_off"))
model, vocab = cached.trained(scheme)
tokens = s.tokens
if scheme == "learned" and len(tokens) > model.config.max_len:
    st.warning(s.t("models.learned_cut", rows=model.config.max_len, n=len(tokens)))
    tokens = tokens[: model.config.max_len]
seen = vocab.seen(tokens)
st.caption(s.t("models.seen", n=len(vocab)))
ui.token_chips(seen)
if unknown := seen.count(UNKNOWN):
    st.warning(s.t("models.unknown", n=unknown))
if len(tokens) > model.config.max_len:
    st.caption(s.t("models.beyond", trained=model.config.max_len))

attention, guesses = cached.sentence_figures(scheme, tuple(tokens), s.lang)
st.subheader(s.t("models.maps_head"))
ui.chart(attention, "models_attention")
st.caption(s.t("models.maps_caption"))
st.subheader(s.t("models.top_head"))
ui.chart(guesses, "models_top5")
st.caption(s.t("models.top_caption"))

st.subheader(s.t("models.positions_head"))
learned_fig, wave_fig, learned_sim, wave_sim = cached.position_figures(s.lang)
left, right = st.columns(2)
ui.chart(learned_fig, "models_learned_table", where=left)
ui.chart(wave_fig, "models_sinusoidal_table", where=right)
ui.chart(learned_sim, "models_learned_similarity", where=left)
ui.chart(wave_sim, "models_sinusoidal_similarity", where=right)
st.caption(s.t("models.positions_caption"))

st.subheader(s.t("models.extrapolation_head"))
r = cached.report()
train_len = r["settings"]["train_len"]
ui.chart(figures.extrapolation(
    {name: r["models"][name]["position_loss"] for name in SCHEMES}, cached.names(s.lang), train_len,
    title=s.t("models.extrapolation_title", eval_len=r["settings"]["eval_len"]),
    x_title=s.t("common.position_axis"), y_title=s.t("models.loss"),
    trained_name=s.t("models.trained_length", n=train_len)), "models_extrapolation")
st.caption(s.t("models.extrapolation_caption", n=train_len))
report_table = pd.DataFrame([{
    s.t("models.col.scheme"): cached.names(s.lang)[name],
    s.t("models.col.eval_loss", n=train_len): m["eval_loss"],
    s.t("models.col.p_gang"): m["probes"][0]["p_target"],
    s.t("models.col.p_le"): m["probes"][1]["p_target"],
    s.t("models.col.size"): m["bytes"] / 1e6,
    s.t("models.col.seconds"): m["seconds"],
} for name, m in ((name, r["models"][name]) for name in SCHEMES)])
st.table(report_table.style.format(dict(zip(report_table.columns[1:], (
    "{:.3f}", "{:.3g}", "{:.3g}", "{:.2f}", "{:.1f}"), strict=True))), hide_index=True)
st.caption(s.t("models.table_caption", steps=r["settings"]["steps"], seconds=r["seconds"]))
st.markdown(s.prose("models_scale"))

st.subheader(s.t("models.experiment_head"))
st.markdown(s.prose("models_experiment"))
seed = st.number_input(s.t("models.seed"), 0, cached.SEEDS - 1, 0, key="models_seed",
                       help=s.t("models.seed_help", n=cached.SEEDS, last=cached.SEEDS - 1),
                       bind="query-params", persist_state="session")
runs = cached.experiments()
done = cached.finished(seed)
start = not done and st.button(s.t("models.train"), key="models_train", type="primary")
chart = st.empty()
if start:
    line = cached.trainings()
    with line.joined() as ticket:  # left however the run ends: finished, stopped or rerun
        while (ahead := line.wait(ticket, timeout=WAIT)) and not cached.finished(seed):
            # drawn at every step: Streamlit stops a run whose reader has gone at its next element
            chart.info(s.t("models.queued_second") if ahead == 1 else
                       s.t("models.queued", place=ahead + 1, waiting=ahead - 1))
        histories = {}
        with classifier.torch_threads(1):
            for name in classifier.SCHEMES:
                if (name, seed) in runs:  # done: for another reader, or by a run cut short
                    histories[name] = runs[(name, seed)][0]
                    continue
                label = s.t("models.training", scheme=cached.names(s.lang)[name])
                bar = st.progress(0.0, text=label)
                for p in classifier.train_classifier(name, seed):
                    histories[name] = p.history
                    bar.progress(p.step / p.steps, text=label)
                    ui.chart(curves_figure(histories, s.lang), f"models_live_{name}_{p.step}",
                             where=chart)
                runs[(name, seed)] = (p.history, p.model)
    done = True
if done:
    ui.chart(curves_figure({name: runs[(name, seed)][0] for name in classifier.SCHEMES}, s.lang),
             "models_live", where=chart)
    st.caption(s.t("models.live_caption"))
    st.markdown(f"**{s.t('models.verdict_head')}**")
    words = vocabulary()
    typed_ids, reversed_ids = words.encode(s.tokens), words.encode(s.tokens[::-1])
    verdicts = pd.DataFrame([{
        s.t("models.col.classifier"): cached.names(s.lang)[name],
        s.t("models.col.typed"): classifier.in_order_probability(runs[(name, seed)][1], typed_ids),
        s.t("models.col.reversed"): classifier.in_order_probability(runs[(name, seed)][1],
                                                                    reversed_ids),
    } for name in classifier.SCHEMES])
    st.table(verdicts.style.format("{:.4f}", subset=verdicts.columns[1:]), hide_index=True)
    st.caption(s.t("models.verdict_caption"))
