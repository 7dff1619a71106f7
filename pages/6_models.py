"""Trained models: learned attention, next-token guesses, learned positions, extrapolation, and
a live experiment on telling order without position."""

import math

import numpy as np
import plotly.graph_objects as go
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

import ui
from posviz import classifier, extension, rope
from posviz.corpus import UNKNOWN, vocabulary
from posviz.figures import models as figures
from posviz.figures.rope import line_chart
from posviz.model import MODEL_SCHEMES
from posviz.schemes import position_scheme
from ui.cached import models as cached
from ui.i18n import text

WAIT = 0.5  # seconds between two showings of a queued reader's place
BLOCK = 8  # positions averaged into one point of the stretched model's losses (noise)


def curves_figure(histories: dict, lang: str) -> go.Figure:
    return figures.training_curves(
        histories, cached.names(lang), title=text("models.live_title", lang),
        step_title=text("models.step", lang), loss_title=text("models.loss", lang),
        accuracy_title=text("models.accuracy", lang), chance_name=text("models.chance", lang))


def training_text(s: ui.Settings, k: int, name: str, left: float | None) -> str:
    """Which classifier trains (k of n, its name), and about how long the rest will take."""
    estimate = (s.t("models.left_unknown") if left is None else
                s.t("models.left", seconds=math.ceil(left)))
    return s.t("models.training", k=k, n=len(classifier.CLASSIFIER_SCHEMES),
               scheme=cached.names(s.lang)[name], left=estimate)


def trained_text(s: ui.Settings, took: dict[str, float]) -> str:
    """How long the classifiers trained here took, each and together."""
    each = " · ".join(s.t("models.took_one", scheme=cached.names(s.lang)[name],
                          seconds=f"{seconds:.1f}") for name, seconds in took.items())
    return s.t("models.trained", n=len(took), seconds=f"{sum(took.values()):.1f}", each=each)


def queued_text(s: ui.Settings, ahead: int) -> str:
    """Where a reader waits in the server's line for a training, ahead readers before them."""
    return (s.t("models.queued_second") if ahead == 1 else
            s.t("models.queued", place=ahead + 1, waiting=ahead - 1))


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
            chart.info(queued_text(s, ahead))
        histories, took = {}, {}
        n = len(classifier.CLASSIFIER_SCHEMES)
        with classifier.torch_threads(1):
            for k, name in enumerate(classifier.CLASSIFIER_SCHEMES, 1):
                if (name, seed) in runs:  # done: for another reader, or by a run cut short
                    histories[name] = runs[(name, seed)][0]
                    continue
                to_come = sum((later, seed) not in runs
                              for later in classifier.CLASSIFIER_SCHEMES[k:])
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


def stretch_run(s: ui.Settings, status: DeltaGenerator, waiting: ui.Doc) -> None:
    """Run the context-extension experiment here, showing its progress in status (a Streamlit
    placeholder), behind any training another reader started (one at a time per process); a
    run another reader finished while this one waited is kept instead."""
    done, line = cached.stretches(), cached.trainings()
    steps = extension.RECALIBRATION_STEPS
    before = done.get(steps)
    with line.joined() as ticket:
        while (ahead := line.wait(ticket, timeout=WAIT)) and done.get(steps) is before:
            waiting.info(queued_text(s, ahead))
        if done.get(steps) is not before:
            return
        methods = len(extension.METHODS)
        with classifier.torch_threads(1):
            for p in extension.run(steps):
                label = (s.t("models.stretch_measuring", k=p.done, n=methods)
                         if p.done <= methods else
                         s.t("models.stretch_recalibrating", k=p.done - methods, n=steps))
                status.progress(p.done / p.total, text=label)
        done[steps] = p.result
    status.empty()


def stretch_verdict(s: ui.Settings, result: extension.Extension) -> str:
    """What the run shows, decided by its numbers: which method reads past the training
    length best, and which leave the loss inside it within two standard errors."""
    inside, past = slice(0, result.trained), slice(result.trained, None)
    methods = [*extension.METHODS[1:], extension.DROPE]
    name = method_names(s.lang)
    best = min(methods, key=lambda m: result.mean(m)[past].mean())
    kept = [m for m in methods if abs((c := result.change(m, inside))[0]) <= 2 * c[1]]
    moved = [m for m in methods if m not in kept]
    listed = [s.t("models.list_separator").join(name[m] for m in group)
              or s.t("models.stretch_nobody") for group in (kept, moved)]
    rises = all(result.change(m, inside)[0] > 0 for m in moved)
    return s.t("models.stretch_verdict", best=name[best],
               best_loss=f"{result.mean(best)[past].mean():.2f}",
               original=f"{result.mean('original')[past].mean():.2f}",
               kept=listed[0], moved=listed[1],
               moves=s.t("models.stretch_rises" if rises else "models.stretch_changes"))


def method_names(lang: str) -> dict[str, str]:
    return {**{m: text(f"today.method_{m}", lang) for m in extension.METHODS},
            extension.DROPE: text("models.method_drope", lang)}


def stretch(d: ui.Doc, s: ui.Settings, report: dict) -> None:
    """The RoPE model stretched at inference by each method, and DroPE, run here on a press."""
    settings = report["settings"]
    train_len, eval_len = settings["train_len"], settings["eval_len"]
    d.subheader(s.t("models.stretch_head"))
    d.markdown(s.t("models.stretch_body", factor=f"{eval_len / train_len:g}", n=train_len,
                   long=eval_len, steps=extension.RECALIBRATION_STEPS,
                   windows=settings["eval_windows"]))
    done = cached.stretches()
    steps = extension.RECALIBRATION_STEPS
    start = d.button(s.t("models.stretch_again" if steps in done else "models.stretch_run"),
                     key="models_stretch", type="primary", help=s.t("models.stretch_help"))
    status = st.empty() if start else None  # a document has no progress bar: it never runs
    waiting = d.empty()
    if start:
        stretch_run(s, status, waiting)
    if steps not in done:
        return
    result = done[steps]
    name = method_names(s.lang)
    inside, past = slice(0, train_len), slice(train_len, None)
    blocks = np.arange(0, eval_len, BLOCK) + (BLOCK - 1) / 2  # each block's middle position
    waiting.chart(line_chart(blocks, {name[m]: result.mean(m).reshape(-1, BLOCK).mean(axis=1)
                                      for m in result.losses},
                             title=s.t("models.stretch_title", n=eval_len),
                             x_title=s.t("common.position_axis"), y_title=s.t("models.loss"),
                             marked_x=train_len - 0.5, dashed=(name["original"],)),
                  "models_stretch")
    changes = [result.change(m, inside) for m in result.losses]
    d.table({s.t("models.col.method"): [name[m] for m in result.losses],
             s.t("models.col.inside", last=train_len - 1): [
                 f"{result.mean(m)[inside].mean():.3f}" for m in result.losses],
             s.t("models.col.change"): [f"{c:+.4f} ± {e:.4f}" for c, e in changes],
             s.t("models.col.past", first=train_len, last=eval_len - 1): [
                 f"{result.mean(m)[past].mean():.3f}" for m in result.losses]})
    d.caption(s.t("models.stretch_caption", block=BLOCK))
    d.markdown(stretch_verdict(s, result))
    d.caption(yarn_ramps(s, settings["d_model"] // settings["n_heads"], train_len,
                         eval_len / train_len))


def yarn_ramps(s: ui.Settings, dim: int, train_len: int, factor: float) -> str:
    """How YaRN's two ramps treat the model's pairs: the code's (transformers') by pair index,
    the paper's by turns, which here keeps no pair's speed when the fastest pair turned fewer
    than beta times in training."""
    code, paper = (rope.yarn_ramp(dim, train_len, ramp=ramp) for ramp in ("code", "paper"))
    said = s.t("models.stretch_yarn", pairs=dim // 2, kept=int((code == 1).sum()),
               blended=int(((code > 0) & (code < 1)).sum()), slowed=int((code == 0).sum()),
               factor=f"{factor:g}")
    if (paper < 1).all():  # the paper's ramp keeps no pair's speed here
        theta = rope.rope_frequencies(dim)
        slowed = theta[0] / rope.context_frequencies("yarn", dim, factor, train_len,
                                                      ramp="paper")[0]
        said += ("" if s.lang == "zh" else " ") + s.t(
            "models.stretch_yarn_paper", beta=f"{rope.YARN_BETA:g}", n=train_len,
            turns=f"{train_len / rope.wavelengths(theta).min():.1f}", fast=f"{slowed:.1f}",
            factor=f"{factor:g}")
    return said


def body(d: ui.Doc, s: ui.Settings) -> None:
    ui.need_tokens(d, s)
    d.markdown(s.prose("models"))

    picked = d.coded_radio(s.t("models.scheme"), list(MODEL_SCHEMES), key="models_scheme",
                           format_func=cached.names(s.lang).get, horizontal=True,
                           disabled=not s.position, help=s.t("models.scheme_help"))
    scheme = picked if s.position else "none"
    if not s.position:
        d.info(s.t("models.position_off"))
    model, vocab = cached.trained(scheme)
    tokens = s.tokens
    if position_scheme(scheme, "models").learned_table and len(tokens) > model.config.max_len:
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
        {name: r["models"][name]["position_loss"] for name in MODEL_SCHEMES}, cached.names(s.lang),
        train_len, title=s.t("models.extrapolation_title", last=r["settings"]["eval_len"] - 1),
        x_title=s.t("common.position_axis"), y_title=s.t("models.loss"),
        trained_name=s.t("models.trained_length", n=train_len)), "models_extrapolation")
    d.caption(s.t("models.extrapolation_caption", n=train_len, last=train_len - 1))
    models = [(name, r["models"][name]) for name in MODEL_SCHEMES]
    d.table({
        s.t("models.col.scheme"): [cached.names(s.lang)[name] for name, _ in models],
        s.t("models.col.eval_loss", n=train_len): [f"{m['eval_loss']:.3f}" for _, m in models],
        s.t("models.col.p_gang"): [f"{m['probes'][0]['p_target']:.3g}" for _, m in models],
        s.t("models.col.p_le"): [f"{m['probes'][1]['p_target']:.3g}" for _, m in models],
        s.t("models.col.size"): [f"{m['bytes'] / 1e6:.2f}" for _, m in models],
        s.t("models.col.seconds"): [f"{m['seconds']:.1f}" for _, m in models]})
    d.caption(s.t("models.table_caption", steps=r["settings"]["steps"], seconds=r["seconds"]))
    d.markdown(s.prose("models_scale"))
    stretch(d, s, r)

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
    chart.chart(curves_figure({name: runs[(name, seed)][0]
                               for name in classifier.CLASSIFIER_SCHEMES}, s.lang), "models_live")
    d.caption(s.t("models.live_caption"))
    d.markdown(f"**{s.t('models.verdict_head')}**")
    words = vocabulary()
    typed_ids, reversed_ids = words.encode(s.tokens), words.encode(s.tokens[::-1])
    d.table({
        s.t("models.col.classifier"): [cached.names(s.lang)[name]
                                       for name in classifier.CLASSIFIER_SCHEMES],
        s.t("models.col.typed"): [
            f"{classifier.in_order_probability(runs[(name, seed)][1], typed_ids):.4f}"
            for name in classifier.CLASSIFIER_SCHEMES],
        s.t("models.col.reversed"): [
            f"{classifier.in_order_probability(runs[(name, seed)][1], reversed_ids):.4f}"
            for name in classifier.CLASSIFIER_SCHEMES]})
    d.caption(s.t("models.verdict_caption"))


if __name__ == "__main__":
    ui.run("models", body)
