"""`sessions-tui sends`: the send ledger on the command line — what happened to each message sent.

Newest first, one block per send: when, who sent it to whom (the operator, or a session and how:
`[operator]` or `[agent]`), the message's head, then each state
of its life with its time (UTC) and what it carried. `--json` prints the entries as a list of
`{runId, requester, target, message, states: [{state, at, detail?}], chain, via, createdAt}`.
Texts come redacted and cut from the backend; what is printed as text has its control characters
made visible.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Capability
from sessions_tui.backend.toolkit.keys import looks_like_session_id, looks_like_session_key
from sessions_tui.backend.toolkit.operator import OPERATOR, via_shown
from sessions_tui.cli.backends import face_backend
from sessions_tui.cli.errors import UsageError, require
from sessions_tui.terminal_text import json_text, visible_line

if TYPE_CHECKING:
    from sessions_tui.backend.values.vocabulary import LedgerEntry, LedgerState

DEFAULT_LIMIT = 50
MAX_LIMIT = 5000
"""The most sends one listing prints: the operator API's bound (backend/remote/wire.py `SendsRequest`)."""
HEAD_CHARS = 80


async def session_filter(backend: Backend, value: str | None) -> str | None:
    """`--session` as the ledger stores keys (canonical); a sessionId names its session's key."""
    if value is None:
        return None
    text = value.strip()
    if text == "current":
        raise UsageError("--session: 'current' names no session here; give a key")
    if text and looks_like_session_key(text):
        return backend.canonical(text)
    if text and looks_like_session_id(text):
        key = await backend.owner_key(text)
        if key is None:
            raise UsageError(f"--session: no session has the sessionId {value!r}")
        return key
    raise UsageError(f"--session: not a session key or sessionId: {value!r}")


def entry_json(entry: LedgerEntry, mask: Callable[[str], str]) -> dict[str, Any]:
    """One entry as `--json` prints it (the issue's field names), its keys canonical as `mask` redacts
    them (a key may hold a secret: a channel id, a label a token was pasted into)."""
    return {
        "runId": entry.run_id,
        "requester": mask(entry.requester) if entry.requester is not None else None,
        "target": mask(entry.target),
        "message": entry.message,
        "states": [
            {"state": s.state, "at": s.at, **({"detail": s.detail} if s.detail is not None else {})}
            for s in entry.states
        ],
        "chain": [mask(key) for key in entry.chain],
        "via": entry.via,
        "createdAt": entry.created_at,
    }


def _head(text: str | None, chars: int = HEAD_CHARS) -> str:
    """A text's start on one line."""
    line = " ".join((text or "").split())
    return line if len(line) <= chars else line[: chars - 1] + "…"


def _time(ms: int, *, date: bool = False) -> str:
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S") + "Z" if date else moment.strftime("%H:%M:%S.%f")[:-3]


def state_line(state: LedgerState, show_key: Any) -> str:
    """What a state says beyond its name: the reply's or announce's head, the error, the turn."""
    detail = state.detail or {}
    parts: list[str] = []
    if state.state == "pingpong":
        parts.append(f"turn {detail.get('turn')} {show_key(str(detail.get('speaker') or '?'))}:")
    if state.state == "announce":
        outbox = f" #{detail['outboxId']}" if "outboxId" in detail else ""
        parts.append(f"({detail.get('delivery', '?')}{outbox})")
    if state.state in ("delivered", "delivery_failed") and "outboxId" in detail:
        parts.append(f"#{detail['outboxId']}")
    if "waitedMs" in detail:
        parts.append(f"after {int(detail['waitedMs']) / 1000:g} s")
    for name in ("text", "error"):
        if isinstance(detail.get(name), str):
            parts.append(_head(detail[name]))
    if "chain" in detail and isinstance(detail["chain"], list):
        parts.append("chain " + " → ".join(show_key(str(k)) for k in detail["chain"]))
    return " ".join([f"{_time(state.at)}  {state.state:<16}", *parts]).rstrip()


def entry_block(entry: LedgerEntry, backend: Backend) -> list[str]:
    """One send as text: a header line, the message's head, a line per state. A send the operator
    made without a requester session is from `operator`; one from a session says who made it in
    brackets, `[operator]` (the operator acting as it) or `[agent]` (its model's tool call)."""
    sender = OPERATOR if entry.requester is None else backend.display(entry.requester)
    how = "" if entry.requester is None else f"  [{via_shown(entry.via)}]"
    header = f"{_time(entry.created_at, date=True)}  {sender} → {backend.display(entry.target)}{how}"
    lines = [f"{header}  run {entry.run_id}", f"  “{_head(entry.message)}”"]
    lines += ["  " + state_line(s, backend.display) for s in entry.states]
    return [visible_line(line) for line in lines]


async def run_sends(backend: Backend, opts: argparse.Namespace, out: TextIO) -> int:
    """Print the ledger as `opts` asks; 0, or `UsageError` for a bad option."""
    if not 1 <= opts.limit <= MAX_LIMIT:
        raise UsageError(f"--limit: between 1 and {MAX_LIMIT}, not {opts.limit}")
    require(backend, Capability.LEDGER)
    session = await session_filter(backend, opts.session)
    entries = await backend.sends(session, opts.send_state, opts.limit)
    if opts.json:
        out.write(json_text([entry_json(e, backend.redact) for e in entries], terminal=out.isatty()) + "\n")
        return 0
    if not entries:
        where = f" to or from {backend.display(session)}" if session else ""
        which = f" that reached '{opts.send_state}'" if opts.send_state else ""
        out.write(visible_line(f"no sends{where}{which}") + "\n")
        return 0
    for i, entry in enumerate(entries):
        if i:
            out.write("\n")
        out.write("\n".join(entry_block(entry, backend)) + "\n")
    return 0


async def _run_sends(opts: argparse.Namespace) -> int:
    backend = face_backend(opts)
    try:
        return await run_sends(backend, opts, sys.stdout)
    finally:
        await backend.aclose()


def run(opts: argparse.Namespace) -> int:
    return asyncio.run(_run_sends(opts))
