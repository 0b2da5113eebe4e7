"""`sessions-tui explain FROM TO`: may FROM list, read, send to TO and spawn under an agent, and
which rule decides each — answered by the rules the tools refuse by (tools/explain.py).

Text: a header line, then one line per action (`send     no   send policy rule 1 (…): deny`).
`--json` prints the `Explanation` model as it is.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, TextIO

from sessions_tui.backend import Backend, Requester
from sessions_tui.terminal_text import json_text, visible_line

if TYPE_CHECKING:
    from sessions_tui.backend import Explanation


class ExplainUsageError(Exception):
    """A bad argument of `explain` (exit 2); the message says which and why."""


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
    """Print the explanation `opts` asks for; 0, or `ExplainUsageError` for bad input."""
    from sessions_tui.backend import ToolInputError

    try:
        explanation = await backend.explain(requester, opts.target, opts.agent)
    except ToolInputError as exc:
        raise ExplainUsageError(str(exc)) from exc
    if opts.json:
        out.write(json_text(explanation.model_dump(mode="json"), terminal=out.isatty()) + "\n")
    else:
        out.write("\n".join(explanation_lines(explanation, backend)) + "\n")
    return 0
