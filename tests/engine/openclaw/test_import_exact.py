"""An import of a small legacy OpenClaw store writes exactly the rows and mirror files it always has.

The expected rows (`sessions`, `transcript`, `imports`) and mirror bytes, the temporary directory
written as `<tmp>`, are kept in tests/fixtures/import_exact.json; a speed-up of the importer that
changes a byte of them fails here. Regenerate (only for an intended change) with
`IMPORT_EXACT_WRITE=1 .venv/bin/python -m pytest -q tests/engine/openclaw/test_import_exact.py`.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from sessions_tui.engine.openclaw.importer import import_openclaw
from sessions_tui.engine.store.disk.mirror_files import MirrorWriter
from sessions_tui.engine.store.schema import DB_NAME

FIXTURE = Path(__file__).parents[2] / "fixtures" / "import_exact.json"


def sid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def line(n: int, parent: str | None, **message: Any) -> str:
    return json.dumps(
        {
            "type": "message",
            "id": f"{n:08x}",
            "parentId": parent,
            "timestamp": "2026-04-01T10:00:00.000Z",
            "message": message,
        }
    )


def transcript(n: int, count: int) -> list[str]:
    out = [json.dumps({"type": "session", "version": 3, "id": sid(n), "timestamp": "2026-04-01T10:00:00.000Z"})]
    parent = None
    for i in range(count):
        if i % 3 == 0:
            out.append(line(n * 100 + i, parent, role="user", content=f'q{i} \u00e9\u6f22 \ud800 "x"', timestamp=1))
        elif i % 3 == 1:
            out.append(
                json.dumps({"type": "model_change", "id": f"{n * 100 + i:08x}", "parentId": parent, "model": "m"})
            )
        else:
            out.append(
                line(n * 100 + i, parent, role="assistant", content=[{"type": "text", "text": "a"}], usage={"input": 1})
            )
        parent = f"{n * 100 + i:08x}"
    return out


def build(root: Path) -> None:
    stores: dict[str, dict[str, Any]] = {
        "main": {
            "main": {"sessionId": sid(1), "updatedAt": 1_776_000_000_000, "label": "the main one"},
            "agent:main:discord:group:42": {"sessionId": sid(2), "updatedAt": 1_776_000_000_001, "chatType": "group"},
            "cron:job-1": {"sessionId": sid(3), "updatedAt": 1_776_000_000_002},
            "agent:ops:telegram:direct:7": {"sessionId": sid(4), "updatedAt": 1_776_000_000_003},
            "agent:main:hook:9": {"sessionId": sid(5), "updatedAt": "soon", "totalTokens": 12.5},
            "agent:main:empty": {"sessionId": sid(6), "updatedAt": 1_776_000_000_005},
            "agent:main:subagent:1": {
                "sessionId": sid(7),
                "updatedAt": 1_776_000_000_006,
                "sessionFile": "other.jsonl",
            },
            "agent:main:bad": {"sessionId": "../nope", "updatedAt": 1},
        },
        "ops": {
            "agent:ops:main": {
                "sessionId": sid(8),
                "updatedAt": 1_776_000_000_007,
                "displayName": "Ops \u00fc",
                "cost": float("nan"),
            },
            "agent:ops:cron:job-2:run:abc": {"sessionId": sid(9), "updatedAt": 1_776_000_000_008},
        },
    }
    files = {1: 7, 2: 3, 3: 1, 4: 5, 5: 2, 8: 4, 9: 6}
    for agent, store in stores.items():
        sdir = root / "agents" / agent / "sessions"
        sdir.mkdir(parents=True)
        (sdir / "sessions.json").write_text(json.dumps(store, indent=2), encoding="utf-8")
        for entry in store.values():
            n = int(entry["sessionId"][-12:]) if entry["sessionId"][0] == "0" else 0
            if n in files:
                lines = transcript(n, files[n])
                if n == 2:
                    lines.insert(2, "{not json")
                    lines.append("\r")
                    lines[1] += "\r"
                (sdir / f"{entry['sessionId']}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        if agent == "main":
            (sdir / "other.jsonl").write_text("\n".join(transcript(7, 2)) + "\n", encoding="utf-8")


def grow(root: Path) -> None:
    sdir = root / "agents" / "main" / "sessions"
    with open(sdir / f"{sid(1)}.jsonl", "a", encoding="utf-8") as handle:
        handle.write(line(9_999, "00000066", role="user", content="later") + "\n")
    store = json.loads((sdir / "sessions.json").read_text(encoding="utf-8"))
    store["agent:main:discord:group:42"]["label"] = "renamed"
    store["agent:main:new"] = {"sessionId": sid(10), "updatedAt": 1_776_000_000_010}
    (sdir / "sessions.json").write_text(json.dumps(store), encoding="utf-8")
    (sdir / f"{sid(10)}.jsonl").write_text("\n".join(transcript(10, 2)) + "\n", encoding="utf-8")


def snapshot(state: Path, tmp: Path) -> dict[str, Any]:
    """Every imported row and mirror file, `tmp` written as `<tmp>`."""
    conn = sqlite3.connect(state / DB_NAME)
    conn.row_factory = sqlite3.Row
    out: dict[str, Any] = {}
    for table, order in (("sessions", "key"), ("transcript", "session_id, seq"), ("imports", "source")):
        out[table] = [dict(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY {order}")]  # noqa: S608
    conn.close()
    for row in out["sessions"]:  # its size depends on the length of `tmp`, in the header's cwd
        path = state / row["mirror_path"]
        row["mirror_size"] = "file's" if row["mirror_size"] == (path.stat().st_size if path.exists() else 0) else -1
    mirrors = {}
    for path in sorted((state / "agents").rglob("*.jsonl")):
        mirrors[str(path.relative_to(state))] = [path.read_text(encoding="utf-8"), oct(os.stat(path).st_mode & 0o777)]
    out["mirrors"] = mirrors
    return json.loads(json.dumps(out).replace(json.dumps(str(tmp))[1:-1], "<tmp>"))


@pytest.mark.parametrize("spawn_after", [64, 1], ids=["own-thread", "child-process"])
def test_a_small_import_and_its_update_write_the_same_rows_and_mirror_bytes(
    tmp_path, make_engine, monkeypatch, spawn_after
):
    monkeypatch.setattr(MirrorWriter, "spawn_after", spawn_after)  # who writes the mirrors changes nothing
    build(tmp_path / "openclaw")
    engine = make_engine()
    first = import_openclaw(engine.store, engine.canonical, tmp_path / "openclaw")
    after_first = snapshot(engine.store.state_dir, tmp_path)
    grow(tmp_path / "openclaw")
    second = import_openclaw(engine.store, engine.canonical, tmp_path / "openclaw")
    after_second = snapshot(engine.store.state_dir, tmp_path)
    got = {
        "reports": [json.loads(first.model_dump_json()), json.loads(second.model_dump_json())],
        "first": after_first,
        "second": after_second,
    }
    got = json.loads(json.dumps(got).replace(json.dumps(str(tmp_path))[1:-1], "<tmp>"))
    if os.environ.get("IMPORT_EXACT_WRITE"):
        FIXTURE.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    expected = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert got["reports"] == expected["reports"]
    for phase in ("first", "second"):
        for part in ("sessions", "transcript", "imports", "mirrors"):
            assert projected(got[phase][part], expected[phase][part]) == expected[phase][part], (
                f"{phase} import: {part} differ"
            )


def projected(got: Any, expected: Any) -> Any:
    """Rows with only the columns the fixture has: a column added to the schema since is not the importer's."""
    if not isinstance(got, list) or not got or not expected:
        return got
    return [{k: v for k, v in row.items() if k in expected[0]} for row in got]
