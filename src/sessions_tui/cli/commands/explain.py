"""`sessions-tui explain FROM TO`: may FROM list, read, send to TO and spawn under an agent, and
which rule decides each — answered by the rules the tools refuse by (tools/requester/explain.py).

Text: a header line, then one line per action (`send     no   send policy rule 1 (…): deny`).
`--json` prints the `Explanation` model as it is.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, TextIO

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Capability, Requester
from sessions_tui.backend.toolkit.keys import looks_like_session_id, looks_like_session_key
from sessions_tui.cli.arguments import requester_of
from sessions_tui.cli.backends import face_backend
from sessions_tui.cli.errors import UsageError, require
from sessions_tui.terminal_text import json_text, visible_line

if TYPE_CHECKING:
    from sessions_tui.backend.values.views import Explanation


def explanation_lines(explanation: Explanation, backend: Backend) -> list[str]:
    """The explanation as text: who, what, then one line per action with its deciding rule."""
    who = backend.display(explanation.requester)
    sandbox = " (sandboxed, sees only what it spawned)" if explanation.restrict_to_spawned else ""
    sandbox = sandbox or (" (sandboxed)" if explanation.sandboxed else "")
    lines = [
        f"{who}{sandbox} → {backend.display(explanation.target)}: visibility {explanation.visibility}, "
        f"spawn under agent {explanation.spawn_agent}"
    ]
    for verdict in explanation.verdicts:
        lines.append(f"{verdict.action:<8} {'yes' if verdict.allowed else 'no':<4} {verdict.why}")
    lines += [f"note: {note}" for note in explanation.notes]
    return [visible_line(line) for line in lines]


async def run_explain(backend: Backend, requester: Requester, opts: argparse.Namespace, out: TextIO) -> int:
    """Print the explanation `opts` asks for; 0, or `UsageError` for bad input."""
    from sessions_tui.backend.values.vocabulary import ToolInputError

    require(backend, Capability.EXPLAIN)
    try:
        explanation = await backend.explain(requester, opts.target, opts.agent)
    except ToolInputError as exc:
        raise UsageError(str(exc)) from exc
    if opts.json:
        out.write(json_text(explanation.model_dump(mode="json"), terminal=out.isatty()) + "\n")
    else:
        out.write("\n".join(explanation_lines(explanation, backend)) + "\n")
    return 0


async def _run_explain(opts: argparse.Namespace) -> int:
    key = opts.from_key.strip()
    if key == "current" or not (looks_like_session_key(key) or looks_like_session_id(key)):
        raise UsageError(f"FROM: not a session key: {opts.from_key!r}")
    backend = face_backend(opts)
    try:
        return await run_explain(backend, requester_of(backend, key, opts.sandboxed), opts, sys.stdout)
    finally:
        await backend.aclose()


def run(opts: argparse.Namespace) -> int:
    return asyncio.run(_run_explain(opts))
