"""Fresh identifiers (run ids, session ids, child keys) from one place.

Everything the engine names goes through `new_uuid`, so a test or a screenshot script can
make the names repeatable with `use_sequence` instead of patching the standard library.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable

_factory: Callable[[], str] = lambda: str(uuid.uuid4())  # noqa: E731


def new_uuid() -> str:
    return _factory()


def new_entry_id() -> str:
    """A transcript entry's id: 8 hex digits, as OpenClaw's (repeatable under `use_sequence` too)."""
    return new_uuid().replace("-", "")[:8]


def use_sequence(seed: str = "sessions-tui") -> None:
    """Deterministic UUIDs from now on: uuid5 of `seed` and a counter."""
    global _factory
    counter = itertools.count(1)
    namespace = uuid.uuid5(uuid.NAMESPACE_URL, seed)
    _factory = lambda: str(uuid.uuid5(namespace, str(next(counter))))  # noqa: E731


def use_random() -> None:
    global _factory
    _factory = lambda: str(uuid.uuid4())  # noqa: E731
