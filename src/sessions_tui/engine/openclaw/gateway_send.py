"""A send into a session that lives in OpenClaw goes to its gateway (docs/decisions.md D17).

With `gateway.remote.url` and `gateway.remote.token` configured (OpenClaw's own keys), a
`sessions_send` whose target was imported or followed from OpenClaw is made by that OpenClaw's
gateway, through its `POST /tools/invoke`: the gateway runs the agent, waits, plays the ping-pong
and the announce, and its answer is the tool's result. The follower brings the new lines in.
httpx loads only when such a send happens.

Without it, the engine's `openclaw_sender` (an `OpenClawSender`, set by whoever opens the engine:
the local backend sets one that speaks the gateway's WebSocket) sends as that OpenClaw's operator
through the gateway its own openclaw.json names; it answers None when it has no gateway for that
OpenClaw, and the engine runs the turn itself as before. `gateway.remote` configured by hand wins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from sessions_tui.engine.config import GatewayRemoteConfig
from sessions_tui.engine.config.model.secret_refs import secret_text


class OpenClawSender(Protocol):
    """Sends into the sessions of an OpenClaw state directory through that OpenClaw's gateway."""

    async def send(
        self, owner: Path, key: str, message: str, *, timeout_seconds: int, display: str
    ) -> dict[str, Any] | None:
        """A `sessions_send` result (its `sessionKey` = `display`), or None: no gateway for `owner`."""
        ...

    async def aclose(self) -> None:
        """Close what it opened (called when the engine closes)."""
        ...


async def send_to_openclaw(
    remote: GatewayRemoteConfig,
    sender: OpenClawSender | None,
    owner: Path,
    key: str,
    message: str,
    timeout_s: int,
    display: str,
) -> dict[str, Any] | None:
    """The answer of `owner`'s gateway: through `gateway.remote` when configured, else `sender`;
    None when neither reaches one (the engine runs the turn itself)."""
    gateway = configured(remote)
    if gateway is not None:
        return await send_through_gateway(gateway, key, message, timeout_s, display)
    if sender is None:
        return None
    return await sender.send(owner, key, message, timeout_seconds=timeout_s, display=display)


SLACK_S = 30.0
"""Beyond the send's own wait: the gateway's run start and its answer's way back."""


def gateway_http_url(url: str) -> str:
    """OpenClaw writes `gateway.remote.url` as ws:// or wss://; its HTTP API is on the same port."""
    parts = urlsplit(url.strip())
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
    return urlunsplit((scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def configured(remote: GatewayRemoteConfig) -> tuple[str, str] | None:
    """(HTTP base URL, token) when both are set, else None."""
    token = secret_text(remote.token)
    if not remote.url or not remote.url.strip() or not token:
        return None
    return gateway_http_url(remote.url), token


async def send_through_gateway(
    remote: tuple[str, str], key: str, message: str, timeout_s: int, display: str
) -> dict[str, Any]:
    """The gateway's `sessions_send` result, or an error result saying what went wrong."""
    import httpx

    url, token = remote
    body = {"tool": "sessions_send", "args": {"sessionKey": key, "message": message, "timeoutSeconds": timeout_s}}
    where = urlsplit(url).netloc or url
    try:
        async with httpx.AsyncClient(timeout=timeout_s + SLACK_S) as client:
            response = await client.post(f"{url}/tools/invoke", json=body, headers={"authorization": f"Bearer {token}"})
    except httpx.HTTPError as exc:
        return {"status": "error", "error": f"OpenClaw gateway {where}: {type(exc).__name__}", "sessionKey": display}
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if response.status_code == 200 and isinstance(payload, dict) and payload.get("ok") is True:
        details = (payload.get("result") or {}).get("details")
        if isinstance(details, dict):
            return details
    error = payload.get("error") if isinstance(payload, dict) else None
    text = error.get("message") if isinstance(error, dict) else None
    if response.status_code == 404:
        return {
            "status": "forbidden",
            "error": f"OpenClaw gateway {where} does not offer sessions_send over HTTP: add it to "
            'gateway.tools.allow in that OpenClaw\'s config (gateway.tools.allow: ["sessions_send"])',
            "sessionKey": display,
        }
    if response.status_code in (401, 429):
        return {
            "status": "error",
            "error": f"OpenClaw gateway {where} refused gateway.remote.token ({response.status_code})",
            "sessionKey": display,
        }
    return {
        "status": "error",
        "error": f"OpenClaw gateway {where} answered {response.status_code}: {text or 'no message'}",
        "sessionKey": display,
    }
