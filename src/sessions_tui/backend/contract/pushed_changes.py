"""What a backend whose events say every change answers about changes (a server's stream, a gateway's)."""

from __future__ import annotations

from collections.abc import Callable


class EventsSayEveryChange:
    """`Streaming`'s change-watching for a backend that pushes them: its events say every change,
    other writers' too, so a face listens to them and never polls or watches the store."""

    @property
    def pushes_events(self) -> bool:
        return True

    async def watch_store_changes(self, wake: Callable[[], None]) -> bool:
        return False
