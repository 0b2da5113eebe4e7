"""Usage and estimated cost: summed by the hour as lines are written, read by agent, model, session and time."""

from __future__ import annotations

import sqlite3

import pytest

from conftest import NOW_MS, add_session
from openai_server import Reply
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.engine.store.schema import DB_NAME, SCHEMA_VERSION
from sessions_tui.engine.store.store import Store
from sessions_tui.engine.store.usage_hours import DAY_MS, HOUR_MS
from sessions_tui.engine.usage import UsageQuery, UsageTotals, usage_report

PRICED = {
    "models": {
        "providers": {
            "acme": {"baseUrl": "http://x/v1", "models": [{"id": "m1", "cost": {"input": 2, "output": 10}}]},
        }
    }
}
MAIN = "agent:main:main"
OPS = "agent:ops:main"


def _assistant(ts: int, input_: int, output: int, model: str = "m1", provider: str = "acme", **usage: object) -> dict:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": "ok"}],
        "provider": provider,
        "model": model,
        "usage": {"input": input_, "output": output, "totalTokens": input_ + output, **usage},
        "timestamp": ts,
    }


def _user(ts: int) -> dict:
    return {"role": "user", "content": "hi", "timestamp": ts}


def _seed(engine) -> None:
    add_session(engine, MAIN, [_user(NOW_MS - 3 * DAY_MS), _assistant(NOW_MS - 3 * DAY_MS, 1_000_000, 0)])
    add_session(
        engine,
        OPS,
        [
            _user(NOW_MS - HOUR_MS),
            _assistant(NOW_MS - HOUR_MS, 1000, 100),
            _assistant(NOW_MS - HOUR_MS + 60_000, 500, 50, model="x9", provider="other"),
            _assistant(NOW_MS, 10, 10, cost={"total": 0.25}),
        ],
    )


def test_usage_by_agent_model_and_session_with_cost_from_prices_or_reported(make_engine):
    engine = make_engine(PRICED)
    _seed(engine)
    report = usage_report(engine.store, engine.config, UsageQuery(since=NOW_MS - 7 * DAY_MS, by="agent"))
    by = {g.name: g.totals for g in report.groups}
    assert by["main"] == UsageTotals(turns=1, input=1_000_000, total_tokens=1_000_000, cost_usd=2.0)
    ops = by["ops"]
    assert (ops.turns, ops.input, ops.output, ops.unpriced_turns) == (3, 1510, 160, 1)
    assert ops.cost_usd == pytest.approx((1000 * 2 + 100 * 10) / 1e6 + 0.25)
    assert report.total.turns == 4 and report.groups[0].name == "main"  # most costly first

    models = usage_report(engine.store, engine.config, UsageQuery(since=0, by="model"))
    assert {g.name: g.totals.turns for g in models.groups} == {"acme/m1": 3, "other/x9": 1}
    assert next(g for g in models.groups if g.name == "other/x9").totals.unpriced_turns == 1

    sessions = usage_report(engine.store, engine.config, UsageQuery(since=0, by="session"))
    assert {g.name for g in sessions.groups} == {MAIN, OPS}


def test_since_cuts_at_the_hour_and_the_series_buckets_by_hour_or_day(make_engine):
    engine = make_engine(PRICED)
    _seed(engine)
    recent = usage_report(engine.store, engine.config, UsageQuery(since=NOW_MS - 2 * HOUR_MS, every="hour"))
    assert recent.total.turns == 3
    assert [(p.start, p.totals.turns) for p in recent.series] == [(NOW_MS - HOUR_MS, 2), (NOW_MS, 1)]
    days = usage_report(engine.store, engine.config, UsageQuery(since=0, every="day"))
    assert [p.totals.turns for p in days.series] == [1, 3]
    assert all(p.start % DAY_MS == 0 for p in days.series)
    only = usage_report(engine.store, engine.config, UsageQuery(since=0, keys=(MAIN,)))
    assert only.total.turns == 1
    # A span starting within a day: its first hours read by the hour, the whole days after by the day.
    for since, turns in ((NOW_MS - 3 * DAY_MS, 4), (NOW_MS - 3 * DAY_MS + HOUR_MS, 3), (NOW_MS - HOUR_MS + 1, 3)):
        report = usage_report(engine.store, engine.config, UsageQuery(since=since, every="day"))
        assert report.total.turns == sum(p.totals.turns for p in report.series) == turns, since


def test_a_price_set_later_applies_to_turns_already_recorded(make_engine, tmp_path):
    engine = make_engine({}, tmp_path / "s")
    _seed(engine)
    unpriced = usage_report(engine.store, engine.config, UsageQuery(since=0))
    assert unpriced.total.cost_usd == pytest.approx(0.25) and unpriced.total.unpriced_turns == 3
    engine.close()
    priced = make_engine(PRICED, tmp_path / "s")
    assert usage_report(priced.store, priced.config, UsageQuery(since=0)).total.unpriced_turns == 1


async def test_a_run_records_its_turns_usage(live_engine, openai_server):
    engine = live_engine(
        {
            "models": {
                "providers": {
                    "local": {
                        "baseUrl": openai_server.url,
                        "apiKey": "k",
                        "models": [{"id": "test-model", "cost": {"input": 2, "output": 10}}],
                    }
                }
            },
            "agents": {"defaults": {"model": "local/test-model"}},
        }
    )
    add_session(engine, MAIN)
    openai_server.script(Reply(text="one", usage=(1000, 100)))
    run_id = engine.runs.start(RunRequest(session_key=MAIN, message="a"))
    await engine.runs.wait(run_id, 20_000)
    await engine.drain()
    report = usage_report(engine.store, engine.config, UsageQuery(since=0, by="model"))
    assert [(g.name, g.totals.input, g.totals.output) for g in report.groups] == [("local/test-model", 1000, 100)]
    assert report.total.cost_usd == pytest.approx(engine.store.sessions.get(MAIN).entry["estimatedCostUsd"])


def test_schema_12_fills_usage_from_the_transcripts_of_a_file_of_11(make_engine, tmp_path):
    state = tmp_path / "s"
    engine = make_engine(PRICED, state)
    _seed(engine)
    engine.close()
    conn = sqlite3.connect(state / DB_NAME)
    conn.execute("DROP TABLE usage_hours")
    conn.execute("DROP TABLE usage_days")
    conn.execute("DROP TABLE usage_agent_hours")
    conn.execute("PRAGMA user_version=11")
    conn.commit()
    conn.close()
    store = Store(state)
    try:
        with store.read() as c:
            assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 14
        assert sum(row.sums.turns for row in store.usage.by_column("agent_id", 0)) == 4
    finally:
        store.close()


def test_schema_14_sums_the_agents_hours_from_the_sessions_hours_of_a_file_of_12(make_engine, tmp_path):
    state = tmp_path / "s"
    engine = make_engine(PRICED, state)
    _seed(engine)
    engine.close()
    conn = sqlite3.connect(state / DB_NAME)
    expected = conn.execute(
        "SELECT hour, agent_id, provider, model, sum(turns), sum(input), sum(reported_cost), sum(unreported_turns)"
        " FROM usage_hours GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4"
    ).fetchall()
    conn.execute("DROP TABLE usage_agent_hours")
    conn.execute("PRAGMA user_version=12")
    conn.commit()
    conn.close()
    store = Store(state)
    try:
        with store.read() as c:
            assert c.execute("PRAGMA user_version").fetchone()[0] == 14
            filled = c.execute(
                "SELECT hour, agent_id, provider, model, turns, input, reported_cost, unreported_turns"
                " FROM usage_agent_hours ORDER BY 1, 2, 3, 4"
            ).fetchall()
        assert [tuple(r) for r in filled] == [tuple(r) for r in expected] and expected
    finally:
        store.close()


def test_a_report_not_by_session_reads_the_agents_hours_and_agrees_with_one_by_session(make_engine):
    engine = make_engine(PRICED)
    _seed(engine)
    with engine.store.write() as conn:
        conn.execute("DELETE FROM usage_hours")  # what is left to read is the agents' hours (and the days)
        conn.execute("DELETE FROM usage_days")
    for every in ("hour", "day"):
        by_agent = usage_report(engine.store, engine.config, UsageQuery(since=0, by="agent", every=every))
        assert by_agent.total.turns == 4 and by_agent.series
    by_session = usage_report(engine.store, engine.config, UsageQuery(since=0, by="session"))
    assert by_session.groups == ()


def test_a_batch_of_lines_writes_one_row_per_hour_not_per_turn(make_engine):
    engine = make_engine(PRICED)
    add_session(engine, MAIN)
    lines = [{"type": "message", "message": _assistant(NOW_MS + i * 60_000, 10, 1)} for i in range(30)]
    engine.store.transcripts.append_lines(MAIN, lines)
    with engine.store.read() as conn:
        hours = conn.execute("SELECT hour, turns, input FROM usage_hours").fetchall()
        days = conn.execute("SELECT day, turns FROM usage_days").fetchall()
        agents = conn.execute("SELECT hour, agent_id, turns, input FROM usage_agent_hours").fetchall()
    assert [tuple(r) for r in hours] == [(NOW_MS, 30, 300)]
    assert [tuple(r) for r in days] == [(NOW_MS // DAY_MS * DAY_MS, 30)]
    assert [tuple(r) for r in agents] == [(NOW_MS, "main", 30, 300)]


def test_odd_usage_counts_are_read_as_far_as_they_are_counts(make_engine):
    engine = make_engine(PRICED)
    odd = {"input": 1000.0, "output": "many", "cacheRead": True, "totalTokens": float("inf")}
    message = {"role": "assistant", "content": [], "provider": "acme", "model": "m1", "usage": odd}
    add_session(engine, MAIN, [message, {"role": "assistant", "content": [], "usage": "none"}])
    report = usage_report(engine.store, engine.config, UsageQuery(since=0))
    total = report.total
    assert (total.turns, total.input, total.output, total.total_tokens) == (1, 1000, 0, 1000)


def test_usage_narrowed_to_agents_and_keys(make_engine):
    engine = make_engine(PRICED)
    _seed(engine)
    since = NOW_MS - 7 * DAY_MS
    ops = usage_report(engine.store, engine.config, UsageQuery(since=since, by="session", agents=("ops",)))
    assert [g.name for g in ops.groups] == [OPS]
    assert ops.total.turns == 3 and sum(p.totals.turns for p in ops.series) == 3
    none = usage_report(engine.store, engine.config, UsageQuery(since=since, keys=(OPS,), agents=("main",)))
    assert none.total == UsageTotals() and none.series == ()


def test_the_spawn_tree_rolled_up_per_child_its_own_and_its_descendants(make_engine):
    engine = make_engine(PRICED)
    child, grandchild, other = "agent:main:subagent:c1", "agent:main:subagent:g1", "agent:main:subagent:o1"
    add_session(engine, MAIN, [_assistant(NOW_MS, 100, 0)])
    add_session(engine, child, [_assistant(NOW_MS, 1000, 0)], spawnedBy=MAIN)
    add_session(engine, grandchild, [_assistant(NOW_MS, 10, 5), _assistant(NOW_MS, 10, 5)], spawnedBy=child)
    add_session(engine, other, [_assistant(NOW_MS, 7, 0)], spawnedBy=OPS)
    query = UsageQuery(since=NOW_MS - DAY_MS, by="session", tree_of=MAIN)
    report = usage_report(engine.store, engine.config, query)
    assert report.tree_of == MAIN
    assert [(n.key, n.parent, n.depth) for n in report.tree] == [(child, MAIN, 1), (grandchild, child, 2)]
    top, below = report.tree
    assert (top.own.total_tokens, top.tree.total_tokens, top.tree.turns) == (1000, 1030, 3)
    assert below.own == below.tree and below.own.total_tokens == 30
    assert top.tree.cost_usd == pytest.approx((1000 * 2 + 20 * 2 + 10 * 10) / 1_000_000)
    # a session the query does not let through is left out with its subtree
    narrowed = usage_report(engine.store, engine.config, UsageQuery(since=NOW_MS - DAY_MS, tree_of=MAIN, keys=(MAIN,)))
    assert narrowed.tree == ()
    assert usage_report(engine.store, engine.config, UsageQuery(since=NOW_MS - DAY_MS)).tree == ()


def test_tokens_by_session_in_buckets_for_a_sparkline(make_engine):
    engine = make_engine(PRICED)
    _seed(engine)
    sums = engine.store.usage.tokens_by_session([MAIN, OPS, "agent:main:none"], NOW_MS - DAY_MS, 3 * HOUR_MS)
    assert sums == {OPS: {NOW_MS - 3 * HOUR_MS: 1100 + 550, NOW_MS: 20}}  # 09:00 and 12:00 UTC
    assert engine.store.usage.tokens_by_session([], NOW_MS, HOUR_MS) == {}


def test_activity_alone_for_a_pages_sparklines(make_engine):
    engine = make_engine(PRICED)
    _seed(engine)
    query = UsageQuery(since=NOW_MS - DAY_MS, keys=(MAIN, OPS), activity_ms=3 * HOUR_MS)
    report = usage_report(engine.store, engine.config, query)
    assert report.groups == () and report.series == () and report.total == UsageTotals()
    assert [(a.key, a.tokens) for a in report.activity] == [(OPS, ((NOW_MS - 3 * HOUR_MS, 1650), (NOW_MS, 20)))]
    narrowed = UsageQuery(since=NOW_MS - DAY_MS, keys=(OPS,), agents=("main",), activity_ms=HOUR_MS)
    assert usage_report(engine.store, engine.config, narrowed).activity == ()
