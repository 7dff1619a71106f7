"""Real causal language models from this machine's disk, read on a sentence with position on or
off. For a notebook:

    tokens, weights = posviz.pretrained.attention("HuggingFaceTB/SmolLM2-135M", "刚想到了")
    weights.shape  # (layers, heads, T, T), each row a query's weights over the keys

A model is a folder in the Hugging Face format: one the Hugging Face cache holds (named by its id,
as `huggingface_hub` lists it), one under a folder of models, or any path. Nothing is ever
downloaded: files are read locally only, weights only from `safetensors` files (a pickle can run
code), and a model whose configuration asks for its own code is refused, never run. torch runs on
the CPU, in float32, on at most THREADS threads (the machine's cores, if fewer).

posviz's own small trained models (`posviz.model`, in assets/models) are read the same way, named
"posviz/rope", "posviz/learned", ... (`own()`), so a machine without a model still has some.

Switching position off does exactly one thing per scheme, and says which (`Scheme.off`):
- RoPE: every position id is 0, so no query or key is turned (partial RoPE: the turned share);
- a learned table of absolute positions (GPT-2): its rows are zeroed for the run;
- ALiBi (BLOOM, MPT, Falcon with alibi): every head's slope is 0, so the bias is 0 everywhere;
- a sinusoidal table (posviz's own): not added;
- none: nothing carries position but the causal mask, which stays in every case.
"""

from __future__ import annotations

import gc
import json
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from importlib import import_module
from pathlib import Path

import numpy as np

from posviz.alibi import alibi_slopes
from posviz.permutation import check_order

FLOAT_BYTES = 4  # float32 on the CPU
OVERHEAD = 1.25  # memory beside the weights: activations, the tokenizer, Python
LEARNED_TABLES = ("wpe", "embed_positions", "position_embeddings")  # names of absolute tables
MAX_TOKENS = 64  # tokens of a sentence read (its start), as every page of posviz
THREADS = 4  # torch's threads at most: a run shares the server with every other reader
MODELS_KEPT = 2  # loaded models a process keeps (one in use, one the lecturer came from)
RUNS_KEPT = 8  # runs kept: a page's four (position on and off, two orders) twice over
ALIBI_BUILDERS = {"bloom": "build_alibi_tensor", "mpt": "build_mpt_alibi_tensor"}
"""The method of a model's base that builds its ALiBi bias (Falcon's is a function)."""
OWN = "posviz/"  # the names of posviz's own models start so
OWN_ORDER = ("rope", "learned", "alibi", "sinusoidal", "none")  # as own() lists them


class Refused(ValueError):
    """A model posviz will not load, with why: `reason` is one of REASONS, `detail` names it."""

    REASONS = ("unknown", "not_a_model", "pickle_only", "own_code", "not_causal", "too_large")

    def __init__(self, reason: str, detail: str) -> None:
        assert reason in self.REASONS, reason
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class Found:
    """A model on this machine: its name (a cache id or a folder's name) and its folder."""

    name: str
    path: Path
    source: str  # "cache", "folder" or "path"


@dataclass(frozen=True)
class Card:
    """What a model is, read from its files before loading it."""

    path: Path
    model_type: str
    parameters: int  # from the safetensors headers
    needed: int  # bytes of memory to load and run it (float32, with OVERHEAD)
    available: int | None  # bytes of memory this machine has free, if it says


@dataclass(frozen=True)
class Scheme:
    """How a model carries position, with its numbers, and what switching it off does."""

    kind: str  # "rope", "learned", "alibi", "sinusoidal" or "none"
    numbers: dict = field(default_factory=dict)

    @property
    def off(self) -> str:
        return {"rope": "position ids all 0", "learned": "position table rows zeroed",
                "alibi": "every slope 0", "sinusoidal": "sinusoidal table not added",
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


@dataclass
class Loaded:
    """A model and its tokenizer, loaded once; runs are serialized (position off changes the
    model for the length of a run). posviz's own models have a vocabulary for a tokenizer, and
    a twin without position (the same weights, scheme "none")."""

    card: Card
    model: object
    tokenizer: object
    scheme: Scheme
    twin: object = None
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True)
class Reading:
    """One run of the model on a sentence: its tokens (the first MAX_TOKENS of total), its
    attention (layers, heads, T, T), each layer's output (layers, T, D) and the top next tokens
    at each position (the token as decoded alone, its probability)."""

    pieces: list[Piece]
    total: int
    weights: np.ndarray
    states: np.ndarray
    top: list[list[tuple[str, float]]]


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

def cached() -> list[Found]:
    """Every model in the Hugging Face cache (where huggingface_hub keeps it: HF_HUB_CACHE or
    HF_HOME), by id: its newest snapshot."""
    from huggingface_hub import constants, scan_cache_dir
    from huggingface_hub.errors import CacheNotFound

    try:
        info = scan_cache_dir(constants.HF_HUB_CACHE)
    except CacheNotFound:
        return []
    found = []
    for repo in info.repos:
        if repo.repo_type == "model" and repo.revisions:
            newest = max(repo.revisions, key=lambda r: r.last_modified)
            found.append(Found(repo.repo_id, Path(newest.snapshot_path), "cache"))
    return sorted(found, key=lambda f: f.name)


def in_folder(folder: Path | None) -> list[Found]:
    """Every model folder (a folder holding config.json) directly under folder."""
    if folder is None or not folder.is_dir():
        return []
    return [Found(p.name, p, "folder") for p in sorted(folder.iterdir())
            if (p / "config.json").is_file()]


def own() -> list[Found]:
    """posviz's own trained models (checkpoints in assets/models), one per position scheme."""
    from posviz.train import MODELS

    return [Found(OWN + scheme, MODELS / f"{scheme}.pt", "posviz") for scheme in OWN_ORDER
            if (MODELS / f"{scheme}.pt").is_file()]


def find(name: str, folder: Path | None = None) -> Path:
    """A model's folder (a checkpoint, for posviz's own) from its name: a folder under
    folder, a cache id, one of posviz's own, or a path."""
    for known in (*in_folder(folder), *cached(), *(own() if name.startswith(OWN) else ())):
        if known.name == name:
            return known.path
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    if path.exists():  # a file: a model is a folder
        raise Refused("not_a_model", name)
    raise Refused("unknown", name)


# ---- reading before loading ---------------------------------------------------------------

def _config(path: Path) -> dict:
    try:
        return json.loads((path / "config.json").read_text("utf-8"))
    except (OSError, ValueError) as err:
        raise Refused("not_a_model", str(path)) from err


def available_memory() -> int | None:
    """Bytes of memory free for a new model (Linux's MemAvailable), or None if unknown."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def card(path: Path) -> Card:
    """What the model in path is and what it needs, or Refused: no configuration, weights only
    as a pickle, its own code asked for, not a causal language model."""
    from safetensors import safe_open
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    if path.suffix == ".pt":  # one of posviz's own
        import torch

        state = torch.load(path, map_location="cpu", weights_only=True)["state_dict"]
        parameters = sum(int(t.numel()) for t in state.values())
        return Card(path, f"posviz-{path.stem}", parameters,
                    int(parameters * FLOAT_BYTES * OVERHEAD), available_memory())
    config = _config(path)
    model_type = config.get("model_type", "")
    if model_type not in CONFIG_MAPPING_NAMES:
        if "auto_map" in config:
            raise Refused("own_code", model_type or str(path))
        raise Refused("not_a_model", model_type or str(path))
    if model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES or not any(
            a.endswith("ForCausalLM") or a.endswith("LMHeadModel")
            for a in config.get("architectures") or [f"{model_type}ForCausalLM"]):
        raise Refused("not_causal", model_type)
    weights = sorted(path.glob("*.safetensors"))
    if not weights:
        if any(path.glob("*.bin")) or any(path.glob("*.pt")) or any(path.glob("*.pth")):
            raise Refused("pickle_only", str(path))
        raise Refused("not_a_model", str(path))
    parameters = 0
    for file in weights:
        with safe_open(str(file), framework="np") as f:
            for key in f.keys():  # noqa: SIM118 (a safetensors file is not a dict)
                parameters += int(np.prod(f.get_slice(key).get_shape()))
    return Card(path, model_type, parameters, int(parameters * FLOAT_BYTES * OVERHEAD),
                available_memory())


# ---- loading ------------------------------------------------------------------------------

_LOADED: OrderedDict[Path, Loaded] = OrderedDict()  # the most recently used last
_LOADING = threading.Lock()
_RUNS: OrderedDict[tuple, tuple] = OrderedDict()  # (path, ids, position, k): a run's results
_KEEPING = threading.Lock()


def load(name_or_path: str | os.PathLike, folder: Path | None = None) -> Loaded:
    """A model and its tokenizer, loaded once per process and kept while it is one of the
    MODELS_KEPT most recently used (Refused if it should not be loaded)."""
    path = find(str(name_or_path), folder).resolve()
    with _LOADING:
        if path in _LOADED:
            _LOADED.move_to_end(path)
            return _LOADED[path]
        about = card(path)
        if len(_LOADED) >= MODELS_KEPT:  # room first: the memory it frees counts below
            while len(_LOADED) >= MODELS_KEPT:
                _LOADED.popitem(last=False)
            gc.collect()
            about = replace(about, available=available_memory())
        if about.available is not None and about.needed > about.available:
            raise Refused("too_large", f"{about.needed} > {about.available} bytes")
        _LOADED[path] = _load(about)
        return _LOADED[path]


def _load(about: Card) -> Loaded:
    if about.model_type.startswith("posviz-"):
        return _load_own(about)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging

    logging.disable_progress_bar()  # a server's log is for what goes wrong
    torch.set_num_threads(min(torch.get_num_threads(), THREADS))  # the process's count
    model = AutoModelForCausalLM.from_pretrained(
        about.path, local_files_only=True, trust_remote_code=False, use_safetensors=True,
        attn_implementation="eager", dtype=torch.float32)
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(about.path, local_files_only=True,
                                              trust_remote_code=False)
    return Loaded(about, model, tokenizer, scheme(model))


def _load_own(about: Card) -> Loaded:
    from posviz.model import load_checkpoint, without_position

    model, vocab = load_checkpoint(about.path)
    c = model.config
    numbers = {"rope": {"base": c.base, "type": "default", "fraction": 1.0,
                        "trained": c.max_len},
               "learned": {"size": c.max_len, "width": c.d_model},
               "alibi": {"heads": c.n_heads, "slopes": alibi_slopes(c.n_heads).tolist()},
               "sinusoidal": {"base": c.base, "width": c.d_model}}.get(c.scheme, {})
    return Loaded(about, model, vocab, Scheme(c.scheme, numbers), without_position(model))


def _loaded(model: Loaded | str | os.PathLike) -> Loaded:
    return model if isinstance(model, Loaded) else load(model)


# ---- the scheme ---------------------------------------------------------------------------

def _table(model) -> object | None:
    """The model's learned table of absolute positions, if it has one."""
    import torch

    for name, module in model.named_modules():
        if name.rsplit(".", 1)[-1] in LEARNED_TABLES and isinstance(module, torch.nn.Embedding):
            return module
    return None


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
    heads = _heads(config)
    if config.model_type == "bloom" or (config.model_type == "falcon" and config.alibi):
        build = import_module(f"transformers.models.{config.model_type}.modeling_"
                              f"{config.model_type}").build_alibi_tensor
        bias = build(torch.ones(1, 2), heads, torch.float32)[:, 0, 1]  # distance 1: the slope
        scale = math.sqrt(config.hidden_size // heads) if config.model_type == "falcon" else 1
        return bias.double().numpy() / scale
    if config.model_type == "mpt":
        return -base.build_mpt_alibi_tensor(heads, 2)[:, 0, 0].double().numpy()
    return None


def scheme(model) -> Scheme:
    """How the loaded model carries position, read from its configuration and its modules."""
    config = model.config
    heads = _heads(config)
    if (slopes := _alibi(model)) is not None:
        return Scheme("alibi", {"heads": heads, "slopes": slopes.tolist()})
    rope = getattr(config, "rope_parameters", None)
    if isinstance(rope, dict) and "rope_theta" in rope:
        numbers = {"base": rope["rope_theta"], "type": rope.get("rope_type", "default"),
                   "fraction": rope.get("partial_rotary_factor",
                                        getattr(config, "partial_rotary_factor", 1.0)),
                   "trained": getattr(config, "max_position_embeddings", None)}
        numbers |= {k: v for k, v in rope.items()
                    if k not in ("rope_theta", "rope_type", "partial_rotary_factor")}
        return Scheme("rope", numbers)
    if (table := _table(model)) is not None:
        return Scheme("learned", {"size": table.num_embeddings, "width": table.embedding_dim})
    return Scheme("none")


# ---- reading a sentence -------------------------------------------------------------------

def pieces(model: Loaded | str | os.PathLike, text: str) -> list[Piece]:
    """The sentence as the model's tokenizer reads it (its first MAX_TOKENS tokens)."""
    return _read(_loaded(model), text)[1]


def _read(loaded: Loaded, text: str) -> tuple[list[int], list[Piece], int]:
    """The token ids the model reads, their pieces, and how many tokens the whole text has."""
    if loaded.twin is not None:
        return _read_own(loaded, text)
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


def _read_own(loaded: Loaded, text: str) -> tuple[list[int], list[Piece], int]:
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
def _position(loaded: Loaded, on: bool, ids) -> Iterator[dict]:
    """The run's extra arguments for the token ids (a tensor) with position on or off, the
    model changed for the run if need be (and put back after)."""
    import torch

    kind = loaded.scheme.kind
    if on or kind == "none":
        yield {}
        return
    if kind == "rope":
        yield {"position_ids": torch.zeros_like(ids)}
        return
    model = loaded.model
    if kind == "learned":
        table = _table(model)
        kept = table.weight.detach().clone()
        with torch.no_grad():
            table.weight.zero_()
        try:
            yield {}
        finally:
            with torch.no_grad():
                table.weight.copy_(kept)
        return
    base = model.base_model  # alibi: no bias, as if every slope were 0
    if model.config.model_type == "falcon":  # Falcon adds its bias only while use_alibi
        base.use_alibi = False
        try:
            yield {}
        finally:
            base.use_alibi = True
        return
    name = ALIBI_BUILDERS[model.config.model_type]
    build = getattr(base, name)
    setattr(base, name, lambda *args, **kwargs: torch.zeros_like(build(*args, **kwargs)))
    try:
        yield {}
    finally:
        delattr(base, name)


def _shape(loaded: Loaded) -> tuple[int, int]:
    """The model's layers and heads."""
    config = loaded.model.config
    if loaded.twin is not None:
        return config.n_layers, config.n_heads
    return config.num_hidden_layers, _heads(config)


def read(model: Loaded | str | os.PathLike, text: str, position: bool = True,
         k: int = 5) -> Reading:
    """The model's attention, its layers' outputs and its k likeliest next tokens on the
    sentence, in one run."""
    loaded = _loaded(model)
    ids, pieces, total = _read(loaded, text)
    return Reading(pieces, total, *_run(loaded, ids, position, k))


def _run(loaded: Loaded, ids: list[int], position: bool, k: int = 5
         ) -> tuple[np.ndarray, np.ndarray, list[list[tuple[str, float]]]]:
    """One run on token ids: attention (layers, heads, T, T), outputs (layers, T, D) and the
    top k next tokens at each position; the last RUNS_KEPT runs are kept (read-only), so a
    page drawn again with another layer or head runs nothing."""
    key = (loaded.card.path, tuple(ids), position, k)
    with _KEEPING:
        if key in _RUNS:
            _RUNS.move_to_end(key)
            return _RUNS[key]
    run = _run_now(loaded, ids, position, k)
    for array in run[:2]:
        array.flags.writeable = False
    with _KEEPING:
        _RUNS[key] = run
        while len(_RUNS) > RUNS_KEPT:
            _RUNS.popitem(last=False)
    return run


def _run_now(loaded: Loaded, ids: list[int], position: bool, k: int
             ) -> tuple[np.ndarray, np.ndarray, list[list[tuple[str, float]]]]:
    import torch

    if not ids:
        layers, heads = _shape(loaded)
        return np.zeros((layers, heads, 0, 0)), np.zeros((layers, 0, 0)), []
    if loaded.twin is not None:
        return _run_own(loaded, ids, position, k)
    tensor = torch.tensor([ids])
    args = {"input_ids": tensor, "attention_mask": torch.ones_like(tensor),
            "output_attentions": True, "output_hidden_states": True}
    with loaded.lock, torch.inference_mode(), _position(loaded, position, tensor) as extra:
        out = loaded.model(**args, **extra)
    weights = np.stack([a[0].double().numpy() for a in out.attentions])
    states = np.stack([h[0].double().numpy() for h in out.hidden_states[1:]])
    probs = torch.softmax(out.logits[0].double(), dim=-1)
    best = torch.topk(probs, k=min(k, probs.shape[-1]), dim=-1)
    decode = loaded.tokenizer.decode
    top = [[(decode([int(i)]), float(p)) for p, i in zip(ps, ids, strict=True)]
           for ps, ids in zip(best.values, best.indices, strict=True)]
    return weights, states, top


def _run_own(loaded: Loaded, ids: list[int], position: bool, k: int
             ) -> tuple[np.ndarray, np.ndarray, list[list[tuple[str, float]]]]:
    import torch

    from posviz.model import top_predictions

    model = loaded.model if position else loaded.twin
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
    top = [[(words[i], float(p)) for i, p in zip(row, ps, strict=True)]
           for row, ps in zip(best, chances, strict=True)]
    return (torch.stack([w[0] for w in weights]).double().numpy(),
            torch.stack(states).double().numpy(), top)


def twin(model: Loaded | str | os.PathLike, text: str, order, position: bool = True
         ) -> tuple[Reading, Twin]:
    """The sentence, and its tokens in another order read by the same model, compared token
    by token: attention put back in the sentence's order, and per layer the largest change of
    a token's output, |y_i - y'_i| / |y_i|. With position off, a change is what the causal mask
    alone tells apart: a token sees other tokens before it in the new order."""
    loaded = _loaded(model)
    ids, pieces, total = _read(loaded, text)
    order = check_order(np.asarray(order), len(ids))
    reading = Reading(pieces, total, *_run(loaded, ids, position))
    weights, states, _ = _run(loaded, [ids[i] for i in order], position, k=1)
    back = np.argsort(order)  # back[i]: where the sentence's token i went
    aligned = states[:, back]  # (layers, T, D)
    sizes = np.linalg.norm(reading.states, axis=-1)  # (layers, T)
    change = np.linalg.norm(aligned - reading.states, axis=-1) / np.where(sizes > 0, sizes, 1)
    seen = np.tril(np.ones((len(ids), len(ids)), dtype=bool))
    return reading, Twin(order, weights[:, :, back][:, :, :, back], seen[back][:, back],
                         change.max(axis=-1, initial=0.0),
                         change[:, -1] if len(ids) else np.zeros(len(change)))


def attention(model: Loaded | str | os.PathLike, text: str, position: bool = True
              ) -> tuple[list[Piece], np.ndarray]:
    """The model's attention on the sentence: its tokens, and the weights as an array shaped
    (layers, heads, T, T) (row: a query, column: a key; rows sum to 1 over the keys up to the
    query). An empty reading gives an array of shape (layers, heads, 0, 0)."""
    reading = read(model, text, position)
    return reading.pieces, reading.weights


def next_tokens(model: Loaded | str | os.PathLike, text: str, position: bool = True,
                k: int = 5) -> list[list[tuple[str, float]]]:
    """At each position, the k tokens the model finds likeliest next, with their
    probabilities (the token as the tokenizer decodes it alone)."""
    return read(model, text, position, k).top
