"""The socket backend against the gateway stand-in (tests/gateway_replay.py), which answers with the
real gateway's recorded frames: the roster from `sessions.subscribe`, kept by `sessions.changed`;
run frames as the engine's run events; history from `chat.history`; a reconnect; no request while
idle. Waiting is for the events themselves."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from gateway_replay import CHANGED, ReplayGateway, event, received, replaying
from sessions_tui.backend.contract.types import Capability, Requester
from sessions_tui.backend.gateway.link.connection import LinkState
from sessions_tui.backend.gateway.live import GatewaySocketBackend
from sessions_tui.backend.values.views import BrowseQuery
from sessions_tui.backend.values.vocabulary import (
    EngineEvent,
    LinkChanged,
    MessageAppended,
    RunEnded,
    RunStarted,
    RunStreamed,
    SessionChanged,
    StoreChanged,
)
from sessions_tui.tools.calling.base import ToolInputError

MAIN = "agent:main:main"
GROUP = "agent:main:discord:group:123"
SUBAGENT = "agent:main:subagent:9a1f0c2e-0000-4000-8000-00000000abcd"
SECRET = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"


class Seen:
    """The backend's events (published on its I/O thread), awaited on the test's loop."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[EngineEvent] = asyncio.Queue()

    def __call__(self, event: EngineEvent) -> None:
        self.loop.call_soon_threadsafe(self.queue.put_nowait, event)

    async def until(self, wanted: Callable[[EngineEvent], bool], seconds: float = 10) -> list[EngineEvent]:
        """Every event up to and with the first that `wanted` accepts."""
        got: list[EngineEvent] = []
        async with asyncio.timeout(seconds):
            while True:
                got.append(await self.queue.get())
                if wanted(got[-1]):
                    return got


@pytest.fixture
async def gateway() -> AsyncIterator[ReplayGateway]:
    async with replaying(ReplayGateway()) as stand_in:
        yield stand_in


@pytest.fixture
async def backend(gateway: ReplayGateway, tmp_path: Path) -> AsyncIterator[GatewaySocketBackend]:
    found = GatewaySocketBackend(gateway.url, "shared", identity_dir=tmp_path / "id")
    await found.connect()
    yield found
    await found.aclose()


def changed_row(key: str, **fields: Any) -> dict[str, Any]:
    """The recorded keyed `sessions.changed` (a send into main), for `key`, its row's `fields` set."""
    frame = copy.deepcopy(next(f for f in CHANGED if (f["payload"].get("session") or {}).get("key") == MAIN))
    frame["payload"]["sessionKey"] = key
    frame["payload"]["session"].update(key=key, **fields)
    return frame


async def test_the_roster_comes_from_subscribe_paged_through_the_list(backend, gateway):
    assert backend.state == LinkState.CONNECTED and backend.location == gateway.url
    assert Capability.ABORT in backend.capabilities and Capability.LEDGER not in backend.capabilities
    page = await backend.browse(Requester(), BrowseQuery(), offset=0, limit=100)
    assert page.total == 10 == len(gateway.rows)
    assert [r["_key"] for r in page.rows] == [r["key"] for r in gateway.rows]  # newest first
    crons = await backend.browse(Requester(), BrowseQuery(kinds=["cron"]), offset=0, limit=100)
    assert {r["key"] for r in crons.rows} == {"cron:job1", "cron:job2"}  # shown as OpenClaw's users read them
    assert [m for m, _ in gateway.calls] == ["sessions.subscribe", "sessions.list", "sessions.list", "sessions.list"]
    assert [p["offset"] for p in gateway.methods("sessions.list")] == [3, 6, 9]
    assert [c.child_key for c in await backend.children(MAIN)] == [SUBAGENT]
    assert await backend.owner_key("main") == MAIN and not await backend.state_is_empty()
    listed = await backend.call_tool("sessions_list", {"limit": 2}, Requester())
    assert listed["count"] == 2 and listed["hasMore"] and not any(k.startswith("_") for k in listed["sessions"][0])


async def wait_for_row(backend: GatewaySocketBackend, key: str, check: Callable[[dict[str, Any]], bool]) -> None:
    """Until the row of `key` passes `check` (the event is merged on the backend's I/O thread)."""
    seen = Seen()
    backend.subscribe(seen)
    row = (await backend.browse_rows(Requester(), [key])).get(key)
    if row is None or not check(row):
        await seen.until(lambda e: isinstance(e, SessionChanged) and e.session_key == key)
        row = (await backend.browse_rows(Requester(), [key]))[key]
    assert check(row), row


async def test_socket_rows_speak_sessions_lists_words(backend, gateway):
    """The socket's `kind` is direct/group and its `classification` main/subagent/hook…: the table
    and `sessions_list` show our kinds and channel, and only the fields our rows have."""
    page = await backend.browse(Requester(), BrowseQuery(), offset=0, limit=100)
    kinds = {r["_key"]: r["kind"] for r in page.rows}
    assert kinds[MAIN] == "main" and kinds[GROUP] == "group" and kinds[SUBAGENT] == "other"
    assert kinds["agent:main:hook:plain"] == "hook"
    assert next(r for r in page.rows if r["_key"] == GROUP)["channel"] == "discord"
    row = dict(next(r for r in gateway.rows if r["key"] == GROUP), inputTokens=1700, outputTokens=6)
    row.pop("totalTokens", None)
    await gateway.push(event("sessions.changed", {"sessionKey": row["key"], "session": row}))
    await wait_for_row(backend, row["key"], lambda r: r.get("totalTokens") == 1706)  # the table's TOKENS
    listed = await backend.call_tool("sessions_list", {"limit": 200}, Requester())
    group = next(r for r in listed["sessions"] if r["key"] == backend.display(GROUP))
    assert group["kind"] == "group" and group["channel"] == "discord" and group["sessionId"]
    assert not {"classification", "agentRuntime", "thinkingLevels"} & set(group)
    hooks = await backend.call_tool("sessions_list", {"kinds": ["hook"]}, Requester())
    assert [r["kind"] for r in hooks["sessions"]] == ["hook"] * hooks["count"] and hooks["count"] >= 1


async def test_sessions_changed_updates_a_row_and_a_rowless_one_is_read_once(backend, gateway):
    seen = Seen()
    backend.subscribe(seen)
    await gateway.push(changed_row(MAIN, status="running", hasActiveRun=True))
    await seen.until(lambda e: isinstance(e, SessionChanged) and e.session_key == MAIN)
    row = (await backend.browse_rows(Requester(), [MAIN]))[MAIN]
    assert row["status"] == "running" and row["hasActiveRun"] is True

    new = "agent:main:cron:new"
    await gateway.push(changed_row(new, kind="cron"))
    got = await seen.until(lambda e: isinstance(e, StoreChanged))  # the set of sessions changed
    assert any(isinstance(e, SessionChanged) and e.session_key == new for e in got)
    assert await backend.owner_key(new) == new

    rowless = next(f for f in CHANGED if "session" not in f["payload"])  # cron-bindings-loaded
    before = len(gateway.methods("sessions.list"))
    await gateway.push(rowless, rowless, rowless)
    got = await seen.until(lambda e: isinstance(e, StoreChanged))  # re-read: the new one is gone
    assert any(isinstance(e, SessionChanged) and e.session_key == new for e in got)
    assert await backend.owner_key(new) is None
    reads = gateway.methods("sessions.list")[before:]
    assert [p.get("offset") for p in reads] == [None, 3, 6, 9]  # one read, paged, for three events


async def test_chat_deltas_stream_redacted_a_word_at_a_time(backend, gateway):
    backend._runs.redaction.every_s = 0  # every delta redacted as it comes (the throttle is the engine's)
    seen = Seen()
    backend.subscribe(seen)
    run = {"runId": "r1", "sessionKey": MAIN}
    deltas = ["Hello ", "there, my ", f"key is {SECRET} ", "and done"]
    await gateway.push(
        event("chat", {**run, "seq": 1, "state": "status", "phase": "preparing_context"}),
        *(event("chat", {**run, "seq": 2 + i, "state": "delta", "deltaText": d}) for i, d in enumerate(deltas)),
        event("chat", {**run, "seq": 9, "state": "final"}),
    )
    got = await seen.until(lambda e: isinstance(e, RunEnded))
    assert isinstance(got[0], RunStarted) and got[0].run_id == "r1" and got[0].session_key == MAIN
    streamed = [e.delta for e in got if isinstance(e, RunStreamed)]
    text = "".join(streamed)
    assert streamed[:2] == ["Hello ", "there, my "] and text.startswith("Hello there, my key is ")
    assert SECRET not in text and SECRET[:12] not in text and "and done" not in text  # the last word held back
    assert got[-1].status == "ok"
    last = await seen.until(lambda e: isinstance(e, MessageAppended))
    assert last[-1].session_key == MAIN

    # A run joined halfway (a delta before its start) streams nothing.
    await gateway.push(
        event("chat", {"runId": "r2", "sessionKey": MAIN, "seq": 5, "state": "delta", "deltaText": "late "}),
        event("chat", {"runId": "r2", "sessionKey": MAIN, "seq": 6, "state": "status"}),
        event("chat", {"runId": "r2", "sessionKey": MAIN, "seq": 7, "state": "delta", "deltaText": "words "}),
        event("chat", {"runId": "r2", "sessionKey": MAIN, "seq": 8, "state": "aborted"}),
    )
    got = await seen.until(lambda e: isinstance(e, RunEnded))
    assert not any(isinstance(e, RunStreamed) for e in got) and got[-1].status == "aborted"


async def test_the_recorded_runs_start_and_fail_and_a_seq_gap_rereads(backend, gateway):
    seen = Seen()
    backend.subscribe(seen)
    # Our chat.send into the group and a send into main by OpenClaw's CLI, as recorded (main's run
    # ends while the history was read).
    frames = [f for step in ("chat_send", "chat_history") for f in received(step) if f["type"] == "event"]
    await gateway.push(*frames)
    ends: set[str] = set()

    def both_ended(e: EngineEvent) -> bool:
        if isinstance(e, RunEnded):
            ends.add(e.session_key)
        return ends == {MAIN, GROUP}

    got = await seen.until(both_ended)
    ended = {e.session_key: e for e in got if isinstance(e, RunEnded)}
    assert {e.session_key for e in got if isinstance(e, RunStarted)} == {MAIN, GROUP}
    assert ended[MAIN].status == "error" and "authentication" in (ended[MAIN].error or "")
    [ours] = [e for e in got if isinstance(e, MessageAppended) and e.session_key == GROUP and e.role == "user"]
    assert (ours.text, ours.seq, ours.ts) == ("hello from sessions-tui", 5, 1795727626222)  # the message's own
    assert (await backend.browse_rows(Requester(), [GROUP]))[GROUP]["status"] == "failed"

    run = {"runId": "r3", "sessionKey": SUBAGENT, "stream": "run_status", "data": {"phase": "x"}}
    await gateway.push(event("agent", {**run, "seq": 1}), event("agent", {**run, "seq": 2}))
    await gateway.push(event("agent", {**run, "seq": 5}))  # frames 3 and 4 were missed
    got = await seen.until(lambda e: isinstance(e, MessageAppended) and e.session_key == SUBAGENT)
    assert [e.type for e in got if getattr(e, "session_key", None) == SUBAGENT] == ["run_started", "message_appended"]


async def test_a_message_event_carries_its_text_redacted(backend, gateway):
    seen = Seen()
    backend.subscribe(seen)
    secret = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 2
    message = {"role": "user", "content": [{"type": "text", "text": f"key {secret}"}], "timestamp": 1}
    await gateway.push(event("session.message", {"sessionKey": GROUP, "messageSeq": 9, "message": message}))
    got = await seen.until(lambda e: isinstance(e, MessageAppended) and e.seq == 9)
    [appended] = [e for e in got if isinstance(e, MessageAppended) and e.seq == 9]
    assert appended.text is not None and appended.text.startswith("key ") and secret not in appended.text


async def test_history_comes_from_chat_history_and_follows_the_transcript(backend, gateway):
    history = await backend.call_tool("sessions_history", {"sessionKey": GROUP}, Requester())
    assert history["sessionKey"] == backend.display(GROUP)
    assert [m["role"] for m in history["messages"]] == ["user", "assistant", "user", "custom"]
    assert history["hasMore"] is True and history["nextOffset"] == 4 and history["totalMessages"] == 6
    assert gateway.methods("chat.history") == [{"sessionKey": GROUP, "limit": 200}]
    assert gateway.methods("sessions.messages.subscribe") == [{"key": GROUP}]

    for key in [r["key"] for r in gateway.rows if r["key"] != GROUP][:4]:  # the last four read stay followed
        await backend.call_tool("sessions_history", {"sessionKey": key}, Requester())
    assert gateway.methods("sessions.messages.unsubscribe") == [{"key": GROUP}]

    missing = await backend.call_tool("sessions_history", {"sessionKey": "agent:main:nope"}, Requester())
    assert missing["status"] == "error"
    found = await backend.search(Requester(), "weather", session="discord:group:123")
    assert [h.key for h in found.hits] == [GROUP] and gateway.methods("sessions.search")[-1]["sessionKeys"] == [GROUP]
    agents = await backend.call_tool("agents_list", {}, Requester())
    assert agents["requester"] == "main" and agents["agents"] == [{"id": "main", "configured": True}]


async def test_a_reply_by_hand_goes_by_chat_send_and_waits_on_the_run(backend, gateway):
    sent = await backend.call_tool("sessions_send", {"sessionKey": "discord:group:123", "message": "hi"}, Requester())
    assert sent["status"] == "ok" and sent["reply"] == "pong from the scripted model"
    assert sent["sessionKey"] == backend.display(GROUP)
    [send] = gateway.methods("chat.send")
    assert send["sessionKey"] == GROUP and send["message"] == "hi"
    assert gateway.methods("agent.wait") == [{"runId": send["idempotencyKey"], "timeoutMs": 30_000}]
    missing = await backend.call_tool("sessions_send", {"sessionKey": "agent:main:nope", "message": "x"}, Requester())
    assert missing == {"status": "error", "error": "No session found: agent:main:nope"}


async def test_a_sub_agent_is_killed_and_steered_over_the_socket(backend, gateway):
    """The spawn panel's `x` and `e` (the `subagents` tool) on one of main's sub-agents, named by its
    key or its label: kill is `sessions.abort` of its run, steer a `chat.send` in steer mode."""
    killed = await backend.call_tool("subagents", {"action": "kill", "target": SUBAGENT}, Requester())
    assert gateway.methods("sessions.abort") == [{"key": SUBAGENT, "clearQueued": True}]
    assert killed["status"] == "done" and "not running" in killed["text"]  # the recorded answer: no-active-run
    steered = await backend.call_tool(
        "subagents", {"action": "steer", "target": "count-words", "message": "shorter, please"}, Requester()
    )
    assert steered["status"] == "accepted" and steered["text"] == "steered count-words."
    [send] = gateway.methods("chat.send")
    assert (send["sessionKey"], send["message"], send["queueMode"]) == (SUBAGENT, "shorter, please", "steer")
    unknown = await backend.call_tool("subagents", {"action": "kill", "target": "nobody"}, Requester())
    assert unknown["status"] == "error" and unknown["error"] == "Unknown subagent: nobody"


async def test_stopping_a_run_is_sessions_abort(backend, gateway):
    outcome = await backend.abort_run("discord:group:123", clear_queued=True)
    assert gateway.methods("sessions.abort") == [{"key": GROUP, "clearQueued": True}]
    assert (outcome.aborted, outcome.status, outcome.session_key) == (False, "no-active-run", backend.display(GROUP))
    with pytest.raises(ToolInputError, match="No session found: agent:main:nope"):
        await backend.abort_run("agent:main:nope")
    assert gateway.methods("sessions.describe") == [{"key": "agent:main:nope"}]  # asked: too new for the roster?
    gateway.queue("sessions.describe", True, {"session": {"key": "agent:main:discord:group:new", "sessionId": "s"}})
    await backend.abort_run("agent:main:discord:group:new")  # created a moment ago: not in the roster yet
    assert gateway.methods("sessions.abort")[-1] == {"key": "agent:main:discord:group:new", "clearQueued": False}


async def test_a_dropped_socket_reconnects_resubscribes_and_events_resume(backend, gateway):
    await backend.call_tool("sessions_history", {"sessionKey": GROUP}, Requester())
    seen = Seen()
    backend.subscribe(seen)
    await gateway.sockets[0].close()
    got = await seen.until(lambda e: isinstance(e, StoreChanged))  # the faces read again
    states = [e.state for e in got if isinstance(e, LinkChanged)]
    assert states[0] == "reconnecting" and backend.state == LinkState.CONNECTED
    assert len(gateway.methods("sessions.subscribe")) == 2
    assert gateway.methods("sessions.messages.subscribe") == [{"key": GROUP}, {"key": GROUP}]
    await gateway.push(changed_row(MAIN, label="after"))
    await seen.until(lambda e: isinstance(e, SessionChanged) and e.session_key == MAIN)


async def test_no_request_while_nothing_changes(backend, gateway):
    seen = Seen()
    backend.subscribe(seen)
    asked = len(gateway.calls)
    quiet = [event(name, {"ts": 1}) for name in ("tick", "presence", "health", "heartbeat", "chat.metadata.changed")]
    await gateway.push(*quiet, changed_row(MAIN, label="sync"))
    await seen.until(lambda e: isinstance(e, SessionChanged))
    assert len(gateway.calls) == asked  # the keep-alive is the gateway's; a keyed change carries its row


async def test_status_facts_come_from_the_rows_and_seen_is_sessions_patch_unread(backend, gateway):
    seen = Seen()
    backend.subscribe(seen)
    await gateway.push(changed_row(MAIN, status="done", hasActiveRun=False, unread=True, endedAt=1795302766875))
    await seen.until(lambda e: isinstance(e, SessionChanged) and e.session_key == MAIN)
    facts = (await backend.activity(Requester()))[MAIN]
    assert facts.ended_at == 1795302766875 and facts.seen_at is None and not facts.running
    gateway.queued["sessions.patch"] = [(True, {"ok": True, "key": MAIN})]
    await backend.mark_seen(MAIN)
    assert gateway.methods("sessions.patch") == [{"key": MAIN, "unread": False}]
    await backend.mark_seen(GROUP)  # the stand-in refuses the next: the mark stays here
    assert set(await backend.activity(Requester(), [GROUP])) == {GROUP}
