"""The page on today's models: every scheme drawn with the published values, the numbers its
texts quote computed, and every value of its table sourced."""

import json
import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz import frontier, modern
from posviz.embedding import token_embeddings
from posviz.figures.common import as_array as array
from posviz.permutation import readable, reversal
from tests.helpers.figure_data import chart_blocks
from tests.helpers.lesson import lesson, reveal
from ui.documents import blocks
from ui.i18n import text

PAGE = "../../pages/7_today.py"


def page(lang: str = "en", sentence: str = "刚想到了") -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.query_params.update({"lang": lang, "text": sentence})
    at.run()
    assert not at.exception
    return at


def charts(sentence: str = "刚想到了", lang: str = "en") -> dict[str, dict]:
    """The page's charts by name, those in its columns too."""
    return {block["name"]: json.loads(block["figure"])
            for block in chart_blocks(blocks("today", f"text={sentence}", lang))}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sentence", ["刚想到了", "x", "the cat sat on the mat"])
def test_the_page_draws_every_scheme_in_both_languages(lang, sentence):
    at = page(lang, sentence)
    assert at.title[0].value == text("today.title", lang)
    assert float(at.metric[0].value) < 1e-12  # complex product = rotation matrix
    assert {"today_partial", "today_mla", "today_irope", "today_temperature", "today_llama",
            "today_grid_h", "today_grid_w", "today_gemma"} <= set(charts(sentence, lang))


def test_the_mla_text_quotes_deepseek_v3s_cache():
    said = next(m.value for m in page().markdown if "576" in m.value)
    assert "512 + 64 = 576" in said and "128 × (128 + 64 + 128) = 40,960" in said
    bars = charts()["today_mla"]["data"][0]
    assert bars["text"] == ["40,960", "20,480", "576"]


def test_llama_31s_bands_are_counted_from_its_published_scaling():
    said = next(m.value for m in page().markdown if "Llama 3.1 was pre-trained" in m.value)
    assert "29 keep their speed, 6 blend, 29 slow down" in said
    # 8,192 x 8 = 65,536, half of 131,072: the slowest pairs still turn twice as far
    assert "reaches 131,072 (16 times as long)" in said and "cover 65,536 positions" in said
    assert "up to 2 times as far" in said and "sec. 3.4.2" in said
    curves = {t["name"] for t in charts()["today_llama"]["data"]}
    assert curves == {text(f"today.method_{m}", "en") for m in
                      ("original", "pi", "ntk", "yarn", "yarn_paper", "llama3")}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_dynamic_ntk_at_s_times_the_length_is_said_not_to_be_ntk_aware_scaling(lang):
    """Llama 3.1's numbers: at n = 8 * 8,192 dynamic NTK's bracket is 64 - 7 = 57, base
    500,000 * 57^(64/63) = 30,388,964 against NTK-aware's 500,000 * 8^(64/63) = 4,134,231."""
    said = text("today.dynamic_not_ntk", lang, dim=128, base="500,000", original="8,192",
                factor="8", full="65,536", dynamic=f"{500_000 * 57 ** (64 / 63):,.0f}",
                ntk=f"{500_000 * 8 ** (64 / 63):,.0f}", meet="15,360")
    assert "30,388,964" in said and "4,134,231" in said
    assert said in [c.value for c in page(lang).caption]


@pytest.mark.parametrize(("chart", "dim", "factor", "original", "base", "pair", "ratio"), [
    ("today_llama", 128, 8.0, 8192, 500_000.0, 28, "2.26"),
    ("today_longrope", 96, 32.0, 4096, 10_000.0, 29, "3.67")])
def test_each_yarn_curve_names_its_ramp_and_the_caption_their_gap(chart, dim, factor, original,
                                                                   base, pair, ratio):
    """The curve named for the code's ramp is what transformers runs (a port of YaRN's code),
    the paper's is the paper's formula; the caption quotes where they differ most."""
    from tests.engine.test_rope import slow_yarn_code, slow_yarn_paper

    drawn = {t["name"]: array(t["y"]) for t in charts()[chart]["data"]}
    code = np.array(slow_yarn_code(dim, original, base, factor))
    paper = np.array(slow_yarn_paper(dim, original, base, factor))
    np.testing.assert_allclose(drawn[text("today.method_yarn", "en")], 2 * np.pi / code,
                               rtol=1e-6)
    np.testing.assert_allclose(drawn[text("today.method_yarn_paper", "en")], 2 * np.pi / paper,
                               rtol=1e-6)
    assert int(np.argmax(code / paper)) == pair and f"{(code / paper).max():.2f}" == ratio
    for lang in ("en", "zh"):
        assert text("today.yarn_ramps", lang, pair=pair, ratio=ratio) in [
            c.value for c in page(lang).caption]


def test_mrope_numbers_the_sentence_around_an_image():
    table = next(b for b in blocks("today", "text=刚想到了", "en") if b["t"] == "table"
                 and text("today.mrope_col.t", "en") in b["head"])
    cells = [str(c) for row in table["rows"] for c in row]
    ids = modern.mrope_positions(1, (1, 2, 3), 3)
    assert table["rows"][0] == ["刚", "0", "0", "0"] and table["rows"][-1] == ["了", "6", "6", "6"]
    assert text("today.patch", "en", r=1, c=2) in cells
    # 刚 at 0; the 2 x 3 patches from 1 (widths 1..3); 想到了 from the largest plus one
    assert ids[:, 0].tolist() == [0, 0, 0] and ids[:, -3:].tolist() == [[4, 5, 6]] * 3
    assert charts()["today_grid_w"]["data"][-1]["x"] == ["0", "1", "2"]


def test_the_models_table_shows_the_published_values():
    table = page().table[0].value
    rows = {row.iloc[0]: row.tolist()[1:] for _, row in table.iterrows()}
    assert len(rows) == 12
    assert rows["Llama 3.1 8B"][1:] == ["500,000", "128", "131,072", "llama3 ×8"]
    assert rows["DeepSeek-V3"][1:] == ["10,000", "64", "163,840", "yarn ×40"]
    assert rows["Phi-2"][2] == "32" and rows["GPT-NeoX 20B"][2] == "24"
    assert rows["Gemma 3 27B"][1] == "10,000 / 1,000,000"
    assert rows["Mistral 7B v0.1"][4] == text("today.none", "en")
    assert rows["Qwen2-VL 7B"][4] == text("today.not_extension.mrope", "en")  # not a stretch
    assert rows["Qwen3-Next 80B-A3B"][1] == "10,000,000"  # its 80B's own, not Coder-Next's


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_mistral_small_4s_query_scale_in_every_layer_steps_one_position_after_llama_4s(lang):
    """The table beside Llama 4's temperature reads Mistral Small 4's query scale (every
    layer, p) and Llama 4's (layers without position, p + 1) around each step, from the
    published values: they differ at position 8,191 only, and the text quotes them."""
    doc = blocks("today", "text=刚想到了", lang)
    [table] = [b for b in doc if b["t"] == "table"
               and b["head"][0] == text("today.scale_col.position", lang)]
    rows = {row[0]: row[1:] for row in table["rows"]}
    assert list(rows) == ["0", "8,191", "8,192", "32,768", "131,072", "524,288", "1,048,575"]
    assert rows["0"] == ["1.000", "1.000"] and rows["8,191"] == ["1.069", "1.000"]
    assert rows["8,192"] == ["1.069", "1.069"] and rows["1,048,575"] == ["1.486", "1.485"]
    assert all(a == b for p, (a, b) in rows.items() if p not in ("8,191", "1,048,575"))
    said = text("today.scale_body", lang, beta=0.1, original="8,192", context="1,048,576",
                factor="128", before="8,191", step="1.069", last="1.485", mini="16,384")
    assert said in [b.get("text") for b in doc]
    assert "llama_4_scaling_beta" in said and "16,384" in said


def test_the_two_pairings_differ_until_the_channels_are_reordered():
    at = page()
    metrics = {m.label: float(m.value) for m in at.metric}
    assert metrics[text("today.pairing_check", "en")] > 0.1  # different channel pairs
    reordered = next(c.value for c in at.caption if c.value.startswith("With the channels"))
    assert float(reordered.rsplit(" ", 1)[-1].rstrip(".")) < 1e-12


def test_the_mla_check_shows_a_different_absorbed_query_for_every_key():
    said = next(c.value for c in page().caption if c.value.startswith("Why the turned part"))
    rng = np.random.default_rng(0)
    q, w_uk = rng.normal(size=16), rng.normal(size=(16, 8))
    needed = modern.absorbed_queries(q, w_uk, 5, np.arange(6))
    assert readable(float(np.abs(needed - needed[:, None]).max())) in said
    assert float(np.abs(needed - needed[:, None]).max()) > 0.1


def test_qwen3_next_rotates_only_in_its_gated_attention_layers():
    said = next(m.value for m in page().markdown if "Qwen3-Next a quarter" in m.value)
    assert "in its 12 gated-attention layers; its other 36 layers are Gated DeltaNet" in said


def test_the_lessons_last_scene_quotes_a_layer_without_position_above_rope():
    x = token_embeddings(list("刚想到了"), 64)
    mixed = modern.layered_gap(x, reversal(4), ("rope", "none"), 4)
    bag = modern.layered_gap(x, reversal(4), ("none", "none"), 4)
    letter, said = reveal(lesson("10"), 10)
    assert letter == "B" and readable(mixed) in said and readable(bag) in said
    assert np.isfinite(mixed) and mixed > 0.1 > 1e-12 > bag
    assert reveal(lesson("10", sentence="我我我"), 10) == (
        "A", text("lesson.today.answer_same", "en"))


def test_the_sentence_gets_its_positions_read_back_without_any_encoding():
    table = next(b for b in blocks("today", "text=刚想到了", "en") if b["t"] == "table"
                 and text("today.count_col.read", "en") in b["head"])
    assert [row[0] for row in table["rows"]] == list("刚想到了")
    assert [row[1] for row in table["rows"]] == ["1", "2", "3", "4"]
    assert [row[3] for row in table["rows"]] == ["1.000", "2.000", "3.000", "4.000"]


def test_cope_counts_clauses_back_on_the_typed_sentence():
    doc = blocks("today", "text=刚想到了，了到想刚。", "en")
    table = next(b for b in doc if b["t"] == "table"
                 and text("today.cope_col.cope", "en") in b["head"])
    assert [row[1] for row in table["rows"]] == [str(9 - j) for j in range(10)]
    assert [row[2] for row in table["rows"]] == ["2.00"] * 5 + ["1.00"] * 5
    plain = blocks("today", "text=刚想到了", "en")
    assert text("today.cope_none_viewer", "en") in [b.get("text") for b in plain]
    one = [b.get("text") for b in blocks("today", "text=刚", "zh")]
    assert text("today.cope_one_viewer", "zh") in one
    assert text("today.cope_none_viewer", "zh") not in one


def sentence_qk(tokens: list[str], dim: int) -> tuple[np.ndarray, np.ndarray]:
    from posviz.attention import init_layers, queries_keys

    q, k = queries_keys(token_embeddings(tokens, dim), init_layers(1, dim)[0], 1)
    return q[0], k[0]


def test_xpos_scores_the_sentences_last_query_and_first_key_beside_rope():
    figure = charts("刚想到了")["today_xpos"]
    assert [t["name"] for t in figure["data"]] == ["RoPE", "xPos"]
    title = figure["layout"]["title"]["text"]
    assert "“了”" in title and "“刚”" in title
    q, k = sentence_qk(list("刚想到了"), 64)
    offsets = np.arange(0, 4097, 2)
    for trace, decay in zip(figure["data"], (False, True), strict=True):
        np.testing.assert_allclose(array(trace["y"]), frontier.offset_scores(
            q[-1], k[0], offsets, decay), rtol=1e-5, atol=1e-5)
    rope_far, xpos_far = (np.abs(array(t["y"])[offsets >= 2048]).mean() for t in figure["data"])
    assert xpos_far < rope_far / 3  # the decay shows far out
    zeta = frontier.xpos_decay(64)
    said = next(c.value for c in page().caption if c.value.startswith("At offset 4,096"))
    assert readable(float(zeta[0] ** 8)) in said and readable(float(zeta[-1] ** 8)) in said
    assert f"longest offset (3), the fastest pair keeps {readable(zeta[0] ** (3 / 512))}" in said
    one = next(c.value for c in page("en", "x").caption if c.value.startswith("At offset"))
    assert "longest offset" not in one


def test_xpos_pulls_each_term_toward_zero_and_the_page_shows_where_it_scores_higher():
    """On the page's own chart (刚想到了, d 64) xPos lies above RoPE at 51% of the offsets,
    counted here with a slow loop over pairs; a zero line shows what the terms shrink toward;
    the Chinese caption joins its sentences with no Latin space."""
    q, k = sentence_qk(list("刚想到了"), 64)
    above = negative = negative_above = 0
    for offset in range(0, 4097, 2):
        rope = xpos = 0.0
        for i in range(32):
            angle = offset * 10_000 ** (-2 * i / 64)
            term = ((q[-1][2 * i] * k[0][2 * i] + q[-1][2 * i + 1] * k[0][2 * i + 1])
                    * np.cos(angle) - (q[-1][2 * i + 1] * k[0][2 * i]
                                       - q[-1][2 * i] * k[0][2 * i + 1]) * np.sin(angle))
            rope += term
            xpos += term * ((2 * i + 25.6) / 89.6) ** (offset / 512)
        above += xpos > rope
        negative += rope < 0
        negative_above += rope < 0 and xpos > rope
    assert f"{above / 2049:.0%}" == "51%"
    for lang in ("en", "zh"):
        said = next(c.value for c in page(lang).caption
                    if text("today.xpos_above", lang, above="51%", negative="X").split("X")[0]
                    in c.value)
        assert text("today.xpos_above", lang, above="51%",
                    negative=f"{negative_above / negative:.0%}") in said
        if lang == "zh":
            assert not re.search(r"[。：）] [\u4e00-\u9fff]", said)
    figure = charts()["today_xpos"]
    assert [shape["y0"] for shape in figure["layout"]["shapes"]] == [0.0]
    assert figure["layout"]["annotations"][0]["text"] == text("today.xpos_zero", "en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_kind_of_layer_reads_the_sentence_and_its_reversal(lang):
    doc = blocks("today", "text=刚想到了", lang)
    table = next(b for b in doc if b["t"] == "table"
                 and text("today.stacks_col.gap", lang) in b["head"])
    gaps = frontier.reversal_gaps(token_embeddings(list("刚想到了"), 64))
    assert [row[0] for row in table["rows"]] == [text(f"today.layer.{k}", lang) for k in gaps]
    assert [row[2] for row in table["rows"]] == [readable(v) for v in gaps.values()]
    assert gaps["unmasked"] < 1e-12 < 0.1 < min(gaps["rope"], gaps["nope"], gaps["linear"])
    same = blocks("today", "text=我我我", lang)
    assert text("today.stacks_same", lang) in [b.get("text") for b in same]
    assert not any(text("today.stacks_col.gap", lang) in b.get("head", ()) for b in same)


def test_longrope_turns_the_sentence_with_phi3s_short_and_long_factors():
    from posviz import rope

    doc = blocks("today", "text=the cat sat on the mat", "en")
    table = next(b for b in doc if b["t"] == "table"
                 and text("today.longrope_short", "en") in b["head"])
    q, k = sentence_qk(["the", "cat", "sat", "on", "the", "mat"], 96)
    positions, scale = np.arange(6), frontier.longrope_attention_factor(32, 4096)
    want = [rope.apply_rope(q, positions, 10_000.0, "half")[-1]
            @ rope.apply_rope(k, positions, 10_000.0, "half").T / np.sqrt(96)]
    for kind in ("short_factor", "long_factor"):
        factors = modern.value("phi3_mini_128k", kind)
        turned_q, turned_k = (frontier.longrope(x, positions, 10_000.0, factors, scale)
                              for x in (q, k))
        want.append(turned_q[-1] @ turned_k.T / np.sqrt(96))
    assert [row[2:] for row in table["rows"]] == [
        [readable(float(w[j])) for w in want] for j in range(6)]
    assert table["rows"][-1][3] == table["rows"][-1][4]  # no offset: the factors agree
    said = [b["text"] for b in doc if b["t"] == "caption"]
    assert any(t.startswith("Both LongRoPE") and "is not turned as plain RoPE" in t for t in said)
    one = [b["text"] for b in blocks("today", "text=x", "en") if b["t"] == "caption"]
    assert any(t.startswith("Both LongRoPE") and "next to nothing" in t for t in one)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_linear_layers_carry_position_without_a_position_code(lang):
    """Gated DeltaNet and KDA have no position code, but their decay and short causal
    convolution (4 tokens wide in Qwen3-Next's configuration) carry position; Kimi's report
    gives its KDA layers the whole of it; NoPE attention is not free of length."""
    assert modern.value("qwen3_next_80b_a3b", "linear_conv_kernel_dim") == 4
    quoted = modern.published()["kimi_linear_48b_a3b"]["position_in_kda"]["quote"]
    assert "the entire responsibility for encoding positional information" in quoted
    said = [m.value for m in page(lang).markdown]
    partial = next(m for m in said if "Qwen3-Next" in m and "Gated DeltaNet" in m and "256" in m)
    stacks = next(m for m in said if "Kimi Linear 48B-A3B" in m)
    if lang == "en":
        assert "a causal convolution 4 tokens wide" in partial
        assert "(4 tokens wide in Qwen3-Next)" in stacks
        assert "delegates the entire responsibility for encoding positional information" in stacks
        assert "thinner its attention spreads" in stacks and "temperature" in stacks
        assert "nothing to extrapolate" not in stacks and "no position at all" not in stacks
    else:
        assert "宽 4 个词元的因果卷积" in partial and "宽 4 个词元）" in stacks
        assert "编码位置信息与近因偏好的全部责任" in stacks and "温度" in stacks
        assert "完全不带位置" not in partial + stacks and "没有什么需要外推" not in stacks
    assert "no position" not in text("today.kind.linear", "en")
    assert "不带位置" not in text("today.kind.linear", "zh")


def test_the_stacks_and_longrope_are_drawn_from_the_published_values():
    drawn = charts()
    stacks = drawn["today_stacks"]["data"]
    by_kind = {t["name"]: len(t["y"]) for t in stacks}
    assert by_kind == {text("today.kind.rope", "en"): 36 + 27 + 12,
                       text("today.kind.nope", "en"): 12 + 9 + 7,
                       text("today.kind.linear", "en"): 36 + 20}
    longrope = drawn["today_longrope"]["data"]
    assert len(longrope) == 8 and len(array(longrope[-1]["y"])) == 48
    said = next(m.value for m in page().markdown if m.value.startswith("**LongRoPE**"))
    assert "from 1.07 for the fastest pair to 64.76 for the slowest" in said
    assert "= 1.190" in said


def test_the_chinese_page_says_each_thing_one_way():
    """One term for an image patch (图像块) and for a latent (隐向量), 词袋 for a bag of tokens,
    the title, CoPE and the 90-degree step worded plainly, and no bracket inside a bracket in
    any chart's spoken summary (the iRoPE maps' axes are 查询（位置） and 键（位置））."""
    zh = {key: text(f"today.{key}", "zh") for key in (
        "title", "mrope_body", "grid_row_axis", "grid_col_axis", "mla_body", "mla_latent",
        "mla_check", "order.unmasked", "cope_body", "complex_body")}
    assert zh["title"] == "当今的大模型：RoPE 的演变"
    every = " ".join(zh.values())
    assert "小块" not in every and "潜向量" not in every and "一袋词元" not in every
    assert "图像块" in zh["mrope_body"] and zh["grid_row_axis"] == "图像块所在行"
    assert zh["grid_col_axis"] == "图像块所在列"
    assert all("隐向量" in zh[k] for k in ("mla_body", "mla_latent", "mla_check"))
    assert zh["order.unmasked"] == "无处可来：词袋"
    assert "让上下文来决定位置要数什么" in zh["cope_body"]
    assert "90 度只属于这一步" in zh["complex_body"]
    summaries = [b["summary"] for b in chart_blocks(blocks("today", "text=刚想到了", "zh"))]
    irope = next(said for said in summaries if "查询（位置）" in said)
    assert "行是查询（位置），列是键（位置）" in irope
    for said in summaries:
        assert not re.search(r"（[^（）]*（", said), said
