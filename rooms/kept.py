"""A map of what a server process keeps made, bounded by the bytes it holds rather than by its
number of entries: one heavy view's document (a 4,096-position heatmap) weighs as much as a
thousand light ones, and a cache of 256 of them grew a server by a gigabyte."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """The values last asked for, as many as fit in `most` bytes (`size` weighs one); the least
    lately asked for goes first. One value larger than the whole is still kept, alone."""

    def __init__(self, most: int, size: Callable[[V], int]) -> None:
        self.most, self.size = most, size
        self.held = 0
        self._values: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._values.get(key)
            if found is None:
                return None
            self._values.move_to_end(key)
            return found[0]

    def put(self, key: K, value: V) -> None:
        weight = self.size(value)
        with self._lock:
            old = self._values.pop(key, None)
            self.held += weight - (old[1] if old else 0)
            self._values[key] = (value, weight)
            while self.held > self.most and len(self._values) > 1:
                _, (_, gone) = self._values.popitem(last=False)
                self.held -= gone

    def __len__(self) -> int:
        return len(self._values)
