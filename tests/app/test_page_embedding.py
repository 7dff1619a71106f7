"""The embedding page decides what P is: the sinusoidal table, or zeros without position."""

import json

import numpy as np
from streamlit.testing.v1 import AppTest

from posviz.embedding import token_embeddings
from posviz.figures.common import as_array as array
from posviz.sinusoidal import sinusoidal
from tests.helpers.figure_data import chart_specs
from ui.i18n import text


def sum_panels(at):
    """E, P and E + P from the page's first chart."""
    return [array(trace["z"]) for trace in chart_specs(at)[0]["data"]]


def test_inputs_are_embedding_plus_sinusoid_and_equal_embedding_without_position():
    at = AppTest.from_file("../../pages/1_embedding.py", default_timeout=60).run()
    at.text_input(key="text").set_value("刚想到了刚").run()
    e, p, x = sum_panels(at)
    np.testing.assert_allclose(e, token_embeddings(list("刚想到了刚"), 16), atol=1e-6)
    np.testing.assert_allclose(p, sinusoidal(5, 16), atol=1e-6)
    np.testing.assert_array_equal(e[0], e[4])
    assert not np.allclose(x[0], x[4])

    at.toggle(key="pos").set_value(False).run()
    assert not at.exception
    e, p, x = sum_panels(at)
    assert not p.any()
    np.testing.assert_array_equal(x, e)
    np.testing.assert_array_equal(x[0], x[4])
    assert at.dataframe[0].value[text("embedding.col.input_distance", "en")].tolist() == ["0"]


def test_d_model_slider_sets_the_width():
    at = AppTest.from_file("../../pages/1_embedding.py", default_timeout=60).run()
    at.slider(key="embedding_d").set_value(128).run()
    assert not at.exception
    assert sum_panels(at)[0].shape == (4, 128)


def test_the_diamond_is_explained_only_when_a_token_repeats():
    """The ◆ marks repeated tokens: the title explains it only when the sentence has one, on
    the page and in the lesson's third scene (the first always has one: the copied token)."""
    from ui import documents
    from ui.i18n import text

    def titles(page: str, typed: str) -> list[str]:
        blocks = documents.drawn(page, {"text": [typed], "scene": ["3"]}, "en")
        return [json.loads(b["figure"])["layout"]["title"]["text"] for b in blocks
                if b["t"] == "chart"]

    for page in ("embedding", "lesson"):
        assert text("embedding.fig_rows", "en") in titles(page, "the cat sat")
        assert text("embedding.fig_sum", "en") in titles(page, "the cat saw the dog")


def test_the_page_says_how_large_p_is_beside_e_and_sqrt_d_e_with_live_numbers():
    """The original Transformer adds sqrt(d_model)·E: the page quotes the mean row lengths of
    E, of sqrt(d_model)·E and of P for the width on screen, in both languages."""
    from ui.i18n import text

    at = AppTest.from_file("../../pages/1_embedding.py", default_timeout=60).run()
    for lang, d_model in (("en", 16), ("zh", 16), ("zh", 64), ("en", 128)):
        at.radio(key="lang").set_value(lang)
        at.slider(key="embedding_d").set_value(d_model).run()
        assert not at.exception
        e = token_embeddings(list("刚想到了"), d_model)
        lengths = np.sqrt((e ** 2).sum(axis=1))
        p = np.sqrt((sinusoidal(4, d_model) ** 2).sum(axis=1))
        np.testing.assert_allclose(p, np.sqrt(d_model / 2))
        said = text("embedding.scale_note", lang, d=d_model, e=lengths.mean(),
                    scaled=np.sqrt(d_model) * lengths.mean(), p=p.mean())
        assert said in [caption.value for caption in at.caption]
        assert f"{np.sqrt(d_model) * lengths.mean():.2f}" in said and f"{p.mean():.2f}" in said
    at.toggle(key="pos").set_value(False).run()
    assert not [c for c in at.caption if c.value.startswith(said[:10])]
