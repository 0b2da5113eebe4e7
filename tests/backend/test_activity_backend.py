"""Live-status facts through the seam (`Reading.activity`, `mark_seen`): the local backend off its loop
and as the requester may see; a remote server over its operator API; several servers, keys marked;
a gateway from its rows (tests/backend/gateway/test_live_backend.py has the socket's)."""

from __future__ import annotations

import asyncio

from conftest import FAST_DEMO, NOW_MS, add_session
from server_support import TOKEN, local_backend, served
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.gateway.reading.activity import rows_activity
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.several import SeveralBackends
from sessions_tui.backend.values.views import BrowseQuery
from sessions_tui.backend.values.vocabulary import Activity
from sessions_tui.engine.store.tables.runs import RunRecord

AUTH = {"authorization": f"Bearer {TOKEN}"}
MAIN = "agent:main:main"
OTHER = "agent:main:discord:group:dev"
OPS = "agent:ops:main"  # another agent's: not the operator's to see under visibility `agent`


def _ended(backend, key: str, run_id: str, status: str = "ok") -> None:
    now = backend.engine.now()
    # ended by now (not a moment later: a seen mark made within the same millisecond must count it seen)
    then = now - 1
    record = RunRecord(run_id=run_id, session_key=key, status=status, created_at=then, started_at=then, ended_at=now)  # type: ignore[arg-type]
    backend.engine.store.runs.insert_run(record, {})


def _state(tmp_path, name="s"):
    backend = local_backend(tmp_path / name, {**FAST_DEMO, "tools": {"sessions": {"visibility": "agent"}}})
    for key in (MAIN, OTHER, OPS, "agent:main:quiet"):
        add_session(backend.engine, key)
    _ended(backend, MAIN, "r1")
    _ended(backend, OTHER, "r2", "error")
    _ended(backend, OPS, "r3", "error")
    return backend


async def test_the_local_backend_says_what_the_requester_may_see_and_seen_clears_done(tmp_path):
    backend = _state(tmp_path)
    try:
        everyone = await backend.activity(Requester())
        assert set(everyone) == {MAIN, OTHER} and everyone[OTHER].failed  # not OPS: not the operator's to see
        assert set(await backend.activity(Requester(), [OPS, MAIN])) == {MAIN}
        await backend.mark_seen("main")
        facts = (await backend.activity(Requester(), [MAIN, "agent:main:quiet"]))[MAIN]
        assert facts.seen_at is not None and facts.ended_at is not None and facts.seen_at >= facts.ended_at
        assert MAIN not in await backend.activity(Requester())
    finally:
        backend.close()


async def test_a_browse_query_keeps_or_leaves_out_keys(tmp_path):
    backend = _state(tmp_path)
    try:
        only = await backend.browse(Requester(), BrowseQuery(keys=[OTHER]), offset=0, limit=10)
        assert [r["_key"] for r in only.rows] == [OTHER] and only.total == 1
        rest = await backend.browse(Requester(), BrowseQuery(except_keys=[OTHER, MAIN]), offset=0, limit=10)
        assert [r["_key"] for r in rest.rows] == ["agent:main:quiet"]
        assert await backend.browse_count(Requester(), BrowseQuery(keys=[])) == 0
    finally:
        backend.close()


async def test_a_remote_server_answers_activity_and_seen_over_its_operator_api(tmp_path):
    with served(_state(tmp_path)) as url:
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        try:
            seed = await remote.activity(Requester())
            assert set(seed) == {MAIN, OTHER} and isinstance(seed[MAIN], Activity)
            await remote.mark_seen(MAIN)
            assert set(await remote.activity(Requester())) == {OTHER}
            asked = await remote.activity(Requester(), [MAIN])
            assert set(asked) == {MAIN} and asked[MAIN].seen_at is not None
            page = await remote.browse(Requester(), BrowseQuery(keys=[OTHER]), offset=0, limit=10)
            assert [r["_key"] for r in page.rows] == [OTHER]
            both = SeveralBackends([remote, RemoteBackend(url, TOKEN)])
            assert set(await both.activity(Requester())) == {f"{label}/{OTHER}" for label in both.backends}
            marked = next(iter(both.backends))
            only = await both.browse(Requester(), BrowseQuery(keys=[f"{marked}/{OTHER}"]), offset=0, limit=10)
            assert [r["_key"] for r in only.rows] == [f"{marked}/{OTHER}"]
        finally:
            await remote.aclose()


def test_a_gateway_row_says_running_failed_unread_and_a_parent_waits():
    rows = [
        {"_key": "p", "hasActiveRun": True, "updatedAt": NOW_MS},
        {"_key": "c", "hasActiveRun": True, "spawnedBy": "p", "updatedAt": NOW_MS},
        {"_key": "u", "hasActiveRun": False, "unread": True, "endedAt": NOW_MS, "status": "done"},
        {"_key": "r", "hasActiveRun": False, "unread": False, "endedAt": NOW_MS, "status": "done"},
        {"_key": "f", "hasActiveRun": False, "lastRunError": "boom", "endedAt": NOW_MS},
        {"_key": "h", "status": "done", "updatedAt": NOW_MS},  # the HTTP tool API's: no `unread`
    ]
    seed = rows_activity(rows, None, {})
    assert set(seed) == {"p", "c", "u", "f", "h"}
    assert seed["p"].waiting and not seed["c"].waiting and seed["f"].failed
    assert seed["u"].seen_at is None and "r" not in seed
    assert "h" not in rows_activity(rows, None, {"h": NOW_MS})  # seen here, after it ended
    assert set(rows_activity(rows, ["r", "zz"], {})) == {"r"}


async def test_a_status_board_over_serve_follows_a_send_to_done_and_seen(tmp_path):
    from sessions_tui.backend.toolkit.status_board import StatusBoard

    config = {**FAST_DEMO, "gateway": {"tools": {"allow": ["sessions_send"]}}}
    backend = local_backend(tmp_path / "s", config)
    add_session(backend.engine, OTHER)
    with served(backend, allow=("sessions_send",)) as url:
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        board = StatusBoard(remote, Requester, stuck_after_ms=120_000, debounce_s=0.01)
        said: list[str] = []
        board.subscribe(lambda change: said.append(change.status) if change.session_key == OTHER else None)
        try:
            await board.start()
            for _ in range(50):  # the event stream is open once the server sends anything
                args = {"sessionKey": OTHER, "message": "ping", "timeoutSeconds": 20}
                assert (await remote.call_tool("sessions_send", args, Requester()))["status"] == "ok"
                for _ in range(20):
                    if board.status(OTHER) == "done":
                        break
                    await asyncio.sleep(0.02)
                if board.status(OTHER) == "done":
                    break
            assert board.status(OTHER) == "done" and board.counts() == {"done": 1}
            await board.seen(OTHER)
            assert board.status(OTHER) == "idle" and said[-2:] == ["done", "idle"]
            assert OTHER not in await remote.activity(Requester())  # the mark is the server's
        finally:
            board.close()
            await remote.aclose()


def test_the_operator_api_checks_an_activity_body_and_answers_marks(tmp_path):
    import httpx

    with served(_state(tmp_path)) as url, httpx.Client(base_url=url, timeout=30, headers=AUTH) as client:
        bad = client.post("/sessions-tui/v1/activity", json={"requester": {}, "keys": "agent:main:main"})
        seen = client.post("/sessions-tui/v1/mark_seen", json={"key": MAIN})
        facts = client.post("/sessions-tui/v1/activity", json={"requester": {}, "keys": [MAIN]})
    assert bad.status_code == 400 and bad.json()["error"]["message"].startswith("activity: keys:")
    assert seen.status_code == 200 and seen.json() == {}
    assert facts.json()["facts"][MAIN]["seen_at"] >= facts.json()["facts"][MAIN]["ended_at"]
