"""`sessions_search`: the gateway's answers on its own store, the requester's visibility, redaction
(a secret is never found by its value), and the index kept in step with appends, imports and rewrites."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import add_session, run_tool
from sessions_tui.engine.openclaw.importer import import_openclaw
from sessions_tui.engine.store.index_catch_up import catch_up_now
from sessions_tui.tools.calling.base import ToolCall, ToolInputError
from sessions_tui.tools.reading.sessions_search import INDEXING_WARNING, MAX_RESULT_BYTES, _capped, search_messages

FIXTURE = Path(__file__).parents[2] / "fixtures" / "openclaw-2026.9.6"
ANSWERS: dict[str, Any] = json.loads((FIXTURE / "search" / "answers.json").read_text())
SECRET = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"
# The gateway finds these by a secret's value (its index holds text as written); ours holds it redacted.
FOUND_BY_SECRET = {"secret_value", "hook_shortval"}
# Redacted before the snippet is cut, ours shows other words around the match than the gateway's.
CUT_AFTER_REDACTION = {"secret_context", "hook_secret"}


@pytest.fixture
def gateway_store(make_engine):
    engine = make_engine()
    import_openclaw(engine.store, engine.canonical, FIXTURE / "legacy-state")
    return engine


def _answer(engine, case: dict[str, Any]) -> tuple[bool, Any]:
    try:
        return True, run_tool(engine, "sessions_search", case["args"], as_key=case.get("requester"))
    except ToolInputError as exc:
        return False, str(exc)


@pytest.mark.parametrize("name", sorted(set(ANSWERS) - FOUND_BY_SECRET))
def test_answers_as_the_gateway_does(gateway_store, name):
    case = ANSWERS[name]
    ok, got = _answer(gateway_store, case)
    body = case["body"]
    assert ok is body["ok"], got
    if not ok:
        assert got == body["error"]["message"]
        return
    expected = body["result"]["details"]
    if "results" not in expected:
        assert got == expected
        return
    assert set(got) == set(expected)
    assert len(got["results"]) == len(expected["results"])
    for mine, theirs in zip(got["results"], expected["results"], strict=True):
        # Keys are spelled as every tool here spells them (docs/decisions.md D9): one session either way.
        assert gateway_store.canonical(mine["sessionKey"]) == gateway_store.canonical(theirs["sessionKey"])
        if name not in CUT_AFTER_REDACTION:
            assert mine["snippet"] == theirs["snippet"]
            # bm25 counts a row's tokens over all its columns: the `sid` column's one token moves
            # the scores by under 0.1 % (store/tables/text_index.py), never the order of these answers.
            assert mine["score"] == pytest.approx(theirs["score"], rel=2e-3)
        assert {k: v for k, v in mine.items() if k not in ("sessionKey", "snippet", "score")} == {
            k: v for k, v in theirs.items() if k not in ("sessionKey", "snippet", "score")
        }


def test_a_secret_is_never_found_by_its_value_nor_shown(gateway_store):
    for query in (SECRET, "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH", "shortval", "hunter2"):
        assert run_tool(gateway_store, "sessions_search", {"query": query})["results"] == []
    found = run_tool(gateway_store, "sessions_search", {"query": "credentials"})
    assert found["results"] and SECRET not in json.dumps(found)
    assert "sk-pro…EFGH" in found["results"][0]["snippet"]


def test_the_same_visibility_as_history(make_engine):
    engine = make_engine({"tools": {"sessions": {"visibility": "tree"}}})
    add_session(engine, "main", [{"role": "user", "content": "deploy failed in main"}])
    said = [{"role": "assistant", "content": "deploy failed in child"}]
    child = add_session(engine, "agent:main:subagent:c1", said, spawnedBy="agent:main:main")
    add_session(engine, "agent:main:discord:group:ops", [{"role": "user", "content": "deploy failed in ops"}])
    add_session(engine, "agent:other:main", [{"role": "user", "content": "deploy failed elsewhere"}])
    keys = lambda result: {engine.canonical(hit["sessionKey"]) for hit in result["results"]}  # noqa: E731
    assert keys(run_tool(engine, "sessions_search", {"query": "deploy"})) == {"agent:main:main", child}
    assert keys(run_tool(engine, "sessions_search", {"query": "deploy"}, as_key=child)) == {child}
    denied = run_tool(engine, "sessions_search", {"query": "deploy", "sessionKey": "agent:main:discord:group:ops"})
    assert denied == {
        "status": "forbidden",
        "error": "Session search visibility is restricted to the current session tree "
        "(tools.sessions.visibility=tree).",
    }


def test_other_agents_only_with_agent_to_agent(make_engine):
    def found(config: dict[str, Any]) -> set[str]:
        engine = make_engine(config)
        add_session(engine, "main", [{"role": "user", "content": "rollout"}])
        add_session(engine, "agent:ops:main", [{"role": "user", "content": "rollout"}])
        hits = run_tool(engine, "sessions_search", {"query": "rollout"})["results"]
        return {engine.canonical(h["sessionKey"]) for h in hits}

    assert found({"tools": {"sessions": {"visibility": "all"}}}) == {"agent:main:main"}
    both = {"tools": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": True}}}
    assert found(both) == {"agent:main:main", "agent:ops:main"}
    listed = {"tools": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": True, "allow": ["main"]}}}
    assert found(listed) == {"agent:main:main"}


def test_a_sandboxed_requester_finds_only_its_own_tree(make_engine):
    engine = make_engine({"agents": {"defaults": {"sandbox": {"sessionToolsVisibility": "spawned"}}}})
    me = add_session(engine, "agent:main:discord:group:me", [{"role": "user", "content": "alpha"}])
    mine = add_session(engine, "agent:main:subagent:x", [{"role": "user", "content": "alpha"}], spawnedBy=me)
    add_session(engine, "main", [{"role": "user", "content": "alpha"}])
    hits = run_tool(engine, "sessions_search", {"query": "alpha"}, as_key=me, sandboxed=True)["results"]
    assert {engine.canonical(h["sessionKey"]) for h in hits} == {me, mine}


def test_appends_imports_and_rewrites_are_searchable_at_once(make_engine):
    engine = make_engine()
    key = add_session(engine, "main", [{"role": "user", "content": "first words"}])
    engine.store.transcripts.append(key, {"role": "assistant", "content": [{"type": "text", "text": "zebra crossing"}]})
    assert len(run_tool(engine, "sessions_search", {"query": "zebra"})["results"]) == 1
    session = engine.store.sessions.get(key)
    assert session is not None
    line = {"type": "message", "id": "r1", "parentId": None, "timestamp": "2026-04-13T12:00:00.000Z"}
    rewritten = {**line, "message": {"role": "user", "content": "giraffe only"}}
    engine.store.imports.replace_import(
        key, entry={}, lines=[rewritten], raw=[json.dumps(rewritten)], source="s", source_lines=1
    )
    assert run_tool(engine, "sessions_search", {"query": "zebra"})["results"] == []
    assert len(run_tool(engine, "sessions_search", {"query": "giraffe"})["results"]) == 1


def test_a_store_behind_says_indexing_until_caught_up(make_engine, tmp_path):
    state = tmp_path / "behind"
    engine = make_engine(state=state)
    add_session(engine, "main", [{"role": "user", "content": "needle in a haystack"}])
    with engine.store.write() as conn:  # as a store from before the index is
        conn.execute("DELETE FROM transcript_text")
        conn.execute("UPDATE transcript_text_state SET indexed_through = 0, redaction = ''")
    call = ToolCall(engine=engine)
    partial = asyncio.run(search_messages(call, "needle", limit=5))
    assert not isinstance(partial, Exception)
    assert catch_up_now(engine).indexing is False
    result = run_tool(engine, "sessions_search", {"query": "needle"})
    assert len(result["results"]) == 1 and "indexing" not in result


def test_a_search_still_indexing_answers_with_the_gateways_warning(make_engine, monkeypatch):
    import sessions_tui.tools.reading.sessions_search as tool

    engine = make_engine()
    add_session(engine, "main", [{"role": "user", "content": "needle"}])
    with engine.store.write() as conn:
        conn.execute("DELETE FROM transcript_text")
        conn.execute("UPDATE transcript_text_state SET indexed_through = 0")
    monkeypatch.setattr(tool, "CATCH_UP_BUDGET_S", 0.0)
    result = run_tool(engine, "sessions_search", {"query": "needle"})
    assert result == {"results": [], "indexing": True, "warning": INDEXING_WARNING}


def test_a_change_of_redaction_rebuilds_the_index(make_engine, tmp_path):
    state = tmp_path / "s"
    first = make_engine(state=state)
    add_session(first, "main", [{"role": "user", "content": "ticket ACME-12345 is done"}])
    assert len(run_tool(first, "sessions_search", {"query": "ACME"})["results"]) == 1
    stricter = make_engine({"logging": {"redactPatterns": ["ACME-\\d+"]}}, state=state)
    result = run_tool(stricter, "sessions_search", {"query": "ACME"})
    assert result["results"] == [] and "indexing" not in result
    assert len(run_tool(stricter, "sessions_search", {"query": "ticket"})["results"]) == 1


@pytest.mark.parametrize("limit", [0, 26, 2.5, -1, "x", True, "inf", "nan", float("inf"), float("nan"), "1e999"])
def test_a_bad_limit_refuses_the_call(engine, limit):
    with pytest.raises(ToolInputError, match="limit must be a positive integer"):
        run_tool(engine, "sessions_search", {"query": "x", "limit": limit})


def test_the_result_keeps_to_its_byte_budget():
    items = [{"snippet": "x" * 1000} for _ in range(40)]
    kept, cut = _capped(items)
    assert cut and 0 < len(kept) < 40
    assert len(json.dumps(kept, separators=(",", ":"))) <= MAX_RESULT_BYTES


def test_a_word_in_very_many_messages_is_ranked_among_its_newest(make_engine, monkeypatch):
    import sessions_tui.engine.store.tables.text_index as text_index

    engine = make_engine()
    key = add_session(engine, "main")
    for n in range(12):  # the oldest say it most often: bm25 over all ranks them first
        engine.store.transcripts.append(key, {"role": "user", "content": "alpha " * (12 - n) + f"n{n}"})
    everything = run_tool(engine, "sessions_search", {"query": "alpha", "limit": 3})
    assert everything["truncated"] is True and everything["results"][0]["snippet"].endswith("n0")
    monkeypatch.setattr(text_index, "RANK_WINDOW", 4)
    newest = run_tool(engine, "sessions_search", {"query": "alpha", "limit": 25})
    assert newest["truncated"] is True
    assert sorted(hit["snippet"].split()[-1] for hit in newest["results"]) == ["n10", "n11", "n8", "n9"]
    few = run_tool(engine, "sessions_search", {"query": "n3"})
    assert len(few["results"]) == 1 and "truncated" not in few


def test_the_table_filter_finds_sessions_by_what_they_say(make_engine):
    from sessions_tui.engine.search.matching import row_matches
    from sessions_tui.tools.reading.browse import BrowseQuery, browse_sessions

    engine = make_engine({"tools": {"agentToAgent": {"enabled": True}}})
    dev = add_session(engine, "agent:main:discord:group:dev", [{"role": "user", "content": "the deploy failed again"}])
    ops = add_session(engine, "agent:ops:main", [{"role": "assistant", "content": "Deployment started"}])
    add_session(engine, "agent:main:cron:nightly", [{"role": "user", "content": "nothing to report"}], label="deploy")
    call = ToolCall(engine=engine)

    def keys(search: str) -> set[str]:
        return {row["_key"] for row in browse_sessions(call, BrowseQuery(search=search)).rows}

    # By what they say (the label "deploy" is not a message), the last word as a prefix, as typed:
    assert keys("~deploy") == {dev, ops}
    assert keys("~deploy fail") == {dev}
    assert keys("~deploy failed again") == {dev} and keys("~zebra") == set()
    assert keys("~deploym") == {ops}
    assert keys("~") == keys("")  # no words yet: no filter
    assert keys("deploy") == {"agent:main:cron:nightly"}  # without ~: key, label, channel as before
    assert row_matches({"_key": dev}, "~") and not row_matches({"_key": dev}, "~deploy")
