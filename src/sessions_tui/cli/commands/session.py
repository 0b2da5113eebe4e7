"""`sessions-tui session ACTION …`: the operator's actions on one session, one sub-command each
(`ACTIONS`; their options in parser.py `add_session_command`): `abort` stops the session's running
turn, wherever it runs (`Backend.abort_run`); `new`, `reset`, `rename`, `model`, `archive`,
`unarchive` and `delete` are the operations of `Backend` `Operating` (Capability.SESSION_OPS);
`compact` is `Compacting`'s (Capability.COMPACT: an OpenClaw gateway's, over its WebSocket).

Each operation prints one line (`created KEY (sessionId S)`, `reset KEY: sessionId S (was P)`, …) or,
with `--json`, its outcome as an object. Exit status: 0 done, 1 a refusal (`OperationRefused`, or a
backend without the operations: its one line on stderr), 2 bad input (`ToolInputError`).

`abort` prints one line (`aborted run R in KEY`, `no run in progress in KEY`, or `asked run R in
KEY to stop; still running`), or with `--json` the outcome as an object. Exit status: 0 when
stopped or nothing was running, 1 when the backend cannot stop runs (its one line on stderr) or
the run had not stopped within the wait, 2 for bad input (a key that names no session).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TextIO

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import (
    AbortOutcome,
    BackendUnavailable,
    Capability,
    NewSession,
    OperationRefused,
    Requester,
    SessionOpOutcome,
)
from sessions_tui.backend.toolkit.keys import looks_like_session_id, looks_like_session_key
from sessions_tui.cli.arguments import requester_of
from sessions_tui.cli.backends import face_backend
from sessions_tui.cli.errors import EXIT_OK, EXIT_REFUSED, UsageError, require, said
from sessions_tui.terminal_text import json_text, visible_line

Action = Callable[[Backend, argparse.Namespace, TextIO], Awaitable[int]]
"""A sub-command: it acts on the backend as the parsed arguments say, prints, and returns the exit status."""


def session_key(value: str) -> str:
    """KEY as typed, checked: a session key (any spelling), `main`, or a sessionId."""
    key = value.strip()
    if key == "current" or not key or not (looks_like_session_key(key) or looks_like_session_id(key)):
        raise UsageError(f"KEY: not a session key or sessionId: {value!r}")
    return key


def refused(line: str) -> int:
    """What the backend cannot do, said on stderr: exit 1."""
    print(f"sessions-tui: {line}", file=sys.stderr)
    return EXIT_REFUSED


def abort_line(outcome: AbortOutcome, shown: str) -> str:
    """The outcome as one line; `shown`: the session's key as the backend shows it."""
    dropped = f"; dropped {outcome.cleared_queued} queued" if outcome.cleared_queued else ""
    if outcome.status == "still-running":
        return f"asked run {outcome.run_id} in {shown} to stop; still running{dropped}"
    if outcome.aborted:
        return f"aborted run {outcome.run_id} in {shown}{dropped}"
    return f"no run in progress in {shown}{dropped}"


async def abort(backend: Backend, opts: argparse.Namespace, out: TextIO) -> int:
    """`session abort KEY [--clear-queued] [--json]`."""
    from sessions_tui.backend.values.vocabulary import ToolInputError

    key = session_key(opts.key)
    try:
        require(backend, Capability.ABORT)
        outcome = await backend.abort_run(key, clear_queued=opts.clear_queued, requester=acting_as(backend, opts))
    except UsageError as exc:  # `require`: the backend's line for what it cannot do
        return refused(said(exc))
    except (BackendUnavailable, OperationRefused) as exc:  # a server that cannot, or a requester that may not
        return refused(said(exc))
    except ToolInputError as exc:
        raise UsageError(str(exc)) from exc
    shown_key = backend.redact(outcome.session_key)
    if opts.json:
        data = outcome.model_dump(mode="json")
        out.write(json_text({**data, "session_key": shown_key}, terminal=out.isatty()) + "\n")
    else:
        out.write(visible_line(abort_line(outcome, backend.redact(backend.display(outcome.session_key)))) + "\n")
    return EXIT_REFUSED if outcome.status == "still-running" else EXIT_OK


def acting_as(backend: Backend, opts: argparse.Namespace) -> Requester | None:
    """The session `--as`/`--sandboxed` name to act as; None (neither given): the operator."""
    as_key, sandboxed = getattr(opts, "as_key", None), getattr(opts, "sandboxed", False)
    if as_key is None and not sandboxed:
        return None
    return requester_of(backend, as_key, sandboxed)


def outcome_line(done: SessionOpOutcome, shown: str) -> str:
    """An operation's outcome as one line; `shown`: the session's key as the backend shows it."""
    if done.op == "create":
        label = f", label {done.label!r}" if done.label else ""
        sent = f"; first message {done.send.get('status')}" if done.send else ""
        return f"created {shown} (sessionId {done.session_id}{label}){sent}"
    if done.op == "reset":
        was = f"was {done.previous_session_id}" if done.previous_session_id else "the same: reset in place"
        return f"reset {shown}: sessionId {done.session_id} ({was})"
    if done.op == "rename":
        return f"renamed {shown}: label {done.label!r}" if done.label else f"renamed {shown}: label cleared"
    if done.op == "model":
        return f"{shown}: model {done.model or 'the default'}, thinking {done.thinking or 'off'}"
    if done.op == "compact":
        return f"compacted {shown}" if done.compacted else f"{shown}: not compacted ({done.reason or 'nothing to do'})"
    return f"{done.op}d {shown}"  # archived, unarchived, deleted


def confirmed(opts: argparse.Namespace, key: str) -> bool:
    """`delete` asks first on a terminal; without one, `--yes` is needed (bad input without it)."""
    if opts.yes:
        return True
    if not sys.stdin.isatty():
        raise UsageError("delete: --yes is needed when stdin is not a terminal")
    answer = input(f"delete {visible_line(key)}: its entry and transcript go? [y/N] ")
    return answer.strip().lower() in ("y", "yes")


async def operate(backend: Backend, opts: argparse.Namespace, out: TextIO) -> int:
    """`session new|reset|rename|model|archive|unarchive|delete|compact …`."""
    from sessions_tui.backend.values.vocabulary import ToolInputError

    op = opts.session_command
    key = opts.key.strip() if op == "new" else session_key(opts.key)
    if op == "model" and opts.model is None and opts.thinking is None:
        raise UsageError("model: give MODEL, --thinking L, or both")
    try:
        require(backend, Capability.COMPACT if op == "compact" else Capability.SESSION_OPS)
    except UsageError as exc:  # `require`: the backend's line for what it cannot do
        return refused(said(exc))
    requester = acting_as(backend, opts)
    if op == "delete" and not confirmed(opts, key):
        out.write("not deleted\n")
        return EXIT_REFUSED
    try:
        if op == "new":
            request = NewSession(
                key=key,
                agent_id=opts.agent,
                label=opts.label,
                model=opts.model,
                thinking=opts.thinking,
                message=opts.message,
            )
            done = await backend.create_session(request, requester=requester)
            if request.message is not None:
                await backend.drain()  # the first message's turn ends before this process does
        elif op == "reset":
            done = await backend.reset_session(key, requester=requester)
        elif op == "rename":
            done = await backend.rename_session(key, opts.label if opts.label.strip() else None, requester=requester)
        elif op == "model":
            done = await backend.set_session_model(key, opts.model, opts.thinking, requester=requester)
        elif op in ("archive", "unarchive"):
            done = await backend.archive_session(key, op == "archive", requester=requester)
        elif op == "compact":
            done = await backend.compact_session(key, requester=requester)
        else:
            done = await backend.delete_session(key, requester=requester)
    except (BackendUnavailable, OperationRefused) as exc:
        return refused(backend.redact(str(exc)))
    except ToolInputError as exc:
        raise UsageError(backend.redact(str(exc))) from exc
    shown_key = backend.redact(done.session_key)
    if opts.json:
        data = done.model_dump(mode="json")
        out.write(json_text({**data, "session_key": shown_key}, terminal=out.isatty()) + "\n")
    else:
        out.write(visible_line(outcome_line(done, backend.redact(backend.display(done.session_key)))) + "\n")
    return EXIT_OK


ACTIONS: dict[str, Action] = {
    "abort": abort,
    **dict.fromkeys(("new", "reset", "rename", "model", "archive", "unarchive", "delete", "compact"), operate),
}
"""Each sub-command of `session` to what runs it."""


async def _run(opts: argparse.Namespace) -> int:
    action = ACTIONS[opts.session_command]
    backend = face_backend(opts)
    try:
        return await action(backend, opts, sys.stdout)
    finally:
        await backend.aclose()


def run(opts: argparse.Namespace) -> int:
    return asyncio.run(_run(opts))
