"""Runs: the queue per session, waiting, timeouts, records, transcript and usage (issue: runs)."""

import asyncio
import json
import os

from conftest import add_session
from sessions_tui.engine.events import RunEnded, RunStarted, RunStreamed
from sessions_tui.engine.llm.demo import DemoModel
from sessions_tui.engine.run_end import INTERRUPTED
from sessions_tui.engine.runs.runs import RunRequest

KEY = "agent:main:main"


def events_of(engine, *types):
    seen = []
    engine.events.subscribe(lambda e: seen.append(e) if isinstance(e, types) else None)
    return seen


async def test_start_returns_at_once_and_the_record_is_persisted(live_engine):
    engine = live_engine({"models": {"demo": {"latencyMs": 200}}})
    add_session(engine, "main")
    run_id = engine.runs.start(RunRequest(session_key=KEY, message="hello"))
    record = engine.runs.get(run_id)
    assert record.status in ("queued", "running") and record.ended_at is None
    wait = await engine.runs.wait(run_id, 5000)
    assert wait.status == "ok"
    record = engine.runs.get(run_id)
    assert record.status == "ok" and record.started_at is not None and record.ended_at is not None


async def test_one_run_at_a_time_per_session_but_sessions_run_in_parallel(live_engine):
    engine = live_engine({"models": {"demo": {"latencyMs": 50}}})
    add_session(engine, "main")
    add_session(engine, "agent:main:discord:group:1")
    seen = events_of(engine, RunStarted, RunEnded)
    a = engine.runs.start(RunRequest(session_key=KEY, message="one"))
    b = engine.runs.start(RunRequest(session_key=KEY, message="two"))
    c = engine.runs.start(RunRequest(session_key="agent:main:discord:group:1", message="three"))
    await engine.drain()
    order = [(type(e).__name__, e.run_id) for e in seen]
    assert order.index(("RunEnded", a)) < order.index(("RunStarted", b))
    assert order.index(("RunStarted", c)) < order.index(("RunEnded", a))
    users = [m["content"] for m in engine.store.transcripts.history(KEY).messages if m["role"] == "user"]
    assert users == ["one", "two"]


async def test_a_wait_that_times_out_never_stops_the_run(live_engine):
    engine = live_engine({"models": {"demo": {"latencyMs": 300}}})
    add_session(engine, "main")
    run_id = engine.runs.start(RunRequest(session_key=KEY, message="slow"))
    assert (await engine.runs.wait(run_id, 20)).status == "timeout"
    assert (await engine.runs.wait(run_id, 5000)).status == "ok"
    assert engine.store.transcripts.history(KEY).messages[-1]["role"] == "assistant"


async def test_run_timeout_aborts_the_run(live_engine):
    engine = live_engine({"models": {"demo": {"latencyMs": 3000}}})
    add_session(engine, "main")
    run_id = engine.runs.start(RunRequest(session_key=KEY, message="too slow", timeout_seconds=1))
    wait = await engine.runs.wait(run_id, 5000)
    assert wait.status == "timeout" and wait.error == "run timed out after 1s"
    assert engine.store.sessions.get(KEY).entry["status"] == "timeout"
    assert engine.store.sessions.get(KEY).entry["abortedLastRun"] is True


async def test_transcript_holds_thinking_tool_call_result_and_reply_in_order(live_engine):
    engine = live_engine()
    add_session(engine, "main")
    add_session(engine, "agent:main:discord:group:1")
    run_id = engine.runs.start(RunRequest(session_key=KEY, message="Which other sessions are active?"))
    assert (await engine.runs.wait(run_id, 5000)).status == "ok"
    messages = engine.store.transcripts.history(KEY).messages
    assert [m["role"] for m in messages] == ["user", "assistant", "toolResult", "assistant"]
    call = messages[1]["content"]
    assert [b["type"] for b in call] == ["thinking", "toolCall"]
    assert call[1]["name"] == "sessions_list" and messages[1]["stopReason"] == "toolUse"
    result = messages[2]
    assert result["toolCallId"] == call[1]["id"] and result["isError"] is False
    assert json.loads(result["content"][0]["text"])["count"] == 2
    assert "I can see 2 sessions" in messages[3]["content"][0]["text"]


async def test_streamed_deltas_add_up_to_the_reply(live_engine):
    engine = live_engine({"models": {"demo": {"chunkMs": 1}}})
    add_session(engine, "main")
    seen = events_of(engine, RunStreamed)
    run_id = engine.runs.start(RunRequest(session_key=KEY, message="count the words in: a b c"))
    await engine.runs.wait(run_id, 5000)
    text = "".join(e.delta for e in seen if e.kind == "text")
    assert text == "That text has 3 words."
    assert engine.store.transcripts.history(KEY).messages[-1]["content"][-1]["text"] == text
    assert len([e for e in seen if e.kind == "text"]) > 1


async def test_usage_is_recorded_on_the_session_and_updated_at_moves(live_engine, clock):
    engine = live_engine()
    add_session(engine, "main")
    before = engine.store.sessions.get(KEY).updated_at
    clock.advance(60_000)
    await engine.runs.wait(engine.runs.start(RunRequest(session_key=KEY, message="hello")), 5000)
    entry = engine.store.sessions.get(KEY).entry
    assert entry["inputTokens"] > 0 and entry["outputTokens"] > 0
    assert entry["totalTokens"] == entry["inputTokens"] + entry["outputTokens"]
    assert entry["model"] == "demo" and entry["modelProvider"] == "demo"
    assert engine.store.sessions.get(KEY).updated_at == before + 60_000
    assert entry["status"] == "done"


async def test_a_run_adds_to_a_total_that_has_no_parts_and_never_lowers_it(live_engine):
    """A seeded or imported entry may hold only `totalTokens` (or a total above in+out): a run adds
    its usage to it instead of recomputing the total from the parts (5.1k became 822 before)."""
    engine = live_engine()
    add_session(engine, "main", totalTokens=5100)
    add_session(engine, "agent:main:discord:group:1", inputTokens=10, outputTokens=5, totalTokens=900)
    for key in (KEY, "agent:main:discord:group:1"):
        await engine.runs.wait(engine.runs.start(RunRequest(session_key=key, message="hello")), 5000)
    main = engine.store.sessions.get(KEY).entry
    assert main["totalTokens"] > 5100
    assert main["totalTokens"] == 5100 + main["inputTokens"] + main["outputTokens"]
    group = engine.store.sessions.get("agent:main:discord:group:1").entry
    assert group["totalTokens"] - 900 == group["inputTokens"] + group["outputTokens"] - 15 > 0


async def test_a_run_of_another_process_can_be_waited_on(live_engine):
    engine = live_engine()
    add_session(engine, "main")
    with engine.store.write() as conn:
        conn.execute(
            "INSERT INTO runs (run_id, session_key, status, pid, created_at) VALUES ('other', ?, 'running', 1, 0)",
            (KEY,),
        )

    async def finish_later():
        await asyncio.sleep(0.2)
        with engine.store.write() as conn:
            conn.execute("UPDATE runs SET status = 'ok', ended_at = 5 WHERE run_id = 'other'")

    asyncio.get_running_loop().create_task(finish_later())
    assert (await engine.runs.wait("other", 50)).status == "timeout"
    assert (await engine.runs.wait("other", 3000)).status == "ok"


def test_runs_left_by_a_dead_process_are_recovered_as_errors(live_engine):
    engine = live_engine()
    proc_pid = os.fork()
    if proc_pid == 0:
        os._exit(0)
    os.waitpid(proc_pid, 0)
    with engine.store.write() as conn:
        conn.execute(
            "INSERT INTO runs (run_id, session_key, status, pid, created_at) VALUES ('dead', ?, 'running', ?, 0)",
            (KEY, proc_pid),
        )
        conn.execute(
            "INSERT INTO runs (run_id, session_key, status, pid, created_at) VALUES ('alive', ?, 'running', ?, 0)",
            (KEY, os.getpid()),
        )
    recovered = engine.runs.recover_interrupted()
    assert [r.run_id for r in recovered] == ["dead"]
    assert engine.runs.get("dead").status == "error" and engine.runs.get("dead").error == INTERRUPTED
    assert engine.runs.get("alive").status == "running"


async def test_unknown_provider_is_a_run_error(live_engine):
    engine = live_engine({"agents": {"defaults": {"model": "nowhere/x"}}})
    add_session(engine, "main")
    wait = await engine.runs.wait(engine.runs.start(RunRequest(session_key=KEY, message="hi")), 5000)
    assert wait.status == "error" and 'unknown provider "nowhere"' in wait.error


def test_demo_model_rules_are_deterministic():
    from sessions_tui.engine.llm.base import ModelRequest

    demo = DemoModel(latency_ms=0, chunk_ms=0)

    def reply(system, text="x"):
        return demo.respond(ModelRequest(model="demo", system=system, messages=[{"role": "user", "content": text}]))[1]

    assert reply("Agent-to-agent reply step:\nTurn 3 of 5.") == "REPLY_SKIP"
    assert reply("Agent-to-agent reply step:\nTurn 1 of 5.") != "REPLY_SKIP"
    assert reply("Agent-to-agent reply step:\nTurn 1 of 5.", "please stop now") == "REPLY_SKIP"
    assert reply("Agent-to-agent announce step:\nOriginal request: keep it quiet\nLatest reply: y") == "ANNOUNCE_SKIP"
    assert reply("Agent-to-agent announce step:\nOriginal request: hi\nLatest reply: all good").endswith("all good")
    assert reply("", "count the words in: one two three") == "That text has 3 words."
    assert reply("", "hello") == reply("", "hello")


def test_two_processes_never_run_turns_in_one_session_at_once(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from sessions_tui.engine.store.store import Store

    Store(tmp_path).sessions.create(KEY)
    worker = Path(__file__).with_name("run_worker.py")
    procs = [
        subprocess.Popen(
            [sys.executable, str(worker), str(tmp_path), KEY, f"from {i}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(2)
    ]
    for proc in procs:
        assert proc.stdout.readline().strip() == "ready"
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    spans = []
    for proc in procs:
        out, _ = proc.communicate(timeout=60)
        started, ended = map(int, out.split())
        spans.append((started, ended))
    (a_start, a_end), (b_start, b_end) = sorted(spans)
    assert a_end <= b_start  # one after the other, never overlapping
    assert b_end - a_start >= 800  # each took its 400 ms turn


async def test_a_started_engine_serves_run_controls_from_its_first_run(live_engine):
    """Start-up leaves the cross-process control watcher off until this process holds a run: only
    such a process is asked to kill or steer (subagents/run_controls.py)."""
    from sessions_tui.backend.local.opening import start

    engine = live_engine({"models": {"demo": {"latencyMs": 0}}})
    add_session(engine, "main")
    await start(engine)
    assert not engine.built("run_controls")
    await engine.runs.wait(engine.runs.start(RunRequest(session_key=KEY, message="hello")), 5000)
    assert engine.run_controls.serving()
