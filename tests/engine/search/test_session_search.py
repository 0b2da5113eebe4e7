"""A text filter over sessions matches the same sessions wherever it runs: the table's pages (the
store's browse), the acting-as picker (the store's list) and the live rows the dashboard merges
(`row_matches` on the listed rows)."""

from conftest import add_session
from sessions_tui.engine.search.matching import row_matches
from sessions_tui.engine.store.browsing.browse import SessionFilter
from sessions_tui.tools.calling.base import ToolCall
from sessions_tui.tools.reading.browse import browse_rows

NEEDLES = ["dev", "DEV", "Deploy", "ops", "WhatsApp", "3f9", "nightly", "zzz", "main"]


def test_every_search_matches_the_same_sessions(make_engine):
    engine = make_engine({"tools": {"agentToAgent": {"enabled": True}}})
    add_session(engine, "agent:main:discord:group:dev", label="Dev chat", channel="discord")
    add_session(engine, "agent:main:whatsapp:group:family", displayName="Family", channel="WhatsApp")
    engine.store.sessions.create(
        engine.canonical("cron:nightly-report"), {"label": "nightly"}, session_id="3f9a0c2e-0000-4000-8000-000000000000"
    )
    add_session(engine, "agent:ops:main", displayName="Deploy bot")
    add_session(engine, "main")
    every = {s.key for s in engine.store.browse.list_sessions()[0]}
    rows = browse_rows(ToolCall(engine=engine), sorted(every))
    assert set(rows) == every
    for needle in NEEDLES:
        browsed = {s.key for s in engine.store.browse.page(SessionFilter(search=needle), limit=None)[0]}
        listed = {s.key for s in engine.store.browse.list_sessions(search=needle)[0]}
        live = {key for key, row in rows.items() if row_matches(row, needle)}
        assert browsed == listed == live, (needle, browsed, listed, live)
    assert {s.key for s in engine.store.browse.page(SessionFilter(search="whatsapp"), limit=None)[0]} == {
        engine.canonical("agent:main:whatsapp:group:family")
    }  # the channel matches in any case (it was compared as typed)
