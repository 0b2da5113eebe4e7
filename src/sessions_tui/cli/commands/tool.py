"""`sessions-tui tool NAME [ARGS_JSON]`: invoke one session tool as a requester session and print
its result as JSON; the work the tool starts (a run, the ping-pong, an announce) finishes first."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from sessions_tui.backend.toolkit.inputs import NotJsonNumber, loads_json
from sessions_tui.backend.values.vocabulary import ToolInputError, UnknownToolError
from sessions_tui.cli.arguments import requester_of
from sessions_tui.cli.backends import face_backend, warn_left_pending
from sessions_tui.cli.errors import EXIT_OK, UsageError
from sessions_tui.terminal_text import json_text, visible_line


def parse_args_json(text: str) -> dict[str, Any]:
    """ARGS_JSON: a JSON object, or `UsageError` saying where it is not one."""
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


def print_json(value: Any) -> None:
    """JSON readable as text, with every control character and lone surrogate escaped (and, on a
    terminal, every format character: see `json_text`)."""
    sys.stdout.write(json_text(value, terminal=sys.stdout.isatty()) + "\n")
    sys.stdout.flush()


async def _run_tool(opts: argparse.Namespace) -> int:
    params = parse_args_json(opts.args_json)
    backend = face_backend(opts)
    try:
        openclaw = opts.openclaw_root
        if openclaw is not None:
            for problem in (await backend.import_openclaw(openclaw)).problems:
                print(f"warning: {visible_line(problem)}", file=sys.stderr)
        await backend.start()
        as_requester = requester_of(backend, opts.as_key, opts.sandboxed)
        try:
            result = await backend.call_tool(opts.name, params, as_requester)
        except (ToolInputError, UnknownToolError) as exc:
            raise UsageError(str(exc)) from exc
        print_json(result)
        # Stay for the work the tool started: the run, ping-pong, announce, deliveries.
        await backend.drain()
    finally:
        await backend.aclose()
    warn_left_pending(backend)
    return EXIT_OK


def run(opts: argparse.Namespace) -> int:
    return asyncio.run(_run_tool(opts))
