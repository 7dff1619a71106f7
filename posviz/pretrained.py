"""Real causal language models from this machine's disk, read on a sentence with position on or
off. For a notebook:

    model = posviz.pretrained.by_name("HuggingFaceTB/SmolLM2-135M")
    tokens, weights = posviz.pretrained.attention(model, "刚想到了")
    weights.shape  # (attention layers, heads, T, T), each row a query's weights over the keys

A model is a folder in the Hugging Face format: one the Hugging Face cache holds (named by its id,
as `huggingface_hub` lists it), one under a folder of models, or any path. Nothing is ever
downloaded: files are read locally only, weights only from `safetensors` files (a pickle can run
code), every file read must lie inside the model's folder (the cache's blobs, for a cached
model), and a model or tokenizer whose configuration asks for its own code is refused, never
run. torch runs on the CPU, in float32, on at most THREADS threads.

posviz's own small trained models (`posviz.model`, in assets/models) are read the same way, named
"posviz/rope", "posviz/learned", ... (`own()`), so a machine without a model still has some.

How a model carries position is read from what transformers itself builds, then checked on the
model (`scheme`): its rotary modules (each layer type's frequencies, as `ROPE_INIT_FUNCTIONS`
computed them, and which attention layers really turn their queries and keys), a learned or
sinusoidal table of absolute positions, or ALiBi. Switching position off does exactly one thing
per scheme, and says which (`Scheme.off`):
- RoPE: every position id is 0, so no query or key is turned (partial RoPE: the turned share);
- a table of absolute positions, learned (GPT-2) or sinusoidal (XGLM): its rows are zero;
- ALiBi (BLOOM, MPT, Falcon with alibi): every head's slope is 0, so the bias is 0 everywhere;
- none: nothing carries position but the causal mask, which stays in every case.
With that switch off, the first attention layer must read the tokens before the last one as a
bag; a model whose first layer still tells their order apart is refused ("unread"): posviz
would otherwise call position off something that is not. A refusal says what was found: keys
besides the sentence's tokens ("keys"), layers with different numbers of heads ("heads"),
position ids that change attention with no rotary frequencies to name ("ids").

A run has a third state beside position on and off: the model run as a buggy port of it runs
it (`read(..., port=...)`, the ports of posviz.ported).

This module keeps nothing between calls: a program that reads often keeps its loaded models
and runs itself (the app: ui.cached.real).
"""

from __future__ import annotations

import functools
import json
import math
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from posviz.alibi import alibi_slopes
from posviz.permutation import check_order

if TYPE_CHECKING:
    from posviz.ported import Port

FLOAT_BYTES = 4  # float32 on the CPU
OVERHEAD = 1.25  # memory beside the weights: activations, the tokenizer, Python
MAX_TOKENS = 64  # tokens of a sentence read (its start), as every page of posviz
THREADS = 4  # torch's threads at most: a run shares the server with every other reader
MAX_NAME = 1024  # characters of a typed model name or path at most
MAX_JSON = 16 << 20  # bytes of a configuration file read at most
MAX_FILES = 10_000  # entries of a model folder at most (each is checked to lie inside it)
OWN = "posviz/"  # the names of posviz's own models start so
OWN_ORDER = ("rope", "learned", "alibi", "sinusoidal", "none")  # as own() lists them
PROBE = (3, 7, 11, 5, 2, 9)  # token ids a model is checked on when it loads (its vocabulary's)
TABLE_NAME = re.compile(r"^(wpe|embed_positions|position_embeddings?|positions_embed|pos_emb)$")
"""Names transformers gives a table of absolute positions."""
AWAY = ("vision", "visual", "audio", "image", "speech", "video")
"""Parts of a multimodal model that never read the text (their own position tables)."""
CONFIGS = ("config.json", "tokenizer_config.json", "generation_config.json",
           "preprocessor_config.json", "processor_config.json")
"""The JSON files of a model folder that transformers may read (and so checked for auto_map)."""
PICKLES = (".bin", ".pt", ".pth", ".pkl", ".ckpt")
TOKEN_WISE = ("mlp", "moe", "ffn", "dense", "sparse", "feed_forward")
"""Kinds of layer that change each token on its own (a feed-forward layer): no order in them."""


class Refused(ValueError):
    """A model posviz will not load, with why: `reason` is one of REASONS, `detail` names it."""

    REASONS = ("unknown", "not_a_model", "pickle_only", "own_code", "not_causal", "too_large",
               "broken", "outside", "no_attention", "unread", "keys", "heads", "ids", "fails")

    def __init__(self, reason: str, detail: str) -> None:
        assert reason in self.REASONS, reason
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class Found:
    """A model on this machine: its name (a cache id or a folder's name) and its folder."""

    name: str
    path: Path
    source: str  # "cache", "folder", "path" or "posviz"


@dataclass(frozen=True)
class Card:
    """What a model is, read from its files before loading it."""

    path: Path
    model_type: str
    parameters: int  # from the safetensors headers
    needed: int  # bytes of memory to load and run it (float32, with OVERHEAD)
    available: int | None  # bytes of memory this machine has free, if it says


@dataclass(frozen=True)
class Rotary:
    """One kind of rotary position in a model: the attention layers that turn their queries and
    keys by it, and its numbers as transformers computed them."""

    layers: tuple[int, ...]  # the model's layers (from 0)
    layer_type: str | None  # transformers' name for those layers ("sliding_attention"), if any
    base: float | None  # rope_theta
    fraction: float  # the share of each head's channels turned
    rope_type: str  # "default", or its scaling: "linear", "yarn", "llama3", ...
    factor: float | None  # the scaling's factor
    frequencies: tuple[float, ...]  # each turned pair's angle per position (inv_freq)
    pairing: str = "halves"  # lane i with i + r/2 (rotate_half), or "neighbours": 2i, 2i + 1


@dataclass(frozen=True)
class Scheme:
    """How a model carries position, with its numbers, and what switching it off does.
    attention: the model's layers (from 0) that are attention; layers: all of its layers;
    other: the kinds of its other layers (a recurrent or convolution layer), which carry order of
    their own that position off leaves as it is. For RoPE, rotary lists each kind and unturned
    the attention layers that turn nothing (NoPE)."""

    kind: str  # "rope", "learned", "alibi", "sinusoidal" or "none"
    numbers: dict = field(default_factory=dict)
    rotary: tuple[Rotary, ...] = ()
    unturned: tuple[int, ...] = ()
    attention: tuple[int, ...] = ()
    layers: int = 0
    other: tuple[str, ...] = ()
    beside: tuple[int, ...] = ()  # attention layers with a Mamba branch beside it (Falcon-H1)

    @property
    def ordered(self) -> tuple[str, ...]:
        """The other layers that mix the tokens (a recurrent, linear-attention or convolution
        layer), and so carry their order of their own, one per such layer."""
        return tuple(k for k in self.other if not any(w in k.lower() for w in TOKEN_WISE))

    @property
    def off(self) -> str:
        return {"rope": "position ids all 0", "learned": "position table rows zeroed",
                "alibi": "every slope 0", "sinusoidal": "sinusoidal table rows zeroed",
                "none": "nothing to switch off"}[self.kind]


@dataclass(frozen=True)
class Piece:
    """One token as the model reads it: its text in the sentence (characters start:end) and
    whether a character of it is split over several tokens."""

    position: int
    token: str  # the tokenizer's own spelling (byte-level pieces look garbled)
    text: str  # the characters of the sentence it covers, whole
    start: int
    end: int
    split: bool  # one of its characters is spread over this token and a neighbour
    special: bool  # a token the tokenizer adds (start of text), covering no characters


@dataclass(frozen=True)
class Guess:
    """A likely next token: its text as the tokenizer decodes it alone, its bytes, and its
    probability. whole: its text is its bytes as characters a reader can see (no piece of a
    character, no control, unassigned or separator character but the plain space), so it can
    be shown as text."""

    text: str
    raw: bytes
    p: float

    @property
    def whole(self) -> bool:
        return bool(self.text) and self.text.encode("utf-8") == self.raw and \
            self.text.isprintable()


@dataclass
class Loaded:
    """A model and its tokenizer; runs are serialized (position off changes the model for the
    length of a run). posviz's own models have a vocabulary for a tokenizer, and the same
    weights without position (no_position)."""

    card: Card
    model: object
    tokenizer: object
    scheme: Scheme
    no_position: object = None  # posviz's own: the same weights, scheme "none"
    tables: tuple = ()  # the tables of absolute positions that position off zeroes
    drawn: tuple[int, ...] | None = None  # which of transformers' attentions are (T, T) maps
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True)
class Reading:
    """One run of the model on a sentence: its tokens (the first MAX_TOKENS of total), its
    attention (attention layers, heads, T, T), each layer's output (layers, T, D) and the top
    next tokens at each position."""

    pieces: list[Piece]
    total: int
    weights: np.ndarray
    states: np.ndarray
    top: list[list[Guess]]


@dataclass(frozen=True)
class Twin:
    """The sentence's tokens in another order, read by the same model and compared token by
    token with the sentence as typed (posviz.permutation's convention: position k of the new
    order holds token order[k])."""

    order: np.ndarray  # (T,)
    weights: np.ndarray  # (layers, heads, T, T): the new order's attention, put back by token
    mask: np.ndarray  # (T, T): where, in the new order, token i could see token j
    gaps: np.ndarray  # (layers,): the largest change of a token's output, relative to its size
    last_gaps: np.ndarray  # (layers,): the same for the token that ends the sentence as typed


# ---- finding ------------------------------------------------------------------------------

def cached(cache: str | None = None) -> list[Found]:
    """Every model in the Hugging Face cache (cache, or where huggingface_hub keeps it:
    HF_HUB_CACHE or HF_HOME), by id: its newest snapshot."""
    from huggingface_hub import constants, scan_cache_dir
    from huggingface_hub.errors import CacheNotFound

    try:
        info = scan_cache_dir(cache or constants.HF_HUB_CACHE)
    except (CacheNotFound, OSError, ValueError):
        return []
    found = []
    for repo in info.repos:
        if repo.repo_type == "model" and repo.revisions:
            newest = max(repo.revisions, key=lambda r: r.last_modified)
            found.append(Found(repo.repo_id, Path(newest.snapshot_path), "cache"))
    return sorted(found, key=lambda f: f.name)


def in_folder(folder: Path | None) -> list[Found]:
    """Every model folder (a folder holding config.json) directly under folder."""
    try:
        if folder is None or not folder.is_dir():
            return []
        return [Found(p.name, p, "folder") for p in sorted(folder.iterdir())
                if (p / "config.json").is_file()]
    except OSError:
        return []


def own() -> list[Found]:
    """posviz's own trained models (checkpoints in assets/models), one per position scheme."""
    from posviz.train import MODELS

    return [Found(OWN + scheme, MODELS / f"{scheme}.pt", "posviz") for scheme in OWN_ORDER
            if (MODELS / f"{scheme}.pt").is_file()]


def at_path(typed: str) -> Found:
    """The model folder a typed path names, or Refused: too long, nothing there ("unknown"),
    or a file ("not_a_model")."""
    if not typed or len(typed) > MAX_NAME or "\0" in typed:
        raise Refused("unknown", typed[:80])
    try:
        path = Path(typed).expanduser()
        if path.is_dir():
            return Found(typed, path, "path")
        there = path.exists()
    except (OSError, RuntimeError, ValueError) as err:  # too long, ~nobody, a bad character
        raise Refused("unknown", typed[:80]) from err
    raise Refused("not_a_model" if there else "unknown", typed[:80])


def find(name: str, folder: Path | None = None, cache: str | None = None) -> Found:
    """A model from its name: a folder under folder, a cache id, one of posviz's own, or a
    path (at_path)."""
    for known in (*in_folder(folder), *cached(cache), *(own() if name.startswith(OWN) else ())):
        if known.name == name:
            return known
    return at_path(name)


def by_name(name: str, folder: Path | None = None) -> Loaded:
    """A model by its name (find), its files checked (card) and loaded (load), for a
    notebook."""
    return load(card(find(name, folder)))


# ---- reading before loading ---------------------------------------------------------------

def _home(path: Path) -> Path:
    """Where a model's files may lie: its folder, or for a cache snapshot
    (models--x--y/snapshots/<rev>) the cached repository, whose blobs the snapshot links to."""
    if path.parent.name == "snapshots" and path.parent.parent.name.startswith("models--"):
        return path.parent.parent
    return path


def _inside(file: Path, path: Path) -> Path:
    """file, checked to be a regular file inside the model's home (a link may not lead out)."""
    try:
        real = file.resolve(strict=True)
        home = _home(path).resolve(strict=True)
    except (OSError, RuntimeError) as err:
        raise Refused("broken", file.name) from err
    if not real.is_relative_to(home):
        raise Refused("outside", file.name)
    if not real.is_file():
        raise Refused("broken", file.name)
    return real


def _all_inside(path: Path) -> None:
    """Every file of the model's folder (the tokenizer's, the weights, anything transformers may
    open) lies inside its home: a link out of it is refused before anything is read."""
    try:
        entries = []
        for entry in path.iterdir():
            entries.append(entry)
            if len(entries) > MAX_FILES:
                raise Refused("broken", f"more than {MAX_FILES:,} files")
    except OSError as err:
        raise Refused("broken", path.name) from err
    home = _home(path).resolve()
    for entry in entries:
        try:
            real = entry.resolve(strict=True)
        except (OSError, RuntimeError) as err:  # a link to nothing, or a loop of links
            raise Refused("broken", entry.name) from err
        if not real.is_relative_to(home):
            raise Refused("outside", entry.name)


def _json(file: Path, path: Path) -> dict:
    real = _inside(file, path)
    try:
        if real.stat().st_size > MAX_JSON:
            raise Refused("broken", file.name)
        loaded = json.loads(real.read_text("utf-8"))
    except (OSError, ValueError) as err:
        raise Refused("broken", file.name) from err
    if not isinstance(loaded, dict):
        raise Refused("broken", file.name)
    return loaded


def available_memory() -> int | None:
    """Bytes of memory free for a new model (Linux's MemAvailable), or None if unknown."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _weights(path: Path) -> list[Path]:
    """The safetensors files transformers will read for the model in path (as an index names
    them, or model.safetensors), each checked to be inside its home."""
    index = path / "model.safetensors.index.json"
    if index.exists() or index.is_symlink():
        shards = _json(index, path).get("weight_map")
        if not isinstance(shards, dict) or not shards:
            raise Refused("broken", index.name)
        names = set(shards.values())
        if not all(isinstance(n, str) and n and Path(n).name == n for n in names):
            raise Refused("outside", index.name)
        return [_inside(path / n, path) for n in sorted(names)]
    single = path / "model.safetensors"
    if single.exists() or single.is_symlink():
        return [_inside(single, path)]
    return []


def _parameters(files: list[Path]) -> int:
    """The weights' count, from the safetensors headers (every header checked: a file that
    safetensors cannot open, or a tensor of a negative shape, is "broken")."""
    from safetensors import safe_open

    parameters = 0
    for file in files:
        try:
            with safe_open(str(file), framework="np") as f:
                for key in f.keys():  # noqa: SIM118 (a safetensors file is not a dict)
                    shape = f.get_slice(key).get_shape()
                    if any(n < 0 for n in shape):
                        raise Refused("broken", file.name)
                    parameters += math.prod(shape)
        except Refused:
            raise
        except Exception as err:  # safetensors' own error for a file it cannot read
            raise Refused("broken", file.name) from err
    return parameters


def card(found: Found | Path) -> Card:
    """What the model is and what it needs, or Refused: no configuration, weights only as a
    pickle, its own code asked for (by its configuration or its tokenizer's), not a causal
    language model, a file that cannot be read, or one that leads outside its folder."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    path = found.path if isinstance(found, Found) else Path(found)
    if path.suffix == ".pt":  # one of posviz's own
        import torch

        state = torch.load(path, map_location="cpu", weights_only=True)["state_dict"]
        parameters = sum(int(t.numel()) for t in state.values())
        return Card(path, f"posviz-{path.stem}", parameters,
                    int(parameters * FLOAT_BYTES * OVERHEAD), available_memory())
    if not (path / "config.json").exists():
        raise Refused("not_a_model", str(path))
    _all_inside(path)
    configs = {name: _json(path / name, path) for name in CONFIGS
               if (path / name).exists() or (path / name).is_symlink()}
    config = configs["config.json"]
    model_type = config.get("model_type", "")
    if not isinstance(model_type, str):
        raise Refused("broken", "config.json")
    if any("auto_map" in c for c in configs.values()):
        raise Refused("own_code", model_type or str(path))
    if model_type not in CONFIG_MAPPING_NAMES:
        raise Refused("not_a_model", model_type or str(path))
    architectures = config.get("architectures") or [f"{model_type}ForCausalLM"]
    if model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES or not isinstance(
            architectures, list) or not any(
            isinstance(a, str) and (a.endswith("ForCausalLM") or a.endswith("LMHeadModel")
                                    or a.endswith("ForConditionalGeneration"))
            for a in architectures):
        raise Refused("not_causal", model_type)
    files = _weights(path)
    if not files:
        if any(p.suffix in PICKLES for p in path.iterdir()):
            raise Refused("pickle_only", str(path))
        raise Refused("not_a_model", str(path))
    parameters = _parameters(files)
    return Card(path, model_type, parameters, int(parameters * FLOAT_BYTES * OVERHEAD),
                available_memory())


# ---- loading ------------------------------------------------------------------------------

def load(about: Card) -> Loaded:
    """The model a card describes and its tokenizer, its position scheme read and checked
    (Refused if it should not be loaded, or cannot be read right). Nothing is kept: each call
    loads afresh."""
    if about.available is not None and about.needed > about.available:
        raise Refused("too_large", f"{about.needed} > {about.available} bytes")
    if about.model_type.startswith("posviz-"):
        return _load_own(about)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging

    logging.disable_progress_bar()  # a server's log is for what goes wrong
    torch.set_num_threads(min(torch.get_num_threads(), THREADS))  # the process's count
    try:
        model = AutoModelForCausalLM.from_pretrained(
            about.path, local_files_only=True, trust_remote_code=False, use_safetensors=True,
            attn_implementation="eager", dtype=torch.float32)
        tokenizer = AutoTokenizer.from_pretrained(about.path, local_files_only=True,
                                                  trust_remote_code=False)
    except Exception as err:  # transformers' own refusal of a file, a shape, a setting
        raise Refused("fails", _first_line(err)) from err
    model.eval()
    try:
        named, tables, drawn = scheme(model)
    except Refused:
        raise
    except Exception as err:  # a model transformers builds but posviz cannot run as it reads
        raise Refused("fails", _first_line(err)) from err
    return Loaded(about, model, tokenizer, named, tables=tables, drawn=drawn)


def _first_line(err: BaseException) -> str:
    return f"{type(err).__name__}: {(str(err).strip().splitlines() or [''])[0][:200]}"


def _load_own(about: Card) -> Loaded:
    from posviz.model import load_checkpoint, without_position

    model, vocab = load_checkpoint(about.path)
    c = model.config
    rotary = (Rotary(tuple(range(c.n_layers)), None, c.base, 1.0, "default", None,
                     tuple(c.base ** (-np.arange(0, c.d_model // c.n_heads, 2)
                                      / (c.d_model // c.n_heads)))),)
    numbers = {"rope": {"base": c.base, "type": "default", "fraction": 1.0,
                        "trained": c.max_len},
               "learned": {"size": c.max_len, "width": c.d_model},
               "alibi": {"heads": c.n_heads, "slopes": alibi_slopes(c.n_heads).tolist()},
               "sinusoidal": {"base": c.base, "width": c.d_model}}.get(c.scheme, {})
    layers = tuple(range(c.n_layers))
    return Loaded(about, model, vocab,
                  Scheme(c.scheme, numbers, rotary if c.scheme == "rope" else (), (), layers,
                         c.n_layers), without_position(model))


# ---- the scheme ---------------------------------------------------------------------------

def _text_path(name: str) -> bool:
    return not any(part in name.lower() for part in AWAY)


def _tables(model) -> list[tuple[str, object]]:
    """The model's tables of absolute positions on the text's path (name, module)."""
    return [(name, module) for name, module in model.named_modules()
            if TABLE_NAME.match(name.rsplit(".", 1)[-1]) and _text_path(name)
            and not any(n in type(module).__name__ for n in ("Rotary", "Relative"))]


def _heads(config) -> int:
    """A transformers configuration's attention heads (BLOOM names them n_head)."""
    return getattr(config, "num_attention_heads", None) or config.n_head


def _alibi(model) -> np.ndarray | None:
    """Each head's ALiBi slope as the model's own code builds its bias (what a token of distance
    takes off a score entering the softmax), or None for a model without ALiBi: BLOOM; Falcon
    with `alibi` set (the bias divided by the square root of the head's width); MPT (always, in
    transformers; its slopes for a head count that is not a power of 2 are its own)."""
    import torch

    config, base = model.config, model.base_model
    kind = config.model_type
    if kind == "bloom" or (kind == "falcon" and config.alibi):
        heads = _heads(config)
        build = import_module(f"transformers.models.{kind}.modeling_{kind}").build_alibi_tensor
        bias = build(torch.ones(1, 2), heads, torch.float32)[:, 0, 1]  # distance 1: the slope
        scale = math.sqrt(config.hidden_size // heads) if kind == "falcon" else 1
        return bias.double().numpy() / scale
    if kind == "mpt":
        return -base.build_mpt_alibi_tensor(_heads(config), 2)[:, 0, 0].double().numpy()
    return None


def _frequencies(module) -> dict[str | None, object]:
    """A rotary module's frequencies (inv_freq) by layer type (None: every layer), as
    transformers computed them when it built the module. GPT-J's and CodeGen's keep no
    inv_freq but a table of [sin | cos] by position (embed_positions): row 1 holds
    sin(theta_i) and cos(theta_i), so theta_i = atan2 of the two (every theta_i <= 1 rad)."""
    import torch

    found = {}
    for name, buffer in module.named_buffers(recurse=False):
        if name == "inv_freq":
            found[None] = buffer
        elif name.endswith("_inv_freq") and not name.endswith("original_inv_freq"):
            found[name.removesuffix("_inv_freq")] = buffer
        elif name == "embed_positions" and buffer.dim() == 2 and len(buffer) > 1:
            sin, cos = buffer[1].double().chunk(2)  # position 1: (r/2,) each
            found[None] = torch.atan2(sin, cos)
    return found


def _pairing(module) -> str:
    """Which lanes a rotary module's model turns together: GPT-J's and CodeGen's modeling code
    turns neighbours (rotate_every_two: lanes 2i and 2i + 1), the others split halves
    (rotate_half: lanes i and i + r/2)."""
    code = import_module(type(module).__module__)
    return "neighbours" if hasattr(code, "rotate_every_two") and not hasattr(
        code, "rotate_half") else "halves"


def _rope_numbers(config, layer_type: str | None) -> dict:
    """The RoPE settings of config (for layer_type, where they differ by layer type)."""
    params = getattr(config, "rope_parameters", None) or {}
    if isinstance(params, dict) and layer_type in params and isinstance(params[layer_type], dict):
        params = params[layer_type]
    return params if isinstance(params, dict) else {}


@dataclass
class _Probe:
    """The attention layers of a model found by one run: each one's module and layer number."""

    modules: list
    layers: list[int]


def _layer_of(name: str) -> int | None:
    found = re.search(r"\.(\d+)(\.|$)", name)
    return int(found[1]) if found else None


def _run_ids(model, ids: list[int], position_ids=None):
    import torch

    tensor = torch.tensor([ids])
    extra = {} if position_ids is None else {"position_ids": position_ids}
    with torch.inference_mode():
        return model(input_ids=tensor, attention_mask=torch.ones_like(tensor),
                     output_attentions=True, output_hidden_states=True, **extra)


def _probe(model, ids: list[int]) -> tuple[_Probe, object]:
    """Which modules return the attention weights (the innermost module whose output holds each
    one), found by one run; and the run."""
    seen: dict[int, tuple[str, object]] = {}
    handles = []
    names = {module: name for name, module in model.named_modules()}

    def note(module, _, out) -> None:
        for item in out if isinstance(out, tuple) else ():
            if hasattr(item, "dim") and item.dim() == 4 and id(item) not in seen:
                seen[id(item)] = (names[module], module)

    for module in names:
        handles.append(module.register_forward_hook(note))
    try:
        out = _run_ids(model, ids)
    finally:
        for handle in handles:
            handle.remove()
    attentions = [a for a in (getattr(out, "attentions", None) or ()) if a is not None]
    found = [seen.get(id(a)) for a in attentions]
    modules = [f[1] for f in found if f]
    layers = [(_layer_of(f[0]) if f else None) for f in found]
    if None in layers or len(set(layers)) != len(layers):
        layers = list(range(len(attentions)))
    return _Probe(modules if len(modules) == len(attentions) else [], layers), out


def _turning(model, probe: _Probe, ids: list[int], drawn: list[int]) -> list[bool]:
    """For each attention layer, whether it turns its queries and keys by position: the model
    run with every position id 0, each attention layer given the very input it had with
    positions 0, 1, 2, ... (so that only its own use of the ids can change its weights)."""
    import torch

    if not probe.modules:
        return [True] * len(probe.layers)
    inputs: list = []

    def keep(_, args, kwargs):
        inputs.append(kwargs["hidden_states"] if "hidden_states" in kwargs else args[0])

    def put(_, args, kwargs):
        given = inputs[len(used)]
        used.append(1)
        if "hidden_states" in kwargs:
            return args, kwargs | {"hidden_states": given}
        return (given, *args[1:]), kwargs

    used: list = []
    runs = []
    for hook, zero in ((keep, False), (put, True)):
        handles = [m.register_forward_pre_hook(hook, with_kwargs=True) for m in probe.modules]
        try:
            zeros = torch.zeros((1, len(ids)), dtype=torch.long) if zero else None
            runs.append(_run_ids(model, ids, zeros))
        finally:
            for handle in handles:
                handle.remove()
    on, off = ([run.attentions[i] for i in drawn] for run in runs)
    return [not torch.allclose(a, b, atol=1e-6) for a, b in zip(on, off, strict=True)]


def _head_width(modules: list, config) -> int | None:
    """The width of a head's queries and keys in these attention modules (or config's)."""
    for module in modules:
        for name in ("qk_head_dim", "head_dim", "head_size"):
            if isinstance(getattr(module, name, None), int):
                return getattr(module, name)
    width = getattr(config, "head_dim", None)
    return width or (config.hidden_size // _heads(config) if getattr(
        config, "hidden_size", None) else None)


def _rotary(model, probe: _Probe, turning: list[bool]) -> tuple[Rotary, ...]:
    """Each kind of rotary position the model's turning attention layers use."""
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") \
        else model.config
    entries: dict[str | None, object] = {}
    for name, module in model.named_modules():
        if "Rotary" in type(module).__name__ and _text_path(name):
            for kind, freq in _frequencies(module).items():
                entries.setdefault(kind, (module, freq))
    types = getattr(config, "layer_types", None)
    groups: dict[str | None, list[int]] = {}
    for layer, turns in zip(probe.layers, turning, strict=True):
        if turns:
            kind = types[layer] if isinstance(types, list) and layer < len(types) else None
            groups.setdefault(kind if kind in entries else None, []).append(layer)
    merged: dict[str | None, list[int]] = {}
    for kind, layers in groups.items():
        if kind not in entries:
            if len(entries) != 1:
                return ()
            kind = next(iter(entries))
        merged.setdefault(kind, []).extend(layers)
    out = []
    for kind, layers in merged.items():
        module, freq = entries[kind]
        params = _rope_numbers(config, kind)
        held = getattr(module, "rope_type", None)
        rope_type = held.get(kind) if isinstance(held, dict) \
            else held or params.get("rope_type", "default")
        base = params.get("rope_theta", getattr(config, "rope_theta", None))
        turned = int((freq != 0).sum())  # a "proportional" RoPE leaves some pairs at 0
        if base is None and turned > 1:  # GPT-J: no rope_theta; theta_1 = base^(-2/r)
            base = float(f"{float(freq[1]) ** (-turned):.6g}")
        width = _head_width([probe.modules[probe.layers.index(k)] for k in layers]
                            if probe.modules else [], config)
        fraction = min(1.0, 2 * turned / width) if width else 1.0
        factor = params.get("factor")
        same = isinstance(types, list) and all(
            k < len(types) and types[k] == kind for k in layers)
        out.append(Rotary(tuple(sorted(layers)), kind if same else None,
                          float(base) if base else None, fraction,
                          str(rope_type or "default"),
                          float(factor) if isinstance(factor, int | float) else None,
                          tuple(float(f) for f in freq.double()), _pairing(module)))
    return tuple(sorted(out, key=lambda r: r.layers))


def _bag(model, switch, ids: list[int]) -> bool:
    """Whether, with position switched off, the first layer reads the tokens before the last
    one as a bag: its output at the last token is the same for another order of them."""
    import torch

    moved = [ids[2], ids[0], ids[4], ids[1], ids[3], ids[5]]
    outputs = []
    for sequence in (ids, moved):
        with switch(sequence) as extra:
            tensor = torch.tensor([sequence])
            with torch.inference_mode():
                out = model(input_ids=tensor, attention_mask=torch.ones_like(tensor),
                            output_hidden_states=True, **extra)
        outputs.append(per_token(out.hidden_states[1], len(sequence))[-1])
    size = float(outputs[0].norm()) or 1.0
    return float((outputs[0] - outputs[1]).norm()) / size < 1e-4


def _causal(attentions) -> bool:
    import torch

    return all(bool((torch.triu(a[0], diagonal=1).abs() < 1e-9).all()) for a in attentions)


def _other_layers(config, attention: list[int], layers: int) -> tuple[str, ...]:
    """The kinds of the model's layers that are not attention (from its layer types), one per
    such layer."""
    types = getattr(config, "layer_types", None)
    rest = [k for k in range(layers) if k not in attention]
    if isinstance(types, list) and len(types) == layers:
        return tuple(str(types[k]) for k in rest)
    return tuple("other" for _ in rest)


def _lengths(config, layer_type: str | None) -> dict:
    """The lengths a configuration names: "length", the longest sequence it is made for
    (max_position_embeddings); "pretrained", the length of pre-training, only where it names
    one (original_max_position_embeddings: Llama 3.1's, YaRN's, LongRoPE's, whose RoPE is
    stretched from it). Neither says the model was trained on sequences of that length."""
    original = (_rope_numbers(config, layer_type).get("original_max_position_embeddings")
                or getattr(config, "original_max_position_embeddings", None))
    out = {"length": getattr(config, "max_position_embeddings", None)}
    return out | ({"pretrained": int(original)} if isinstance(original, int | float) else {})


def _beside(model, attention: tuple[int, ...]) -> tuple[int, ...]:
    """The attention layers that also run a Mamba branch on the same input (Falcon-H1's
    `mamba` beside its `self_attn` in every layer): a recurrence, which reads order itself."""
    found = {_layer_of(name) for name, module in model.named_modules()
             if _text_path(name) and ("mamba" in name.rsplit(".", 1)[-1].lower()
                                      or "Mamba" in type(module).__name__)}
    return tuple(k for k in attention if k in found)


def scheme(model) -> tuple[Scheme, tuple, tuple[int, ...]]:
    """How the loaded model carries position, read from what transformers built; the tables of
    absolute positions position off zeroes; and which of the attentions transformers gives are
    maps of the sentence's tokens over themselves (another layer's, such as a linear
    attention's state, is not). Refused if the model has no attention, is not causal, or
    carries position in a way posviz cannot switch off."""
    import torch

    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") \
        else model.config
    vocab = int(getattr(config, "vocab_size", 0) or model.get_input_embeddings().num_embeddings)
    ids = [i % vocab for i in PROBE]
    layers = int(getattr(config, "num_hidden_layers", 0) or 0)
    try:
        probe, out = _probe(model, ids)
    except Exception as err:  # transformers' own run fails on the model as it is
        raise Refused("fails", _first_line(err)) from err
    given = list(getattr(out, "attentions", None) or ())
    square = [i for i, a in enumerate(given)
              if a is not None and a.dim() == 4 and a.shape[-2:] == (len(ids), len(ids))]
    if any(a is not None and a.dim() == 4 and a.shape[-2] == len(ids) and i not in square
           for i, a in enumerate(given)):
        raise Refused("keys", config.model_type)
    attentions = [given[i] for i in square]
    if not attentions:
        raise Refused("no_attention", config.model_type)
    if len(square) != len(given) or len(probe.layers) != len(given):
        probe = _Probe([probe.modules[i] for i in square] if len(probe.modules) == len(given)
                       else [], [probe.layers[i] for i in square]
                       if len(probe.layers) == len(given) else list(range(len(square))))
    if len({a.shape[1] for a in attentions}) > 1:
        raise Refused("heads", config.model_type)
    if not _causal(attentions):
        raise Refused("not_causal", config.model_type)
    layers = max(layers, len(out.hidden_states) - 1)
    attention = tuple(probe.layers)
    other = _other_layers(config, list(attention), layers)
    shape = {"attention": attention, "layers": layers, "other": other,
             "beside": _beside(model, attention)}

    tables = []
    for name, module in _tables(model):
        with _zeroed((module,)):
            changed = _run_ids(model, ids).logits
        if not torch.allclose(changed, out.logits, atol=1e-7):
            tables.append((name, module))

    if (slopes := _alibi(model)) is not None:
        named = Scheme("alibi", {"heads": _heads(config), "slopes": slopes.tolist()}, **shape)
    elif tables and not any("Rotary" in type(m).__name__ for m in model.modules()):
        name, module = tables[0]
        weight = getattr(module, "weight", getattr(module, "weights", None))
        rows, width = (weight.shape if weight is not None else (None, None))
        rows = rows - getattr(module, "offset", 0) if rows else rows
        kind = "sinusoidal" if "Sinusoid" in type(module).__name__ else "learned"
        named = Scheme(kind, {"size": rows, "width": width}, **shape)
    else:
        turning = _turning(model, probe, ids, square)
        rotary = _rotary(model, probe, turning) if any(turning) else ()
        if any(turning) and not rotary:
            raise Refused("ids", config.model_type)
        if rotary:
            first = rotary[0]
            named = Scheme("rope", {
                "base": first.base, "type": first.rope_type, "fraction": first.fraction,
                "factor": first.factor, **_lengths(config, first.layer_type)},
                rotary, tuple(layer for layer, turns in zip(attention, turning, strict=True)
                              if not turns), **shape)
        else:
            named = Scheme("none", {}, **shape)
    loaded = Loaded(None, model, None, named, tables=tuple(m for _, m in tables),
                    drawn=tuple(square))
    if not (named.ordered or named.beside) and not _bag(
            model, lambda seq: _position(loaded, False, seq), ids):
        raise Refused("unread", f"{config.model_type}: order still read with "
                      f"{named.off if named.kind != 'none' else 'no position found'}")
    return named, loaded.tables, loaded.drawn


# ---- reading a sentence -------------------------------------------------------------------

def pieces(loaded: Loaded, text: str) -> list[Piece]:
    """The sentence as the model's tokenizer reads it (its first MAX_TOKENS tokens)."""
    return encode(loaded, text)[1]


def encode(loaded: Loaded, text: str) -> tuple[list[int], list[Piece], int]:
    """The token ids the model reads, their pieces, and how many tokens the whole text has."""
    if loaded.no_position is not None:
        return _encode_own(loaded, text)
    encoded = loaded.tokenizer(text, return_offsets_mapping=True)
    total = len(encoded["input_ids"])
    ids = list(encoded["input_ids"])[:MAX_TOKENS]
    spans = [tuple(span) for span in encoded["offset_mapping"]][:MAX_TOKENS]
    special = set(loaded.tokenizer.all_special_ids)
    spellings = loaded.tokenizer.convert_ids_to_tokens(ids)
    out = []
    for i, ((start, end), spelling) in enumerate(zip(spans, spellings, strict=True)):
        shared = any(j != i and s < end and start < e for j, (s, e) in enumerate(spans))
        out.append(Piece(i, spelling, text[start:end], start, end, shared,
                         ids[i] in special and end == start))
    return ids, out, total


def _encode_own(loaded: Loaded, text: str) -> tuple[list[int], list[Piece], int]:
    """posviz's tokens (posviz.tokens), as far as the model's table of positions reaches."""
    from posviz.tokens import tokenize

    typed = tokenize(text)
    config = loaded.model.config
    kept = typed[:min(MAX_TOKENS, config.max_len if config.scheme == "learned" else MAX_TOKENS)]
    seen, out, at = loaded.tokenizer.seen(kept), [], 0
    for i, (token, reading) in enumerate(zip(kept, seen, strict=True)):
        start = text.find(token, at)
        start = at if start < 0 else start
        at = start + len(token)
        out.append(Piece(i, reading, token, start, at, False, False))
    return list(loaded.tokenizer.encode(kept)), out, len(typed)


@contextmanager
def _zeroed(tables) -> Iterator[None]:
    """Each table of absolute positions gives rows of zeros for the length of the block."""
    import torch

    def zero(_, __, out):
        if isinstance(out, tuple):  # (the rows, what else the module gives)
            return (torch.zeros_like(out[0]), *out[1:])
        return torch.zeros_like(out)

    handles = [t.register_forward_hook(zero) for t in tables]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


@contextmanager
def _position(loaded: Loaded, on: bool, ids) -> Iterator[dict]:
    """The run's extra arguments for the token ids with position on or off, the model changed
    for the run if need be (and put back after)."""
    import torch

    kind = loaded.scheme.kind
    if on or kind == "none":
        yield {}
        return
    if kind == "rope":
        yield {"position_ids": torch.zeros((1, len(ids)), dtype=torch.long)}
        return
    if kind in ("learned", "sinusoidal"):
        with _zeroed(loaded.tables):
            yield {}
        return
    model = loaded.model
    base = model.base_model  # alibi: no bias, as if every slope were 0
    if model.config.model_type == "falcon":  # Falcon adds its bias only while use_alibi
        base.use_alibi = False
        try:
            yield {}
        finally:
            base.use_alibi = True
        return
    name = {"bloom": "build_alibi_tensor", "mpt": "build_mpt_alibi_tensor"}[
        model.config.model_type]
    build = getattr(base, name)
    setattr(base, name, lambda *args, **kwargs: torch.zeros_like(build(*args, **kwargs)))
    try:
        yield {}
    finally:
        delattr(base, name)


def read(loaded: Loaded, text: str, position: bool = True, k: int = 5,
         port: Port | None = None) -> Reading:
    """The model's attention, its layers' outputs and its k likeliest next tokens on the
    sentence, in one run (as a buggy port of it runs it, if port is given: posviz.ported)."""
    ids, pieces, total = encode(loaded, text)
    return Reading(pieces, total, *run(loaded, ids, position, k, port))


def run(loaded: Loaded, ids: list[int], position: bool, k: int = 5, port: Port | None = None
        ) -> tuple[np.ndarray, np.ndarray, list[list[Guess]]]:
    """One run on token ids: attention (attention layers, heads, T, T), outputs (layers, T, D)
    and the top k next tokens at each position; with port (one of posviz.ported.ports(loaded)),
    the model changed for the run as the port runs it, and put back after."""
    import torch

    if port is not None and loaded.no_position is not None:
        raise ValueError("posviz's own models run no port")
    if not ids:
        scheme = loaded.scheme
        heads = (loaded.model.config.n_heads if loaded.no_position is not None
                 else _heads(loaded.model.config.get_text_config()))
        return (np.zeros((len(scheme.attention), heads, 0, 0)),
                np.zeros((scheme.layers, 0, 0)), [])
    if loaded.no_position is not None:
        return _run_own(loaded, ids, position, k)
    tensor = torch.tensor([ids])
    args = {"input_ids": tensor, "attention_mask": torch.ones_like(tensor),
            "output_attentions": True, "output_hidden_states": True}
    with loaded.lock, torch.inference_mode(), _position(loaded, position, ids) as extra, \
            (port.applied() if port is not None else nullcontext()):
        out = loaded.model(**args, **extra)
    given = list(out.attentions)
    maps = [given[i] for i in (loaded.drawn if loaded.drawn is not None else range(len(given)))]
    if any(a is None or a.shape[-2:] != (len(ids), len(ids)) for a in maps):
        raise Refused("keys", loaded.model.config.model_type)
    weights = np.stack([a[0].double().numpy() for a in maps])
    states = outputs(out.hidden_states[1:], len(ids))
    probs = torch.softmax(out.logits[0].double(), dim=-1)
    best = torch.topk(probs, k=min(k, probs.shape[-1]), dim=-1)
    top = [[guess(loaded.tokenizer, int(i), float(p)) for p, i in zip(ps, row, strict=True)]
           for ps, row in zip(best.values, best.indices, strict=True)]
    return weights, states, top


@functools.cache
def byte_level_alphabet() -> dict[str, int]:
    """GPT-2's byte-level alphabet (openai/gpt-2 encoder.py, `bytes_to_unicode`), read
    backwards: the character that spells each byte in a byte-level BPE token, and its byte.
    Printable Latin-1 bytes spell themselves; every other byte is the next free character
    from U+0100 on."""
    kept = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
            *range(ord("®"), ord("ÿ") + 1)]
    spelled, extra = {}, 0
    for byte in range(256):
        if byte in kept:
            spelled[chr(byte)] = byte
        else:
            spelled[chr(256 + extra)] = byte
            extra += 1
    return spelled


def per_token(hidden, n_tokens: int):
    """One layer's output of a batch of one as (T, D'), every stream of a token side by side:
    (1, T, D) as it is; (1, T, streams, D) (DeepSeek-V4's hyper-connections) and
    (streams, 1, T, D) (Gemma 3n's AltUp: the streams lead) flattened per token. The batch's
    axis is the first of size 1 followed by the tokens' axis."""
    shape = tuple(hidden.shape)
    batch = next(k for k in range(len(shape) - 1) if shape[k] == 1 and shape[k + 1] == n_tokens)
    tokens = hidden.select(batch, 0).movedim(batch, 0)  # (T, ...): the tokens' axis first
    return tokens.double().reshape(n_tokens, -1)


def outputs(hidden_states, n_tokens: int) -> np.ndarray:
    """Each layer's output as (layers, T, D): a layer whose output is several streams per token
    (hyper-connections, AltUp) flattened (per_token), and narrower layers padded with zeros to
    the widest (which changes no length and no difference of lengths)."""
    flat = [per_token(h, n_tokens).numpy() for h in hidden_states]
    width = max((f.shape[1] for f in flat), default=0)
    return np.stack([np.pad(f, ((0, 0), (0, width - f.shape[1]))) for f in flat]) if flat \
        else np.zeros((0, n_tokens, 0))


def token_bytes(tokenizer, token_id: int) -> bytes:
    """The bytes a token stands for: a byte-level spelling read back through GPT-2's alphabet,
    a byte fallback piece (<0xE5>) as its byte, otherwise its decoded text in UTF-8."""
    spelling = tokenizer.convert_ids_to_tokens(token_id)
    if isinstance(spelling, str):
        if (fallback := re.fullmatch(r"<0x([0-9A-Fa-f]{2})>", spelling)):
            return bytes([int(fallback[1], 16)])
        alphabet = byte_level_alphabet()
        decoded = tokenizer.decode([token_id])
        if spelling and all(c in alphabet for c in spelling) and "\ufffd" in decoded:
            return bytes(alphabet[c] for c in spelling)
        return decoded.encode("utf-8")
    return b""


def guess(tokenizer, token_id: int, p: float) -> Guess:
    """A next token as a reader is shown it (Guess)."""
    return Guess(tokenizer.decode([token_id]), token_bytes(tokenizer, token_id), p)


def _run_own(loaded: Loaded, ids: list[int], position: bool, k: int
             ) -> tuple[np.ndarray, np.ndarray, list[list[Guess]]]:
    import torch

    from posviz.model import top_predictions

    model = loaded.model if position else loaded.no_position
    states = []
    with loaded.lock:  # the hooks are the model's, seen by every thread's run
        hooks = [block.register_forward_hook(lambda _, __, out: states.append(out[0][0]))
                 for block in model.encoder.blocks]
        try:
            with torch.no_grad():
                hidden, weights = model.encoder(torch.tensor([ids]))
                probs = model.head(hidden)[0].softmax(dim=-1).double().numpy()
        finally:
            for hook in hooks:
                hook.remove()
    best, chances = top_predictions(probs, k)
    words = loaded.tokenizer.tokens
    top = [[Guess(words[i], words[i].encode("utf-8"), float(p))
            for i, p in zip(row, ps, strict=True)]
           for row, ps in zip(best, chances, strict=True)]
    return (torch.stack([w[0] for w in weights]).double().numpy(),
            torch.stack(states).double().numpy(), top)


def ids_of(loaded: Loaded, text: str) -> list[int]:
    """The token ids the model reads for the sentence."""
    return encode(loaded, text)[0]


def moved(loaded: Loaded, text: str, order) -> list[int]:
    """The sentence's token ids in another order (checked: every position once)."""
    ids = ids_of(loaded, text)
    order = check_order(np.asarray(order), len(ids))
    return [ids[i] for i in order]


def compare(reading: Reading, weights: np.ndarray, states: np.ndarray, order) -> Twin:
    """The reordered run (its weights and states) compared token by token with the sentence's
    reading: attention put back in the sentence's order, and per layer the largest change of a
    token's output, |y_i - y'_i| / |y_i|. With position off, a change is what the causal mask
    alone tells apart: a token sees other tokens before it in the new order."""
    n = len(reading.pieces)
    order = check_order(np.asarray(order), n)
    back = np.argsort(order)  # back[i]: where the sentence's token i went
    aligned = states[:, back]  # (layers, T, D)
    sizes = np.linalg.norm(reading.states, axis=-1)  # (layers, T)
    change = np.linalg.norm(aligned - reading.states, axis=-1) / np.where(sizes > 0, sizes, 1)
    seen = np.tril(np.ones((n, n), dtype=bool))
    return Twin(order, weights[:, :, back][:, :, :, back], seen[back][:, back],
                change.max(axis=-1, initial=0.0),
                change[:, -1] if n else np.zeros(len(change)))


def twin(loaded: Loaded, text: str, order, position: bool = True) -> tuple[Reading, Twin]:
    """The sentence, and its tokens in another order read by the same model, compared token
    by token (compare)."""
    reading = read(loaded, text, position)
    weights, states, _ = run(loaded, moved(loaded, text, order), position, k=1)
    return reading, compare(reading, weights, states, order)


def attention(loaded: Loaded, text: str, position: bool = True
              ) -> tuple[list[Piece], np.ndarray]:
    """The model's attention on the sentence: its tokens, and the weights as an array shaped
    (attention layers, heads, T, T) (row: a query, column: a key; rows sum to 1 over the keys
    up to the query). An empty reading gives an array of shape (layers, heads, 0, 0)."""
    reading = read(loaded, text, position)
    return reading.pieces, reading.weights


def next_tokens(loaded: Loaded, text: str, position: bool = True, k: int = 5
                ) -> list[list[Guess]]:
    """At each position, the k tokens the model finds likeliest next (Guess)."""
    return read(loaded, text, position, k).top
