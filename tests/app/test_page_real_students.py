"""The real-model page on a real server, spoken to over its websocket from distinct loopback
addresses as phones are (127.0.0.1 is the lecturer's own browser, 127.0.0.2 and up are
students): a student cannot probe the lecturer's disk, load a model, or read one the lecturer has
not opened; the lecturer types paths and opens models, and students then read those (a buggy
port's run of them included)."""

from __future__ import annotations

import os

import pytest
from transformers import GPT2Config, LlamaConfig

from rooms import LECTURER_COOKIE
from rooms.signing import lecturer_token
from tests.helpers.hf_models import saved, tokenizer
from tests.helpers.load_fixtures import run_apart, serving, session
from tests.helpers.room_fixtures import Http, widgets
from ui.i18n import text

pytestmark = pytest.mark.server  # a server of its own, beside the browser tests

PAGE = "pages/8_real.py"
LECTURER = "127.0.0.1"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A server whose POSVIZ_MODELS lists two tiny models, with a third in a folder of its own
    that only a typed path names; the Hugging Face cache empty."""
    ids = {"vocab_size": len(tokenizer()), "bos_token_id": 0, "eos_token_id": 0}
    folder = tmp_path_factory.mktemp("models")
    saved(GPT2Config(n_embd=32, n_layer=2, n_head=4, n_positions=64, **ids), folder / "gpt2")
    saved(LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, **ids), folder / "llama")
    typed = saved(LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=4, num_key_value_heads=2, **ids),
                  tmp_path_factory.mktemp("elsewhere") / "typed-llama")
    rooms = tmp_path_factory.mktemp("rooms") / "rooms.sqlite3"
    env = {"POSVIZ_ROOM_STORE": f"sqlite:///{rooms}", "POSVIZ_MODELS": str(folder),
           "HF_HUB_CACHE": str(tmp_path_factory.mktemp("hub"))}
    with serving(env=env) as (_, url):
        yield url, folder, typed


def visit(url: str, source: str, model: str | None) -> tuple[list[str], str]:
    """The real-model page opened from source with ?model=model: its error messages, and the
    text of everything it says (its markdown, captions and messages; not the reader's own
    typing, which the model field holds). Raises if the page showed an exception."""
    async def go():
        async with session(url, source=source) as s:
            return await s.run(PAGE, {"model": model} if model is not None else {})

    messages = run_apart(go())
    errors = [m.delta.new_element.alert.body for m in messages
              if m.WhichOneof("type") == "delta"
              and m.delta.WhichOneof("type") == "new_element"
              and m.delta.new_element.WhichOneof("type") == "alert"
              and m.delta.new_element.alert.format == 1]
    elements = [m.delta.new_element for m in messages if m.WhichOneof("type") == "delta"
                and m.delta.WhichOneof("type") == "new_element"]
    said = [e.markdown.body for e in elements if e.WhichOneof("type") == "markdown"]
    said += [e.alert.body for e in elements if e.WhichOneof("type") == "alert"]
    return errors, "\n".join(said).replace("\\", "")


PROBES = ("/etc/shadow", "/etc/passwd", "/root/.ssh", "/root/.ssh/id_rsa", "/nowhere/key",
          "~root", "~root/.ssh", "~nosuchlogin", "~nosuchlogin/x", "/" + "a" * 5_000, "/etc",
          "..", "llama", "gpt2")


def test_a_student_gets_one_answer_whatever_the_path_and_loads_nothing(served):
    """From a student's address every model name or path not opened by the lecturer, whether
    it exists or not, a folder, a file, a login's home, a listed model not yet loaded, gets
    the very same message, never an exception; the listed names are not shown to students."""
    url, folder, typed = served
    answers = set()
    for k, probe in enumerate((*PROBES, str(typed), str(folder / "gpt2"))):
        errors, said = visit(url, f"127.0.0.{2 + k}", probe)
        assert len(errors) == 1, (probe, errors)
        answers.add(errors[0])
        assert "typed-llama" not in said
        assert text("real.port_intro", "en")[:30] not in said
    [answer] = answers
    assert answer.startswith(text("real.not_open", "en", names="")[:40])
    errors, said = visit(url, "127.0.0.40", None)  # a student's default: posviz's own
    assert not errors and "posviz/rope" in said and "gpt2" not in said


def test_the_lecturer_opens_a_typed_model_and_then_students_read_it(served):
    """The lecturer's own browser (127.0.0.1) types a path and reads it; a student then reads
    that model by the same name, and the listed model the lecturer did not open stays closed."""
    url, folder, typed = served
    errors, said = visit(url, LECTURER, str(typed))
    assert not errors and "typed-llama" in said
    assert text("real.port.halves_as_pairs.found_in", "en") in said  # the port's run beside
    for k in range(3):
        errors, said = visit(url, f"127.0.0.{50 + k}", str(typed))
        assert not errors, errors
        assert "RoPE" in said
        assert text("real.port.halves_as_pairs.found_in", "en") in said
    errors, _ = visit(url, "127.0.0.60", None)  # the opened model is a student's default
    assert not errors
    errors, _ = visit(url, "127.0.0.61", "llama")
    assert len(errors) == 1 and errors[0].startswith(text("real.not_open", "en", names="")[:40])


def test_the_lecturer_is_told_what_a_path_is(served):
    """The lecturer, not a student, learns that a path holds nothing or is not a model."""
    url, _, _ = served
    errors, _ = visit(url, LECTURER, "/nowhere/at/all")
    assert len(errors) == 1 and "/nowhere/at/all" in errors[0].replace("\\", "")
    assert errors[0].startswith(text("real.refused.unknown", "en", name="", detail="")[:12])
    errors, _ = visit(url, LECTURER, "/" + "a" * 5_000)
    assert len(errors) == 1  # too long for the system: said in words, no exception


def _said(messages) -> tuple[list[str], str]:
    """A run's error messages, and the text of everything it says."""
    elements = [m.delta.new_element for m in messages if m.WhichOneof("type") == "delta"
                and m.delta.WhichOneof("type") == "new_element"]
    errors = [e.alert.body for e in elements
              if e.WhichOneof("type") == "alert" and e.alert.format == 1]
    said = [e.markdown.body for e in elements if e.WhichOneof("type") == "markdown"]
    said += [e.alert.body for e in elements if e.WhichOneof("type") == "alert"]
    said += [e.text.body for e in elements if e.WhichOneof("type") == "text"]
    return errors, "\n".join(said).replace("\\", "")


def _start_then_type(url: str, source: str, path: str, cookies: dict[str, str] | None = None
                     ) -> tuple[bool, bool, list[str], str]:
    """A browser at source presses Start a room if the page offers it, then, in the same
    session, types path on the real-model page: whether the button was there, whether the
    browser leads a room, and what the page said."""
    async def go():
        async with session(url, cookies=cookies, source=source) as tab:
            home = await tab.open("", "")
            button = widgets(home).get("room_start")
            led = False
            if button is not None:
                shown = await tab.open("", "", clicked=(button,))
                led = "You lead room" in "\n".join(str(m.delta) for m in shown)
            return button is not None, led, await tab.run(PAGE, {"model": path})

    offered, led, messages = run_apart(go())
    return offered, led, *_said(messages)


def test_a_student_who_presses_start_a_room_gets_no_room_and_no_path(served, tmp_path):
    """With no passphrase set (the README's `python serve.py`), a student's browser at another
    address is offered no Start a room and is told who starts rooms; its typed path gets the
    students' one answer and loads nothing. The lecturer's link the server printed makes a
    browser at any address the lecturer: it starts a room and opens the typed path; a wrong
    link makes nobody the lecturer."""
    url = served[0]
    ids = {"vocab_size": len(tokenizer()), "bos_token_id": 0, "eos_token_id": 0}
    typed = saved(LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=4, num_key_value_heads=2, **ids),
                  tmp_path / "unopened-llama")  # opened by no one before this test
    offered, led, errors, said = _start_then_type(url, "127.0.0.90", str(typed))
    assert (offered, led) == (False, False)
    assert len(errors) == 1 and errors[0].startswith(text("real.not_open", "en", names="")[:40])
    assert "unopened-llama" not in said

    secret = os.environ["POSVIZ_SECRET"].encode()
    lecturer = Http(url, source="127.0.0.91")
    status, _ = run_apart(lecturer.request("GET", f"/?lecturer={lecturer_token(secret)}"))
    assert status == 303 and "lecturer=" not in lecturer.headers["location"]
    assert not lecturer.headers["location"].endswith("?")  # nothing left: no bare "?"
    assert LECTURER_COOKIE in lecturer.cookies
    wrong = Http(url, source="127.0.0.92")
    status, _ = run_apart(wrong.request("GET", "/?lecturer=not-the-secret-at-all"))
    assert status == 303 and LECTURER_COOKIE not in wrong.cookies
    assert "lecturer_refused=1" in wrong.headers["location"]

    offered, led, errors, said = _start_then_type(url, "127.0.0.91", str(typed),
                                                  {LECTURER_COOKIE: lecturer.cookies[
                                                      LECTURER_COOKIE]})
    assert (offered, led) == (True, True) and not errors and "unopened-llama" in said
