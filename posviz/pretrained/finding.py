"""Finding a model on this machine by its name: in the Hugging Face cache, under a folder of
models, among posviz's own, or at a typed path."""

from __future__ import annotations

from pathlib import Path

from posviz.pretrained.records import Found, Refused

MAX_NAME = 1024  # characters of a typed model name or path at most
OWN = "posviz/"  # the names of posviz's own models start so
OWN_ORDER = ("rope", "learned", "alibi", "sinusoidal", "none")  # as own() lists them


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
