"""The page on today's models, its part on 2026: every number its texts quote computed from the
published values, the clinic's maps and figures the engine's, and each bug's reports named."""

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from posviz import layered, modern, multimodal, ports, proportional
from posviz.figures.common import as_array
from posviz.modern import value
from posviz.permutation import readable
from posviz.tokens import tokenize
from tests.helpers.figure_data import chart_blocks
from ui.blocks import walk
from ui.documents import blocks
from ui.i18n import text

CHARTS = {"today_lanes", "today_v4_stack", "today_v4_waves", "today_qwen_axes", "today_bands",
          "today_fope_basis", "today_clinic_maps", "today_clinic_drift"}


def made(sentence: str = "刚想到了", lang: str = "en", bug: str | None = None) -> list[dict]:
    """The page's blocks, in reading order."""
    query = f"text={sentence}" + (f"&bug={bug}" if bug else "")
    return list(walk(blocks("today", query, lang)))


def said(found: list[dict], kind: str = "markdown") -> list[str]:
    return [b["text"] for b in found if b["t"] == kind]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("sentence", ["刚想到了", "x", "the cat sat on the mat"])
def test_the_part_on_2026_draws_every_scheme_and_the_clinic(lang, sentence):
    found = made(sentence, lang)
    heads = said(found, "heading")
    assert heads[heads.index(text("schemes.head", lang)) + 1:][:5] == [
        text(f"schemes.{k}_head", lang) for k in ("gemma", "v4", "qwen", "bands", "clinic")]
    assert {b["name"] for b in found if b["t"] == "chart"} >= CHARTS


def test_the_page_runs_in_streamlit_with_each_bug_picked():
    at = AppTest.from_file("../../pages/7_today.py", default_timeout=90)
    at.query_params.update({"lang": "zh", "text": "刚想到了"})
    at.run()
    assert not at.exception
    for b in ports.bugs():
        at.radio(key="bug").set_value(b.key).run()
        assert not at.exception
        assert at.query_params.get("bug", ports.bugs()[0].key) == b.key


def test_gemma_4s_text_quotes_its_turned_pairs_and_their_speeds():
    body = next(t for t in said(made()) if t.startswith("Gemma 4 31B alternates"))
    slowest = 2 * np.pi * 1e6 ** (126 / 512)   # pair 63 of a 512-wide head
    neox = 2 * np.pi * 1e6 ** (126 / 128)      # the same base over 128 turned channels
    assert f"{round(slowest):,}" == "188" and f"{round(neox):,}" in body
    assert "64 pairs, 128 channels" in body and "every 188 positions" in body
    assert "lane i + 256" in body and "first 24 of GPT-NeoX 20B's 96 channels" in body
    lanes = json.loads(next(b["figure"] for b in chart_blocks(blocks(
        "today", "text=刚想到了", "en")) if b["name"] == "today_lanes"))
    assert lanes["data"][1]["y"] == ["Gemma 4 global", "Gemma 4 sliding", "GPT-NeoX 20B"]
    grey, turning = (as_array(t["z"]) for t in lanes["data"][:2])
    drawn = (grey == 1) | np.isfinite(turning)  # a strip ends where its head does
    assert drawn.sum(axis=1).tolist() == [512, 256, 96]
    assert np.isfinite(turning).sum(axis=1).tolist() == [128, 256, 24]


def test_deepseek_v4s_caption_is_the_reports_figure_on_its_pairs():
    caption = next(t for t in said(made(), "caption") if "window-only layers" in t)
    assert "at most 2.12°" in caption and "pairs 21 to 31" in caption
    figure = next(r["figure"] for r in ports.reports("v4_yarn_on_sliding") if "figure" in r)
    assert figure.startswith("2.12°")
    body = next(t for t in said(made()) if t.startswith("DeepSeek-V4-Flash has 43 layers"))
    assert "21 of them" in body and "20 of them" in body and "other 2" in body
    kinds = layered.layer_kinds(value("deepseek_v4_flash", "compress_ratios"), 43)
    assert kinds.count("csa") == 21 and kinds.count("hca") == 20


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_deepseek_v4s_layer_count_names_its_checkpoint_and_why_reports_count_3(lang):
    """2 window-only layers in Flash-Base's 43 decoder layers; 3 with the MTP layer's entry,
    the count the ports' reports quote."""
    ratios = value("deepseek_v4_flash", "compress_ratios")
    mtp = value("deepseek_v4_flash", "mtp_compress_ratio")
    assert layered.kind_counts(ratios, 43)["sliding"] == 2
    assert layered.kind_counts(ratios + [mtp], 44)["sliding"] == 3
    note = next(t for t in said(made(lang=lang)) if "DeepSeek-V4-Flash-Base" in t)
    assert note == text("schemes.v4_checkpoint", lang, layers=43, sliding=2, mtp=0, with_mtp=3)
    assert "1189" in note and "indices 0, 1, 42" in note


def test_qwens_tables_are_the_two_rules_on_the_sentence_with_a_video():
    found = made()
    tables = [b for b in found if b["t"] == "table" and b["head"][1] == "time"][-2:]
    for table, stamped in zip(tables, (False, True), strict=True):
        ids, kinds = multimodal.video_positions(1, 2, 2, 3, 1, 3, timestamps=stamped)
        assert [[int(c) for c in row[1:]] for row in table["rows"]] == ids.T.tolist()
        assert [row[0] for row in table["rows"]][:2] == ["刚", "<0.5 seconds>" if stamped
                                                         else "frame 0 ▦ 0,0"]
    assert any("43 of the 64 pairs" in t for t in said(found))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_qwen3_vls_values_are_said_to_come_from_a_third_party_copy(lang):
    body = next(t for t in said(made(lang=lang)) if "Qwen3-VL-8B-Instruct" in t)
    assert ("third-party copy" if lang == "en" else "第三方副本") in body
    entry = modern.published()["qwen3_vl_8b"]
    assert all("third-party copy" in entry[k]["source"]
               for k in ("mrope_section", "rope_theta", "head_dim"))


def test_fopes_text_counts_the_pairs_of_its_60m_configuration():
    body = next(t for t in said(made()) if t.startswith("A RoPE head of 64 channels"))
    assert "16 of the 32 pairs go, 16 stay" in body and "first 16 pairs" in body
    assert "the other 16 pairs carry no position" in body


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hope_and_fope_show_what_they_do_with_the_pairs_they_cut(lang):
    """The lines coincide (same floor); the table shows the difference: HoPE leaves a cut pair
    unturned, FoPE pads it with cos = sin = 1 (45 degrees, stretch sqrt 2)."""
    found = made(lang=lang)
    table = next(b for b in found if b["t"] == "table"
                 and b["head"][0] == text("schemes.cut_col.scheme", lang))
    assert table["rows"] == [["HoPE", "0–15", "16–31", "0", "1"],
                             ["FoPE", "0–15", "16–31", "45", "1.41"]]
    assert any("2π/512" in t for t in said(found, "caption"))


@pytest.mark.parametrize("key", [b.key for b in ports.bugs()])
def test_each_bugs_clinic_shows_the_engines_numbers_and_names_its_reports(key):
    sentence = "the cat sat on the mat"
    found = made(sentence, bug=key)
    read = ports.reading(tokenize(sentence), key)
    metric = next(b for b in found if b["t"] == "metric"
                  and b["label"] == text("schemes.largest", "en"))
    assert metric["value"] == readable(read.change)
    i, j = read.largest
    assert any(f"At query {i}, key {j} (positions in the maps): "
               f"{read.weights[0][i, j]:.3f} with the model's RoPE, "
               f"{read.weights[1][i, j]:.3f} with the port's." in t for t in said(found,
                                                                                  "caption"))
    onset = ports.onset(key)
    onset_text = [t for t in said(found, "caption") if "carries position" in t]
    never = text("schemes.onset_never", "en", share="10%")
    assert onset_text and ((onset is None) == (onset_text[0] == never))
    if onset is not None:
        assert f"From an offset of {onset:,} " in onset_text[0]
    markdown = " ".join(said(found))
    for report in ports.reports(key):
        assert f"]({report['url']})" in markdown
        if "figure" in report:
            assert f"**{report['figure']}**" in markdown
    maps = json.loads(next(b["figure"] for b in found if b["t"] == "chart"
                           and b["name"] == "today_clinic_maps"))
    assert [a["text"] for a in maps["layout"]["annotations"]] == [
        text("schemes.panel_right", "en"), text("schemes.panel_wrong", "en")]


def test_the_clinics_table_gives_every_bug_its_onset_and_its_reports_figure():
    table = next(b for b in made("the cat sat on the mat") if b["t"] == "table"
                 and b["head"][0] == "bug")
    for row, b in zip(table["rows"], ports.bugs(), strict=True):
        onset = ports.onset(b.key)
        assert row[1] == (text("schemes.never", "en") if onset is None else f"{onset:,}")
        has_figure = any("figure" in r for r in ports.reports(b.key))
        assert (row[2] == text("schemes.no_figure", "en")) != has_figure


def test_a_proportional_global_layer_and_its_port_share_their_speeds():
    """The clinic's first bug, as the page describes it: the same 64 speeds, other lanes."""
    b = ports.bug("gemma4_prefix")
    assert b.width == value("gemma4_31b", "global_head_dim")
    theta = proportional.proportional_frequencies(512, 0.25, 1e6)
    assert np.count_nonzero(theta) == 64


def test_the_whole_width_ports_text_counts_the_pairs_it_should_have_left_still():
    found = " ".join(said(made(bug="gemma4_whole")))
    pairs = proportional.turned_pairs(512, 0.25)
    assert pairs == 64
    assert ("whole 512-channel head at base 1,000,000" in found
            and f"The {pairs} fastest pairs" in found and f"the other {256 - pairs} pairs"
            in found)


def drift_lines(lang: str, bug: str) -> dict[str, dict]:
    """The drift chart's lines with bug chosen, by name, in the order drawn."""
    drift = json.loads(next(b["figure"] for b in chart_blocks(blocks(
        "today", f"text=the cat sat on the mat&bug={bug}", lang))
        if b["name"] == "today_clinic_drift"))
    return {t["name"]: t for t in drift["data"] if t["type"] == "scatter"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_drift_chart_draws_each_bugs_drift_under_its_short_name(lang):
    chosen = ports.bugs()[-1]
    drawn = drift_lines(lang, chosen.key)
    named = {b.key: text(f"schemes.bug.{b.key}.short", lang) for b in ports.bugs()}
    assert sorted(drawn) == sorted(named.values())
    assert list(drawn)[-1] == named[chosen.key], "the chosen bug's line over the others"
    assert [drawn[named[b.key]]["line"]["width"] > 1.5 for b in ports.bugs()] == [
        b is chosen for b in ports.bugs()]
    other = drift_lines(lang, ports.bugs()[0].key)  # each line keeps its colour
    assert {n: t["line"]["color"] for n, t in drawn.items()} == {
        n: t["line"]["color"] for n, t in other.items()}
    assert len({t["line"]["color"] for t in drawn.values()}) == len(drawn)
    lines = [drawn[named[b.key]] for b in ports.bugs()]
    deltas = ports.offsets()
    np.testing.assert_allclose(as_array(lines[0]["x"]), deltas)
    for line, b in zip(lines, ports.bugs(), strict=True):
        seen = ports.reach(b.key, deltas)
        np.testing.assert_allclose(as_array(line["y"])[seen],
                                   ports.drift(b.key, deltas)[seen],
                                   rtol=1e-6)
        assert np.isnan(as_array(line["y"])[~seen]).all()
