"""The engine's `OpenClawSender` over the WebSocket of each OpenClaw's own gateway.

A session imported or followed from an OpenClaw state directory (`--openclaw DIR`, or
`import-openclaw`) belongs to that OpenClaw (`engine.owner_of`). A send into it goes to the gateway
that the directory's `openclaw.json` names (engine/openclaw/gateway_address.py: port, bind, token
or password) as that gateway's operator (`sending.send_message`), with no other config. The
socket opens on the first send into that OpenClaw's sessions (one connect attempt: on loopback
the device is approved silently) and is closed with the engine; a dropped one is opened again on
the next send. A gateway that is down or refuses is one error line; a directory without a
readable openclaw.json is no gateway (None: the engine runs the turn itself, as before).
`websockets` loads on the first send.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessions_tui.engine.openclaw.gateway_address import GatewayAddress, NoGatewayAddress, read_gateway_address

if TYPE_CHECKING:
    from sessions_tui.backend.gateway.link.connection import GatewayClient

__all__ = ["GatewaySocketSender"]

log = logging.getLogger(__name__)


class GatewaySocketSender:
    """Sends into OpenClaw-owned sessions through each OpenClaw's gateway (an `OpenClawSender`)."""

    def __init__(self, *, identity_dir: Path | None = None) -> None:
        """`identity_dir`: where this install's device identity lives (default: the user's config)."""
        self._identity_dir = identity_dir
        self._clients: dict[Path, tuple[GatewayAddress, GatewayClient]] = {}
        self._lock = asyncio.Lock()

    async def send(
        self, owner: Path, key: str, message: str, *, timeout_seconds: int, display: str
    ) -> dict[str, Any] | None:
        address = read_gateway_address(owner)
        if isinstance(address, NoGatewayAddress):
            log.debug("no gateway to send through: %s", address.reason)
            return None
        client = await self._connected(owner, address)
        if isinstance(client, str):
            return {"status": "error", "error": client, "sessionKey": display}
        from sessions_tui.backend.gateway.acting.sending import send_message

        result = await send_message(client, key, message, timeout_seconds=timeout_seconds)
        return {**result, "sessionKey": display}

    async def _connected(self, owner: Path, address: GatewayAddress) -> GatewayClient | str:
        """A live client for `owner`'s gateway, or the line saying why there is none."""
        from sessions_tui.backend.gateway.link.connection import GatewayClient, GatewayOptions
        from sessions_tui.backend.gateway.link.refusals import GatewayRefused, PairingRequired

        async with self._lock:
            known = self._clients.get(owner)
            if known is not None and known[0] == address and known[1].connected:
                return known[1]
            if known is not None:
                await known[1].close()
                del self._clients[owner]
            options = GatewayOptions(
                url=address.url, token=address.token, password=address.password, identity_dir=self._identity_dir
            )
            client = GatewayClient(options)
            try:
                outcome = await client.connect()
            except GatewayRefused as refused:
                return refused.line
            except (OSError, TimeoutError) as exc:
                reason = getattr(exc, "strerror", None) or type(exc).__name__
                return f"OpenClaw gateway {client.url} ({owner / 'openclaw.json'}) is down: {reason}"
            except Exception as exc:  # websockets' handshake errors (InvalidStatus, InvalidMessage …)
                return f"OpenClaw gateway {client.url} did not answer as a gateway: {' '.join(str(exc).split())}"
            if isinstance(outcome, PairingRequired):
                return outcome.line
            self._clients[owner] = (address, client)
            return client

    async def aclose(self) -> None:
        async with self._lock:
            clients, self._clients = list(self._clients.values()), {}
        for _, client in clients:
            await client.close()
