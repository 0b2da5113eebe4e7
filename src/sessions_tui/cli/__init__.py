"""The `sessions-tui` command: the dashboard, `tool`, `send`, `sends`, `explain`, `search`, `export`, `demo`,
`import-openclaw`; their options and help texts are in `cli_parser.py`.

Exit codes: 0 for every tool result (including `status:"error"`/`"forbidden"`), 2 with one
line on stderr for invalid arguments, an unknown tool, a bad or missing config file, or a state
directory that cannot be used. Everything printed that sessions-tui did not write itself (agent
text, keys, paths, problems) has its control characters made visible; JSON escapes them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sessions_tui.backend import (
    Backend,
    BackendUnavailable,
    NotJsonNumber,
    Requester,
    StoreDamaged,
    ToolInputError,
    UnknownToolError,
    database_error_line,
    loads_json,
    looks_like_session_id,
    looks_like_session_key,
)
from sessions_tui.cli.backends import UsageError, face_backend, open_backend
from sessions_tui.cli.parser import build_parser
from sessions_tui.terminal_text import json_text, visible_line

EXIT_OK = 0
EXIT_USAGE = 2


# The command-line arguments that are text, not paths, by the name a refusal gives them (an
# argument given several times, or taking several words, is a list of them).
_TEXT_ARGUMENTS = {
    "name": "NAME",
    "args_json": "ARGS_JSON",
    "key": "KEY",
    "message": "MESSAGE",
    "query": "QUERY",
    "as_key": "--as",
    "from_key": "FROM",
    "target": "TO",
    "agent": "--agent",
    "session": "--session",
    "remote": "--remote",
    "token": "--token",
    "host": "--host",
}


def _check_text_arguments(opts: argparse.Namespace) -> None:
    """Refuse bytes that are not UTF-8 in a text argument: Python hands them over as lone surrogates
    (surrogateescape), which no key, tool name, message or query can hold. Paths are bytes and may."""
    for attr, name in _TEXT_ARGUMENTS.items():
        value = getattr(opts, attr, None)
        for text in value if isinstance(value, list) else [value]:
            if not isinstance(text, str):
                continue
            undecodable = next((i for i, c in enumerate(text) if "\ud800" <= c <= "\udfff"), None)
            if undecodable is not None:
                raise UsageError(f"{name}: not UTF-8 text (character {undecodable})")


def _parse_args_json(text: str) -> dict[str, Any]:
    try:
        value = loads_json(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"ARGS_JSON: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
    except RecursionError:
        raise UsageError("ARGS_JSON: nested too deeply to parse") from None
    except NotJsonNumber as exc:
        raise UsageError(f"ARGS_JSON: invalid JSON: {exc}") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise UsageError(f"ARGS_JSON: cannot parse: {str(exc).partition(':')[0]}") from None
    if not isinstance(value, dict):
        raise UsageError("ARGS_JSON: must be a JSON object")
    return value


def _requester(backend: Backend, as_key: str | None, sandboxed: bool) -> Requester:
    if as_key is not None:
        key = as_key.strip()
        if not key or not (looks_like_session_key(key) or looks_like_session_id(key)):
            raise UsageError(f"--as: not a session key: {as_key!r}")
        if key == "current":
            raise UsageError("--as: 'current' names no session here; give a key")
    else:
        key = "main"
    return Requester(
        key=key if as_key is not None else None,
        sandboxed=sandboxed or backend.is_sandboxed(backend.canonical(key)),
    )


def print_json(value: Any) -> None:
    """JSON readable as text, with every control character and lone surrogate escaped (and, on a
    terminal, every format character: see `json_text`)."""
    sys.stdout.write(json_text(value, terminal=sys.stdout.isatty()) + "\n")
    sys.stdout.flush()


async def _run_tool(opts: argparse.Namespace) -> int:
    params = _parse_args_json(opts.args_json)
    backend = face_backend(opts)
    try:
        openclaw = opts.openclaw_root
        if openclaw is not None:
            for problem in (await backend.import_openclaw(openclaw)).problems:
                print(f"warning: {visible_line(problem)}", file=sys.stderr)
        await backend.start()
        requester = _requester(backend, opts.as_key, opts.sandboxed)
        try:
            result = await backend.call_tool(opts.name, params, requester)
        except (ToolInputError, UnknownToolError) as exc:
            raise UsageError(str(exc)) from exc
        print_json(result)
        # Stay for the work the tool started: the run, ping-pong, announce, deliveries.
        await backend.drain()
    finally:
        await backend.aclose()
    _warn_left_pending(backend)
    return EXIT_OK


def _warn_left_pending(backend: Backend) -> None:
    line = backend.left_pending_line()
    if line is not None:
        print(visible_line(line), file=sys.stderr)


def _send_message(opts: argparse.Namespace) -> str:
    """MESSAGE or `--message-file`, exactly one of them."""
    if opts.message_file is None:
        if opts.message is None:
            raise UsageError("send: no message: give MESSAGE or --message-file FILE")
        return str(opts.message)  # checked to be text by _check_text_arguments
    if opts.message is not None:
        raise UsageError("send: MESSAGE and --message-file do not go together: give one")
    from sessions_tui.cli.commands.send import MessageFileError, read_message_file

    try:
        return read_message_file(opts.message_file)
    except MessageFileError as exc:
        raise UsageError(f"--message-file {exc}") from None


# JavaScript's largest exact integer: the largest `timeoutSeconds` the tool takes (it clamps it).
_MAX_TIMEOUT = 2**53 - 1


def _send_timeout(value: float) -> int:
    """`--timeout`, as `sessions_send` takes `timeoutSeconds`: a whole number of seconds, 0 or more,
    at most `_MAX_TIMEOUT`."""
    if not (math.isfinite(value) and value >= 0 and value == math.floor(value)):
        raise UsageError(f"--timeout: must be a whole number of seconds, 0 or more, not {value:g}")
    if value > _MAX_TIMEOUT:
        raise UsageError(f"--timeout: at most {_MAX_TIMEOUT} seconds (the largest the tool takes), not {value:g}")
    return int(value)


async def _run_send(opts: argparse.Namespace) -> int:
    from sessions_tui.cli.commands.send import SendReporter

    timeout = _send_timeout(opts.timeout)
    message = _send_message(opts)
    backend = face_backend(opts)
    try:
        await backend.start()
        reporter = SendReporter(backend, sys.stdout)
        requester = _requester(backend, opts.as_key, False)
        code = await reporter.send(opts.key, message, timeout=timeout, requester=requester)
    finally:
        await backend.aclose()
    _warn_left_pending(backend)
    return code


async def _run_sends(opts: argparse.Namespace) -> int:
    from sessions_tui.cli.commands.sends import SendsUsageError, run_sends

    backend = face_backend(opts)
    try:
        return await run_sends(backend, opts, sys.stdout)
    except SendsUsageError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        await backend.aclose()


async def _run_export(opts: argparse.Namespace) -> int:
    from sessions_tui.cli.commands.export import ExportUsageError, export_to

    if opts.no_redact and getattr(opts, "remote", None):  # refused before any server is asked
        raise UsageError("--no-redact: not over --remote; a server only ever sends a redacted export")
    backend = face_backend(opts)
    try:
        return await export_to(backend, opts, sys.stdout, sys.stderr)
    except ExportUsageError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        await backend.aclose()


async def _run_search(opts: argparse.Namespace) -> int:
    from sessions_tui.cli.commands.search import SearchUsageError, run_search

    backend = face_backend(opts)
    try:
        requester = _requester(backend, opts.as_key, opts.sandboxed)
        return await run_search(backend, requester, opts, sys.stdout)
    except SearchUsageError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        await backend.aclose()


async def _run_explain(opts: argparse.Namespace) -> int:
    from sessions_tui.cli.commands.explain import ExplainUsageError, run_explain

    key = opts.from_key.strip()
    if key == "current" or not (looks_like_session_key(key) or looks_like_session_id(key)):
        raise UsageError(f"FROM: not a session key: {opts.from_key!r}")
    backend = face_backend(opts)
    try:
        requester = _requester(backend, key, opts.sandboxed)
        return await run_explain(backend, requester, opts, sys.stdout)
    except ExplainUsageError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        await backend.aclose()


def _run_import(opts: argparse.Namespace) -> int:
    from sessions_tui.backend import NoOpenClawState, require_agents

    root = Path(opts.source).expanduser()
    backend = open_backend(opts)
    try:
        if opts.follow:
            from sessions_tui.cli.commands.import_openclaw import follow_until_stopped

            require_agents(root)
            return EXIT_OK if asyncio.run(follow_until_stopped(backend, root, sys.stdout, sys.stderr)) else EXIT_USAGE
        report = asyncio.run(backend.import_openclaw(root))
    except NoOpenClawState as exc:
        raise UsageError(str(exc)) from exc
    finally:
        backend.close()
    for problem in report.problems:
        print(visible_line(problem), file=sys.stderr)
    for source in report.sources:
        print(f"read {visible_line(source)}")
    print(report.summary)
    return EXIT_OK


def _run_demo(opts: argparse.Namespace) -> int:
    opts.demo = True
    backend = open_backend(opts)
    try:
        result = asyncio.run(backend.call_tool("sessions_list", {}, Requester()))
    finally:
        backend.close()
    print(f"state: {visible_line(backend.location)}")
    for row in result["sessions"]:
        label = row.get("label") or row.get("displayName") or ""
        print(visible_line(f"{row['key']:<48} {row['kind']:<6} {row['channel']:<9} {label}"))
    return EXIT_OK


def _run_dashboard(opts: argparse.Namespace) -> int:
    from sessions_tui.ui.app import SessionsApp

    backend = face_backend(opts)
    as_key = opts.as_key or "main"
    if not looks_like_session_key(as_key):
        raise UsageError(f"--as: not a session key: {as_key!r}")
    SessionsApp(backend, acting_as=as_key, sandboxed=opts.sandboxed, openclaw=opts.openclaw_root).run()
    _warn_left_pending(backend)  # once the terminal is the shell's again
    return EXIT_OK


def _run_serve(opts: argparse.Namespace) -> int:
    from sessions_tui.cli.commands.serve import ServeRefused, run_serve

    backend = open_backend(opts)
    try:
        asyncio.run(run_serve(opts, backend))
    except ServeRefused as exc:
        raise UsageError(str(exc)) from exc
    return EXIT_OK


# The commands `--demo` (given before them) means nothing to, and why.
_NO_DEMO = {"demo": "it writes the demo already", "import-openclaw": "the demo has sessions of its own"}


def _said(exc: Exception) -> str:
    """An error's one line as printed: what the user typed (a key, a sessionId, a tool's arguments)
    may hold a secret, so it is redacted as every output is (the name before the first colon apart:
    `KEY: not …` is no secret), then its controls made visible."""
    from sessions_tui.backend import default_redactor

    redact = default_redactor().redact
    where, colon, what = str(exc).partition(": ")  # the option or argument named, then what of it
    return visible_line(f"{redact(where)}{colon}{redact(what)}")


def main(argv: Sequence[str] | None = None) -> int:
    # pydantic looks for plugins in every installed package's metadata when it builds its first
    # validator; sessions-tui uses none, and the scan is a good part of a `tool` call's start.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    parser = build_parser()
    opts = parser.parse_args(argv)
    try:
        _check_text_arguments(opts)
        if opts.demo and opts.command in _NO_DEMO:
            raise UsageError(
                f"--demo goes with the dashboard, tool and send, not {opts.command}: {_NO_DEMO[opts.command]}"
            )
        if getattr(opts, "remote", None) and opts.command in ("demo", "import-openclaw", "serve"):
            raise UsageError(f"--remote goes with the dashboard, tool and send, not {opts.command}")
        if opts.command == "tool":
            return asyncio.run(_run_tool(opts))
        if opts.command == "send":
            return asyncio.run(_run_send(opts))
        if opts.command == "sends":
            return asyncio.run(_run_sends(opts))
        if opts.command == "explain":
            return asyncio.run(_run_explain(opts))
        if opts.command == "search":
            return asyncio.run(_run_search(opts))
        if opts.command == "export":
            return asyncio.run(_run_export(opts))
        if opts.command == "demo":
            return _run_demo(opts)
        if opts.command == "import-openclaw":
            return _run_import(opts)
        if opts.command == "serve":
            return _run_serve(opts)
        return _run_dashboard(opts)
    except (UsageError, BackendUnavailable) as exc:
        print(f"sessions-tui: {_said(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except StoreDamaged as exc:  # a write the damaged database refused
        print(f"sessions-tui: {visible_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except sqlite3.DatabaseError as exc:  # a database that opened but turned out corrupt on a read
        where = getattr(opts, "state_dir", None)
        line = database_error_line(where if isinstance(where, Path) else None, exc)
        print(f"sessions-tui: {visible_line(line)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`… | head`): nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
