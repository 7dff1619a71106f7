"""The registry of position schemes (posviz/schemes.py): what each stack offers, what the
browser is sent, and that every entry can run where it is offered."""

import json

import numpy as np
import pytest

from posviz import classifier, schemes
from posviz.attention import ATTENTION_SCHEMES, attention_stack
from posviz.embedding import token_embeddings
from posviz.model import MODEL_SCHEMES
from posviz.published import value
from posviz.train import MODELS


def test_each_stack_lists_its_schemes_in_the_registry_s_order():
    assert ATTENTION_SCHEMES == ("none", "sinusoidal", "rope", "alibi", "partial_rope")
    assert MODEL_SCHEMES == ("none", "sinusoidal", "learned", "rope", "alibi")
    assert classifier.CLASSIFIER_SCHEMES == ("none", "sinusoidal", "rope")
    for stack in schemes.STACKS:
        assert schemes.offered(stack) == tuple(each.name for each in schemes.SCHEMES
                                               if stack in each.stacks)


def test_the_trained_models_are_the_files_they_were_trained_as():
    """assets/models/*.pt are fixed: the models offer exactly the schemes trained there."""
    assert sorted(MODEL_SCHEMES) == sorted(path.stem for path in MODELS.glob("*.pt"))


def test_a_trained_model_turns_only_whole_heads_in_pairs():
    """posviz.model's rotate turns every pair of a head, interleaved: a rotating scheme the
    trained stacks offer must be that one."""
    for stack in ("models", "classifier"):
        for name in schemes.offered(stack):
            entry = schemes.position_scheme(name, stack)
            if entry.kind == "rotate":
                assert dict(entry.params) == {"fraction": 1.0, "pairing": "interleaved"}


def test_partial_rope_reads_qwen3_next_s_published_fraction():
    entry = schemes.position_scheme("partial_rope")
    assert entry.params["fraction"] == value("qwen3_next_80b_a3b", "partial_rotary_factor")
    assert entry.params["model"] == "qwen3_next_80b_a3b"
    assert entry.stacks == ("attention",)  # not the lesson's models, not the trained ones


def test_the_browser_is_sent_the_stand_in_stack_s_entries_as_json():
    sent = schemes.browser_schemes()
    assert [each["name"] for each in sent] == list(ATTENTION_SCHEMES)
    assert json.loads(json.dumps(sent)) == sent
    assert {each["kind"] for each in sent} <= set(schemes.KINDS)


@pytest.mark.parametrize("name", ATTENTION_SCHEMES)
def test_every_offered_scheme_runs_in_the_stand_in_stack(name):
    run = attention_stack(token_embeddings(list("刚想到了"), 32), 2, 2, name)
    np.testing.assert_allclose(run.weights[-1].sum(axis=-1), 1.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize(("name", "stack"), [("learned", "attention"), ("partial_rope", "models"),
                                             ("alibi", "classifier"), ("xpos", "attention")])
def test_a_scheme_a_stack_does_not_offer_is_refused_by_name(name, stack):
    with pytest.raises(ValueError, match=f"scheme must be one of .*got '{name}'"):
        schemes.position_scheme(name, stack)


def test_an_entry_is_checked_when_written():
    with pytest.raises(ValueError, match="kind must be one of"):
        schemes.PositionScheme("x", "added", {"attention": "attention.schemes.x"})
    with pytest.raises(ValueError, match="table must be one of"):
        schemes.PositionScheme("x", "input", {"attention": "attention.schemes.x"})
    with pytest.raises(ValueError, match="stacks must be among"):
        schemes.PositionScheme("x", "none", {"lesson": "attention.schemes.x"})
