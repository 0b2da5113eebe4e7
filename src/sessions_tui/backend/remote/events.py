"""The remote backend's events: a `sessions-tui serve`'s `GET /events` stream read as the engine's
typed events, one connection for all subscribers, re-opened with back-off when it drops (each
re-open published as a `StoreChanged`, so the faces re-read what they show).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated

import httpx
from pydantic import Field, TypeAdapter

from sessions_tui.engine.backoff import retry_delay
from sessions_tui.engine.events import EngineEvent, StoreChanged

_EVENTS: TypeAdapter[EngineEvent] = TypeAdapter(Annotated[EngineEvent, Field(discriminator="type")])


async def read_event_stream(
    http: Callable[[], Awaitable[httpx.AsyncClient]],
    publish: Callable[[EngineEvent], None],
    now: Callable[[], int],
) -> None:
    """Publish the server's events until cancelled, reconnecting whenever the stream drops."""
    from httpx_sse import aconnect_sse

    retry = 0
    first = True
    while True:
        try:
            client = await http()
            async with aconnect_sse(client, "GET", "/events", timeout=httpx.Timeout(30, read=None)) as source:
                source.response.raise_for_status()
                if not first:
                    publish(StoreChanged(ts=now()))  # what happened while away: re-read
                first = False
                retry = 0
                async for sse in source.aiter_sse():
                    if sse.event in ("hello", "overflow"):
                        continue
                    try:
                        event = _EVENTS.validate_json(sse.data)
                    except ValueError:
                        continue  # a newer server's event this client does not know
                    publish(event)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - the stream drops, the server restarts: try again
            pass
        await asyncio.sleep(retry_delay(retry, base=0.5, cap=15.0))
        retry += 1
