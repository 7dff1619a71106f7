"""The models' published values (assets/models/schemes.toml), each with its source, read once:
what a page or a position scheme quotes of a real model is read here."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

PUBLISHED_FILE = Path(__file__).resolve().parent.parent / "assets" / "models" / "schemes.toml"
"""The models' published values, each with its source (`published`)."""


@functools.cache
def published() -> dict[str, dict]:
    """The models' published values, each as {value, key, source, quote}
    (assets/models/schemes.toml), read once. Not to be changed by its callers."""
    with PUBLISHED_FILE.open("rb") as f:
        return tomllib.load(f)


def value(model: str, key: str) -> object:
    """One published value of one model."""
    return published()[model][key]["value"]


def first_value(model: str, keys: tuple[str, ...]) -> object | None:
    """The published value of the first of keys the model has (configurations name one thing
    differently: rotary_pct or partial_rotary_factor), or None if it has none of them."""
    entries = published()[model]
    return next((entries[k]["value"] for k in keys if k in entries), None)
