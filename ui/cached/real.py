"""The real models this server holds for the real-model page (pages/8_real.py): what it offers,
what it has loaded, and its latest runs, in one `Models` per process (st.cache_resource).

What a student may do is decided here with ui.lecturer: the lecturer types paths and loads
models; a student chooses among the models the lecturer has opened (and posviz's own, which are
part of the app), and is told one thing whatever else was asked for.
"""

from __future__ import annotations

import gc
import os
import threading
from collections import OrderedDict
from pathlib import Path

import streamlit as st

from posviz import ported, pretrained
from posviz.pretrained import Found, Loaded, Reading, Refused, Twin
from ui.config import models_folder

MODELS_KEPT = 2  # loaded models kept (one in use, one the lecturer came from); posviz's own apart
RUNS_KEPT = 10  # runs kept: a page's five (position on and off, two orders, a port's) twice over


class NotOpen(LookupError):
    """A model a student asked for that the lecturer has not opened (or anything else a student
    typed): said the same way whatever it names."""


class Models:
    """The models a server offers (its folder's and its cache's, listed once, listed again on
    `refresh`), the ones it has loaded (the MODELS_KEPT most recently used, and posviz's own),
    and its latest runs. Loading is the lecturer's: `load(..., lecturer=False)` gives only what
    is loaded already."""

    def __init__(self, folder: Path | None, cache: str | None) -> None:
        self.folder, self.cache = folder, cache
        self._listed: list[Found] | None = None
        self._loaded: OrderedDict[str, Loaded] = OrderedDict()  # by name; most recent last
        self._own: dict[str, Loaded] = {}
        self._runs: OrderedDict[tuple, tuple] = OrderedDict()
        self._ports: dict[int, tuple[ported.Port, ...]] = {}  # by id(loaded), as runs are
        self._lock = threading.Lock()  # the lists and the kept runs
        self._loading = threading.Lock()  # one load at a time

    def listed(self) -> list[Found]:
        """The folder's models and the cache's, as listed the first time asked (or since
        refresh)."""
        with self._lock:
            if self._listed is None:
                self._listed = [*pretrained.in_folder(self.folder),
                                *pretrained.cached(self.cache)]
            return list(self._listed)

    def refresh(self) -> None:
        """List the folder and the cache again (a model added since)."""
        with self._lock:
            self._listed = None

    def own(self) -> list[Found]:
        return pretrained.own()

    def opened(self) -> list[str]:
        """The names of the loaded models, the most recently used first."""
        with self._lock:
            return list(reversed(self._loaded))

    def find(self, name: str, lecturer: bool) -> Found:
        """The model a name gives: for the lecturer a listed one, posviz's own or a typed
        path (Refused if none); for a student one already opened or posviz's own (NotOpen
        otherwise, whatever the name)."""
        for known in (*self.own(), *(self.listed() if lecturer else ())):
            if known.name == name:
                return known
        with self._lock:
            if name in self._loaded:
                return Found(name, self._loaded[name].card.path, "opened")
        if not lecturer:
            raise NotOpen(name)
        return pretrained.at_path(name)

    def load(self, found: Found, lecturer: bool) -> Loaded:
        """The model, loaded now if need be and if the lecturer asks (NotOpen for a student);
        Refused if it should not or cannot be loaded."""
        if found.source == "posviz":
            with self._loading:
                if found.name not in self._own:
                    self._own[found.name] = pretrained.load(pretrained.card(found))
                return self._own[found.name]
        with self._lock:
            if found.name in self._loaded:
                self._loaded.move_to_end(found.name)
                return self._loaded[found.name]
        if not lecturer:
            raise NotOpen(found.name)
        with self._loading:
            with self._lock:
                if found.name in self._loaded:  # loaded meanwhile, for another session
                    return self._loaded[found.name]
                freed = len(self._loaded) >= MODELS_KEPT
                while len(self._loaded) >= MODELS_KEPT:  # room first: its memory counts
                    self._loaded.popitem(last=False)
                    self._runs.clear()
                    self._ports.clear()
            if freed:
                gc.collect()
            loaded = pretrained.load(pretrained.card(found))
            with self._lock:
                self._loaded[found.name] = loaded
            return loaded

    def card(self, found: Found) -> pretrained.Card:
        """What the model is, from its files (for a loaded one, as it was when loaded)."""
        with self._lock:
            kept = self._own.get(found.name) or self._loaded.get(found.name)
        return kept.card if kept is not None else pretrained.card(found)

    def ports(self, loaded: Loaded) -> tuple[ported.Port, ...]:
        """The clinic's bugs that apply to the model (posviz.ported.ports), found once."""
        with self._lock:
            if id(loaded) in self._ports:
                return self._ports[id(loaded)]
        found = ported.ports(loaded)
        with self._lock:
            return self._ports.setdefault(id(loaded), found)

    def _run(self, loaded: Loaded, ids: list[int], position: bool, k: int,
             port: ported.Port | None = None) -> tuple:
        key = (id(loaded), tuple(ids), position, k, port.key if port is not None else None)
        with self._lock:
            if key in self._runs:
                self._runs.move_to_end(key)
                return self._runs[key]
        run = pretrained.run(loaded, ids, position, k, port)
        for array in run[:2]:
            array.flags.writeable = False
        with self._lock:
            self._runs[key] = run
            while len(self._runs) > RUNS_KEPT:
                self._runs.popitem(last=False)
        return run

    def read(self, loaded: Loaded, text: str, position: bool = True, k: int = 5,
             port: ported.Port | None = None) -> Reading:
        """pretrained.read, its run kept (read-only) so that a page drawn again with another
        layer or head runs nothing; a port's run (one of `ports(loaded)`) is kept apart."""
        ids, pieces, total = pretrained.encode(loaded, text)
        return Reading(pieces, total, *self._run(loaded, ids, position, k, port))

    def twin(self, loaded: Loaded, text: str, order, position: bool = True
             ) -> tuple[Reading, Twin]:
        """pretrained.twin, its runs kept."""
        reading = self.read(loaded, text, position)
        weights, states, _ = self._run(loaded, pretrained.moved(loaded, text, order),
                                       position, 1)
        return reading, pretrained.compare(reading, weights, states, order)


@st.cache_resource(show_spinner=False)
def models_for(folder: str, cache: str) -> Models:
    """The process's Models for a folder and a Hugging Face cache ("" for none / the default)."""
    return Models(Path(folder) if folder else None, cache or None)


def models() -> Models:
    """The Models of this server's settings (POSVIZ_MODELS, and the Hugging Face cache)."""
    from huggingface_hub import constants

    folder = models_folder()
    return models_for(str(folder) if folder else "", str(constants.HF_HUB_CACHE or
                                                   os.environ.get("HF_HUB_CACHE", "")))


__all__ = ["Models", "NotOpen", "Refused", "models", "models_for"]
