"""The session tools that act on a gateway as its operator, over its socket: `sessions_send` (a reply
by hand into any session) and `subagents` kill and steer; the socket's calls are sending.py's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.gateway.link.refusals import ConnectionLost, RequestFailed
from sessions_tui.backend.gateway.reading.listing import child_views, owner_of

if TYPE_CHECKING:
    from sessions_tui.backend.gateway.live import GatewaySocketBackend


async def send_tool(backend: GatewaySocketBackend, args: dict[str, Any]) -> dict[str, Any]:
    """`sessions_send` as the gateway's operator (sending.py): into any session, with the
    gateway's default config; the texts redacted as a local result's are."""
    from sessions_tui.backend.gateway.acting.sending import send_message
    from sessions_tui.tools.acting.sessions_send import SendArgs
    from sessions_tui.tools.requester.resolution import NO_SESSION_FOUND

    read = SendArgs.read(args)
    rows = backend.rows()
    if read["session_key"] is not None:
        key = owner_of(rows, read["session_key"], backend.canonical)
        missing = NO_SESSION_FOUND.format(key=read["session_key"])
    else:
        labelled = [r["_key"] for r in rows if read["label"] is not None and r.get("label") == read["label"].strip()]
        key = labelled[0] if len(labelled) == 1 else None
        missing = f"No session found with label: {read['label']}"
    if key is None:
        return {"status": "error", "error": backend.redact(missing)}
    try:
        result = await backend.on_socket(
            lambda client: send_message(client, key, read["message"], timeout_seconds=read["timeout_seconds"])
        )
    except ConnectionLost as lost:
        result = {"status": "error", "error": str(lost)}
    result["sessionKey"] = backend.display(key)
    shown: dict[str, Any] = backend.redactor.redact_strings(result)
    return shown


async def subagents_tool(backend: GatewaySocketBackend, args: dict[str, Any], requester: Requester) -> dict[str, Any]:
    """`subagents` kill and steer of one of the requester's sub-agents, named by its key or its
    label, as the gateway's operator: kill is `sessions.abort` of its run (and what waits behind
    it), steer a `chat.send` in steer mode (sending.py). The list is the spawn tree (`children`)."""
    from sessions_tui.backend.gateway.acting.sending import abort, steer
    from sessions_tui.tools.acting.subagents import SubagentsArgs

    read = SubagentsArgs.read(args)
    action, target = read["action"], (read["target"] or "").strip()
    if action not in ("kill", "steer"):
        return {"status": "error", "error": f"{backend.url}: subagents {action}: the spawn tree shows them here"}
    parent = backend.canonical(requester.key) if requester.key else backend.main_session_key()
    mine = [c for c in child_views(backend.rows(), parent)]
    found = [c for c in mine if c.child_key == backend.canonical(target) or (c.label or "") == target]
    if len(found) != 1:
        return {"status": "error", "action": action, "target": target, "error": f"Unknown subagent: {target}"}
    child = found[0]
    label = child.label or backend.display(child.child_key)
    base = {"action": action, "target": target, "sessionKey": backend.display(child.child_key)}
    try:
        if action == "kill":
            done = await backend.on_socket(lambda client: abort(client, child.child_key, clear_queued=True))
            if not done.aborted:
                return {"status": "done", **base, "text": f"{label} is not running."}
            return {"status": "ok", **base, "runId": done.run_id, "text": f"killed {label}."}
        message = read["message"] or ""
        if not message.strip():
            return {"status": "error", **base, "error": "steer needs a message"}
        sent = await backend.on_socket(lambda client: steer(client, child.child_key, message))
    except (ConnectionLost, RequestFailed, TimeoutError) as exc:
        return {"status": "error", **base, "error": backend.redact(f"{label}: {exc}")}
    if sent.get("status") != "accepted":
        return {"status": "error", **base, "error": backend.redact(str(sent.get("error") or "refused"))}
    return {"status": "accepted", **base, "queuedRunId": sent.get("runId"), "text": f"steered {label}."}
