"""The usage a requester may see: its visibility (as `sessions_list` applies it) as a usage query's narrowing.

A usage query names its requester (`UsageQuery.requester`, None: the operator, who sees everything);
this turns the requester's view (docs/decisions.md D1, `browse.visibility_filter`) into the sessions
and agents the engine's report reads: `agent` visibility, the requester's agent; `all`, the agents
agent-to-agent lets it reach; `self`, its own session; `tree`, it and the sessions it spawned; a
sandboxed requester clamped to what it spawned, those only. What the query narrowed already stays
narrowed.
"""

from __future__ import annotations

from dataclasses import replace

from sessions_tui.engine.engine import Engine
from sessions_tui.engine.usage import UsageQuery
from sessions_tui.tools.requester.access import RequesterContext


def _within(narrowed: tuple[str, ...] | None, allowed: tuple[str, ...]) -> tuple[str, ...]:
    return allowed if narrowed is None else tuple(k for k in narrowed if k in set(allowed))


def viewed_query(engine: Engine, query: UsageQuery) -> UsageQuery:
    """`query` narrowed to what its requester may see (as it is for the operator's, `requester` None)."""
    if query.requester is None and not query.sandboxed:
        return query
    ctx = RequesterContext.for_requester(engine, query.requester, query.sandboxed)
    me, agent = ctx.effective_requester_key, ctx.requester_agent_id
    keys: tuple[str, ...] | None = None
    if ctx.restrict_to_spawned:
        keys = tuple(sorted(engine.store.sessions.spawned_keys(me)))
    elif ctx.visibility == "self":
        keys = (me,)
    elif ctx.visibility == "tree":
        keys = (me, *sorted(engine.store.sessions.spawned_keys(me)))
    if ctx.visibility == "all":
        a2a = engine.a2a_policy()
        agents = tuple(a for a in engine.store.browse.agent_ids() if a == agent or a2a.is_allowed(agent, a))
    else:
        agents = (agent,)
    return replace(
        query,
        keys=_within(query.keys, keys) if keys is not None else query.keys,
        agents=_within(query.agents, agents),
    )
