"""Browsing sessions as a requester would see them, for views that hold thousands of rows.

`sessions_list` caps a page at 200 rows and filters after paging, as OpenClaw does. The dashboard
needs the whole visible set filtered, sorted and counted before paging, so this module turns the
requester's visibility (docs/decisions.md D1) into a store filter and builds each row with
`sessions_list`'s own row builder: what the table shows is what that session's tools would see.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Required

from sessions_tui.engine.redaction.redact import Redactor
from sessions_tui.engine.sessions.keys import classify_session_kind
from sessions_tui.engine.sessions.live_status import Activity
from sessions_tui.engine.sessions.policy import resolve_send_policy
from sessions_tui.engine.store.browsing.browse import SessionFilter
from sessions_tui.engine.store.tables.sessions import StoredSession
from sessions_tui.tools.calling.base import ToolCall, active_since
from sessions_tui.tools.reading.sessions_list import ListedRow, build_row
from sessions_tui.tools.requester.access import RequesterContext


@dataclass
class BrowseQuery:
    kinds: list[str] | None = None
    active_minutes: int | None = None
    search: str | None = None
    order_by: str = "updated"
    descending: bool = True
    include_archived: bool = False
    keys: list[str] | None = None
    """Only these canonical keys (a status filter: the sessions in that status)."""
    except_keys: list[str] | None = None
    """None of these canonical keys (a status filter's `idle`: every session not in another status)."""


class BrowseRow(ListedRow, total=False):
    """A row of the dashboard's table: a `sessions_list` row (redacted) with what the views act on,
    never shown: the canonical key, the effective send policy and its reason (docs/decisions.md D6);
    over several servers, the server it came from."""

    _key: Required[str]
    _send: str
    _sendReason: str
    gateway: str


@dataclass
class BrowsePage:
    rows: list[BrowseRow] = field(default_factory=list)
    total: int = 0  # -1: not counted (the view counts apart, `count_sessions`)
    offset: int = 0
    first: tuple[Any, str] | None = None  # where the page starts and ends, to page on by keyset
    last: tuple[Any, str] | None = None


def visibility_filter(call: ToolCall, ctx: RequesterContext) -> SessionFilter:
    """The sessions the requester's guard lets through, as a store filter."""
    engine = call.engine
    agent = ctx.requester_agent_id
    flt = SessionFilter(
        main_key=engine.alias.main_key,
        include_global=engine.alias.alias == "global",
        shown_as_main=engine.main_session_key(agent),
    )
    if ctx.visibility == "all":
        a2a = engine.a2a_policy()
        flt.agent_ids = [a for a in engine.store.browse.agent_ids() if a == agent or a2a.is_allowed(agent, a)]
    else:
        flt.agent_ids = [agent]
    if ctx.visibility in ("self", "tree"):
        flt.scope_agent, flt.scope, flt.requester = agent, ctx.visibility, ctx.effective_requester_key
    if ctx.restrict_to_spawned:
        flt.spawned_by = ctx.effective_requester_key
        flt.include_global = False
    return flt


def _redacted(redactor: Redactor, value: Any) -> Any:
    """`redactor.redact_strings(value)`, each string redacted once: a page's rows repeat most of
    their strings (kinds, channels, models, statuses), and the next page or keystroke many of its rows."""
    if isinstance(value, str):
        return _redact(redactor, value)
    if isinstance(value, dict):
        return {_redacted(redactor, k): _redacted(redactor, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_redacted(redactor, item) for item in value]
    return value


@lru_cache(maxsize=1 << 16)
def _redact(redactor: Redactor, text: str) -> str:
    return redactor.redact(text)


def _row(call: ToolCall, ctx: RequesterContext, session: StoredSession) -> BrowseRow:
    kind = classify_session_kind(session.key, session.entry.get("kind"), call.engine.alias)
    row: BrowseRow = _redacted(call.engine.redactor, build_row(call, ctx, session, kind))
    row["_key"] = session.key  # the canonical key, for views that act on the row (never shown)
    verdict = resolve_send_policy(call.engine.config.session.send_policy, entry=session.entry, session_key=session.key)
    row["_send"] = verdict.decision  # the effective send policy (docs/decisions.md D6)
    row["_sendReason"] = verdict.reason
    return row


def _filter(call: ToolCall, ctx: RequesterContext, query: BrowseQuery) -> SessionFilter:
    flt = visibility_filter(call, ctx)
    flt.kinds = query.kinds
    flt.search = query.search or None
    flt.include_archived = query.include_archived
    flt.keys = query.keys
    flt.except_keys = query.except_keys
    if query.active_minutes:
        flt.active_since = active_since(call.engine.now(), query.active_minutes)
    return flt


def browse_sessions(
    call: ToolCall,
    query: BrowseQuery,
    *,
    offset: int = 0,
    limit: int = 500,
    after: tuple[Any, str] | None = None,
    before: tuple[Any, str] | None = None,
    count: bool = True,
) -> BrowsePage:
    """A page by position (`offset`), or with `after` / `before` (a page's `last` / `first`) the
    page after or before another, found by keyset whatever its depth. `offset` is then only
    reported back. Not `count`: the total is -1, for a view that paints first and counts after."""
    ctx = RequesterContext.of(call)
    flt = _filter(call, ctx, query)
    store = call.engine.store
    if after is None and before is None and offset:
        sessions, total = store.browse.page(
            flt, order_by=query.order_by, descending=query.descending, limit=limit, offset=offset, count=count
        )
        return BrowsePage(rows=[_row(call, ctx, s) for s in sessions], total=total, offset=offset)
    sessions, cursors = store.browse.keyset(
        flt, order_by=query.order_by, descending=query.descending, limit=limit, after=after, before=before
    )
    total = store.browse.count(flt) if count else -1
    return BrowsePage(
        rows=[_row(call, ctx, s) for s in sessions],
        total=total,
        offset=offset,
        first=cursors[0] if cursors else None,
        last=cursors[-1] if cursors else None,
    )


def count_sessions(call: ToolCall, query: BrowseQuery, cancelled: Callable[[], bool] | None = None) -> int:
    """How many sessions `browse_sessions` pages through for this query (-1: `cancelled()` meanwhile)."""
    return call.engine.store.browse.count(_filter(call, RequesterContext.of(call), query), cancelled)


def state_is_empty(call: ToolCall) -> bool:
    """Whether the state directory holds no session at all, archived ones included (the dashboard's
    empty state points to the demo then)."""
    return call.engine.store.sessions.count(include_archived=True) == 0


def session_activity(call: ToolCall, keys: list[str] | None) -> dict[str, Activity]:
    """The live-status facts of the sessions the requester may see: of `keys`, or (None) of every
    one that may not be idle now (store/tables/activity.py)."""
    engine = call.engine
    facts = engine.store.activity.facts(keys, engine.now())
    if not facts:
        return facts
    flt = visibility_filter(call, RequesterContext.of(call))
    flt.include_archived = True
    named, visible = list(facts), []
    for at in range(0, len(named), 500):  # within SQLite's bound on a statement's variables
        flt.keys = named[at : at + 500]
        visible += engine.store.browse.visible_keys(flt)
    return {key: facts[key] for key in visible}


def browse_rows(call: ToolCall, keys: list[str]) -> dict[str, BrowseRow]:
    """The rows of some canonical keys, if the requester may see them (for live updates)."""
    ctx = RequesterContext.of(call)
    flt = visibility_filter(call, ctx)
    flt.keys = keys
    flt.include_archived = True
    sessions, _ = call.engine.store.browse.page(flt, limit=None, count=False)
    return {s.key: _row(call, ctx, s) for s in sessions}
