"""Doc.formula's parts: a formula may break between them on a narrow screen, never inside."""

import importlib

import pytest

from ui.doc import formula_parts


def test_a_formula_is_cut_at_its_top_level_wide_spaces():
    assert formula_parts(r"a = b,\qquad c = d \qquad e") == ["a = b,", "c = d", "e"]
    assert formula_parts(r"x^2") == [r"x^2"]


def test_braces_environments_and_escaped_braces_keep_their_wide_spaces():
    grouped = r"{a \qquad b}"
    assert formula_parts(grouped) == [grouped]
    gathered = r"\begin{gathered} a \qquad b \\ c \end{gathered}"
    assert formula_parts(gathered + r"\qquad d") == [gathered, "d"]
    escaped = r"\{ a \qquad b \}"
    assert formula_parts(escaped) == [r"\{ a", r"b \}"]


@pytest.mark.parametrize("module, name", [
    ("attention", "FORMULA"), ("attention", "LAYER_FORMULA"), ("sinusoidal", "FORMULA"),
    ("rope", "FORMULA"), ("rope", "FORMULA_HALF"), ("rope", "SCORE_FORMULA"),
    ("rope", "DECAY_FORMULA"), ("rope", "CONTEXT_FORMULA"), ("alibi", "FORMULA"),
    ("alibi", "KEY_FORMULA"), ("relative", "FORMULA")])
def test_every_part_of_the_app_s_formulas_has_balanced_braces(module, name):
    tex = getattr(importlib.import_module(f"posviz.{module}"), name)
    parts = formula_parts(tex)
    assert r"\qquad".join(parts).replace(" ", "") == tex.replace(" ", "")
    for part in parts:
        unescaped = part.replace(r"\{", "").replace(r"\}", "")
        assert unescaped.count("{") == unescaped.count("}"), part
        assert part.count(r"\begin{") == part.count(r"\end{"), part
