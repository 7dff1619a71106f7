"""The real-model page in AppTest, on tiny models made here (tests/helpers/hf_models.py): one in
a Hugging Face cache, others in the folder POSVIZ_MODELS names, and folders it must refuse."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from transformers import BloomConfig, GPT2Config, LlamaConfig

from posviz import ported, ports, pretrained
from posviz.figures.common import as_array as array
from posviz.pretrained import checking
from posviz.tokens import token_labels
from tests.helpers.controls import opened
from tests.helpers.figure_data import chart_specs, value_traces
from tests.helpers.hf_models import into_cache, saved, tokenizer
from tests.helpers.hostile import HOSTILE, check, from_document
from tests.helpers.words import unlisted, wrapped_titles
from ui import documents
from ui.blocks import walk
from ui.cached import real
from ui.i18n import text
from ui.markup import literal
from ui.summary import number

COMMAND = "hf download HuggingFaceTB/SmolLM2-135M"

PAGE = "pages/8_real.py"


@pytest.fixture(scope="module")
def machine(tmp_path_factory):
    """A models folder (GPT-2, BLOOM, and folders to refuse) and a cache holding a Llama."""
    ids = {"vocab_size": len(tokenizer()), "bos_token_id": 0, "eos_token_id": 0}
    folder = tmp_path_factory.mktemp("models")
    saved(GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=64, **ids), folder / "gpt2")
    saved(BloomConfig(hidden_size=32, n_layer=3, n_head=4, **ids), folder / "bloom")
    saved(LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, **ids),
          folder / "llama-with-start", start=True)
    (folder / "pickled").mkdir()
    (folder / "pickled" / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    (folder / "pickled" / "pytorch_model.bin").write_bytes(b"never read")
    (folder / "own").mkdir()
    (folder / "own" / "config.json").write_text(json.dumps({
        "model_type": "mine", "auto_map": {"AutoModelForCausalLM": "modeling_mine.Mine"}}))
    llama = saved(LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=4, num_key_value_heads=2,
                              max_position_embeddings=128, **ids),
                  tmp_path_factory.mktemp("made") / "llama")
    cache = tmp_path_factory.mktemp("hub")
    into_cache(llama, cache, "posviz-test/tiny-llama")
    return folder, cache


@pytest.fixture
def on_this_machine(machine, monkeypatch):
    from huggingface_hub import constants

    folder, cache = machine
    monkeypatch.setenv("POSVIZ_MODELS", str(folder))
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    return folder


def loaded(name: str, folder=None) -> pretrained.Loaded:
    """The model by its name on this test machine, loaded afresh by posviz."""
    from huggingface_hub import constants

    return pretrained.load(pretrained.card(pretrained.find(name, folder,
                                                           constants.HF_HUB_CACHE)))


def read(guess: pretrained.Guess) -> str:
    """A next token as the page reads it: its characters (spaces made visible), or its bytes
    when they are not characters a reader can see; nothing said in words."""
    if not guess.raw:
        return text("real.empty_token", "en")
    if guess.whole:
        return "“␣”" if not guess.text.strip() else f"“{guess.text}”"
    return text("real.bytes_token", "en", bytes=" ".join(f"{b:02X}" for b in guess.raw))


def changed(at) -> str:
    """The largest change of any weight, as the page shows it."""
    [metric] = [m for m in at.metric if m.label == text("real.difference", "en")]
    return metric.value


def page(model: str | None, sentence: str = "刚想到了", lang: str = "en"):
    at = opened(PAGE, sentence, lang)
    if model is not None:
        at.text_input(key="model").set_value(model).run()
    assert not at.exception, at.exception
    return at


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_model_found_is_named_and_the_first_one_read(on_this_machine, lang):
    at = page(None, lang=lang)
    found = text("real.found", lang, names=", ".join(map(literal, [
        "bloom", "gpt2", "llama-with-start", "own", "pickled", "posviz-test/tiny-llama"])))
    assert found in [c.value for c in at.caption]
    assert not at.error  # the first name (BLOOM) is read
    assert any(m.value.startswith("**ALiBi**") for m in at.markdown)


@pytest.mark.parametrize("model, scheme", [("bloom", "alibi"), ("gpt2", "learned"),
                                           ("posviz-test/tiny-llama", "rope")])
def test_the_maps_are_the_models_own_with_position_on_and_off(on_this_machine, model, scheme):
    """The chart shows the chosen layer's and head's weights as posviz.pretrained reads them
    (tests/engine/test_pretrained.py: transformers' own), with position on and off; the tokens
    are the model's; the change and the next tokens are the model's too."""
    sentence = "the quick brown fox 刚想到了"
    at = page(model, sentence)
    model_ = loaded(model, on_this_machine)
    assert model_.scheme.kind == scheme
    on, off = pretrained.read(model_, sentence), pretrained.read(model_, sentence, False)
    layers, heads = on.weights.shape[:2]
    at.slider(key="real_layer").set_value(layers).run()
    at.slider(key="real_head").set_value(heads - 1).run()
    assert not at.exception
    figure = chart_specs(at)[0]
    maps = [array(t["z"]) for t in value_traces(figure["data"])]
    for shown, reading in zip(maps, (on, off), strict=True):
        want = reading.weights[layers - 1, heads - 2]
        seen = ~np.isnan(shown)
        assert (seen == np.tril(np.ones_like(want, dtype=bool))).all()  # the causal mask
        np.testing.assert_allclose(shown[seen], want[seen], rtol=1e-6)  # float32 on the wire
    assert not np.allclose(maps[0], maps[1], equal_nan=True)
    assert changed(at) == number(float(np.abs(on.weights - off.weights).max()))
    chips = [b for b in walk(at.session_state["posviz_doc"]) if b["t"] == "chips"][0]
    assert chips["tokens"] == [(p.text if p.text.strip() else "␣") + ("*" if p.split else "")
                               for p in on.pieces]
    assert "".join(p.text for p in on.pieces if not p.split)[:19] == "the quick brown fox"
    assert any(p.split for p in on.pieces)  # 刚想到了 in byte-level pieces
    table = [b for b in walk(at.session_state["posviz_doc"]) if b["t"] == "table"][-1]
    assert [row[0] for row in table["rows"]] == token_labels(chips["tokens"])
    for row, with_, without in zip(table["rows"], on.top, off.top, strict=True):
        assert row[1:] == [" · ".join(f"{read(g)} {'<1%' if g.p < 0.005 else f'{g.p:.0%}'}"
                                      for g in top) for top in (with_, without)]


@pytest.mark.parametrize("model, reason", [
    ("nothing-by-this-name", "unknown"), ("pickled", "pickle_only"), ("own", "own_code")])
def test_a_model_posviz_will_not_read_is_refused_in_words(on_this_machine, model, reason):
    for lang in ("en", "zh"):
        at = page(model, lang=lang)
        detail = {"unknown": model, "pickle_only": "", "own_code": "mine"}[reason]
        folder = on_this_machine / model
        if reason == "pickle_only":
            detail = str(folder)
        assert [e.value for e in at.error] == [text(f"real.refused.{reason}", lang,
                                                    name=literal(model),
                                                    detail=literal(detail))]
        assert at.text_input(key="model").value == model  # what was typed stays


def test_a_folder_that_is_not_a_model_is_refused(on_this_machine, tmp_path):
    at = page(str(tmp_path))
    assert [e.value for e in at.error] == [text("real.refused.not_a_model", "en",
                                                name=literal(str(tmp_path)),
                                                detail=literal(str(tmp_path)))]


def test_too_large_for_this_machine_is_said_with_the_sizes(on_this_machine, monkeypatch,
                                                           tmp_path):
    fresh = tmp_path / "copy"  # a model this process has not loaded yet
    fresh.mkdir()
    for file in (on_this_machine / "gpt2").iterdir():
        (fresh / file.name).write_bytes(file.read_bytes())
    monkeypatch.setattr(checking, "available_memory", lambda: 1_000)
    at = page(str(fresh))
    needed = f"{pretrained.card(fresh).needed / 2**10:.1f} KB"
    assert [e.value for e in at.error] == [text(
        "real.refused.too_large", "en", name=literal(str(fresh)), needed=needed, free="1000 B",
        detail=literal(f"{pretrained.card(fresh).needed} > 1000 bytes"))]


def test_with_no_model_the_page_says_how_to_get_one_and_reads_posvizs_own(tmp_path,
                                                                         monkeypatch):
    from huggingface_hub import constants

    monkeypatch.delenv("POSVIZ_MODELS", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty"))
    own = ", ".join(literal(f.name) for f in pretrained.own())
    for lang in ("en", "zh"):
        at = page(None, lang=lang)
        assert [i.value for i in at.info] == [text("real.none", lang, command=COMMAND)]
        assert text("real.own", lang, names=own) in [c.value for c in at.caption]
        assert not at.error and len(chart_specs(at)) == 2  # posviz/rope's maps, two orders
        assert any(m.value.startswith("**RoPE**") for m in at.markdown)


def test_a_long_sentence_is_cut_where_the_model_stops_and_says_so(on_this_machine):
    words = " ".join(f"tok{chr(97 + i % 26)}{chr(97 + i // 26)}" for i in range(40))  # 40 tokens
    at = page("posviz/learned", words)
    assert [w.value for w in at.warning][0] == text("real.clipped", "en", kept=32, total=40)
    at = page("posviz-test/tiny-llama", words * 2)
    total = len(loaded("posviz-test/tiny-llama").tokenizer(words * 2)["input_ids"])
    assert text("real.clipped", "en", kept=64, total=total) in [w.value for w in at.warning]
    assert not any(w.value.startswith("Only the first") for w in at.warning)  # said once
    at = page("posviz/rope", words)  # trained on 32 tokens, reading 40: said
    assert text("real.past_trained", "en", trained=32, last=39) in [i.value for i in at.info]
    assert not any(i.value.startswith("This model was trained") for i in page("posviz/rope",
                                                                               "a b c").info)
    one = page("posviz/rope", "x")  # a single token, said so
    ours = text("real.tokens_ours_app", "en", sidebar=1)
    assert text("real.tokens_caption_one", "en", ours=ours) in [c.value for c in one.caption]


def test_the_largest_change_is_placed_and_the_sidebar_switch_is_explained(on_this_machine):
    sentence = "the quick brown fox"
    at = page("gpt2", sentence)
    on = pretrained.read(loaded("gpt2", on_this_machine), sentence)
    off = pretrained.read(loaded("gpt2", on_this_machine), sentence, False)
    change = np.abs(on.weights - off.weights)
    layer, head, query, key = np.unravel_index(np.argmax(change), change.shape)
    assert text("real.difference_at", "en", layer=layer + 1, head=head + 1, q=query,
                k=key) in [c.value for c in at.caption]
    assert not at.info
    at.toggle(key="pos").set_value(False).run()
    assert [i.value for i in at.info] == [text("real.both_ways", "en")]
    assert changed(at) == number(float(change.max()))  # the same: both ways always
    at = page("posviz/none", sentence)  # nothing to switch off: no place named
    assert changed(at) == "0"
    assert not any(c.value.startswith("in layer") for c in at.caption)


def shown_share(x: float) -> str:
    return f"{x:.1%}"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_another_order_is_compared_by_token_with_position_on_and_off(on_this_machine, lang):
    """Reversed by default: the page's numbers, table and maps are posviz.pretrained.twin's
    (tests/engine/test_pretrained.py: a loop over transformers' own runs), and the page says
    what the causal mask still tells apart with position off."""
    sentence = "the quick brown fox 刚想到了"
    at = page("posviz-test/tiny-llama", sentence, lang)
    model = loaded("posviz-test/tiny-llama")
    n = len(pretrained.pieces(model, sentence))
    order = list(range(n))[::-1]
    reading, off = pretrained.twin(model, sentence, order, position=False)
    on = pretrained.twin(model, sentence, order)[1]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics[text("real.twin_on", lang)] == shown_share(on.gaps.max())
    assert metrics[text("real.twin_off", lang)] == shown_share(off.gaps.max())
    assert off.gaps.max() > 0.01  # the mask alone tells the orders apart
    assert text("real.mask_leaks", lang, off=shown_share(off.gaps.max())) in [
        w.value for w in at.warning]
    doc = list(walk(at.session_state["posviz_doc"]))
    chips = [b for b in doc if b["t"] == "chips"]
    assert chips[1]["labels"] == [str(k) for k in order]  # the reversed sentence
    assert chips[1]["tokens"] == chips[0]["tokens"][::-1]
    table = [b for b in doc if b["t"] == "table"][0]
    assert [row[1:] for row in table["rows"]] == [
        list(map(shown_share, gaps)) for gaps in zip(on.gaps, off.gaps, off.last_gaps,
                                                     strict=True)]
    twin = chart_specs(at)[1]
    maps = [array(t["z"]) for t in value_traces(twin["data"])]
    for shown, want, mask in zip(maps, (reading.weights[0, 0], off.weights[0, 0]),
                                 (np.tril(np.ones((n, n), dtype=bool)), off.mask),
                                 strict=False):
        assert (~np.isnan(shown) == mask).all()
        np.testing.assert_allclose(shown[mask], want[mask], rtol=1e-6)


def test_keeping_the_last_token_in_place_its_first_layer_reads_a_bag(on_this_machine):
    at = page("gpt2", "the quick brown fox jumps")
    at.toggle(key="real_keep_last").set_value(True).run()
    table = [b for b in walk(at.session_state["posviz_doc"]) if b["t"] == "table"][0]
    first, second = table["rows"][:2]
    assert first[3] == "0.0%" and first[1] != "0.0%"  # position on: it already differs
    assert second[3] != "0.0%"  # the other tokens' outputs changed: so does it, next layer


def test_a_start_of_text_token_stays_in_place_and_a_typed_order_is_checked(on_this_machine):
    at = page("llama-with-start", "the quick brown fox")
    chips = [b for b in walk(at.session_state["posviz_doc"]) if b["t"] == "chips"]
    n = len(chips[0]["tokens"])
    assert chips[0]["tokens"][0] == "<|endoftext|>"
    assert chips[1]["labels"] == ["0", *map(str, range(n - 1, 0, -1))]
    at.radio(key="real_order").set_value("typed").run()
    at.text_input(key="real_typed").set_value("0 0 1").run()
    assert [e.value for e in at.error] == [text("attention.order_errors.count", "en", got=3,
                                                last=n - 1)]
    assert at.text_input(key="real_typed").value == "0 0 1"  # what was typed stays
    at.text_input(key="real_typed").set_value(" ".join(map(str, range(n)))).run()
    assert text("attention.nothing_moved", "en") in [i.value for i in at.info]
    charts = [b["name"] for b in walk(at.session_state["posviz_doc"]) if b["t"] == "chart"]
    assert "real_twin" not in charts  # nothing to compare: no map of another order


@pytest.mark.parametrize("half", [0, 1])
def test_every_hostile_input_through_a_byte_level_tokenizer(on_this_machine, half):
    """The whole hostile corpus (in two halves: each document runs the model five times) read
    by a transformers model and its byte-level tokenizer (with a start-of-text token) through
    the page's document: calm, every piece's text is the sentence's own characters, and
    nothing typed reaches Markdown."""
    model = loaded("llama-with-start", on_this_machine)
    page("llama-with-start")  # the lecturer opens it: a document (nobody's) may read it
    prose = from_document(documents.drawn("real", {"model": ["llama-with-start"]}, "en"))
    for typed in HOSTILE[half::2]:
        made = documents.drawn("real", {"text": [typed], "model": ["llama-with-start"]}, "en",
                               frozenset())
        check(f"real on {typed[:40]!r}", typed, "en", from_document(made), prose["rendered"],
              "real")
        for piece in pretrained.pieces(model, typed):
            assert piece.text == typed[piece.start:piece.end]


def test_a_typed_path_read_is_the_one_model_the_page_speaks_of(machine, tmp_path, monkeypatch):
    """With nothing listed, a typed folder's model is read, and the page no longer says it
    reads posviz's own models (one truth about which model drew the charts)."""
    from huggingface_hub import constants

    monkeypatch.delenv("POSVIZ_MODELS", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty"))
    typed = str(machine[0] / "gpt2")
    for lang in ("en", "zh"):
        at = page(typed, lang=lang)
        assert not at.error
        assert text("real.none", lang, command=COMMAND) not in [i.value for i in at.info]
        assert text("real.reading", lang, name=literal(typed)) in [m.value for m in at.markdown]
        assert any(m.value.startswith(text("real.scheme.learned", lang, size="64", width=32)[:12])
                   for m in at.markdown)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_two_token_counts_each_say_what_they_count(on_this_machine, lang):
    """The sidebar counts posviz's own tokens; the page counts the model's and says that the
    sidebar's number is another tokenizer's (a room's screen, with no sidebar, says whose)."""
    sentence = "xyzzy qwv"  # posviz: two words; the model's byte-level pieces: more
    at = page("gpt2", sentence, lang)
    n = len(pretrained.pieces(loaded("gpt2", on_this_machine), sentence))
    assert n > 2
    ours = text("real.tokens_ours_app", lang, sidebar=2)
    assert text("real.tokens_caption", lang, n=n, ours=ours) in [c.value for c in at.caption]
    assert text("common.n_tokens", lang, n=2) in [c.value for c in at.sidebar.caption]
    viewed = [b["text"] for b in walk(documents.blocks("real", urlencode(
        {"text": sentence, "model": "gpt2"}), lang, None)) if b["t"] == "caption"]
    ours = text("real.tokens_ours_view", lang, sidebar=2)
    assert text("real.tokens_caption", lang, n=n, ours=ours) in viewed


def test_a_next_token_is_shown_as_its_characters_or_its_bytes_never_a_box():
    """Each guess is its characters, if a reader can see them all, or its bytes: a piece of a
    character, a control character, an unassigned one."""
    from ui.real.words import spelled

    s = __import__("ui").shared.settings({}, "en")
    assert spelled(pretrained.Guess("\ufffd", b"\xe5\x88", 0.1), s) == text(
        "real.bytes_token", "en", bytes="E5 88")
    assert spelled(pretrained.Guess("\x0f", b"\x0f", 0.1), s) == text(
        "real.bytes_token", "en", bytes="0F")
    assert spelled(pretrained.Guess("\U000e0001", "\U000e0001".encode(), 0.1), s) == text(
        "real.bytes_token", "en", bytes="F3 A0 80 81")
    assert spelled(pretrained.Guess("刚", "刚".encode(), 0.1), s) == "“刚”"
    assert spelled(pretrained.Guess("  ", b"  ", 0.1), s) == "“␣”"
    assert spelled(pretrained.Guess("", b"", 0.1), s) == text("real.empty_token", "en")


def test_every_next_token_shown_is_text_a_reader_can_see(on_this_machine):
    """On a byte-level model reading Chinese, no cell of the next-token table holds U+FFFD
    or a character a font draws as a box."""
    at = page("posviz-test/tiny-llama", "刚想到了，我们今天学习位置编码")
    table = [b for b in walk(at.session_state["posviz_doc"]) if b["t"] == "table"][-1]
    cells = [cell for row in table["rows"] for cell in row[1:]]
    assert cells and all("\ufffd" not in c and "▯" not in c for c in cells)
    assert all(ch.isprintable() for c in cells for ch in c)


def test_a_document_reads_only_what_the_lecturer_opened(on_this_machine, tmp_path):
    """A page drawn as a document (a room's screen, a file) is nobody's: a model the lecturer
    has not opened, a path, anything typed, gets one and the same answer, and nothing loads."""
    held = real.models()
    before = held.opened()
    answers = set()
    for typed in ("/etc/passwd", "/etc/shadow", "/root/.ssh", str(tmp_path), "/nowhere",
                  "~root", "~nosuchlogin", "a" * 5_000, "bloom-not-opened", "own",
                  str(on_this_machine / "gpt2")):
        made = documents.drawn("real", {"model": [typed]}, "en")
        errors = [b["text"] for b in walk(made) if b["t"] == "note" and b["kind"] == "error"]
        assert len(errors) == 1, typed
        answers.add(errors[0])
    assert len(answers) == 1
    assert held.opened() == before


def test_the_models_folder_is_listed_once_and_again_on_demand(on_this_machine, monkeypatch):
    """Page runs do not list the folder again; Look again does."""
    calls = []
    listing = pretrained.in_folder
    monkeypatch.setattr(pretrained, "in_folder", lambda folder: calls.append(1) or listing(
        folder))
    real.models().refresh()
    at = page("gpt2")
    at.slider(key="real_head").set_value(2).run()
    at.slider(key="real_layer").set_value(2).run()
    assert len(calls) == 1
    at.button(key="real_look_again").click().run()
    assert len(calls) == 2 and not at.exception


def test_the_server_keeps_two_models_and_its_runs_read_only(machine, tmp_path):
    """The Models a server holds: a student loads nothing, the lecturer's loads keep the two
    most recently used (posviz's own apart), and runs are kept read-only."""
    folder, _ = machine
    held = real.Models(folder, str(tmp_path / "empty"))
    names = [f.name for f in held.listed()]
    assert names == ["bloom", "gpt2", "llama-with-start", "own", "pickled"]
    with pytest.raises(real.NotOpen):
        held.load(held.find("gpt2", lecturer=True), lecturer=False)
    with pytest.raises(real.NotOpen):
        held.find(str(folder / "gpt2"), lecturer=False)
    for name in ("gpt2", "bloom", "llama-with-start"):
        held.load(held.find(name, lecturer=True), lecturer=True)
    held.load(held.find("posviz/rope", lecturer=False), lecturer=False)  # part of the app
    assert held.opened() == ["llama-with-start", "bloom"]
    model = held.load(held.find("bloom", lecturer=False), lecturer=False)  # opened: a student
    reading = held.read(model, "刚想到了")
    assert held.read(model, "刚想到了").weights is reading.weights
    assert not reading.weights.flags.writeable and not reading.states.flags.writeable


def test_readings_from_many_threads_at_once_are_each_their_own(machine, tmp_path):
    """A server reads for many readers at once: each reading is the one it would be alone
    (posviz's own models collect each layer's output with hooks on the shared model)."""
    from concurrent.futures import ThreadPoolExecutor

    folder, _ = machine
    words = ["the", "dog", "chases", "cat", "a", "big"]
    texts = [" ".join(words[k % 6:] + words[:k % 6]) for k in range(12)]
    for name in ("posviz/rope", "gpt2"):
        held = real.Models(folder, str(tmp_path / "empty"))
        model = held.load(held.find(name, lecturer=True), lecturer=True)
        with ThreadPoolExecutor(8) as pool:
            together = list(pool.map(lambda t, m=model: pretrained.read(m, t), texts))
        for text_, reading in zip(texts, together, strict=True):
            alone = pretrained.read(model, text_)
            np.testing.assert_array_equal(reading.states, alone.states)
            np.testing.assert_array_equal(reading.weights, alone.weights)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_model_whose_rope_differs_by_layer_type_is_named_layer_by_layer(tmp_path, lang):
    """A Gemma 3 keeps its RoPE per layer type: the page names each kind with its layers and
    base (posviz said "no position signal" of it before), and position off changes the maps."""
    from transformers import Gemma3TextConfig

    folder = saved(Gemma3TextConfig(vocab_size=len(tokenizer()), hidden_size=32,
                                    intermediate_size=64, num_hidden_layers=6,
                                    num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                                    bos_token_id=0, eos_token_id=0, pad_token_id=0),
                   tmp_path / "gemma3")
    at = page(str(folder), "the quick brown fox", lang)
    said = [m.value for m in at.markdown if m.value.startswith("**RoPE")]
    assert len(said) == 1
    sep = text("real.scheme.list_sep", lang)
    for layers, kind, base in ((text("real.scheme.layer_many", lang, n=sep.join("12345")),
                                "sliding\\_attention", "10,000"),
                               (text("real.scheme.layer_one", lang, n="6"), "full\\_attention",
                                "1,000,000")):
        assert text("real.scheme.rope_layers", lang, layers=layers,
                    kind=text("real.scheme.kind", lang, kind=kind),
                    rotary=text("real.scheme.rotary", lang, base=base, share="100%",
                                scaling="")) in said[0]
    assert [m.value for m in at.metric if m.label == text("real.difference", lang)] != ["0"]


def test_the_lecturer_reading_an_opened_model_is_not_told_it_reads_posvizs_own(machine,
                                                                              tmp_path,
                                                                              monkeypatch):
    """With nothing listed, a model the lecturer opened earlier is the page's first choice:
    the page then says nothing of reading posviz's own models."""
    from huggingface_hub import constants

    monkeypatch.delenv("POSVIZ_MODELS", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty"))
    page(str(machine[0] / "bloom"))  # opened
    at = page(None)
    assert text("real.none", "en", command=COMMAND) not in [i.value for i in at.info]
    assert text("real.reading", "en", name=literal(str(machine[0] / "bloom"))) in [
        m.value for m in at.markdown]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_models_open_now_name_the_one_just_opened_first(machine, lang):
    """The line that tells students which models they may read names the model the page has
    just opened, on its first load, first: not the model opened before it."""
    for name in ("bloom", "gpt2"):
        typed = str(machine[0] / name)
        at = page(typed, lang=lang)
        said = [c.value for c in at.caption if c.value.startswith(
            text("real.opened", lang, names="")[:12])]
        assert said == [text("real.opened", lang, names=", ".join(
            map(literal, real.models().opened())))], said
        assert real.models().opened()[0] == typed


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=6).map(lambda t: (t, t.encode())),
                 st.binary(min_size=1, max_size=6).map(
                     lambda b: (b.decode("utf-8", "replace"), b))))
def test_a_next_token_shown_holds_no_glyph_a_font_draws_as_a_box(token):
    """Whatever a token decodes to, the page shows visible characters: its text when every
    character of it is one a reader can see, its bytes otherwise (never U+FFFD)."""
    from ui.real.words import spelled

    decoded, raw = token
    shown_ = spelled(pretrained.Guess(decoded, raw, 0.5),
                     __import__("ui").shared.settings({}, "en"))
    assert "\ufffd" not in shown_ and all(ch.isprintable() for ch in shown_)


def port_reports(key: str) -> list[dict]:
    return [r for table in ported.REPORTS[key] for r in ports.reports(table)]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_llama_runs_beside_its_buggy_port_with_the_bugs_public_report(on_this_machine, lang):
    """A Llama pairs split halves: the page offers that bug alone, and shows the model's own
    map and the port's (posviz.ported, tests/engine/test_ported.py: transformers with the
    port's rotation) at the layer and head the sliders pick, the largest change over every
    layer and head and its place, and the report that found the bug; a Chinese chart title
    is made of listed words."""
    sentence = "the quick brown fox 刚想到了"
    at = page("posviz-test/tiny-llama", sentence, lang)
    model = loaded("posviz-test/tiny-llama")
    [port] = ported.ports(model)
    assert at.radio(key="real_port").options == [text("real.port.halves_as_pairs.name", lang)]
    at.slider(key="real_layer").set_value(2).run()
    at.slider(key="real_head").set_value(3).run()
    assert not at.exception
    on, wrong = pretrained.read(model, sentence), pretrained.read(model, sentence, port=port)
    figure = chart_specs(at)[-1]
    maps = [array(t["z"]) for t in value_traces(figure["data"])]
    for shown, want in zip(maps, (on.weights[1, 2], wrong.weights[1, 2]), strict=True):
        seen = ~np.isnan(shown)
        np.testing.assert_allclose(shown[seen], want[seen], rtol=1e-6)
    assert not np.allclose(maps[0], maps[1], equal_nan=True)
    assert text("real.port_title", lang, layer=2, head=3) == figure["layout"]["title"]["text"]
    assert not unlisted(" ".join(wrapped_titles(figure)))
    change = np.abs(wrong.weights - on.weights)
    where = np.unravel_index(np.argmax(change), change.shape)
    assert change.max() > 1e-3
    assert [m.value for m in at.metric if m.label == text("real.port_largest", lang)] == [
        number(float(change.max()))]
    assert text("real.port_at", lang, layer=where[0] + 1, head=where[1] + 1, q=where[2],
                k=where[3], own=f"{on.weights[where]:.3f}",
                wrong=f"{wrong.weights[where]:.3f}") in [c.value for c in at.caption]
    said = [m.value for m in at.markdown]
    assert text("real.port.halves_as_pairs.what", lang, layers=text(
        "real.scheme.layer_many", lang, n=text("real.scheme.list_sep", lang).join("12")),
        widths="8") in said
    [report] = port_reports("halves_as_pairs")
    assert any(f"({report['url']})" in m and report["figure"] in m for m in said)
    assert ports.named(report["url"]) == "ohdearquant/lattice #96"


def test_a_gemma_4_offers_its_five_bugs_and_a_model_without_rope_none(on_this_machine,
                                                                       tmp_path):
    """A Gemma 4 (sliding layers at one base, a proportional global layer at another): split
    halves, its two proportional bugs, one base for every layer twice; a layer the port turns
    as the model does is said to be so. GPT-2 (a learned table) gets no such section."""
    from transformers import Gemma4TextConfig

    folder = saved(Gemma4TextConfig(vocab_size=len(tokenizer()), hidden_size=32,
                                    intermediate_size=64, num_hidden_layers=6,
                                    num_attention_heads=4, num_key_value_heads=2, head_dim=16,
                                    global_head_dim=32, bos_token_id=0, eos_token_id=0,
                                    pad_token_id=0), tmp_path / "gemma4")
    sentence = "the quick brown fox"
    for lang in ("en", "zh"):
        at = page(str(folder), sentence, lang)
        assert at.radio(key="real_port").options == [
            text(f"real.port.{bug}.name", lang, base=base) for bug, base in (
                ("halves_as_pairs", ""), ("gemma4_prefix", ""), ("gemma4_whole", ""),
                ("one_base", "10,000"), ("one_base", "1,000,000"))]
    model = loaded(str(folder))
    whole = {p.key: p for p in ported.ports(model)}["gemma4_whole"]
    at.radio(key="real_port").set_value("gemma4_whole").run()
    assert not at.exception
    said = [m.value for m in at.markdown]
    assert text("real.port.gemma4_whole.what", "zh", layers=text(
        "real.scheme.layer_one", "zh", n=6), kind="full\\_attention", turned=4, half=16,
        width=32, base="1,000,000", still=12) in said
    assert text("real.port_same_layer", "zh", layer=1) in [c.value for c in at.caption]
    wrong = pretrained.read(model, sentence, port=whole)
    shown = [array(t["z"]) for t in value_traces(chart_specs(at)[-1]["data"])][1]
    seen = ~np.isnan(shown)
    np.testing.assert_allclose(shown[seen], wrong.weights[0, 0][seen], rtol=1e-6)
    at = page("gpt2")
    assert text("real.port_head", "en") not in [s.value for s in at.subheader]


def test_a_document_shows_a_port_only_of_a_model_the_lecturer_opened(machine, tmp_path):
    """A room's screen or a file (a document, nobody's) names a model: before the lecturer
    opens it, one refusal and no port; after, the model's run beside its port's, as the
    lecturer's page shows it."""
    ids = {"vocab_size": len(tokenizer()), "bos_token_id": 0, "eos_token_id": 0}
    folder = str(saved(LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, **ids),
                       tmp_path / "llama"))
    query = {"model": [folder], "text": ["the quick brown fox"]}
    for lang in ("en", "zh"):
        before = list(walk(documents.drawn("real", query, lang)))
        assert [b["kind"] for b in before if b["t"] == "note"] == ["error"]
        assert text("real.port_head", lang) not in [b.get("text") for b in before]
    page(folder, "the quick brown fox")  # the lecturer opens it
    for lang in ("en", "zh"):
        after = list(walk(documents.drawn("real", query, lang)))
        assert text("real.port_head", lang) in [b.get("text") for b in after]
        assert text("real.port.halves_as_pairs.found_in", lang) in [b.get("text")
                                                                   for b in after]
        assert [b["name"] for b in after if b["t"] == "chart"][-1] == "real_port_maps"


def test_a_port_the_model_cannot_run_is_said_and_the_rest_of_the_page_stays(on_this_machine,
                                                                           monkeypatch):
    """A port's run that fails (transformers' code, changed) is said in words in its place;
    the next tokens still follow."""
    def broken(_):
        raise RuntimeError("the port's change does not fit")

    monkeypatch.setattr(ported, "_permuted", broken)
    at = page("posviz-test/tiny-llama", "a sentence no other test reads")
    assert [e.value for e in at.error] == [text(
        "real.port_fails", "en", detail=literal("RuntimeError: the port's change does not fit"))]
    assert text("real.next_head", "en") in [h.value for h in at.subheader]
