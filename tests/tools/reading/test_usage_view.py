"""The usage a requester may see: its visibility as a usage query's narrowing (tools/reading/usage_view.py)."""

from __future__ import annotations

from conftest import NOW_MS, add_session
from sessions_tui.engine.store.usage_hours import DAY_MS
from sessions_tui.engine.usage import UsageQuery, usage_report
from sessions_tui.tools.reading.usage_view import viewed_query

MAIN, DEV, OPS = "agent:main:main", "agent:main:discord:group:dev", "agent:ops:main"
CHILD = "agent:main:subagent:c1"


def _turn(tokens: int) -> dict:
    usage = {"input": tokens, "output": 0, "totalTokens": tokens}
    return {"role": "assistant", "content": "ok", "provider": "p", "model": "m", "usage": usage, "timestamp": NOW_MS}


def _seed(engine) -> None:
    add_session(engine, MAIN, [_turn(1)])
    add_session(engine, DEV, [_turn(10)])
    add_session(engine, CHILD, [_turn(100)], spawnedBy=MAIN)
    add_session(engine, OPS, [_turn(1000)])


def _seen(engine, requester: str | None, sandboxed: bool = False, **query: object) -> dict[str, int]:
    asked = UsageQuery(since=NOW_MS - DAY_MS, by="session", requester=requester, sandboxed=sandboxed, **query)
    report = usage_report(engine.store, engine.config, viewed_query(engine, asked))
    return {g.name: g.totals.total_tokens for g in report.groups}


def test_the_operator_sees_everything(make_engine):
    engine = make_engine()
    _seed(engine)
    assert _seen(engine, None) == {MAIN: 1, DEV: 10, CHILD: 100, OPS: 1000}


def test_each_visibility_narrows_as_sessions_list_does(make_engine):
    for visibility, seen in (
        ("self", {MAIN: 1}),
        ("tree", {MAIN: 1, CHILD: 100}),
        ("agent", {MAIN: 1, DEV: 10, CHILD: 100}),
    ):
        engine = make_engine({"tools": {"sessions": {"visibility": visibility}}})
        _seed(engine)
        assert _seen(engine, MAIN) == seen, visibility
    engine = make_engine({"tools": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": True}}})
    _seed(engine)
    assert _seen(engine, MAIN) == {MAIN: 1, DEV: 10, CHILD: 100, OPS: 1000}
    engine = make_engine({"tools": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": False}}})
    _seed(engine)
    assert _seen(engine, MAIN) == {MAIN: 1, DEV: 10, CHILD: 100}


def test_a_sandboxed_requester_sees_what_it_spawned_and_narrowing_stays(make_engine):
    engine = make_engine({"agents": {"defaults": {"sandbox": {"mode": "all", "sessionToolsVisibility": "spawned"}}}})
    _seed(engine)
    assert _seen(engine, MAIN, sandboxed=True) == {CHILD: 100}
    assert _seen(engine, MAIN, keys=(DEV, OPS)) == {DEV: 10}


def test_the_tree_roll_up_is_the_requesters_view_too(make_engine):
    engine = make_engine({"tools": {"sessions": {"visibility": "self"}}})
    _seed(engine)
    asked = UsageQuery(since=NOW_MS - DAY_MS, tree_of=MAIN, requester=MAIN)
    assert usage_report(engine.store, engine.config, viewed_query(engine, asked)).tree == ()
    report = usage_report(engine.store, engine.config, viewed_query(engine, UsageQuery(since=0, tree_of=MAIN)))
    assert [(n.key, n.tree.total_tokens) for n in report.tree] == [(CHILD, 100)]
