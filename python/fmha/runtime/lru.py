"""A small thread-safe LRU mapping (the runtime's launch and tensor-map
caches)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Hashable, Optional


class LRUCache:
    """At most ``maxsize`` entries; a lookup makes its entry the newest, an
    insertion beyond ``maxsize`` drops the oldest. ``hits`` and ``misses``
    count lookups."""

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError(f"maxsize must be at least 1, got {maxsize}")
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Optional[Any]:
        """The value of ``key`` (now the newest), or None."""
        try:
            value = self._data[key]
            self._data.move_to_end(key)
        except KeyError:  # absent, or dropped by another thread meanwhile
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.maxsize:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.hits = self.misses = 0

    def keys(self) -> list:
        """The keys, oldest first."""
        with self._lock:
            return list(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._data
