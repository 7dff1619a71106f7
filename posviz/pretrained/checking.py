"""Checking a model's files before loading it: every file inside its folder, no code of its
own, safetensors weights, a causal language model, and the memory it needs (card)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from posviz.pretrained.records import Card, Found, Refused

FLOAT_BYTES = 4  # float32 on the CPU
OVERHEAD = 1.25  # memory beside the weights: activations, the tokenizer, Python
MAX_JSON = 16 << 20  # bytes of a configuration file read at most
MAX_FILES = 10_000  # entries of a model folder at most (each is checked to lie inside it)
CONFIGS = ("config.json", "tokenizer_config.json", "generation_config.json",
           "preprocessor_config.json", "processor_config.json")
"""The JSON files of a model folder that transformers may read (and so checked for auto_map)."""
PICKLES = (".bin", ".pt", ".pth", ".pkl", ".ckpt")


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
