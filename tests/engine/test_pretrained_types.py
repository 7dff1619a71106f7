"""Every causal language model type transformers knows, made tiny and read by posviz
(tests/helpers/model_types.py): read right (position on and off equal to transformers' own runs
layer by layer, the scheme named the model's), refused in words, or not built tiny here; and
docs/models.md says so, line for line. The types are split into GROUPS tests, so that the
suite's workers share them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.model_types import TYPES, survey, table

GROUPS = 8
DOC = Path(__file__).resolve().parents[2] / "docs" / "models.md"
MUST_READ = {"llama": "RoPE", "gemma3_text": "(full_attention)", "gpt2": "learned",
             "bloom": "ALiBi", "llama4_text": ": none", "qwen3_next": "mix tokens otherwise",
             "xglm": "sinusoidal", "mistral": "RoPE", "qwen2": "RoPE", "gpt_neox": "RoPE"}
"""Types a lecturer is likely to have, and a piece of what posviz must say of each."""


@pytest.mark.parametrize("group", range(GROUPS))
def test_every_causal_model_type_is_read_right_or_refused_in_words(group, tmp_path):
    rows = [survey(kind, tmp_path / kind) for kind in TYPES[group::GROUPS]]
    assert {r.model_type: r.problems for r in rows if r.problems} == {}
    for row in rows:
        if row.model_type in MUST_READ:
            assert row.outcome == "read" and MUST_READ[row.model_type] in row.said, row
    written = DOC.read_text(encoding="utf-8").splitlines()
    for line in table(rows).splitlines()[4:]:
        assert line in written, f"docs/models.md does not say: {line}"
