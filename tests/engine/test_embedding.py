"""Token embeddings: one vector per token string, whatever its position or process."""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from posviz.embedding import cosine_similarity, repeat_distances, token_embeddings


def test_same_token_same_row_at_any_position_and_sentence():
    a = token_embeddings(["刚", "想", "到", "了", "刚"], 16)
    b = token_embeddings(["了", "到", "想", "刚"], 16)
    assert a.shape == (5, 16)
    np.testing.assert_array_equal(a[0], a[4])
    np.testing.assert_array_equal(a[0], b[3])
    np.testing.assert_array_equal(a[3], b[0])
    assert not np.allclose(a[0], a[1])


def test_rows_do_not_depend_on_python_hash_randomisation():
    code = ("from posviz.embedding import token_embeddings;"
            "print(repr(token_embeddings(['刚', 'cat'], 4).tolist()))")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True, env={"PYTHONHASHSEED": seed, "PYTHONPATH": "."}).stdout
               for seed in ("1", "2", "3")}
    assert len(outputs) == 1
    assert outputs.pop().strip() == repr(token_embeddings(["刚", "cat"], 4).tolist())


def test_seed_changes_the_table_and_longer_vectors_extend_shorter_ones():
    assert not np.allclose(token_embeddings(["a"], 8, seed=0), token_embeddings(["a"], 8, seed=1))
    np.testing.assert_array_equal(token_embeddings(["a"], 8), token_embeddings(["a"], 32)[:, :8])


def test_entries_look_standard_normal():
    e = token_embeddings([f"w{i}" for i in range(500)], 64)
    assert abs(e.mean()) < 0.02 and abs(e.std() - 1) < 0.02


def test_empty_sentence_and_bad_size():
    assert token_embeddings([], 8).shape == (0, 8)
    with pytest.raises(ValueError, match="d_model"):
        token_embeddings(["a"], 0)


@given(st.lists(st.text(min_size=1), min_size=1, max_size=6))
def test_any_token_text_works(tokens):
    e = token_embeddings(tokens, 4)
    assert e.shape == (len(tokens), 4) and np.isfinite(e).all()


def test_cosine_similarity_against_a_loop():
    x = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0], [-2.0, 0.0]])
    expected = np.zeros((4, 4))
    for s in range(4):
        for t in range(4):
            ns, nt = np.linalg.norm(x[s]), np.linalg.norm(x[t])
            expected[s, t] = 0.0 if ns == 0 or nt == 0 else x[s] @ x[t] / (ns * nt)
    np.testing.assert_allclose(cosine_similarity(x), expected, atol=1e-15)


def test_repeat_distances_zero_in_embedding_nonzero_with_position():
    tokens = ["the", "cat", "saw", "the", "dog"]
    e = token_embeddings(tokens, 8)
    x = e + np.arange(5)[:, None]
    (row,) = repeat_distances(tokens, e, x)
    assert (row["token"], row["first"], row["second"]) == ("the", 0, 3)
    assert row["embedding_distance"] == 0.0
    assert row["input_distance"] == pytest.approx(3 * np.sqrt(8))
    assert repeat_distances(["a", "b"], e[:2], e[:2]) == []
