"""`sessions-tui sends` (cli/commands/sends.py) and the backend's `sends`: the ledger as text and as JSON,
its filters, redaction and cutting, and a bad --session."""

from __future__ import annotations

import json

import pytest

from conftest import add_session, call_tool, state_cli
from sessions_tui.backend.local.backend import LocalBackend

DEV = "agent:main:discord:group:dev"
SECRET = "sk-abcdefghijklmnopqrstuvwxyz123456"
FAST = (
    "{ models: { demo: { latencyMs: 0, chunkMs: 0 } }, "
    "session: { sendPolicy: { rules: [ { action: 'deny', match: { channel: 'whatsapp' } } ] } } }"
)


cli = state_cli


@pytest.fixture(scope="module")
def sent_state(tmp_path_factory):
    """A demo state directory with three sends: one answered with ping-pong, one refused, one to another session."""
    state = tmp_path_factory.mktemp("ledger")
    (state / "config.json5").write_text(FAST)
    assert cli("demo", state=state).returncode == 0
    for args in (
        ("send", DEV, f"status? {SECRET}", "--as", "main"),
        ("send", "agent:main:whatsapp:group:family", "hello"),
        ("send", "main", "note to self", "--timeout", "0"),
    ):
        proc = cli(*args, state=state)
        assert proc.returncode in (0, 1), proc.stderr
    return state


def test_sends_prints_one_block_per_send_newest_first(sent_state):
    proc = cli("sends", state=sent_state)
    assert proc.returncode == 0, proc.stderr
    blocks = proc.stdout.strip().split("\n\n")
    assert len(blocks) == 3
    # issue 28 item 23: the person is `operator` everywhere (it was `main → main  [owner]`)
    assert "operator → main  run " in blocks[0] and "“note to self”" in blocks[0]
    assert "operator → agent:main:whatsapp:group:family  run " in blocks[1]
    assert "forbidden        send blocked by session policy: rule 1 (channel=whatsapp)" in blocks[1]
    lines = blocks[2].splitlines()
    assert f"main → {DEV}  [operator]  run " in lines[0]  # the operator acting as main
    assert lines[1] == "  “status? sk-abc…3456”"
    names = [line.split()[1] for line in lines[2:]]
    assert names[:3] == ["accepted", "started", "replied"] and "pingpong" in names and names[-1] == "announce"
    assert any("pingpong         turn 1 main:" in line for line in lines)
    assert any("announce         (recorded #" in line for line in lines)
    assert SECRET not in proc.stdout


def test_sends_json_is_the_issues_shape_redacted(sent_state):
    proc = cli("sends", "--json", "--session", DEV, state=sent_state)
    assert proc.returncode == 0, proc.stderr
    [entry] = json.loads(proc.stdout)
    assert {"runId", "requester", "target", "message", "states", "chain"} <= set(entry)
    assert (entry["requester"], entry["target"], entry["chain"]) == ("agent:main:main", DEV, ["agent:main:main", DEV])
    assert entry["message"] == "status? sk-abc…3456"
    assert [s["state"] for s in entry["states"]][:3] == ["accepted", "started", "replied"]
    assert "detail" not in entry["states"][0] and entry["states"][2]["detail"]["text"]
    assert all(isinstance(s["at"], int) for s in entry["states"])


def test_sends_filters_by_state_and_limit(sent_state):
    forbidden = json.loads(cli("sends", "--json", "--reached", "forbidden", state=sent_state).stdout)
    assert [e["target"] for e in forbidden] == ["agent:main:whatsapp:group:family"]
    assert len(json.loads(cli("sends", "--json", "--limit", "1", state=sent_state).stdout)) == 1
    empty = cli("sends", "--reached", "late_reply", state=sent_state)
    assert empty.returncode == 0 and empty.stdout == "no sends that reached 'late_reply'\n"


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("bad key!", "--session: not a session key or sessionId: 'bad key!'"),
        ("current", "--session: 'current' names no session here; give a key"),
        ("0b8c7f6e-0000-4000-8000-000000000000", "--session: no session has the sessionId"),
    ],
)
def test_a_bad_session_exits_2_saying_why(sent_state, value, error):
    proc = cli("sends", "--session", value, state=sent_state)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"sessions-tui: {error}")


async def test_the_backend_redacts_and_cuts_message_and_detail_texts(live_engine):
    engine = live_engine()
    add_session(engine, DEV)
    long = "x" * 5000
    await call_tool(engine, "sessions_send", {"sessionKey": DEV, "message": f"{SECRET} {long}"})
    await engine.drain()
    [entry] = engine.ledger.entries()
    assert entry.message.startswith(SECRET)  # stored raw
    engine.ledger.mark(entry.run_id, "error", {"error": f"failed with {SECRET}", "nested": [{"text": long}]})
    [shown] = await LocalBackend(engine).sends(DEV, None, 10)
    assert shown.message.startswith("sk-abc…3456 ") and len(shown.message) < 4100 and "truncated" in shown.message
    assert shown.states[-1].detail == {
        "error": "failed with sk-abc…3456",
        "nested": [{"text": shown.states[-1].detail["nested"][0]["text"]}],
    }
    assert len(shown.states[-1].detail["nested"][0]["text"]) < 4100
    assert await LocalBackend(engine).sends(DEV, "no-such-state", 10) == []
