"""Symbolic links in an import source (engine/openclaw/source_paths.py): an import or a follow never
reads a file outside the source directory. A link that leads out of it, one to nothing and a loop
of links are reported (`<link>: …; skipped`) and what they lead to is skipped; a link from one
place of the source to another is followed, and the source directory itself may be a link.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from openclaw_fake import make_store
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.openclaw.follow import Follower
from sessions_tui.engine.openclaw.importer import import_openclaw
from sessions_tui.engine.openclaw.layout import NoOpenClawState
from sessions_tui.engine.openclaw.mirror import ImportReport

OUTSIDE_WORD = "OUTSIDE-THE-SOURCE"


def sid(n: int) -> str:
    return f"0f8c2a6e-{n:04d}-4c3b-9d1e-aaaaaaaaaaaa"


def transcript(session_id: str, text: str) -> str:
    lines = [
        {"type": "session", "version": 3, "id": session_id, "timestamp": "2026-04-13T11:00:00.000Z", "cwd": "/"},
        {
            "type": "message",
            "id": f"{abs(hash(text)) % 16**8:08x}",
            "parentId": None,
            "timestamp": "2026-04-13T11:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]},
        },
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def legacy_agent(sessions_dir: Path, agent: str, ids: list[int]) -> None:
    """`sessions.json` with an entry for each id, and a transcript for each (links are made after)."""
    sessions_dir.mkdir(parents=True, exist_ok=True)
    store = {f"agent:{agent}:s{n}": {"sessionId": sid(n), "updatedAt": 1_776_000_000_000 + n} for n in ids}
    (sessions_dir / "sessions.json").write_text(json.dumps(store))
    for n in ids:
        (sessions_dir / f"{sid(n)}.jsonl").write_text(transcript(sid(n), f"{agent} s{n} text"))


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """What lies outside the source: a transcript, a session store, an agent and a SQLite store."""
    out = tmp_path / "outside"
    (out / "transcripts").mkdir(parents=True)
    (out / "transcripts" / "t.jsonl").write_text(transcript(sid(99), OUTSIDE_WORD))
    legacy_agent(out / "agent" / "sessions", "evil", [90])
    (out / "agent" / "sessions" / f"{sid(90)}.jsonl").write_text(transcript(sid(90), OUTSIDE_WORD))
    (out / "sessions.json").write_text(json.dumps({"agent:ops:stolen": {"sessionId": sid(91), "updatedAt": 1}}))
    make_store(out / "store" / "openclaw-agent.sqlite")
    return out


@pytest.fixture
def source(tmp_path: Path, outside: Path) -> Path:
    root = tmp_path / "source"
    main = root / "agents" / "main" / "sessions"
    legacy_agent(main, "main", [1, 2, 3, 4, 5, 6])
    (root / "shared").mkdir()
    (root / "shared" / "inside.jsonl").write_text(transcript(sid(3), "kept through a link inside"))
    link = {n: main / f"{sid(n)}.jsonl" for n in (2, 3, 4, 5, 6)}
    for path in link.values():
        path.unlink()
    link[2].symlink_to("/etc/passwd")  # a file link out of the source
    link[3].symlink_to("../../../shared/inside.jsonl")  # a link inside, pointing inside
    link[4].symlink_to(main / "gone.jsonl")  # dangling
    (main / "loop-a").symlink_to(main / "loop-b")
    (main / "loop-b").symlink_to(main / "loop-a")
    link[5].symlink_to(main / "loop-a")  # a loop
    link[6].symlink_to(outside / "transcripts" / "t.jsonl")  # a transcript out of the source
    (root / "agents" / "ops" / "sessions").mkdir(parents=True)
    (root / "agents" / "ops" / "sessions" / "sessions.json").symlink_to(outside / "sessions.json")
    (root / "agents" / "evil").symlink_to(outside / "agent", target_is_directory=True)  # a directory link out
    (root / "agents" / "far").mkdir()
    (root / "agents" / "far" / "sessions").symlink_to(outside / "agent" / "sessions", target_is_directory=True)
    (root / "agents" / "db" / "agent").mkdir(parents=True)
    (root / "agents" / "db" / "agent" / "openclaw-agent.sqlite").symlink_to(outside / "store" / "openclaw-agent.sqlite")
    return root


def stored_text(engine: Engine) -> str:
    with engine.store.read() as conn:
        lines = [row[0] for row in conn.execute("SELECT line FROM transcript")]
        keys = [row[0] for row in conn.execute("SELECT key FROM sessions")]
    return "\n".join(lines + keys)


def imported(engine: Engine, root: Path) -> ImportReport:
    return import_openclaw(engine.store, engine.canonical, root)


def test_nothing_outside_the_source_is_read_and_each_link_is_reported(engine, source, outside):
    report = imported(engine, source)
    main = source / "agents" / "main" / "sessions"
    assert sorted(report.problems) == sorted(
        [
            f"{main / (sid(2) + '.jsonl')}: a link out of the source directory (to /etc/passwd); skipped",
            f"{main / (sid(4) + '.jsonl')}: a link to {main / 'gone.jsonl'}, which does not exist; skipped",
            f"{main / (sid(5) + '.jsonl')}: a loop of links; skipped",
            f"{main / (sid(6) + '.jsonl')}: a link out of the source directory "
            f"(to {outside / 'transcripts' / 't.jsonl'}); skipped",
            f"{source / 'agents' / 'db' / 'agent' / 'openclaw-agent.sqlite'}: a link out of the source directory "
            f"(to {outside / 'store' / 'openclaw-agent.sqlite'}); skipped",
            f"{source / 'agents' / 'evil'}: a link out of the source directory (to {outside / 'agent'}); skipped",
            f"{source / 'agents' / 'far' / 'sessions'}: a link out of the source directory "
            f"(to {outside / 'agent' / 'sessions'}); skipped",
            f"{source / 'agents' / 'ops' / 'sessions' / 'sessions.json'}: a link out of the source directory "
            f"(to {outside / 'sessions.json'}); skipped",
        ]
    )
    text = stored_text(engine)
    assert OUTSIDE_WORD not in text and "root:" not in text and "stolen" not in text
    assert "agent:evil" not in text and "agent:far" not in text and "agent:db" not in text
    assert not any("root:" in problem for problem in report.problems)  # no line of /etc/passwd reported
    # the sessions whose entries are in the source are there, their linked-out transcripts empty
    with engine.store.read() as conn:
        keys = {row[0] for row in conn.execute("SELECT key FROM sessions")}
    assert keys == {f"agent:main:s{n}" for n in range(1, 7)}
    assert "main s1 text" in text


def test_a_link_from_one_place_of_the_source_to_another_is_followed(engine, source):
    imported(engine, source)
    assert [line["message"]["content"][0]["text"] for line in history(engine, "agent:main:s3")] == [
        "kept through a link inside"
    ]


def history(engine: Engine, key: str) -> list[dict]:
    return [json.loads(line) for line in engine.store.transcripts.transcript_lines(key)]


def test_the_source_directory_itself_may_be_a_link(engine, tmp_path, source):
    alias = tmp_path / "alias"
    alias.symlink_to(source, target_is_directory=True)
    report = imported(engine, alias)
    assert report.sessions_imported == 6
    assert "main s1 text" in stored_text(engine)


def test_an_agents_directory_that_leads_out_is_refused_naming_the_link(engine, tmp_path, outside):
    root = tmp_path / "linked"
    root.mkdir()
    (outside / "agents" / "main" / "sessions").mkdir(parents=True)
    legacy_agent(outside / "agents" / "main" / "sessions", "main", [7])
    (root / "agents").symlink_to(outside / "agents", target_is_directory=True)
    with pytest.raises(NoOpenClawState) as refused:
        imported(engine, root)
    assert str(refused.value).endswith(
        f"; {root / 'agents'}: a link out of the source directory (to {outside / 'agents'}); skipped"
    )
    assert engine.store.sessions.count(include_archived=True) == 0


def test_following_skips_the_same_links(engine, source):
    follower = Follower(engine.store, engine.canonical, source)
    try:
        tick = follower.tick()
    finally:
        follower.close()
    assert tick.failures == []
    assert any("/etc/passwd" in problem for problem in tick.report.problems)
    assert len([p for p in tick.report.problems if p.endswith("; skipped")]) == 8
    assert OUTSIDE_WORD not in stored_text(engine) and "root:" not in stored_text(engine)


def test_the_command_line_reports_the_skipped_links(source, tmp_path):
    from cli_support import cli

    proc = cli("import-openclaw", str(source), state=tmp_path / "state")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("; skipped\n") == 8 and "root:" not in proc.stderr and "Traceback" not in proc.stderr
    assert not os.path.exists(tmp_path / "state" / "agents" / "evil")
