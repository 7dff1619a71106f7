"""M-RoPE as Qwen2-VL and Qwen3-VL lay it out (posviz/multimodal.py) against Hugging Face's own
rotary modules and position functions, with the published sections (assets/models/schemes.toml)."""

from types import SimpleNamespace

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig
from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding
from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig
from transformers.models.qwen3_vl.modeling_qwen3_vl import (
    Qwen3VLModel,
    Qwen3VLTextRotaryEmbedding,
    apply_rotary_pos_emb,
)

from posviz import modern, multimodal
from posviz.modern import value

RNG = np.random.default_rng(11)
OLD, NEW = (tuple(value(m, "mrope_section")) for m in ("qwen2_vl_7b", "qwen3_vl_8b"))


def theirs(rotary_class, config_class, sections, base, x, positions) -> np.ndarray:
    """x (T, d) turned by Hugging Face's rotary module for these 3 x T position ids."""
    config = config_class(head_dim=x.shape[-1], hidden_size=64, num_attention_heads=2,
                          rope_parameters={"rope_type": "default", "rope_theta": base,
                                           "mrope_section": list(sections)})
    rotary = rotary_class(config)
    ids = torch.tensor(np.asarray(positions))[:, None, :]                  # (3, 1, T)
    cos, sin = rotary(torch.zeros(1, dtype=torch.float64), ids)
    q = torch.tensor(x)[None, None]
    return apply_rotary_pos_emb(q, q, cos.double(), sin.double())[0][0, 0].numpy()


def test_qwen3_vl_interleaves_its_published_sections_as_transformers_does():
    base = value("qwen3_vl_8b", "rope_theta")
    positions = np.array([[0, 4, 4, 4, 9], [0, 4, 5, 6, 9], [0, 4, 7, 5, 9]])
    x = RNG.normal(size=(5, value("qwen3_vl_8b", "head_dim")))
    ours = multimodal.multimodal_rope(x, positions, multimodal.axes(NEW, "interleaved"), base)
    np.testing.assert_allclose(ours, theirs(Qwen3VLTextRotaryEmbedding, Qwen3VLTextConfig, NEW,
                                            base, x, positions), atol=1e-4)


def test_qwen2_vl_keeps_its_published_sections_in_blocks_as_transformers_does():
    base = value("qwen2_vl_7b", "rope_theta")
    positions = np.array([[0, 1, 1, 2, 4], [0, 1, 2, 1, 4], [0, 1, 3, 2, 4]])
    x = RNG.normal(size=(5, 2 * sum(OLD)))
    ours = multimodal.multimodal_rope(x, positions, multimodal.axes(OLD, "contiguous"), base)
    np.testing.assert_allclose(ours, theirs(Qwen2VLRotaryEmbedding, Qwen2VLTextConfig, OLD,
                                            base, x, positions), atol=1e-4)
    np.testing.assert_array_equal(multimodal.axes(OLD, "contiguous"), modern.mrope_axes(OLD))


def test_the_interleaving_gives_each_axis_its_section_and_fast_and_slow_pairs():
    axes = multimodal.axes(NEW, "interleaved")
    assert [int((axes == a).sum()) for a in range(3)] == list(NEW)
    assert axes[:6].tolist() == [0, 1, 2, 0, 1, 2]
    for a in range(3):  # every axis has a pair among the eight fastest and the eight slowest
        assert (axes[:8] == a).any() and (axes[-8:] == a).any()
    assert int((axes != multimodal.axes(NEW, "contiguous")).sum()) == 43


@given(st.lists(st.integers(0, 5000), min_size=1, max_size=6), st.sampled_from(["interleaved",
                                                                                "contiguous"]))
@settings(max_examples=30, deadline=None)
def test_text_turns_the_same_in_either_layout_as_plain_rope(positions, layout):
    """A text token has the same id on every axis: M-RoPE is RoPE for it, in any layout."""
    x = RNG.normal(size=(len(positions), 128))
    ids = np.stack([positions] * 3)
    np.testing.assert_allclose(
        multimodal.multimodal_rope(x, ids, multimodal.axes(NEW, layout), 5e6),
        modern.rope_by_rotate_half(x, np.array(positions), 5e6), atol=1e-9)


def hf_positions(kinds: list[str], image=None, video=None) -> np.ndarray:
    """Hugging Face's Qwen3-VL get_rope_index for this sequence of kinds (text and stamps are
    text, patches an image's or a video's), spatial merge 1."""
    kind_id = 2 if video is not None else 1
    types = torch.tensor([[0 if k != "patch" else kind_id for k in kinds]])
    model = SimpleNamespace(config=SimpleNamespace(vision_config=SimpleNamespace(
        spatial_merge_size=1)))
    model.get_vision_position_ids = Qwen3VLModel.get_vision_position_ids.__get__(model)
    ids, _ = Qwen3VLModel.get_rope_index(
        model, torch.zeros_like(types), types,
        image_grid_thw=None if image is None else torch.tensor([image]),
        video_grid_thw=None if video is None else torch.tensor([video]))
    return ids[:, 0].numpy()


@pytest.mark.parametrize(("before", "rows", "cols", "after"), [(1, 2, 3, 3), (4, 3, 2, 1),
                                                                (0, 1, 5, 2)])
def test_an_images_ids_are_qwen3_vls_and_qwen2_vls_alike(before, rows, cols, after):
    ids, kinds = multimodal.image_positions(before, rows, cols, after)
    np.testing.assert_array_equal(ids, hf_positions(kinds, image=[1, rows, cols]))
    np.testing.assert_array_equal(ids, modern.mrope_positions(before, (1, rows, cols), after))


@pytest.mark.parametrize(("frames", "rows", "cols", "stamp"), [(2, 2, 3, 1), (3, 1, 2, 4)])
def test_a_videos_ids_with_timestamps_are_qwen3_vls(frames, rows, cols, stamp):
    ids, kinds = multimodal.video_positions(1, frames, rows, cols, stamp, 2)
    np.testing.assert_array_equal(ids, hf_positions(kinds, video=[frames, rows, cols]))
    assert kinds.count("stamp") == frames * stamp
    patches = ids[0][np.array(kinds) == "patch"].reshape(frames, -1)
    assert (patches == patches[:, :1]).all()  # one time id per frame: time is in the stamps


def test_a_videos_ids_without_timestamps_are_qwen2_vls():
    ids, kinds = multimodal.video_positions(2, 3, 2, 2, 1, 2, timestamps=False)
    np.testing.assert_array_equal(ids, modern.mrope_positions(2, (3, 2, 2), 2))
    assert "stamp" not in kinds


@pytest.mark.parametrize("sections", [(16, 24, 24), (24, 20, 20), (2, 3, 3), (8, 4, 4)])
def test_moved_pairs_count_the_pairs_interleaving_gives_another_axis(sections):
    """Pair by pair: block j's axis (its section's) against the interleaved one (height when
    j % 3 == 1 and j < 3 h, width when j % 3 == 2 and j < 3 w, time otherwise)."""
    blocks = [axis for axis, n in enumerate(sections) for _ in range(n)]
    mixed = [1 if j % 3 == 1 and j < 3 * sections[1] else
             2 if j % 3 == 2 and j < 3 * sections[2] else 0 for j in range(sum(sections))]
    assert multimodal.pair_count(sections) == len(blocks) == sum(sections)
    assert multimodal.moved_pairs(sections) == sum(a != b for a, b in zip(blocks, mixed,
                                                                          strict=True))


@pytest.mark.parametrize(("frames", "rows", "cols"), [(2, 2, 3), (1, 4, 1), (3, 1, 5)])
def test_patch_place_counts_a_videos_patches_in_reading_order(frames, rows, cols):
    places = [(f, r, c) for f in range(frames) for r in range(rows) for c in range(cols)]
    assert [multimodal.patch_place(n, rows, cols) for n in range(len(places))] == places


def test_a_layout_or_sections_the_models_do_not_have_are_refused():
    with pytest.raises(ValueError, match="layout"):
        multimodal.axes(NEW, "diagonal")
    with pytest.raises(ValueError, match="three positive"):
        multimodal.axes((32, 32), "contiguous")
