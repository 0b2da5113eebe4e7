"""Importing a real OpenClaw 2026.9.6 state directory, in both layouts, and agreeing with its gateway.

The fixture is what the real gateway wrote (`tests/fixtures/openclaw-2026.9.6`); `answers/` is
what that gateway's `/tools/invoke` answered on the SQLite layout. Each test works on a copy.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import zstandard

from conftest import run_tool
from openclaw_fake import FIXTURE, FakeGateway, copy_fixture, navigation_json
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.openclaw.agent_db import AgentDb
from sessions_tui.engine.openclaw.follow import Follower
from sessions_tui.engine.openclaw.importer import import_openclaw
from sessions_tui.engine.openclaw.layout import NoOpenClawState
from sessions_tui.engine.openclaw.mirror import ImportReport

ANSWERS = FIXTURE / "answers"
STORE = Path("agents/main/agent/openclaw-agent.sqlite")
GROUP = "agent:main:discord:group:123"


def answer(name: str) -> dict[str, Any]:
    return dict(json.loads((ANSWERS / f"{name}.json").read_text(encoding="utf-8"))["result"]["details"])


def do_import(engine: Engine, root: Path) -> ImportReport:
    return import_openclaw(engine.store, engine.canonical, root)


@pytest.fixture
def sqlite_root(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path / "openclaw", "sqlite-state")


@pytest.fixture
def legacy_root(tmp_path: Path) -> Path:
    return copy_fixture(tmp_path / "openclaw-legacy", "legacy-state")


def texts(message: dict[str, Any]) -> list[tuple[str, str]]:
    """(block type, its text) of a message, as a reader sees it."""
    content = message.get("content")
    if isinstance(content, str):
        return [("text", content)]
    out = []
    for block in content or []:
        kind = block.get("type")
        if kind == "toolCall":
            out.append((kind, json.dumps(block.get("arguments"), sort_keys=True)))
        else:
            out.append((kind, block.get("text") or block.get("thinking") or ""))
    return out


# --------------------------------------------------------------------------------------------
# Both layouts come in, whole and verbatim
# --------------------------------------------------------------------------------------------


def test_sqlite_store_imports_every_session_with_keys_ids_and_lines_verbatim(make_engine, sqlite_root):
    engine = make_engine()
    report = do_import(engine, sqlite_root)
    assert report.summary() == "imported 10 sessions, updated 0, unchanged 0; 64 transcript lines; 0 problems"
    assert report.sources == [str(sqlite_root / STORE)]
    db = sqlite3.connect(f"file:{sqlite_root / STORE}?mode=ro", uri=True)
    nodes = db.execute("SELECT session_key, current_session_id FROM session_nodes").fetchall()
    assert len(nodes) == 10
    reader = AgentDb(sqlite_root / STORE)
    try:
        for key, session_id in nodes:
            stored = engine.store.sessions.get(key)
            assert stored is not None, key  # OpenClaw's canonical keys, as it spells them
            assert stored.session_id == session_id
            events = [e.text for e in reader.events(session_id, 1)]  # seq 0 is the header
            assert engine.store.transcripts.transcript_lines(key) == events
    finally:
        reader.close()


def test_zstd_compressed_lines_come_in_decompressed_and_verbatim(make_engine, sqlite_root):
    db = sqlite3.connect(f"file:{sqlite_root / STORE}?mode=ro", uri=True)
    compressed = db.execute(
        "SELECT session_id, seq FROM transcript_events WHERE event_zstd IS NOT NULL AND seq > 0"
    ).fetchall()
    assert len(compressed) >= 30  # the fixture really holds compressed lines
    engine = make_engine()
    do_import(engine, sqlite_root)
    big = engine.store.sessions.get("agent:main:discord:channel:big")
    lines = engine.store.transcripts.transcript_lines(big.key)
    assert all(json.loads(line)["type"] == "message" for line in lines)
    assert len(lines) == 28


def test_both_layouts_give_the_same_sessions_and_histories(make_engine, sqlite_root, legacy_root):
    from_sqlite, from_legacy = make_engine(), make_engine()
    do_import(from_sqlite, sqlite_root)
    do_import(from_legacy, legacy_root)
    listed = {r["key"]: r for r in run_tool(from_sqlite, "sessions_list", {"limit": 50})["sessions"]}
    legacy_listed = {r["key"]: r for r in run_tool(from_legacy, "sessions_list", {"limit": 50})["sessions"]}
    assert listed.keys() == legacy_listed.keys()
    for key, row in listed.items():
        other = legacy_listed[key]
        assert (row["sessionId"], row["kind"]) == (other["sessionId"], other["kind"])
        if key == "main":
            # The one difference is in the data: `openclaw doctor --session-sqlite import` drops
            # main's `lastChannel: "webchat"` (the control UI is no delivery route), so the
            # legacy entry says webchat (docs/decisions.md D10) and the SQLite entry nothing.
            assert (row["channel"], other["channel"]) == ("unknown", "webchat")
        else:
            assert row["channel"] == other["channel"], key
        history = run_tool(from_sqlite, "sessions_history", {"sessionKey": key, "includeTools": True})["messages"]
        legacy_history = run_tool(from_legacy, "sessions_history", {"sessionKey": key, "includeTools": True})[
            "messages"
        ]
        if row["sessionId"].startswith("2222"):
            # The gateway ran once more on the SQLite layout: an operator message and its failure.
            assert [m["role"] for m in history[-2:]] == ["user", "custom"]
            history = history[:-2]
        assert [(m["role"], texts(m)) for m in history] == [(m["role"], texts(m)) for m in legacy_history], key


def test_sessions_list_agrees_with_the_gateway(make_engine, sqlite_root):
    engine = make_engine()
    do_import(engine, sqlite_root)
    ours = run_tool(engine, "sessions_list", {"limit": 50})
    theirs = answer("list_all")
    assert ours["count"] == theirs["count"] == 10
    mine = {engine.canonical(r["key"]): r for r in ours["sessions"]}
    gateway = {r["key"]: r for r in theirs["sessions"]}
    assert mine.keys() == gateway.keys()
    for key, row in gateway.items():
        got = mine[key]
        assert (got["sessionId"], got["kind"], got["channel"]) == (row["sessionId"], row["kind"], row["channel"]), key
        assert got.get("label") == row.get("label"), key
        assert got.get("status") == row.get("status"), key
    # Same order (updatedAt, newest first) and D9 spellings for what the requester sees.
    assert [engine.canonical(r["key"]) for r in ours["sessions"]] == [r["key"] for r in theirs["sessions"]]
    assert "main" in {r["key"] for r in ours["sessions"]} and "cron:job1" in {r["key"] for r in ours["sessions"]}


def _raw_tokens(message: dict[str, Any]) -> set[str]:
    return {t for _, text in texts(message) for t in text.split()}


@pytest.mark.parametrize(
    ("name", "key", "tools"),
    [
        ("history_main", "main", False),
        ("history_group_tools", GROUP, True),
        ("history_cron", "cron:job1", False),
        ("history_subagent", "agent:main:subagent:9a1f0c2e-0000-4000-8000-00000000abcd", True),
    ],
)
def test_sessions_history_agrees_with_the_gateway(make_engine, sqlite_root, name, key, tools):
    engine = make_engine()
    do_import(engine, sqlite_root)
    ours = run_tool(engine, "sessions_history", {"sessionKey": key, "includeTools": tools})
    theirs = answer(name)
    assert engine.canonical(ours["sessionKey"]) == theirs["sessionKey"]
    assert [m["role"] for m in ours["messages"]] == [m["role"] for m in theirs["messages"]]
    raw = {
        m["__openclaw"]["id"]: m
        for m in run_tool(engine, "sessions_history", {"sessionKey": key, "includeTools": tools})["messages"]
    }
    assert ours["contentRedacted"] == theirs["contentRedacted"]
    for mine, gateway in zip(ours["messages"], theirs["messages"], strict=True):
        assert mine["__openclaw"]["id"] == gateway["__openclaw"]["id"]
        if mine["role"] == "custom":
            assert (mine["customType"], mine["content"], mine["__openclaw"].get("runId")) == (
                gateway["customType"],
                gateway["content"],
                gateway["__openclaw"]["runId"],
            )
        if texts(mine) == texts(gateway):
            continue
        # Redaction at least as strong: every word the gateway masked is masked here too.
        shown = " ".join(text for _, text in texts(mine))
        masked_by_gateway = _raw_tokens(_raw_message(engine, key, mine)) - _raw_tokens(gateway)
        assert masked_by_gateway, (texts(mine), texts(gateway))
        leaked = [t for t in masked_by_gateway if t in shown.split()]
        assert not leaked
    assert raw


def _raw_message(engine: Engine, key: str, shown: dict[str, Any]) -> dict[str, Any]:
    for line in engine.store.transcripts.transcript_lines(engine.canonical(key)):
        obj = json.loads(line)
        if obj.get("id") == shown["__openclaw"]["id"]:
            return dict(obj.get("message") or obj)
    raise AssertionError(f"no line {shown['__openclaw']['id']}")


def test_custom_message_shows_as_the_gateway_shows_it(make_engine, sqlite_root):
    engine = make_engine()
    do_import(engine, sqlite_root)
    last = run_tool(engine, "sessions_history", {"sessionKey": GROUP})["messages"][-1]
    gateway = answer("history_group_tools")["messages"][-1]
    for field in ("role", "customType", "content", "display", "timestamp"):
        assert last[field] == gateway[field], field
    assert "details" not in last


# --------------------------------------------------------------------------------------------
# Read-only, on any SQLite
# --------------------------------------------------------------------------------------------


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_store_is_never_written(make_engine, sqlite_root):
    store = sqlite_root / STORE
    before = _digest(store), store.stat().st_mtime_ns
    engine = make_engine()
    do_import(engine, sqlite_root)
    do_import(engine, sqlite_root)
    assert (_digest(store), store.stat().st_mtime_ns) == before
    assert not Path(str(store) + "-wal").exists() or Path(str(store) + "-wal").stat().st_size == 0


def test_the_store_is_read_while_a_gateway_writes_it(make_engine, tmp_path):
    gateway = FakeGateway(tmp_path / "live")
    try:
        gateway.append(GROUP, {"role": "user", "content": "written while open"})  # WAL not checkpointed
        engine = make_engine()
        report = do_import(engine, tmp_path / "live")
        assert report.problems == []
        assert (
            json.loads(engine.store.transcripts.transcript_lines(GROUP)[-1])["message"]["content"]
            == "written while open"
        )
    finally:
        gateway.close()


def test_reading_works_where_sqlite_lacks_the_schema_functions(make_engine, sqlite_root):
    """The schema's CHECKs call `octet_length` (SQLite 3.43+). Reading never evaluates them."""
    schema = (
        sqlite3.connect(f"file:{sqlite_root / STORE}?mode=ro", uri=True)
        .execute("SELECT sql FROM sqlite_master WHERE name = 'transcript_events'")
        .fetchone()[0]
    )
    assert "octet_length(" in schema
    if sqlite3.sqlite_version_info < (3, 43, 0):  # this machine: a write could not even be prepared
        with pytest.raises(sqlite3.OperationalError, match="octet_length"):
            conn = sqlite3.connect(sqlite_root / STORE)
            conn.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at, navigation_json) "
                "VALUES ('x', 1, '{}', 0, '{}')"
            )
    assert do_import(make_engine(), sqlite_root).sessions_imported == 10


# --------------------------------------------------------------------------------------------
# Layouts side by side, upgrades, resets, refusals
# --------------------------------------------------------------------------------------------


def test_an_agent_with_both_layouts_takes_sqlite_and_only_the_extra_legacy_sessions(
    make_engine, sqlite_root, legacy_root
):
    sessions = legacy_root / "agents" / "main" / "sessions"
    target = sqlite_root / "agents" / "main" / "sessions"
    target.mkdir()
    for path in sessions.iterdir():
        (target / path.name).write_bytes(path.read_bytes())
    store = json.loads((target / "sessions.json").read_text(encoding="utf-8"))
    store["agent:main:hook:only-legacy"] = dict(store["agent:main:hook:plain"], sessionId="0badc0de-only-legacy")
    (target / "sessions.json").write_text(json.dumps(store), encoding="utf-8")
    (target / "0badc0de-only-legacy.jsonl").write_bytes(
        (sessions / "88888888-8888-4888-8888-888888888888.jsonl").read_bytes()
    )
    engine = make_engine()
    report = do_import(engine, sqlite_root)
    assert report.problems == []
    assert report.sessions_imported == 11
    assert (
        len(engine.store.transcripts.transcript_lines(GROUP)) == 6
    )  # the SQLite store's, with the gateway's own lines
    assert engine.store.sessions.get("agent:main:hook:only-legacy") is not None


def test_upgrading_openclaw_to_sqlite_continues_the_legacy_import(make_engine, sqlite_root, legacy_root):
    engine = make_engine()
    do_import(engine, legacy_root)
    before = engine.store.transcripts.transcript_lines(GROUP)
    report = do_import(engine, sqlite_root)
    assert report.problems == []
    assert report.sessions_imported == 0
    assert engine.store.sessions.count() == 10
    after = engine.store.transcripts.transcript_lines(GROUP)
    assert after[: len(before)] == before and len(after) == len(before) + 2
    assert do_import(engine, sqlite_root).sessions_unchanged == 10


def test_a_session_reset_in_openclaw_keeps_what_was_imported_and_says_so(make_engine, tmp_path):
    gateway = FakeGateway(tmp_path / "live")
    engine = make_engine()
    try:
        do_import(engine, tmp_path / "live")
        before = engine.store.transcripts.transcript_lines("agent:main:telegram:direct:999")
        new_id = gateway.reset("agent:main:telegram:direct:999")
        report = do_import(engine, tmp_path / "live")
    finally:
        gateway.close()
    assert engine.store.transcripts.transcript_lines("agent:main:telegram:direct:999") == before
    assert [p for p in report.problems if "reset in OpenClaw" in p and new_id in p]


def test_a_directory_with_neither_layout_exits_2_naming_what_was_looked_for(tmp_path):
    from sessions_tui.cli import main

    (tmp_path / "nothing" / "agents" / "main").mkdir(parents=True)
    with pytest.raises(NoOpenClawState):
        import_openclaw(Engine(tmp_path / "s").store, lambda k, a: k, tmp_path / "nothing")
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["import-openclaw", str(tmp_path / "nothing"), "--state", str(tmp_path / "state")])
    assert code == 2
    assert "openclaw-agent.sqlite" in err.getvalue() and "sessions.json" in err.getvalue()
    assert "imported 0" not in err.getvalue()


def test_an_unreadable_event_is_reported_and_the_rest_comes_in(make_engine, tmp_path):
    gateway = FakeGateway(tmp_path / "live")
    try:
        sid = gateway.session_id(GROUP)
        gateway.conn.execute(
            "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 7, 'not json', 0)",
            (sid,),
        )
        gateway.append(GROUP, {"role": "user", "content": "after the bad line"})
    finally:
        gateway.close()
    engine = make_engine()
    report = do_import(engine, tmp_path / "live")
    assert any(f"{GROUP}: seq 7: invalid JSON" in p for p in report.problems)
    assert (
        json.loads(engine.store.transcripts.transcript_lines(GROUP)[-1])["message"]["content"] == "after the bad line"
    )


def insert_raw_line(gateway: FakeGateway, key: str, line: bytes, *, compress: bool) -> None:
    """A transcript line of raw bytes, as a writer that bound bytes to a TEXT column leaves it."""
    sid = gateway.session_id(key)
    seq = gateway.last_seq(sid) + 1
    if compress:
        navigation = navigation_json(len(line))
        gateway.conn.execute(
            "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, "
            "navigation_json) VALUES (?, ?, NULL, 0, ?, ?, ?)",
            (sid, seq, zstandard.ZstdCompressor().compress(line), len(line), navigation),
        )
    else:
        gateway.conn.execute(
            "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, CAST(? AS TEXT), 0)",
            (sid, seq, line),
        )


def user_line(n: int, content: bytes) -> bytes:
    return (
        b'{"type":"message","id":"raw%d","parentId":null,"timestamp":"2026-04-13T12:00:00.000Z",'
        b'"message":{"role":"user","content":"' % n + content + b'"}}'
    )


def add_invalid_utf8_lines(gateway: FakeGateway) -> None:
    insert_raw_line(gateway, GROUP, user_line(1, b"bad \xff\xfe bytes"), compress=False)
    insert_raw_line(gateway, GROUP, user_line(2, b"zstd \xc3 cut"), compress=True)
    insert_raw_line(gateway, GROUP, user_line(3, b"fine"), compress=False)


INVALID_UTF8_READ = ["bad \ufffd\ufffd bytes", "zstd \ufffd cut", "fine"]


def group_texts(engine: Engine) -> list[str]:
    return [m["content"] for m in run_tool(engine, "sessions_history", {"sessionKey": GROUP})["messages"]]


def test_an_event_with_invalid_utf8_is_imported_with_u_fffd_like_a_legacy_line(make_engine, tmp_path):
    gateway = FakeGateway(tmp_path / "live")
    try:
        add_invalid_utf8_lines(gateway)
    finally:
        gateway.close()
    engine = make_engine()
    report = do_import(engine, tmp_path / "live")
    assert report.problems == [] and report.sessions_imported == 10  # the rest of the store came in too
    assert group_texts(engine)[-3:] == INVALID_UTF8_READ
    assert [json.loads(t)["message"]["content"] for t in engine.store.transcripts.transcript_lines(GROUP)[-3:]] == (
        INVALID_UTF8_READ
    )


def test_an_event_with_invalid_utf8_is_followed_with_u_fffd(make_engine, tmp_path):
    gateway = FakeGateway(tmp_path / "live")
    engine = make_engine()
    follower = Follower(engine.store, engine.canonical, tmp_path / "live")
    try:
        assert follower.tick().failures == []
        add_invalid_utf8_lines(gateway)
        tick = follower.tick()
        assert tick.failures == [] and tick.report.problems == [] and tick.report.changed == {GROUP: 3}
        assert group_texts(engine)[-3:] == INVALID_UTF8_READ
        gateway.append(
            GROUP,
            {"role": "user", "content": "and on"},
            line={
                "type": "message",
                "id": "next",
                "parentId": "raw3",
                "timestamp": "2026-04-13T12:00:01.000Z",
                "message": {"role": "user", "content": "and on"},
            },
        )
        assert follower.tick().report.changed == {GROUP: 1}  # following goes on past it
    finally:
        follower.close()
        gateway.close()


# --------------------------------------------------------------------------------------------
# New sessions are read a batch at a time
# --------------------------------------------------------------------------------------------


def test_an_event_stream_hands_out_each_session_once_in_id_order(sqlite_root):
    from sessions_tui.engine.openclaw.sqlite_sessions import EventStream

    db = AgentDb(sqlite_root / STORE)
    try:
        ids = sorted(n.current_session_id for n in db.nodes())
        stream = EventStream(db, ids)
        first = stream.take(ids[0])
        assert [e.seq for e in first] == [e.seq for e in db.events(ids[0], 0)]
        third = stream.take(ids[2])  # the second was not read after all: its rows are passed over
        assert [e.text for e in third] == [e.text for e in db.events(ids[2], 0)]
        assert stream.take(ids[1]) is None  # asked out of order: the caller reads it alone
        assert stream.take("zzzzzzzz-not-in-the-store") == []
    finally:
        db.close()


def test_new_and_known_sessions_in_one_import_each_get_exactly_their_lines(make_engine, tmp_path):
    gateway = FakeGateway(tmp_path / "live")
    engine = make_engine()
    try:
        do_import(engine, tmp_path / "live")
        gateway.append(GROUP, {"role": "user", "content": "known session, one more line"})
        added = [gateway.create_session(f"agent:main:hook:new-{n}") for n in range(3)]
        for n, _ in enumerate(added):
            gateway.append(f"agent:main:hook:new-{n}", {"role": "user", "content": f"new {n}"}, compress=n == 1)
        report = do_import(engine, tmp_path / "live")
        reader = AgentDb(gateway.path)
        try:
            for key in [GROUP, *(f"agent:main:hook:new-{n}" for n in range(3))]:
                sid = gateway.session_id(key)
                assert engine.store.transcripts.transcript_lines(key) == [e.text for e in reader.events(sid, 1)], key
        finally:
            reader.close()
    finally:
        gateway.close()
    assert report.problems == []
    assert (report.sessions_imported, report.sessions_updated) == (3, 1)


GHP = "ghp_Zq8Lm3Np7Rt2Vx6Bz1Cd5Fg9Hj4Kk0Ll2Mm3"
GHP_CORE = "Lm3Np7Rt2Vx6Bz1Cd5Fg9"


def _secret_source(tmp_path: Path) -> Path:
    """A legacy source whose report names secrets: an entry with no sessionId under a key holding
    one, and an agent directory named with one that is a link out of the source."""
    root = tmp_path / "secret-source"
    sessions = root / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "sessions.json").write_text(json.dumps({f"agent:main:slack:channel:{GHP}": {"sessionId": 7}}))
    (tmp_path / "elsewhere").mkdir()
    (root / "agents" / GHP).symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    return root


def test_every_line_of_an_import_or_follow_report_is_redacted(tmp_path, capsys):
    import asyncio

    from server_support import local_backend
    from sessions_tui.backend.toolkit.openclaw import FollowTick
    from sessions_tui.cli import main

    root = _secret_source(tmp_path)
    state = tmp_path / "state"
    assert main(["--state", str(state), "import-openclaw", str(root)]) == 0
    assert main(["--state", str(state), "--openclaw", str(root), "tool", "sessions_list"]) == 0
    said = capsys.readouterr()
    backend = local_backend(tmp_path / "followed")
    ticks: list[FollowTick] = []

    async def follow() -> None:
        stop = asyncio.Event()
        await backend.follow_openclaw(root, stop, lambda tick: (ticks.append(tick), stop.set()), own_connection=False)

    try:
        asyncio.run(follow())
    finally:
        backend.close()
    followed = "\n".join(ticks[0].report.problems + ticks[0].report.sources)
    assert "missing or invalid sessionId; skipped" in followed
    for text in (said.err, said.out, followed):
        assert GHP_CORE not in text, text
    assert "agent:main:slack:channel:ghp_Zq…2Mm3: missing or invalid sessionId; skipped" in said.err
    assert "ghp_Zq…2Mm3: a link" in said.err and "warning: " in said.err
