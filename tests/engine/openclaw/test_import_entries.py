"""Imported entries with numbers no store can hold, and an interrupted switch of layouts.

`updatedAt` of 1e400 (JSON's infinity), NaN, -1e400, 10**30 or a string, in a legacy
`sessions.json` or a SQLite store's `entry_json`: the field is reported and the import time
used, the rest of the entry and every other session come in, nothing raises. A non-finite
number in any other field is left out the same way (SQLite's JSON cannot hold it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import NOW_MS
from openclaw_fake import FakeGateway
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.openclaw.importer import import_openclaw
from sessions_tui.engine.openclaw.mirror import ImportReport
from sessions_tui.engine.store.connection import StoreError

BAD = {
    "infinity": "1e400",
    "nan": "NaN",
    "minus-infinity": "-1e400",
    "huge-int": str(10**30),
    "string": '"yesterday"',
    "negative": "-5",
}
GOOD_MS = NOW_MS - 3_600_000
GROUP = "agent:main:discord:group:123"


def do_import(engine: Engine, root: Path) -> ImportReport:
    return import_openclaw(engine.store, engine.canonical, root)


def legacy_store(root: Path, entries: dict[str, str]) -> Path:
    """A legacy store whose sessions' `updatedAt` are the given JSON texts (one per key), each with
    a two-line transcript."""
    sdir = root / "agents" / "main" / "sessions"
    sdir.mkdir(parents=True, exist_ok=True)
    parts = []
    for n, (key, updated) in enumerate(entries.items()):
        sid = f"0f8c2a6e-{n:04d}-4c3b-9d1e-aaaaaaaaaaaa"
        parts.append(f'{json.dumps(key)}: {{"sessionId": "{sid}", "updatedAt": {updated}, "label": "s{n}"}}')
        lines = [
            json.dumps({"type": "session", "version": 3, "id": sid, "timestamp": "2026-04-13T11:00:00.000Z"}),
            json.dumps(
                {
                    "type": "message",
                    "id": f"a{n:07d}",
                    "parentId": None,
                    "timestamp": "2026-04-13T11:00:01.000Z",
                    "message": {"role": "user", "content": f"hello {n}"},
                }
            ),
        ]
        (sdir / f"{sid}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    path = sdir / "sessions.json"
    path.write_text("{" + ", ".join(parts) + "}", encoding="utf-8")
    return path


def sqlite_store(root: Path, entries: dict[str, str]) -> FakeGateway:
    """A SQLite store (OpenClaw 2026.9's schema) whose entries' `updatedAt` are the given JSON texts."""
    gateway = FakeGateway(root, with_rows=False)
    for n, (key, updated) in enumerate(entries.items()):
        gateway.create_session(key, {"label": f"s{n}"})
        gateway.append(key, {"role": "user", "content": f"hello {n}"})
        entry = json.dumps({**gateway.entry(key), "updatedAt": "__BAD__"}).replace('"__BAD__"', updated)
        gateway.conn.execute("UPDATE session_nodes SET entry_json = ? WHERE session_key = ?", (entry, key))
    return gateway


def keys_for(case: str) -> dict[str, str]:
    return {
        "agent:main:hook:good": str(GOOD_MS),
        f"agent:main:hook:{case}": BAD[case],
        "agent:main:hook:after": str(GOOD_MS - 1),
    }


def assert_imported_with_import_time(engine: Engine, report: ImportReport, case: str) -> None:
    bad = engine.store.sessions.get(f"agent:main:hook:{case}")
    assert bad is not None, report.problems
    assert bad.updated_at == NOW_MS and bad.entry["updatedAt"] == NOW_MS  # the import time
    assert bad.entry["label"] == "s1"  # the rest of the entry came in
    assert len(engine.store.transcripts.transcript_lines(f"agent:main:hook:{case}")) == 1
    [problem] = report.problems
    assert f"agent:main:hook:{case}" in problem and "updatedAt" in problem and "using the import time" in problem
    assert engine.store.sessions.get("agent:main:hook:good").updated_at == GOOD_MS
    assert engine.store.sessions.get("agent:main:hook:after").updated_at == GOOD_MS - 1
    assert report.sessions_imported == 3


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_updated_at_in_sessions_json_is_reported_and_the_rest_imports(make_engine, tmp_path, case):
    legacy_store(tmp_path / "openclaw", keys_for(case))
    engine = make_engine()
    report = do_import(engine, tmp_path / "openclaw")
    assert_imported_with_import_time(engine, report, case)
    again = do_import(engine, tmp_path / "openclaw")  # and a re-import changes nothing
    assert again.sessions_unchanged == 3 and engine.store.sessions.get(f"agent:main:hook:{case}").updated_at == NOW_MS


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_updated_at_in_the_sqlite_store_is_reported_and_the_rest_imports(make_engine, tmp_path, case):
    gateway = sqlite_store(tmp_path / "openclaw", keys_for(case))
    try:
        engine = make_engine()
        report = do_import(engine, tmp_path / "openclaw")
    finally:
        gateway.close()
    assert_imported_with_import_time(engine, report, case)


@pytest.mark.parametrize("case", sorted(BAD))
def test_an_updated_at_gone_bad_after_an_import_keeps_the_one_imported(make_engine, tmp_path, case):
    store = legacy_store(tmp_path / "openclaw", {"agent:main:hook:x": str(GOOD_MS)})
    engine = make_engine()
    assert do_import(engine, tmp_path / "openclaw").problems == []
    store.write_text(store.read_text(encoding="utf-8").replace(str(GOOD_MS), BAD[case]), encoding="utf-8")
    report = do_import(engine, tmp_path / "openclaw")
    [problem] = report.problems
    assert "agent:main:hook:x" in problem and "updatedAt" in problem
    assert engine.store.sessions.get("agent:main:hook:x").updated_at == GOOD_MS


def test_non_finite_numbers_in_other_fields_are_left_out_and_reported(make_engine, tmp_path):
    path = legacy_store(tmp_path / "openclaw", {"agent:main:hook:x": str(GOOD_MS)})
    text = path.read_text(encoding="utf-8").replace(
        '"label": "s0"', '"label": "s0", "totalTokens": 1e400, "origin": {"provider": "x", "cost": NaN}, "ok": 1.5'
    )
    path.write_text(text, encoding="utf-8")
    engine = make_engine()
    report = do_import(engine, tmp_path / "openclaw")
    session = engine.store.sessions.get("agent:main:hook:x")
    assert session is not None and session.updated_at == GOOD_MS
    assert "totalTokens" not in session.entry and session.entry["origin"] == {"provider": "x"}
    assert session.entry["ok"] == 1.5 and session.entry["label"] == "s0"
    assert sorted(report.problems) == [
        f"{path}: agent:main:hook:x: origin.cost is not a finite number (nan); left out",
        f"{path}: agent:main:hook:x: totalTokens is not a finite number (inf); left out",
    ]
    engine.store.transcripts.append("agent:main:hook:x", {"role": "user", "content": "and the entry is still JSON"})
    assert engine.store.sessions.get("agent:main:hook:x").entry["label"] == "s0"


def test_an_interrupted_switch_to_the_sqlite_layout_never_takes_a_line_twice(make_engine, tmp_path, monkeypatch):
    """A session imported from the legacy files whose SQLite transcript no longer matches is taken
    whole again; if that fails, no cursor is left behind that would have the next run append
    every line a second time."""
    from openclaw_fake import copy_fixture

    legacy_root = copy_fixture(tmp_path / "legacy", "legacy-state")
    gateway = FakeGateway(tmp_path / "live")
    try:
        gateway.rewrite(GROUP, keep=1)  # compacted in OpenClaw after the upgrade
        engine = make_engine()
        do_import(engine, legacy_root)
        live = tmp_path / "live" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
        source = f"{live.resolve()}#{GROUP}"

        def failing(*args, **kwargs):
            raise StoreError("disk trouble")

        with monkeypatch.context() as patch:
            patch.setattr(engine.store.imports, "replace_import", failing)
            report = do_import(engine, tmp_path / "live")
        assert [p for p in report.problems if "disk trouble" in p]
        assert engine.store.imports.imported_lines(source) is None
        report = do_import(engine, tmp_path / "live")
        sid = gateway.session_id(GROUP)
        expected = [
            text
            for (text,) in gateway.conn.execute(
                "SELECT event_json FROM transcript_events WHERE session_id = ? AND seq > 0 ORDER BY seq", (sid,)
            )
        ]
    finally:
        gateway.close()
    assert engine.store.transcripts.transcript_lines(GROUP) == expected
    assert report.sessions_updated == 1  # counted once
    assert do_import(engine, tmp_path / "live").sessions_unchanged == report.sessions_unchanged + 1
