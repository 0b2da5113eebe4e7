"""Browsing (the dashboard's table) shows exactly what `sessions_list` would, filtered before paging."""

import pytest

from conftest import NOW_MS, add_session, run_tool
from sessions_tui.engine.demo.state import seed_demo
from sessions_tui.tools.calling.base import ToolCall
from sessions_tui.tools.reading.browse import BrowseQuery, browse_rows, browse_sessions

CONFIGS = [
    {},
    {"tools": {"sessions": {"visibility": "tree"}}},
    {"tools": {"sessions": {"visibility": "self"}}},
    {"tools": {"sessions": {"visibility": "agent"}}},
    {"tools": {"agentToAgent": {"enabled": True}}},
    {"tools": {"agentToAgent": {"enabled": True, "allow": ["main"]}}},
    {"session": {"scope": "global"}},
    {"session": {"mainKey": "work"}},
]
REQUESTERS = [
    (None, False),
    ("agent:main:discord:group:dev", False),
    ("agent:main:discord:group:dev", True),
    ("agent:research:main", False),
    ("agent:main:subagent:x", True),
]


def populate(engine):
    seed_demo(engine, None)
    add_session(engine, "agent:main:subagent:kid", spawnedBy="agent:main:discord:group:dev", updatedAt=NOW_MS - 5)
    add_session(engine, "agent:main:work", updatedAt=NOW_MS - 7)
    engine.store.sessions.create("global", {"updatedAt": NOW_MS - 9})


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("as_key, sandboxed", REQUESTERS)
def test_browse_rows_equal_sessions_list_rows(make_engine, config, as_key, sandboxed):
    engine = make_engine(config)
    populate(engine)
    call = ToolCall(engine=engine, agent_session_key=as_key, sandboxed=sandboxed)
    listed = run_tool(engine, "sessions_list", {"limit": 200}, as_key=as_key, sandboxed=sandboxed)["sessions"]
    browsed = browse_sessions(call, BrowseQuery()).rows
    for row in browsed:
        for private in ("_key", "_send", "_sendReason"):
            row.pop(private)
    assert browsed == listed
    for kind in ("main", "group", "cron", "hook", "node", "other"):
        by_tool = run_tool(
            engine, "sessions_list", {"limit": 200, "kinds": [kind]}, as_key=as_key, sandboxed=sandboxed
        )["sessions"]
        page = browse_sessions(call, BrowseQuery(kinds=[kind]))
        assert [r["key"] for r in page.rows] == [r["key"] for r in by_tool], kind
        assert page.total == len(by_tool)


def test_filters_apply_before_paging_and_total_counts_all(make_engine):
    engine = make_engine()
    for i in range(30):
        add_session(engine, f"agent:main:discord:group:g{i:02d}", updatedAt=NOW_MS - i)
        add_session(engine, f"cron:c{i:02d}", updatedAt=NOW_MS - 100 - i)
    call = ToolCall(engine=engine)
    page = browse_sessions(call, BrowseQuery(kinds=["cron"]), limit=10, offset=10)
    assert page.total == 30 and [r["key"] for r in page.rows][0] == "cron:c10"
    assert browse_sessions(call, BrowseQuery(search="G07")).rows[0]["key"] == "agent:main:discord:group:g07"
    assert browse_sessions(call, BrowseQuery(active_minutes=1)).total == 60


@pytest.mark.parametrize("order_by", ["updated", "key", "kind", "channel", "label", "model", "tokens", "status"])
def test_sorting_by_every_column(make_engine, order_by):
    engine = make_engine()
    populate(engine)
    rows = browse_sessions(ToolCall(engine=engine), BrowseQuery(order_by=order_by, descending=False)).rows
    field = {"updated": "updatedAt", "tokens": "totalTokens"}.get(order_by, order_by)
    values = [r.get(field) if order_by != "label" else (r.get("label") or r.get("displayName") or "") for r in rows]
    if order_by in ("updated", "tokens"):
        values = [v or 0 for v in values]
    else:
        values = [v or "" for v in values]
    assert values == sorted(values)


def test_browse_rows_respects_visibility(make_engine):
    engine = make_engine({"tools": {"sessions": {"visibility": "self"}}})
    populate(engine)
    call = ToolCall(engine=engine, agent_session_key="agent:main:discord:group:dev")
    rows = browse_rows(call, ["agent:main:discord:group:dev", "agent:main:main"])
    assert list(rows) == ["agent:main:discord:group:dev"]
