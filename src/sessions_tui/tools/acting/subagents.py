"""`subagents`: list, kill or steer the requester's own sub-agents (docs/decisions.md D20).

The parameters and shapes follow OpenClaw's `subagents` tool of April 2026 (`action` list | kill |
steer, `target`, `message`, `recentMinutes`) and its `/subagents` command's target rules; the list
entries carry the fields OpenClaw 2026.9.6 gives them (recorded in
tests/fixtures/openclaw-2026.9.6/subagents/; 2026.9.6 itself answers kill and steer with
`Unsupported action.`). The list is a tree: a child's descendants follow it with their `depth`.
A requester sees and controls only its own tree; a leaf sub-agent controls nothing.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from sessions_tui.engine.redaction.cut import Redact, redact_then_cut
from sessions_tui.engine.sessions.entry import is_number
from sessions_tui.engine.sessions.keys import is_subagent_session_key, subagent_depth
from sessions_tui.engine.subagents.announce_text import format_duration
from sessions_tui.engine.subagents.control import TreeNode, kill_subtree, tree_of
from sessions_tui.engine.subagents.run_controls import ControlFailed, is_live
from sessions_tui.tools.calling.base import ToolArgs, ToolCall, ToolInputError, ToolSpec, read_integer, read_string
from sessions_tui.tools.requester.access import RequesterContext

DESCRIPTION = (
    "List, kill, or steer spawned sub-agents for this requester session. Use this for sub-agent orchestration."
)
DEFAULT_RECENT_MINUTES = 30
MAX_RECENT_MINUTES = 24 * 60
MAX_STEER_MESSAGE_CHARS = 4000
LEAF_ERROR = "Leaf subagents cannot control other sessions."


class SubagentsArgs(ToolArgs):
    action: str = Field(
        "list", description="list (default), kill or steer.", json_schema_extra={"enum": ["list", "kill", "steer"]}
    )
    target: str | None = Field(
        None,
        description='kill/steer: a list index, "last", a session key, a label (or its prefix), a run id prefix; '
        'kill also takes "all".',
    )
    message: str | None = Field(None, description="steer: the message to queue for the running sub-agent.")
    recent_minutes: int | None = Field(
        None, alias="recentMinutes", ge=1, description="list: show runs ended in the last N minutes (default 30)."
    )

    @classmethod
    def read(cls, params: dict[str, Any]) -> dict[str, Any]:
        action = (read_string(params, "action") or "list").strip().lower()
        minutes = read_integer(params, "recentMinutes", minimum=1)
        return {
            "action": action if action in ("list", "kill", "steer") else "unsupported",
            "target": read_string(params, "target"),
            "message": read_string(params, "message"),
            "recent_minutes": minutes,
        }


def _label(node: TreeNode, redact: Redact) -> str:
    """The run's label (or task) in 48 characters; shown redacted, matched against as written."""
    return redact_then_cut((node.run.label or node.run.task or "subagent").strip(), 48, redact)


def _as_written(text: str) -> str:
    return text


def _view(call: ToolCall, node: TreeNode, index: int, now: int) -> dict[str, Any]:
    """One list entry, in OpenClaw's fields (2026.9.6), with `depth` and `requesterSessionKey` for the tree."""
    engine = call.engine
    run = node.run
    session = engine.store.sessions.get(run.child_key)
    entry = session.entry if session else {}
    live = is_live(engine, run)
    status = "running" if live else str(entry.get("status") or ("killed" if run.outcome == "killed" else "done"))
    if live and status != "running":
        status = "running"
    raw_started = entry.get("startedAt")
    started = raw_started if isinstance(raw_started, int) else run.created_at
    ended = run.ended_at
    runtime_ms = max(0, (ended or now) - started)
    pending = sum(1 for n in node.walk()[1:] if is_live(engine, n.run))
    if pending and status in ("running", "done"):
        status = f"active (waiting on {pending} {'child' if pending == 1 else 'children'})"
    tokens = entry.get("totalTokens")
    total_tokens = tokens if is_number(tokens) else None
    model = entry.get("model") if isinstance(entry.get("model"), str) else run.data.get("model")
    runtime = format_duration(runtime_ms)
    task = run.task.strip()
    label = _label(node, engine.redactor.redact)
    short_task = redact_then_cut(task, 72, engine.redactor.redact, mark="")  # OpenClaw's task.slice(0, 72)
    usage = f", tokens {int(total_tokens)}" if total_tokens is not None else ""
    indent = "  " * (node.depth - 1)
    line = f"{indent}{index}. {label} ({model or 'default'}, {runtime}{usage}) {status}"
    if engine.redactor.redact(task).lower() != label.lower():
        line += f" - {short_task}"
    view: dict[str, Any] = {
        "index": index,
        "line": line,
        "runId": run.run_id,
        "sessionKey": run.child_key,
        "requesterSessionKey": run.requester_key,
        "depth": node.depth,
        "label": label,
        "task": short_task,
        "status": status,
        "pendingDescendants": pending,
        "runtime": runtime,
        "runtimeMs": runtime_ms,
        "model": model,
        "totalTokens": total_tokens,
        "startedAt": started,
    }
    if node.children:
        view["childSessions"] = [c.run.child_key for c in node.children]
    if ended is not None:
        view["endedAt"] = ended
    return view


def _controller(call: ToolCall) -> tuple[str, bool, bool]:
    """(controller key, caller is a sub-agent, caller may control others)."""
    ctx = RequesterContext.of(call)
    key = ctx.effective_requester_key
    if not is_subagent_session_key(key):
        return key, False, True
    session = call.engine.store.sessions.get(key)
    depth = session.entry.get("spawnDepth") if session else None
    depth = depth if isinstance(depth, int) else subagent_depth(key) or 1
    return key, True, depth < call.engine.config.agents.defaults.subagents.max_spawn_depth


def _entries(call: ToolCall, roots: list[TreeNode]) -> tuple[list[TreeNode], list[TreeNode]]:
    """(active, recent-or-older) nodes in list order: a child, then its descendants."""
    active: list[TreeNode] = []
    ended: list[TreeNode] = []
    for root in roots:
        (active if any(is_live(call.engine, n.run) for n in root.walk()) else ended).extend(root.walk())
    return active, ended


def _resolve(call: ToolCall, roots: list[TreeNode], target: str) -> TreeNode | str:
    """The node a target names, or OpenClaw's error for it (its `/subagents` target rules)."""
    active, ended = _entries(call, roots)
    ordered = active + ended
    latest = sorted(ordered, key=lambda n: n.run.created_at, reverse=True)
    t = target.strip()
    if t == "last":
        return latest[0] if latest else "Unknown subagent."
    if t.isdigit():
        i = int(t)
        return ordered[i - 1] if 1 <= i <= len(ordered) else f"Invalid subagent index: {t}"
    if ":" in t:
        found = [n for n in latest if n.run.child_key == t]
        return found[0] if found else f"Unknown subagent session: {t}"
    low = t.lower()
    for pick, ambiguity in (
        (lambda n: _label(n, _as_written).lower() == low, "Ambiguous subagent label"),
        (lambda n: _label(n, _as_written).lower().startswith(low), "Ambiguous subagent label prefix"),
        (lambda n: n.run.run_id.startswith(t), "Ambiguous run id prefix"),
    ):
        found = [n for n in latest if pick(n)]
        if len(found) > 1:
            return f"{ambiguity}: {t}"
        if found:
            return found[0]
    return f"Unknown subagent id: {t}"


def _targeted(
    call: ToolCall, roots: list[TreeNode], target: str, action: str
) -> tuple[TreeNode, str, dict[str, Any]] | dict[str, Any]:
    """The run `target` names, its label and the fields every answer about it carries; or the error answer."""
    node = _resolve(call, roots, target)
    if isinstance(node, str):
        return {"status": "error", "action": action, "target": target, "error": node}
    label = _label(node, call.engine.redactor.redact)
    base = {"action": action, "target": target, "runId": node.run.run_id, "sessionKey": node.run.child_key}
    return node, label, {**base, "label": label}


def _finished(label: str, node: TreeNode, gone: dict[str, int]) -> str:
    """The "already finished" text; a run whose process had died says so (it ended as interrupted)."""
    pid = gone.get(node.run.run_id)
    note = f" (the process running it, pid {pid}, had stopped: it ended as interrupted)" if pid else ""
    return f"{label} is already finished{note}."


async def _kill(call: ToolCall, roots: list[TreeNode], target: str, gone: dict[str, int]) -> dict[str, Any]:
    if target in ("all", "*"):
        killed = []
        try:
            for root in roots:
                killed.extend(await kill_subtree(call.engine, root))
        except ControlFailed as exc:
            return {"status": "error", "action": "kill", "target": "all", "error": str(exc)}
        labels = [r.label or r.task for r in killed]
        text = f"killed {len(killed)} subagent{'s' if len(killed) != 1 else ''}." if killed else "no running subagents."
        return {
            "status": "ok",
            "action": "kill",
            "target": "all",
            "killed": len(killed),
            "labels": labels,
            "text": text,
        }
    found = _targeted(call, roots, target, "kill")
    if isinstance(found, dict):
        return found
    node, label, base = found
    if not any(is_live(call.engine, n.run) for n in node.walk()):
        return {"status": "done", **base, "text": _finished(label, node, gone)}
    try:
        killed = await kill_subtree(call.engine, node)
    except ControlFailed as exc:
        return {"status": "error", **base, "error": f"{label}: {exc}"}
    cascade = [r for r in killed if r.run_id != node.run.run_id]
    result: dict[str, Any] = {"status": "ok", **base, "cascadeKilled": len(cascade)}
    if cascade:
        result["cascadeLabels"] = [r.label or r.task for r in cascade]
    result["text"] = f"killed {label}" + (f" (+{len(cascade)} descendants)." if cascade else ".")
    return result


async def _steer(
    call: ToolCall, roots: list[TreeNode], target: str, message: str, gone: dict[str, int]
) -> dict[str, Any]:
    found = _targeted(call, roots, target, "steer")
    if isinstance(found, dict):
        return found
    node, label, base = found
    if not is_live(call.engine, node.run):
        return {"status": "done", **base, "text": _finished(label, node, gone)}
    try:
        queued = await call.engine.run_controls.steer(node.run, message)  # in the process running it
    except ControlFailed as exc:
        return {"status": "error", **base, "error": f"{label}: {exc}"}
    if queued is None:
        return {"status": "done", **base, "text": _finished(label, node, gone)}
    return {"status": "accepted", **base, "queuedRunId": queued, "mode": "queue", "text": f"steered {label}."}


async def subagents(call: ToolCall, params: dict[str, Any]) -> dict[str, Any]:
    """`list` reads the store only, on its thread (store_thread.py), as does finding the tree;
    `kill` and `steer` act on runs, on the caller's loop."""
    args = SubagentsArgs.model_validate(params)
    if args.action == "unsupported":
        return {"status": "error", "error": "Unsupported action."}
    thread = call.engine.store.thread
    controller, caller_is_subagent, can_control = await thread.run(_controller, call)
    max_depth = call.engine.config.agents.defaults.subagents.max_spawn_depth
    roots = await thread.run(tree_of, call.engine, controller, max_depth=max(1, max_depth))
    if args.action == "list":
        return await thread.run(_listed, call, args, roots, controller, caller_is_subagent)
    if not can_control:
        return {"status": "forbidden", "action": args.action, "error": LEAF_ERROR}
    if not args.target:
        raise ToolInputError("target required")
    gone = call.engine.run_controls.reap()  # runs a dead process left: ended first, as at start-up
    if args.action == "kill":
        return await _kill(call, roots, args.target, gone)
    if not args.message:
        raise ToolInputError("message required")
    if len(args.message) > MAX_STEER_MESSAGE_CHARS:
        return {
            "status": "error",
            "action": "steer",
            "target": args.target,
            "error": f"Message too long ({len(args.message)} chars, max {MAX_STEER_MESSAGE_CHARS}).",
        }
    return await _steer(call, roots, args.target, args.message, gone)


def _listed(
    call: ToolCall, args: SubagentsArgs, roots: list[TreeNode], controller: str, caller_is_subagent: bool
) -> dict[str, Any]:
    """The `list` action's answer: the active runs, then those ended within the window asked for."""
    minutes = min(MAX_RECENT_MINUTES, args.recent_minutes or DEFAULT_RECENT_MINUTES)
    now = call.engine.now()
    cutoff = now - minutes * 60_000
    active_nodes, ended_nodes = _entries(call, roots)
    ended_nodes = [n for n in ended_nodes if (n.run.ended_at or now) >= cutoff]
    views = [_view(call, n, i, now) for i, n in enumerate(active_nodes + ended_nodes, start=1)]
    active, recent = views[: len(active_nodes)], views[len(active_nodes) :]
    text = "\n".join(
        ["active subagents:", *([v["line"] for v in active] or ["(none)"]), "", f"recent (last {minutes}m):"]
        + ([v["line"] for v in recent] or ["(none)"])
    )
    return {
        "status": "ok",
        "action": "list",
        "requesterSessionKey": controller,
        "callerSessionKey": controller,
        "callerIsSubagent": caller_is_subagent,
        "total": sum(len(r.walk()) for r in roots),
        "active": active,
        "recent": recent,
        "text": text,
    }


SPEC = ToolSpec(
    name="subagents",
    label="Subagents",
    description=DESCRIPTION,
    arguments=SubagentsArgs,
    run=subagents,
)
