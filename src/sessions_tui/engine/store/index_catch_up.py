"""Keeping the transcript text index caught up (text_index.py) without blocking the event loop.

A write indexes its own lines when the index is caught up; what it is behind by (a store from
before the index, a change of redaction, lines written under another configuration) is indexed
here, a chunk per transaction on the store's thread (store_thread.py): by a search, for a bounded time before it
answers, and by a long-running face (the dashboard, `serve`) in the background from its start.

A damaged database is never written to (integrity.py), so its index is not caught up: a
search answers from what the index holds, saying it is behind (`TextIndexState.indexing`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

from sessions_tui.engine.store.connection import StoreDamaged
from sessions_tui.engine.store.tables.text_index import TextIndexState

if TYPE_CHECKING:
    from sessions_tui.engine.store.store import Store


class IndexHost(Protocol):
    """What catching up needs of the engine: its store."""

    @property
    def store(self) -> Store: ...


async def catch_up(engine: IndexHost, budget_s: float | None = None) -> TextIndexState:
    """Index what the index is behind by, for at most `budget_s` seconds (None: all of it); not
    at all on a damaged database (the write is refused before it begins)."""
    began = time.monotonic()
    state = await engine.store.thread.run(engine.store.text_index.text_index_state)
    while state.indexing and (budget_s is None or time.monotonic() - began < budget_s):
        try:
            state = await engine.store.thread.run(engine.store.text_index.catch_up_text_index)
        except StoreDamaged:
            break
    return state


def catch_up_now(engine: IndexHost) -> TextIndexState:
    """All of it, in this thread (a command that searches once and exits)."""
    state = engine.store.text_index.text_index_state()
    while state.indexing:
        try:
            state = engine.store.text_index.catch_up_text_index()
        except StoreDamaged:
            break
    return state
