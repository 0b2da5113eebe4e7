"""`sessions-tui search QUERY`: find the messages that say something, across every transcript the
requester may read (`sessions_search`'s rules and index; main unless `--as`).

Best first, two lines per hit: where (session, message number, role, time UTC) and the snippet,
its matched words in bold on a terminal. `--json` prints `{results: [{sessionKey, timestamp, role,
snippet, score, sessionId, messageId, msgSeq}], indexing?, truncated?}`. Snippets come redacted;
what is printed as text has its control characters made visible. On a damaged state database it
answers from what the index holds, saying so when that may be incomplete; where the damage is in
what the search reads, it ends with one line saying it cannot read it (exit 2).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TextIO

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.toolkit.matching import HIT_END, HIT_START, marked_parts, wire_hit
from sessions_tui.backend.values.vocabulary import ToolInputError
from sessions_tui.cli.arguments import requester_of
from sessions_tui.cli.backends import face_backend
from sessions_tui.cli.errors import UsageError
from sessions_tui.terminal_text import json_text, visible_line

if TYPE_CHECKING:
    from sessions_tui.backend.values.views import SearchHit, SearchOutcome

DEFAULT_LIMIT = 20
MAX_LIMIT = 500
_BOLD, _PLAIN = "\x1b[1m", "\x1b[0m"
BEHIND_ON_DAMAGED = "the search index is behind, and a damaged database is not written to: results may be incomplete"


def plain(snippet: str) -> str:
    """A snippet without its match marks."""
    return snippet.replace(HIT_START, "").replace(HIT_END, "")


def hit_json(hit: SearchHit) -> dict[str, Any]:
    """A hit as the tool gives it, with its whole snippet unmarked and its message number."""
    out: dict[str, Any] = {**wire_hit(hit), "snippet": plain(hit.snippet)}
    if hit.msg_seq is not None:
        out["msgSeq"] = hit.msg_seq
    return out


def outcome_json(outcome: SearchOutcome) -> dict[str, Any]:
    out: dict[str, Any] = {"results": [hit_json(hit) for hit in outcome.hits]}
    if outcome.indexing:
        out["indexing"] = True
    if outcome.truncated:
        out["truncated"] = True
    return out


def snippet_line(snippet: str, *, bold: bool) -> str:
    """The snippet on one line, control characters visible, matched words bold (or as they are)."""
    return "".join(
        f"{_BOLD}{visible_line(text)}{_PLAIN}" if matched and bold else visible_line(text)
        for text, matched in marked_parts(snippet)
    )


def hit_lines(hit: SearchHit, *, bold: bool) -> list[str]:
    when = datetime.fromtimestamp(hit.timestamp / 1000, UTC).strftime("%Y-%m-%d %H:%M:%SZ") if hit.timestamp else "-"
    where = f"#{hit.msg_seq}" if hit.msg_seq is not None else (hit.message_id or "")
    head = f"{visible_line(hit.session_key)}  {where}  {hit.role}  {when}  score {hit.score:.2f}"
    return [head, f"  {snippet_line(hit.snippet, bold=bold)}"]


def print_outcome(outcome: SearchOutcome, out: TextIO, *, bold: bool, damaged: bool = False) -> None:
    """The hits as text; `damaged`: the state database is, so an index behind is not caught up."""
    if outcome.refused:
        print(f"refused: {visible_line(outcome.refused)}", file=out)
        return
    if not outcome.hits:
        print("no message matches", file=out)
    for hit in outcome.hits:
        print("\n".join(hit_lines(hit, bold=bold)), file=out)
    if outcome.truncated:
        print(f"more matches: showing the first {len(outcome.hits)}; --limit N shows more", file=out)
    if outcome.indexing and damaged:
        print(f"({BEHIND_ON_DAMAGED})", file=out)
    elif outcome.indexing:
        print("(the search index is still being built: results may be incomplete)", file=out)


async def _index_first(backend: Backend) -> None:
    """Bring the search index up before searching (a local store from before it), saying so."""
    behind = await backend.search_index_behind()
    if behind:
        print(f"indexing {behind:,} transcript lines for search (once)…", file=sys.stderr)
        await backend.catch_up_search_index()


async def run_search(backend: Backend, requester: Requester, opts: argparse.Namespace, out: TextIO) -> int:
    if not 1 <= opts.limit <= MAX_LIMIT:
        raise UsageError(f"--limit: between 1 and {MAX_LIMIT}, not {opts.limit}")
    query = " ".join(opts.query)
    await _index_first(backend)
    try:
        outcome = await backend.search(requester, query, session=opts.session, limit=opts.limit)
    except ToolInputError as exc:
        raise UsageError(f"QUERY: {exc}") from exc
    if opts.json:
        if outcome.refused:
            print(json_text({"status": "forbidden", "error": outcome.refused}, terminal=out.isatty()), file=out)
        else:
            print(json_text(outcome_json(outcome), terminal=out.isatty()), file=out)
    else:
        print_outcome(outcome, out, bold=out.isatty(), damaged=backend.store_damage is not None)
    return 1 if outcome.refused else 0


async def _run_search(opts: argparse.Namespace) -> int:
    backend = face_backend(opts)
    try:
        return await run_search(backend, requester_of(backend, opts.as_key, opts.sandboxed), opts, sys.stdout)
    finally:
        await backend.aclose()


def run(opts: argparse.Namespace) -> int:
    return asyncio.run(_run_search(opts))
