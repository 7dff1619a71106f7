"""Embedding + position: what a token means, where it stands, and their sum."""

import numpy as np

import ui
from posviz.embedding import cosine_similarity, repeat_distances, token_embeddings
from posviz.figures.common import token_heatmap
from posviz.figures.embedding import PANEL_FILES, aligned_heatmaps
from posviz.sinusoidal import FORMULA, mean_row_norms, sinusoidal
from posviz.tokens import repeated, token_labels
from ui.cached.lesson import rows_title

COLUMNS = ("token", "first", "second", "embedding_distance", "input_distance")


def body(d: ui.Doc, s: ui.Settings) -> None:
    ui.need_tokens(d, s)
    d.markdown(s.prose("embedding"))

    d_model = d.slider(s.t("embedding.d_model"), 4, 128, 16, step=2, key="embedding_d",
                       help=s.t("embedding.d_model_help"))
    E = token_embeddings(s.tokens, d_model)
    P = sinusoidal(len(s.tokens), d_model) if s.position else np.zeros_like(E)
    labels = token_labels(s.tokens)
    repeats = repeated(s.tokens)
    marked = sorted(t for ts in repeats.values() for t in ts)

    d.formula(r"x_t = E[\text{token}_t] + PE_t,\qquad " + FORMULA)
    d.chart(aligned_heatmaps(
        [E, P, E + P],
        [s.t("embedding.panel_e"), s.t("embedding.panel_p"), s.t("embedding.panel_x")],
        labels, title=s.t(rows_title(marked)), x_title=s.t("common.dimension_axis"),
        y_title=s.t("common.token_axis"), marked_rows=marked,
        files=[PANEL_FILES[key] for key in ("panel_e", "panel_p", "panel_x")]), "sum")
    d.caption(s.t("embedding.sum_caption"))
    if s.position:
        e_norm, scaled_norm, p_norm = mean_row_norms(E)
        d.caption(s.t("embedding.scale_note", d=d_model, e=e_norm, scaled=scaled_norm, p=p_norm))
    else:
        d.warning(s.t("embedding.bag"))

    if repeats:
        d.subheader(s.t("embedding.repeats_head"))
        d.dataframe(repeat_distances(s.tokens, E, E + P),
                    {key: s.t(f"embedding.col.{key}") for key in COLUMNS})
        d.caption(s.t("embedding.repeats_caption"))
    else:
        d.info(s.t("embedding.try_repeats"))

    d.subheader(s.t("embedding.similarity_head"))
    d.caption(s.t("embedding.similarity_caption"))
    for col, (matrix, key) in zip(d.columns(3), [(E, "panel_e"), (P, "panel_p"),
                                                 (E + P, "panel_x")], strict=True):
        col.chart(token_heatmap(
            cosine_similarity(matrix), labels, labels, title=s.t(f"embedding.{key}"),
            x_title=s.t("common.token_axis"), y_title=s.t("common.token_axis"),
            value_name=s.t("embedding.cosine"), zmin=-1.0, zmax=1.0), f"similarity_{key}")


if __name__ == "__main__":
    ui.run("embedding", body)
