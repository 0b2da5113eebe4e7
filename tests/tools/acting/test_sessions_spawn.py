"""`sessions_spawn`: validation, the child, the registry, announce, cleanup and archive (docs/decisions.md D4,
D5, D7)."""

import os
import re

import pytest

from conftest import NOW_MS, add_session, call_tool
from sessions_tui.backend.local import opening as runtime
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.messaging.audit import audit_entries
from sessions_tui.engine.subagents.announce_text import format_duration, format_tokens, normalise_announce
from sessions_tui.engine.subagents.records import SubagentRun
from sessions_tui.tools.calling.base import ToolInputError

REQ = "agent:main:discord:group:req"
CHILD_RE = r"^agent:main:subagent:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"


async def spawn(engine, params, as_key=REQ, **kw):
    return await call_tool(engine, "sessions_spawn", params, as_key=as_key, **kw)


def announcements(engine, key=REQ):
    return [m for m in engine.store.transcripts.history(key).messages if m.get("announce")]


@pytest.mark.parametrize(
    "key", ["target", "transport", "channel", "to", "threadId", "thread_id", "replyTo", "reply_to"]
)
async def test_delivery_keys_are_refused(live_engine, key):
    with pytest.raises(
        ToolInputError,
        match=f'^sessions_spawn does not support "{key}". Use "message" or "sessions_send" for channel delivery.$',
    ):
        await spawn(live_engine(), {"task": "x", key: "y"})


async def test_task_is_required(live_engine):
    with pytest.raises(ToolInputError, match="^task required$"):
        await spawn(live_engine(), {"label": "x"})


async def test_stream_to_and_resume_session_id_need_acp(live_engine):
    engine = live_engine()
    assert await spawn(engine, {"task": "x", "streamTo": "parent"}) == {
        "status": "error",
        "error": "streamTo is only supported for runtime=acp; got runtime=subagent",
    }
    assert await spawn(engine, {"task": "x", "resumeSessionId": "abc"}) == {
        "status": "error",
        "error": "resumeSessionId is only supported for runtime=acp; got runtime=subagent",
    }


@pytest.mark.parametrize("agent_id", ["Agent not found: xyz", "../../../etc/passwd", "a" * 65])
async def test_malformed_agent_ids_are_rejected_before_any_work(live_engine, agent_id):
    engine = live_engine()
    result = await spawn(engine, {"task": "x", "agentId": agent_id})
    assert result["status"] == "error" and "Invalid agentId" in result["error"] and "agents_list" in result["error"]
    assert engine.store.sessions.count() == 0


async def test_well_formed_agent_id_with_hyphens_and_underscores(live_engine):
    engine = live_engine({"agents": {"defaults": {"subagents": {"allowAgents": ["*"]}}}})
    result = await spawn(engine, {"task": "x", "agentId": "my-research_agent01"})
    assert result["status"] == "accepted" and result["childSessionKey"].startswith(
        "agent:my-research_agent01:subagent:"
    )
    await engine.drain()


async def test_session_mode_needs_a_thread(live_engine):
    result = await spawn(live_engine(), {"task": "x", "mode": "session"})
    assert result["error"] == 'mode="session" requires thread=true so the subagent can stay bound to a thread.'


async def test_accepted_at_once_with_the_child_key_and_run(live_engine):
    engine = live_engine({"models": {"demo": {"latencyMs": 200}}})
    add_session(engine, REQ)
    result = await spawn(engine, {"task": "count the words in: a b c", "label": "words"})
    assert result["status"] == "accepted" and re.match(CHILD_RE, result["childSessionKey"])
    assert result["mode"] == "run" and result["note"].startswith("Auto-announce is push-based.")
    assert engine.runs.get(result["runId"]).status in ("queued", "running")
    child = engine.store.sessions.get(result["childSessionKey"]).entry
    assert child["spawnedBy"] == REQ and child["label"] == "words" and child["spawnDepth"] == 1
    assert child["subagentRole"] == "leaf"
    await engine.drain()


async def test_no_note_for_cron_requesters(live_engine):
    engine = live_engine()
    result = await spawn(engine, {"task": "x"}, as_key="agent:main:cron:nightly")
    assert result["status"] == "accepted" and "note" not in result
    await engine.drain()


async def test_a_subagent_can_never_spawn_by_default(live_engine):
    engine = live_engine()
    result = await spawn(engine, {"task": "x"}, as_key="agent:main:subagent:parent")
    assert result == {
        "status": "forbidden",
        "error": "sessions_spawn is not allowed at this depth (current depth: 1, max: 1)",
    }


async def test_depth_1_may_spawn_when_max_depth_is_2(live_engine):
    engine = live_engine({"agents": {"defaults": {"subagents": {"maxSpawnDepth": 2}}}})
    parent = add_session(engine, "agent:main:subagent:parent", spawnedBy="agent:main:main", spawnDepth=1)
    result = await spawn(engine, {"task": "x"}, as_key=parent)
    assert result["status"] == "accepted"
    child = engine.store.sessions.get(result["childSessionKey"]).entry
    assert (child["spawnDepth"], child["subagentRole"], child["subagentControlScope"]) == (2, "leaf", "none")
    await engine.drain()


async def test_stored_depth_and_ancestry_count(live_engine):
    engine = live_engine({"agents": {"defaults": {"subagents": {"maxSpawnDepth": 2}}}})
    flat = add_session(engine, "agent:main:flat", spawnDepth=2)
    assert (await spawn(engine, {"task": "x"}, as_key=flat))["error"].endswith("(current depth: 2, max: 2)")
    add_session(engine, "agent:main:subagent:a", spawnedBy="agent:main:main")
    b = add_session(engine, "agent:main:subagent:b", spawnedBy="agent:main:subagent:a")
    assert (await spawn(engine, {"task": "x"}, as_key=b))["error"].endswith("(current depth: 2, max: 2)")


async def test_max_active_children(live_engine):
    engine = live_engine(
        {"models": {"demo": {"latencyMs": 300}}, "agents": {"defaults": {"subagents": {"maxChildrenPerAgent": 1}}}}
    )
    assert (await spawn(engine, {"task": "one"}))["status"] == "accepted"
    assert await spawn(engine, {"task": "two"}) == {
        "status": "forbidden",
        "error": "sessions_spawn has reached max active children for this session (1/1)",
    }
    await engine.drain()
    assert (await spawn(engine, {"task": "three"}))["status"] == "accepted"
    await engine.drain()


async def test_require_agent_id(live_engine):
    engine = live_engine({"agents": {"defaults": {"subagents": {"requireAgentId": True}}}})
    result = await spawn(engine, {"task": "x"})
    assert result["status"] == "forbidden"
    assert "sessions_spawn requires explicit agentId when requireAgentId is configured" in result["error"]
    assert (await spawn(engine, {"task": "x", "agentId": "main"}))["status"] == "accepted"
    await engine.drain()


async def test_only_same_agent_spawns_by_default(live_engine):
    engine = live_engine()
    assert await spawn(engine, {"task": "x", "agentId": "beta"}) == {
        "status": "forbidden",
        "error": "agentId is not allowed for sessions_spawn (allowed: none)",
    }
    assert engine.store.sessions.count() == 0


@pytest.mark.parametrize(
    "config",
    [
        {"agents": {"list": [{"id": "main", "subagents": {"allowAgents": ["beta"]}}]}},
        {"agents": {"defaults": {"subagents": {"allowAgents": ["beta"]}}, "list": [{"id": "main"}]}},
        {"agents": {"defaults": {"subagents": {"allowAgents": ["*"]}}}},
        {"agents": {"defaults": {"subagents": {"allowAgents": [" Beta "]}}}},
    ],
)
async def test_cross_agent_spawns_when_allow_listed(live_engine, config):
    engine = live_engine(config)
    result = await spawn(engine, {"task": "x", "agentId": "beta"})
    assert result["status"] == "accepted" and result["childSessionKey"].startswith("agent:beta:subagent:")
    await engine.drain()


async def test_not_allow_listed_names_the_allowed_ids(live_engine):
    engine = live_engine({"agents": {"defaults": {"subagents": {"allowAgents": ["research", "coder"]}}}})
    result = await spawn(engine, {"task": "x", "agentId": "beta"})
    assert result["error"] == "agentId is not allowed for sessions_spawn (allowed: coder, research)"


async def test_sandboxed_requesters_cannot_spawn_unsandboxed_children(live_engine):
    engine = live_engine(
        {
            "agents": {
                "defaults": {"subagents": {"allowAgents": ["*"]}},
                "list": [{"id": "box", "sandbox": {"mode": "all"}}],
            }
        }
    )
    result = await spawn(engine, {"task": "x"}, sandboxed=True)
    assert result["status"] == "forbidden"
    assert result["error"].startswith("Sandboxed sessions cannot spawn unsandboxed subagents.")
    assert (await spawn(engine, {"task": "x", "agentId": "box"}, sandboxed=True))["status"] == "accepted"
    required = await spawn(engine, {"task": "x", "sandbox": "require"})
    assert required["status"] == "forbidden" and 'sandbox="require"' in required["error"]
    await engine.drain()


async def test_invalid_thinking_level(live_engine):
    result = await spawn(live_engine(), {"task": "x", "thinking": "galaxy-brain"})
    assert result == {
        "status": "error",
        "error": 'Invalid thinking level "galaxy-brain". Use one of: off, minimal, low, medium, high, xhigh.',
    }


async def test_thinking_default_from_config_and_explicit_wins(live_engine):
    engine = live_engine({"agents": {"defaults": {"subagents": {"thinking": "low"}}}})
    a = await spawn(engine, {"task": "x"})
    b = await spawn(engine, {"task": "x", "thinking": "high"})
    assert engine.store.sessions.get(a["childSessionKey"]).entry["thinkingLevel"] == "low"
    assert engine.store.sessions.get(b["childSessionKey"]).entry["thinkingLevel"] == "high"
    await engine.drain()


async def test_an_unusable_model_is_an_error(live_engine):
    engine = live_engine()
    result = await spawn(engine, {"task": "x", "model": "nowhere/model-x"})
    assert result["status"] == "error" and "invalid model" in result["error"]
    assert re.match(CHILD_RE, result["childSessionKey"])
    assert engine.store.sessions.get(result["childSessionKey"]) is None


@pytest.mark.parametrize(
    "config, explicit, expected",
    [
        ({}, None, "demo"),
        (
            {"agents": {"defaults": {"model": "p/global", "subagents": {"model": "p/sub-default"}}}},
            None,
            "p/sub-default",
        ),
        (
            {"agents": {"defaults": {"model": "p/global"}, "list": [{"id": "main", "model": "p/agent"}]}},
            None,
            "p/agent",
        ),
        (
            {
                "agents": {
                    "defaults": {"subagents": {"model": "p/sub-default"}},
                    "list": [{"id": "main", "subagents": {"model": "p/agent-sub"}}],
                }
            },
            None,
            "p/agent-sub",
        ),
        ({"agents": {"defaults": {"model": "p/global"}}}, "p/explicit", "p/explicit"),
    ],
)
async def test_model_plan(live_engine, config, explicit, expected):
    engine = live_engine({"models": {"providers": {"p": {"baseUrl": "http://127.0.0.1:9/v1"}}}, **config})
    params = {"task": "x", **({"model": explicit} if explicit else {})}
    result = await spawn(engine, params)
    assert result["status"] == "accepted" and result["modelApplied"] is True
    assert engine.store.sessions.get(result["childSessionKey"]).entry["modelOverride"] == expected
    await engine.runs.cancel_all()


@pytest.mark.parametrize(
    "params, config, expected",
    [
        ({"runTimeoutSeconds": 7}, {}, 7),
        ({"timeoutSeconds": 9}, {}, 9),
        ({}, {"agents": {"defaults": {"subagents": {"runTimeoutSeconds": 11}}}}, 11),
        ({"runTimeoutSeconds": 3}, {"agents": {"defaults": {"subagents": {"runTimeoutSeconds": 11}}}}, 3),
        ({}, {}, 0),
    ],
)
async def test_run_timeout_plan(live_engine, params, config, expected):
    engine = live_engine(config)
    result = await spawn(engine, {"task": "x", **params})
    assert engine.subagents.get(result["runId"]).data["runTimeoutSeconds"] == expected
    await engine.drain()


# -- announce (docs/decisions.md D4) on the demo model ----------------------------------------


async def test_announce_lands_in_the_requester_session_with_status_result_notes_stats(live_engine):
    engine = live_engine()
    add_session(engine, REQ)
    result = await spawn(engine, {"task": "count the words in: one two three four", "label": "words"})
    await engine.drain()
    [message] = announcements(engine)
    text = message["content"][0]["text"]
    child = engine.store.sessions.get(result["childSessionKey"])
    lines = text.split("\n")
    assert lines[0] == "Status: completed successfully"
    assert lines[1] == "Result: That text has 4 words."
    assert lines[2] == "Notes: produced by the demo model."
    assert lines[3] == ""
    assert re.fullmatch(
        r"Stats: runtime (n/a|\d+s) • tokens \d+ \(in \d+ / out \d+\) • sessionKey "
        + re.escape(child.key)
        + r" • sessionId "
        + child.session_id
        + r" • transcript "
        + re.escape(child.mirror_path),
        lines[4],
    )
    assert message["role"] == "assistant"
    assert message["announce"] == {"childSessionKey": child.key, "runId": result["runId"], "status": "ok"}
    # The announce does not start a run of the requester.
    assert [m["role"] for m in engine.store.transcripts.history(REQ).messages] == ["assistant"]
    [delivery] = engine.outbox.list()
    assert (delivery.kind, delivery.channel, delivery.to, delivery.message) == (
        "subagent",
        "discord",
        "group:req",
        text,
    )
    assert child.entry["status"] == "done" and child.entry["runtimeMs"] >= 0


async def test_announce_skip_keeps_quiet(live_engine):
    engine = live_engine()
    add_session(engine, REQ)
    await spawn(engine, {"task": "tidy up silently"})
    await engine.drain()
    assert announcements(engine) == [] and engine.outbox.list() == []


async def test_a_send_denied_requester_gets_its_spawn_but_not_the_announce(live_engine):
    engine = live_engine({"session": {"sendPolicy": {"rules": [{"action": "deny", "match": {"channel": "discord"}}]}}})
    add_session(engine, REQ)
    result = await spawn(engine, {"task": "count the words in: a"})
    assert result["status"] == "accepted"
    await engine.drain()
    assert announcements(engine) == [] and engine.outbox.list() == []
    [entry] = audit_entries(engine)
    assert (entry.session_key, entry.via) == (REQ, "subagent_announce")


async def test_subagent_requesters_get_the_announce_but_no_channel(live_engine):
    engine = live_engine({"agents": {"defaults": {"subagents": {"maxSpawnDepth": 2}}}})
    parent = add_session(engine, "agent:main:subagent:parent", spawnedBy=REQ, spawnDepth=1)
    await spawn(engine, {"task": "count the words in: a"}, as_key=parent)
    await engine.drain()
    assert len(announcements(engine, parent)) == 1 and engine.outbox.list() == []


async def test_cleanup_delete_archives_right_after_the_announce(live_engine):
    engine = live_engine()
    add_session(engine, REQ)
    result = await spawn(engine, {"task": "count the words in: a", "cleanup": "delete"})
    await engine.drain()
    child = result["childSessionKey"]
    assert engine.store.sessions.get(child).archived_at is not None
    listed = await call_tool(engine, "sessions_list", {})
    assert child not in [r["key"] for r in listed["sessions"]]
    archived = await call_tool(engine, "sessions_list", {"includeArchived": True})
    assert {r["key"]: r.get("archived") for r in archived["sessions"]}[child] is True
    history = await call_tool(engine, "sessions_history", {"sessionKey": child})
    assert len(history["messages"]) >= 2  # nothing is lost
    assert os.path.exists(engine.store.sessions.get(child).mirror_path)


async def test_keep_archives_after_archive_after_minutes(live_engine, clock):
    engine = live_engine({"agents": {"defaults": {"subagents": {"archiveAfterMinutes": 60}}}})
    result = await spawn(engine, {"task": "count the words in: a"})
    await engine.drain()
    child = result["childSessionKey"]
    assert engine.subagents.sweep() == 0 and engine.store.sessions.get(child).archived_at is None
    clock.advance(60 * 60_000)
    assert engine.subagents.sweep() == 1 and engine.store.sessions.get(child).archived_at is not None


async def test_two_processes_sweeping_at_once_archive_a_child_once(live_engine, clock, monkeypatch):
    """Both read the child live; the first archives it, the second changes nothing and says nothing."""
    from sessions_tui.engine.events import SessionChanged

    engine = live_engine({"agents": {"defaults": {"subagents": {"archiveAfterMinutes": 60}}}})
    result = await spawn(engine, {"task": "count the words in: a"})
    await engine.drain()
    child = result["childSessionKey"]
    other = Engine(engine.state_dir, engine.config, clock=clock)  # another process on the same store
    seen_live = other.store.sessions.get(child)
    clock.advance(60 * 60_000)
    assert engine.subagents.sweep() == 1
    first = engine.store.sessions.get(child).archived_at
    clock.advance(1_000)
    monkeypatch.setattr(other.store.sessions, "get", lambda key: seen_live)  # its read came before
    said: list[object] = []
    other.events.subscribe(lambda event: said.append(event) if isinstance(event, SessionChanged) else None)
    assert other.subagents.sweep() == 0
    assert said == [] and engine.store.sessions.get(child).archived_at == first
    other.close()


async def test_archive_after_zero_never_archives(live_engine, clock):
    engine = live_engine({"agents": {"defaults": {"subagents": {"archiveAfterMinutes": 0}}}})
    result = await spawn(engine, {"task": "x"})
    await engine.drain()
    clock.advance(10**9)
    assert engine.subagents.sweep() == 0 and engine.store.sessions.get(result["childSessionKey"]).archived_at is None


async def test_the_registry_survives_a_restart_and_crashed_runs_are_announced_unknown(live_engine, tmp_path, clock):
    engine = live_engine()
    add_session(engine, REQ)
    child = add_session(engine, "agent:main:subagent:lost", spawnedBy=REQ, startedAt=NOW_MS)
    engine.subagents.register(
        SubagentRun(run_id="lost-run", child_key=child, requester_key=REQ, task="t", created_at=NOW_MS)
    )
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    with engine.store.write() as conn:
        conn.execute(
            "INSERT INTO runs (run_id, session_key, status, pid, created_at) VALUES ('lost-run', ?, 'running', ?, 0)",
            (child, dead),
        )
    state = engine.state_dir
    engine.close()
    # A new process opens the same state directory.
    reopened = Engine(state, engine.config, clock=clock)
    try:
        await runtime.start(reopened)
        await reopened.drain()
        [message] = announcements(reopened)
        assert message["content"][0]["text"].startswith("Status: finished with unknown status\n")
        assert message["announce"]["status"] == "unknown"
        assert reopened.subagents.get("lost-run").announce_state == "done"
        assert reopened.runs.get("lost-run").status == "error"
    finally:
        await reopened.aclose()


async def test_a_finished_but_unannounced_run_is_announced_after_a_restart(live_engine, clock):
    engine = live_engine()
    add_session(engine, REQ)
    child = add_session(engine, "agent:main:subagent:done", spawnedBy=REQ)
    engine.subagents.register(
        SubagentRun(run_id="done-run", child_key=child, requester_key=REQ, task="t", created_at=NOW_MS)
    )
    with engine.store.write() as conn:
        conn.execute(
            "INSERT INTO runs (run_id, session_key, status, pid, created_at, ended_at) "
            "VALUES ('done-run', ?, 'ok', 1, 0, 1)",
            (child,),
        )
    await runtime.start(engine)
    await engine.drain()
    [message] = announcements(engine)
    assert message["content"][0]["text"].startswith("Status: completed successfully\n")


def test_formatting_helpers():
    assert [format_duration(v) for v in (None, 0, 400, 4200, 125_000, 3_725_000)] == [
        "n/a",
        "n/a",
        "0s",
        "4s",
        "2m5s",
        "1h2m",
    ]
    assert [format_tokens(v) for v in (0, 12, 999, 1000, 197_000, 2_500_000)] == [
        "0",
        "12",
        "999",
        "1.0k",
        "197.0k",
        "2.5m",
    ]
    assert normalise_announce("Result: found it\nNotes: none") == ("found it", "none")
    assert normalise_announce("Status: great\nResult: x\nNotes:") == ("x", "")
    assert normalise_announce("just text") == ("just text", "")
    assert normalise_announce("Result: multi\nline\nNotes: n1\nn2") == ("multi\nline", "n1\nn2")
