"""`sessions_search` (OpenClaw 2026.9.6's tool, docs/decisions.md D20): full-text search over the
user and assistant messages of the sessions the requester may read.

Parameters, limits, errors and the result's shape are the gateway's (recorded in
tests/fixtures/openclaw-2026.9.6/search/). What a requester finds is what `sessions_history` would
show it: the same visibility guard, the sandbox clamp, agent-to-agent policy; and the index holds
text redacted (store/tables/text_index.py), so unlike the gateway's a secret is never found by its value.
The dashboard's search (`search_messages`) is the same search with marked snippets, more hits, and
where each hit is in its transcript.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from sessions_tui.engine.lazy_model import LazyModel
from sessions_tui.engine.redaction.cut import Redact, redacted_head
from sessions_tui.engine.redaction.redact import truncate_utf16_safe, utf16_len
from sessions_tui.engine.sessions.keys import js_trim
from sessions_tui.engine.store.index_catch_up import catch_up
from sessions_tui.engine.store.tables.text_index import TextQuery, fts_query
from sessions_tui.tools.calling.base import ToolArgs, ToolCall, ToolInputError, ToolSpec, read_integer, read_string
from sessions_tui.tools.requester.access import RequesterContext, VisibilityGuard, guard_for
from sessions_tui.tools.requester.resolution import Failed, resolve_visible

DEFAULT_LIMIT = 10
MAX_LIMIT = 25
MAX_QUERY_CHARS = 4096
MAX_RESULT_BYTES = 32768
SNIPPET_MAX_CHARS = 300
STORE_SNIPPET_MAX_CHARS = 500
INDEXING_WARNING = "Transcript indexing is in progress; results may be incomplete. Retry sessions_search shortly."
CATCH_UP_BUDGET_S = 2.0
"""A search first indexes what the index is behind by, for this long at most (then says `indexing`)."""

DESCRIPTION = "Search visible past sessions for matching user and assistant text."


class SearchArgs(ToolArgs):
    query: str = Field(max_length=MAX_QUERY_CHARS, description="Words to find (all of them, in any order).")
    session_key: str | None = Field(None, alias="sessionKey", description="Search this session only.")
    limit: int = Field(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Maximum results (default 10, at most 25).")

    @classmethod
    def read(cls, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "query": checked_query(params.get("query")),
            "session_key": read_string(params, "sessionKey"),
            "limit": read_limit(params),
        }


def checked_query(raw: Any) -> str:
    """The query trimmed, or the tool's refusal of it (`ToolInputError`)."""
    query = js_trim(raw) if isinstance(raw, str) else ""
    if not query:
        raise ToolInputError("query must not be empty")
    if len(query) > MAX_QUERY_CHARS:
        raise ToolInputError(f"query must not exceed {MAX_QUERY_CHARS} characters")
    return query


def read_limit(params: dict[str, Any]) -> int:
    """OpenClaw's `readPositiveIntegerParam` with a maximum: absent is the default; a positive integer
    up to 25, or a string of one, is taken; anything else refuses the call."""
    limit = read_integer(params, "limit", minimum=1)
    if limit is None:
        return DEFAULT_LIMIT
    if limit > MAX_LIMIT:
        raise ToolInputError("limit must be a positive integer")
    return limit


class SearchHit(LazyModel):
    """One message found: the session as the requester spells it (`sessionKey`) and as stored (`key`),
    where the message is (`messageId`, `msgSeq`: its number in the transcript), and the snippet."""

    session_key: str = Field(alias="sessionKey")
    key: str
    session_id: str = Field(alias="sessionId")
    message_id: str | None = Field(None, alias="messageId")
    msg_seq: int | None = Field(None, alias="msgSeq")
    role: str
    timestamp: int
    snippet: str
    score: float


def best_first(hit: SearchHit) -> tuple[float, int, str, str]:
    """The order hits are given in: best score, then newest, then by session and message."""
    return (-hit.score, -hit.timestamp, hit.session_key, hit.message_id or "")


class SearchOutcome(LazyModel):
    """A search's hits, best first; `indexing`: the index was still catching up; `truncated`: more
    matched; `refused`: the requester may not read the session it asked to search (the tool's words)."""

    hits: list[SearchHit] = Field(default_factory=list)
    indexing: bool = False
    truncated: bool = False
    refused: str | None = None


@dataclass(frozen=True)
class _Scope:
    session: str | None = None
    agents: list[str] | None = None
    tree_of: str | None = None


def _scope(call: ToolCall, ctx: RequesterContext, guard: VisibilityGuard) -> _Scope:
    """What the requester may read, as a narrowing of the index query (each hit is checked again)."""
    store, requester = call.engine.store, ctx.effective_requester_key
    if ctx.restrict_to_spawned or guard.visibility == "tree":
        return _Scope(tree_of=requester)  # its own session and those it spawned (the index's `p` terms)
    if guard.visibility == "self":
        return _Scope(session=requester)
    every = store.sessions.agent_ids()
    agents = [a for a in every if a == guard.requester_agent_id or guard.decide(f"agent:{a}:main").allowed]
    return _Scope(agents=None if set(agents) >= set(every) else agents)


async def search_messages(
    call: ToolCall, query: str, *, session_key: str | None = None, limit: int = DEFAULT_LIMIT, marked: bool = False
) -> SearchOutcome | Failed:
    """The best `limit` messages matching every word of `query` that the requester may read (in
    `session_key` only, when given); snippets cut by the index, redacted. Its store work runs on
    the store's thread (store_thread.py)."""
    thread = call.engine.store.thread
    scoped = await thread.run(_scoped, call, session_key)
    if isinstance(scoped, Failed):
        return scoped
    state = await catch_up(call.engine, CATCH_UP_BUDGET_S)
    return await thread.run(_found, call, scoped, query, limit, marked, state.indexing)


@dataclass(frozen=True)
class _Scoped:
    """The requester's context and guard, and the part of the index it may read."""

    ctx: RequesterContext
    guard: VisibilityGuard
    scope: _Scope


def _scoped(call: ToolCall, session_key: str | None) -> _Scoped | Failed:
    ctx = RequesterContext.of(call)
    guard = guard_for(call, ctx, "search")
    if not session_key:
        return _Scoped(ctx, guard, _scope(call, ctx, guard))
    resolved = resolve_visible(call.engine, session_key, ctx, guard)
    if isinstance(resolved, Failed):
        return resolved
    return _Scoped(ctx, guard, _Scope(session=resolved.key))


def _found(call: ToolCall, scoped: _Scoped, query: str, limit: int, marked: bool, indexing: bool) -> SearchOutcome:
    engine, scope, guard = call.engine, scoped.scope, scoped.guard
    wanted = TextQuery(
        match=fts_query(query),
        limit=limit + 1,
        session=scope.session,
        agents=scope.agents,
        tree_of=scope.tree_of,
        marked=marked,
    )
    result = engine.store.text_index.search_text(wanted)
    found = [hit for hit in result.hits if guard.check(hit.key) is None]
    hits = [
        SearchHit(
            sessionKey=engine.shown_key(hit.key, scoped.ctx.requester_agent_id),
            key=hit.key,
            sessionId=hit.session_id,
            messageId=hit.entry_id,
            msgSeq=hit.msg_seq,
            role=hit.role,
            timestamp=hit.timestamp,
            snippet=_cut(hit.snippet, STORE_SNIPPET_MAX_CHARS, engine.redactor.redact),
            score=hit.score,
        )
        for hit in found
    ]
    hits.sort(key=best_first)
    truncated = len(hits) > limit or result.windowed
    return SearchOutcome(hits=hits[:limit], indexing=indexing, truncated=truncated)


def _cut(text: str, most: int, redact: Redact) -> str:
    """At most `most` UTF-16 units and `…`, of the text redacted first (engine/redaction/cut.py)."""
    shown, _ = redacted_head(text, most, redact)
    return f"{truncate_utf16_safe(shown, most)}…" if utf16_len(shown) > most else shown


def wire_hit(hit: SearchHit) -> dict[str, Any]:
    """A hit as the gateway's result holds it (its fields, in its order)."""
    out: dict[str, Any] = {
        "sessionKey": hit.session_key,
        "timestamp": hit.timestamp,
        "role": hit.role,
        "snippet": _cut(hit.snippet, SNIPPET_MAX_CHARS, str),  # redacted already (search_messages)
        "score": hit.score,
        "sessionId": hit.session_id,
    }
    if hit.message_id is not None:
        out["messageId"] = hit.message_id
    return out


def _capped(items: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """The hits that fit the gateway's 32 KiB result budget (as compact JSON), and whether some did not."""
    kept: list[dict[str, Any]] = []
    size = 2
    for item in items:
        more = len(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass"))
        more += 1 if kept else 0
        if size + more > MAX_RESULT_BYTES:
            return kept, True
        kept.append(item)
        size += more
    return kept, False


async def sessions_search(call: ToolCall, params: dict[str, Any]) -> dict[str, Any]:
    args = SearchArgs.model_validate(params)
    outcome = await search_messages(call, args.query, session_key=args.session_key, limit=args.limit)
    if isinstance(outcome, Failed):
        return {"status": outcome.status, "error": outcome.error}
    results, cut = _capped([wire_hit(hit) for hit in outcome.hits])
    payload: dict[str, Any] = {"results": results}
    if outcome.indexing:
        payload["indexing"] = True
        payload["warning"] = INDEXING_WARNING
    if outcome.truncated or cut:
        payload["truncated"] = True
    return payload


SPEC = ToolSpec(
    name="sessions_search",
    label="Sessions Search",
    description=DESCRIPTION,
    arguments=SearchArgs,
    run=sessions_search,
)
