"""Hostile tool input never ends in a traceback or a broken session (issue 9).

Huge and non-finite numbers, arguments nested 100,000 levels deep, over-long labels, unknown
cleanup values, lone UTF-16 surrogates and invalid UTF-8: each gets OpenClaw's clamp or a clear
error, and whatever is stored stays readable by every tool, the CLI and the mirror file.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import NOW_MS, add_session, call_tool, run_tool
from openai_server import Reply, system_text
from sessions_tui.cli import main
from sessions_tui.engine.demo.state import seed_demo
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.inputs.json_depth import too_deep_text
from sessions_tui.engine.llm.base import ToolCallRequest
from sessions_tui.engine.openclaw.importer import import_openclaw
from sessions_tui.engine.redaction.sanitize import json_utf8_bytes
from sessions_tui.engine.sessions.keys import js_trim
from sessions_tui.tools.acting.sessions_send import SendArgs
from sessions_tui.tools.acting.sessions_spawn import SpawnArgs
from sessions_tui.tools.calling.base import MAX_TIMEOUT_SECONDS, ToolCall, ToolInputError
from sessions_tui.tools.calling.host import EngineToolHost
from sessions_tui.tools.reading.browse import BrowseQuery, browse_sessions
from sessions_tui.tools.reading.sessions_list import LIST_MESSAGES_MAX_BYTES

GROUP = "agent:main:discord:group:dev"
OFFSET_ERROR = "^offset must be a non-negative integer$"


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


def printable(result: dict[str, Any]) -> str:
    """What the CLI prints; raises if the result holds a lone surrogate."""
    text = json.dumps(result, ensure_ascii=False)
    text.encode("utf-8")
    return text


@pytest.fixture
def listed(engine: Engine) -> Engine:
    add_session(engine, GROUP, [{"role": "user", "content": f"m{i}"} for i in range(30)])
    add_session(engine, "cron:old", updatedAt=1)  # 1970: only an unbounded window has it
    return engine


# --- 1. numbers and nesting ------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["sessions_list", "sessions_history"])
@pytest.mark.parametrize("offset", [2**53, 2**63, 2**64, 10**30, 1e300, -(2**63), -(2**70), -1e300])
def test_an_offset_sqlite_cannot_hold_is_refused_with_refs_text(listed, tool, offset):
    with pytest.raises(ToolInputError, match=OFFSET_ERROR):
        run_tool(listed, tool, {"sessionKey": GROUP, "offset": offset})


def test_the_largest_safe_offset_is_an_empty_last_page(listed):
    page = run_tool(listed, "sessions_list", {"offset": 2**53 - 1})
    assert (page["count"], page["hasMore"], page["offset"]) == (0, False, 2**53 - 1)
    history = run_tool(listed, "sessions_history", {"sessionKey": GROUP, "offset": 2**53 - 1})
    assert (history["messages"], history["hasMore"], history["totalMessages"]) == ([], False, 30)


SAFE = 2**53 - 1  # the largest integer JavaScript holds exactly: the gateway takes it, then clamps
UNSAFE = [2**53, 2**80, 1e308, -(2**70), -1e308, math.inf, -math.inf, math.nan]


def test_the_largest_safe_integers_are_clamped(listed):
    assert run_tool(listed, "sessions_list", {"limit": SAFE})["count"] == 2
    assert run_tool(listed, "sessions_list", {"activeMinutes": SAFE})["count"] == 2  # all of time
    row = run_tool(listed, "sessions_list", {"messageLimit": SAFE, "kinds": ["group"]})["sessions"][0]
    assert [m["content"] for m in row["messages"]] == [f"m{i}" for i in range(10, 30)]  # at most 20
    assert len(run_tool(listed, "sessions_history", {"sessionKey": GROUP, "limit": SAFE})["messages"]) == 30


@pytest.mark.parametrize("value", UNSAFE)
@pytest.mark.parametrize(
    "tool, name, words",
    [
        ("sessions_list", "limit", "positive"),
        ("sessions_list", "activeMinutes", "positive"),
        ("sessions_list", "messageLimit", "non-negative"),
        ("sessions_history", "limit", "positive"),
    ],
)
def test_a_number_no_integer_of_javascript_is_refused(listed, tool, name, words, value):
    with pytest.raises(ToolInputError, match=f"^{name} must be a {words} integer$"):
        run_tool(listed, tool, {"sessionKey": GROUP, name: value})


def test_huge_timeouts_clamp_to_openclaws_timer_bound():
    assert SendArgs.model_validate({"message": "m", "timeoutSeconds": SAFE}).timeout_seconds == MAX_TIMEOUT_SECONDS
    assert SpawnArgs.model_validate({"task": "t", "runTimeoutSeconds": SAFE}).run_timeout_seconds == 2_147_000
    assert SpawnArgs.model_validate({"task": "t", "timeoutSeconds": 1e308}).run_timeout_seconds == 2_147_000


@pytest.mark.parametrize("seconds", [2**80, 1e308, 10**400, -1, -(2**80), 2.5])
def test_timeouts_that_are_no_safe_integer_are_refused(seconds):
    with pytest.raises(ToolInputError, match="^timeoutSeconds must be a non-negative integer$"):
        SendArgs.model_validate({"message": "m", "timeoutSeconds": seconds})
    with pytest.raises(ToolInputError, match="^runTimeoutSeconds must be a non-negative integer$"):
        SpawnArgs.model_validate({"task": "t", "runTimeoutSeconds": seconds})


async def test_a_send_and_a_spawn_with_huge_timeouts_run_normally(live_engine):
    engine = live_engine()
    add_session(engine, GROUP)
    sent = await call_tool(engine, "sessions_send", {"sessionKey": GROUP, "message": "hi", "timeoutSeconds": SAFE})
    assert sent["status"] == "ok" and sent["reply"]
    spawned = await call_tool(engine, "sessions_spawn", {"task": "count", "runTimeoutSeconds": SAFE}, as_key=GROUP)
    assert spawned["status"] == "accepted"
    await engine.drain()
    run = engine.subagents.get(spawned["runId"])
    assert run is not None and run.data["runTimeoutSeconds"] == MAX_TIMEOUT_SECONDS and run.outcome == "ok"


@pytest.mark.parametrize(
    "tool, params",
    [
        ("sessions_list", {"kinds": nested(100_000)}),
        ("sessions_history", {"sessionKey": "main", "limit": nested(100_000)}),
        ("sessions_send", {"sessionKey": "main", "message": "m", "extra": {"a": nested(100_000)}}),
        ("sessions_spawn", {"task": "t", "attachments": nested(100_000)}),
    ],
)
def test_arguments_nested_100000_levels_deep_are_refused_naming_the_parameter(engine, tool, params):
    [name] = [k for k, v in params.items() if isinstance(v, (list, dict))]
    with pytest.raises(ToolInputError, match=f"^parameter '{name}' nested more than 64 levels deep$"):
        run_tool(engine, tool, params)


def test_a_self_containing_argument_is_refused(engine):
    loop: dict[str, Any] = {}
    loop["again"] = loop
    with pytest.raises(ToolInputError, match="^parameter 'kinds' nested more than 64 levels deep$"):
        run_tool(engine, "sessions_list", {"kinds": loop})


def test_arguments_a_few_levels_deep_are_read_as_before(listed):
    assert run_tool(listed, "sessions_list", {"kinds": nested(60)})["count"] == 2  # no kind survives: no filter


async def test_a_model_calling_a_tool_with_deep_arguments_gets_an_error_result(live_engine):
    engine = live_engine()
    host = engine.tool_host
    assert isinstance(host, EngineToolHost)
    request = ToolCallRequest(id="c1", name="sessions_list", arguments={"kinds": nested(100_000)}, raw_arguments="{}")
    result, is_error = await host.execute("agent:main:main", request)
    assert is_error and result == {"status": "error", "error": "parameter 'kinds' nested more than 64 levels deep"}


@pytest.fixture
def cli_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("SESSIONS_TUI_HOME", raising=False)
    monkeypatch.delenv("SESSIONS_TUI_CONFIG", raising=False)
    state = tmp_path / "cli-state"
    engine = Engine(state)
    add_session(engine, GROUP, [{"role": "user", "content": "hi \ud800 there"}])
    engine.close()
    return state


def tool_cli(state: Path, name: str, args_json: str) -> int:
    return main(["--state", str(state), "tool", name, args_json])


@pytest.mark.parametrize("args_json", ["[" * 100_000, '{"kinds": ' + "[" * 100_000 + "]" * 100_000 + "}"])
def test_the_tool_command_refuses_json_too_deep_to_parse(cli_state, capsys, args_json):
    assert tool_cli(cli_state, "sessions_list", args_json) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "sessions-tui: ARGS_JSON: nested too deeply to parse\n"


def test_the_tool_command_refuses_a_number_json_cannot_read(cli_state, capsys):
    assert tool_cli(cli_state, "sessions_list", '{"limit": 1' + "0" * 5000 + "}") == 2
    assert capsys.readouterr().err == (
        "sessions-tui: ARGS_JSON: cannot parse: Exceeds the limit (4300 digits) for integer string conversion\n"
    )


def test_the_tool_command_refuses_parseable_json_nested_too_deep(cli_state, capsys):
    assert tool_cli(cli_state, "sessions_list", '{"kinds": ' + "[" * 200 + "]" * 200 + "}") == 2
    assert capsys.readouterr().err == "sessions-tui: parameter 'kinds' nested more than 64 levels deep\n"


@pytest.mark.parametrize(
    "args_json, error",
    [
        ('{"activeMinutes": 1e400}', "activeMinutes must be a positive integer"),
        ('{"activeMinutes": 1e15, "limit": 1e400}', "limit must be a positive integer"),
        ('{"limit": 1' + "0" * 1000 + "}", "limit must be a positive integer"),
        ('{"messageLimit": -1' + "0" * 1000 + "}", "messageLimit must be a non-negative integer"),
        ('{"offset": 1e400}', "offset must be a non-negative integer"),
        ('{"offset": 9223372036854775808}', "offset must be a non-negative integer"),
        ('{"offset": 1' + "0" * 1000 + "}", "offset must be a non-negative integer"),
    ],
)
def test_the_tool_command_with_huge_numbers(cli_state, capsys, args_json, error):
    assert tool_cli(cli_state, "sessions_list", args_json) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"sessions-tui: {error}\n"


def test_the_tool_command_takes_a_huge_but_safe_window(cli_state, capsys):
    assert tool_cli(cli_state, "sessions_list", '{"activeMinutes": 1e15, "limit": 1e2, "messageLimit": 1e3}') == 0
    assert json.loads(capsys.readouterr().out)["count"] == 1


# --- 2. the size of a sessions_list page -------------------------------------------------------


def messages_bytes(page: dict[str, Any]) -> int:
    return sum(json_utf8_bytes(row["messages"]) for row in page["sessions"])


def test_a_full_page_of_long_messages_stays_within_the_cap(engine):
    for i in range(200):
        add_session(
            engine,
            f"agent:main:s{i:03d}",
            [{"role": "user", "content": f"{i}:" + "x" * 3000} for _ in range(20)],
            updatedAt=NOW_MS - i,
        )
    page = run_tool(engine, "sessions_list", {"limit": 200, "messageLimit": 20})
    assert page["count"] == 200 and page["messagesCapped"] is True
    assert messages_bytes(page) <= LIST_MESSAGES_MAX_BYTES == 80 * 1024
    assert len(printable(page).encode()) < 200 * 1024  # it was 12 MB before the cap
    assert all(row["messagesCapped"] is True and len(row["messages"]) == 1 for row in page["sessions"])


def test_each_row_keeps_its_newest_messages_within_its_share(engine):
    for i in range(3):
        add_session(
            engine,
            f"agent:main:s{i}",
            [{"role": "user", "content": f"{n}:" + "y" * 2000} for n in range(20)],
            updatedAt=NOW_MS - i,
        )
    page = run_tool(engine, "sessions_list", {"messageLimit": 20})
    assert page["messagesCapped"] is True and messages_bytes(page) <= LIST_MESSAGES_MAX_BYTES
    for row in page["sessions"]:
        kept = [int(m["content"].split(":")[0]) for m in row["messages"]]
        assert row["messagesCapped"] is True and 5 < len(kept) < 20 and kept == list(range(20 - len(kept), 20))


def test_what_a_row_leaves_unused_goes_to_the_rows_after_it(engine):
    add_session(engine, "agent:main:small", [{"role": "user", "content": "short"}], updatedAt=NOW_MS + 1)
    add_session(
        engine, "agent:main:big", [{"role": "user", "content": "z" * 3000} for _ in range(20)], updatedAt=NOW_MS - 1
    )  # about 62 KB: more than half the cap, less than all of it
    page = run_tool(engine, "sessions_list", {"messageLimit": 20})
    small, big = page["sessions"]
    assert len(small["messages"]) == 1 and len(big["messages"]) == 20
    assert page["messagesCapped"] is False and "messagesCapped" not in big


def test_without_message_limit_a_page_says_nothing_about_the_cap(listed):
    assert "messagesCapped" not in run_tool(listed, "sessions_list", {})


# --- 3. sessions_spawn's label and cleanup ------------------------------------------------------


@pytest.mark.parametrize(
    "label, error",
    [
        ("x" * 513, "invalid label: too long (max 512)"),
        ("  " + "x" * 513 + "  ", "invalid label: too long (max 512)"),
        ("\x1f" + "x" * 512, "invalid label: too long (max 512)"),  # JS trim() keeps U+001F; Python's strip() would not
        ("\x85" + "x" * 512, "invalid label: too long (max 512)"),
        (42, "invalid label: must be a string"),
        (["a"], "invalid label: must be a string"),
    ],
)
def test_spawn_refuses_a_bad_label_with_refs_text(engine, label, error):
    with pytest.raises(ToolInputError, match=f"^{re.escape(error)}$"):
        run_tool(engine, "sessions_spawn", {"task": "t", "label": label})
    assert engine.store.sessions.count() == 0


@pytest.mark.parametrize("cleanup", ["remove", "Delete", "", 1, True, ["delete"]])
def test_spawn_accepts_only_delete_or_keep_as_cleanup(engine, cleanup):
    if cleanup == "":  # blank counts as absent: OpenClaw's default
        assert SpawnArgs.model_validate({"task": "t", "cleanup": cleanup}).cleanup == "keep"
        return
    with pytest.raises(ToolInputError, match='^cleanup must be "delete" or "keep"$'):
        run_tool(engine, "sessions_spawn", {"task": "t", "cleanup": cleanup})
    assert engine.store.sessions.count() == 0


def test_spawn_label_and_cleanup_that_are_fine():
    args = SpawnArgs.model_validate({"task": "t", "label": "  " + "x" * 512 + " ", "cleanup": " delete "})
    assert (args.label, args.cleanup) == ("x" * 512, "delete")
    assert SpawnArgs.model_validate({"task": "t", "label": "   "}).label is None
    # JavaScript's trim() removes a byte-order mark (U+FEFF), which Python's strip() keeps.
    assert SpawnArgs.model_validate({"task": "t", "label": "\ufeff" + "x" * 512 + "\u3000"}).label == "x" * 512
    assert SpawnArgs.model_validate({"task": "t", "label": "\ufeff\u2028"}).label is None


def test_js_trim_removes_what_javascripts_trim_does():
    """The characters `String.prototype.trim` removes, as node 24 lists them (ECMAScript WhiteSpace
    and LineTerminator)."""
    removed = [c for c in range(0x10000) if js_trim(f"{chr(c)}a{chr(c)}") == "a"]
    assert [f"{c:x}" for c in removed] == (
        "9 a b c d 20 a0 1680 2000 2001 2002 2003 2004 2005 2006 2007 2008 2009 200a 2028 2029 202f 205f 3000 feff"
    ).split()


EMOJI = "\U0001f600"  # beyond U+FFFF: two UTF-16 code units, as OpenClaw's `label.length` counts it


@pytest.mark.parametrize(
    "label, fits",
    [
        (EMOJI * 256, True),
        ("x" + EMOJI * 256, False),
        (EMOJI * 257, False),
        ("x" * 511 + EMOJI, False),
        ("x" * 510 + EMOJI, True),
        ("\u00e9" * 512, True),  # é is one unit
    ],
)
def test_the_label_limit_counts_utf16_code_units_like_openclaw(engine, label, fits):
    if fits:
        assert SpawnArgs.model_validate({"task": "t", "label": label}).label == label
        return
    with pytest.raises(ToolInputError, match=r"^invalid label: too long \(max 512\)$"):
        run_tool(engine, "sessions_spawn", {"task": "t", "label": label})
    assert engine.store.sessions.count() == 0


async def test_send_by_a_label_of_257_emoji_is_too_long(live_engine):
    result = await call_tool(live_engine(), "sessions_send", {"label": EMOJI * 257, "message": "m"})
    assert (result["status"], result["error"]) == ("error", "invalid label: too long (max 512)")
    result = await call_tool(live_engine(), "sessions_send", {"label": EMOJI * 256, "message": "m"})
    assert result["error"] == f"No session found with label: {EMOJI * 256}"


async def test_send_by_a_too_long_label_is_an_error_result(live_engine):
    result = await call_tool(live_engine(), "sessions_send", {"label": "x" * 513, "message": "m"})
    assert (result["status"], result["error"]) == ("error", "invalid label: too long (max 512)")
    assert len(result["runId"]) == 36


# --- 4. the demo's keys -------------------------------------------------------------------------


def test_every_row_the_demo_lists_opens_in_sessions_history(engine):
    seed_demo(engine, None)
    rows = run_tool(engine, "sessions_list", {"limit": 200})["sessions"]
    assert "hook" in {row["kind"] for row in rows}
    for row in rows:
        history = run_tool(engine, "sessions_history", {"sessionKey": row["key"]})
        assert history.get("status") is None and history["sessionKey"] == row["key"], history
        assert history["totalMessages"] > 0


# --- 5. lone surrogates and invalid UTF-8 -------------------------------------------------------


def test_a_lone_surrogate_is_stored_as_u_fffd_in_the_store_and_the_mirror(engine):
    key = add_session(engine, GROUP, [{"role": "user", "content": "a\ud800b", "note\udfff": ["\udc00"]}])
    engine.store.transcripts.append(
        key, {"role": "assistant", "content": [{"type": "text", "text": "ok \ud83d\ude00 \udbff"}]}
    )
    mirror = Path(engine.store.sessions.get(key).mirror_path).read_bytes().decode("utf-8")  # strict: valid UTF-8
    assert "a\ufffdb" in mirror and '"note\ufffd":["\ufffd"]' in mirror and "ok \U0001f600 \ufffd" in mirror
    assert "\\ud" not in mirror.lower()
    assert [line for line in engine.store.transcripts.transcript_lines(key) if "\\ud" in line.lower()] == []


def test_a_lone_surrogate_never_breaks_history_or_list(engine):
    key = add_session(engine, GROUP, [{"role": "user", "content": "before \ud800 after"}], label="lab\udc00el")
    for n in range(3):
        engine.store.transcripts.append(key, {"role": "assistant", "content": [{"type": "text", "text": f"later {n}"}]})
    history = run_tool(engine, "sessions_history", {"sessionKey": GROUP})
    assert history["messages"][0]["content"] == "before \ufffd after" and len(history["messages"]) == 4
    row = run_tool(engine, "sessions_list", {"messageLimit": 4})["sessions"][0]
    assert row["label"] == "lab\ufffdel" and row["messages"][0]["content"] == "before \ufffd after"
    printable(history)
    printable(row)


def test_a_stored_line_that_spells_a_lone_surrogate_is_read_as_u_fffd(engine):
    """A line imported verbatim (OpenClaw's JSON.stringify writes `\\ud800`) or stored before the fix."""
    key = add_session(engine, GROUP)
    line = {"type": "message", "message": {"role": "user", "content": "old \ud800 line"}}
    engine.store.transcripts.append_lines(key, [line], raw=[json.dumps({**line, "id": "abcd1234"})])
    assert "\\ud800" in engine.store.transcripts.transcript_lines(key)[0]  # kept verbatim
    history = run_tool(engine, "sessions_history", {"sessionKey": GROUP})
    assert history["messages"][0]["content"] == "old \ufffd line"
    printable(history)


def test_tool_arguments_with_lone_surrogates_are_taken_as_u_fffd(engine):
    add_session(engine, GROUP)
    result = run_tool(engine, "sessions_history", {"sessionKey": "agent:main:discord:group:\ud800"})
    assert result == {"status": "error", "error": "No session found: agent:main:discord:group:\ufffd"}
    spawned = run_tool(engine, "sessions_spawn", {"task": "t\ud800", "label": "l\udfff"}, as_key=GROUP)
    assert spawned["status"] == "accepted"
    child = engine.store.sessions.get(spawned["childSessionKey"])
    assert child is not None and child.entry["label"] == "l\ufffd"


def test_the_cli_prints_a_history_that_held_a_lone_surrogate(cli_state, capsys):
    assert tool_cli(cli_state, "sessions_history", json.dumps({"sessionKey": GROUP})) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["messages"][0]["content"] == "hi \ufffd there"


REQ = "agent:main:discord:group:req"


@pytest.fixture
def model_engine(live_engine, openai_server):
    engine = live_engine(
        {
            "models": {"providers": {"local": {"baseUrl": openai_server.url}}},
            "agents": {"defaults": {"model": "local/m"}},
            "tools": {"agentToAgent": {"enabled": True}},
            "session": {"agentToAgent": {"maxPingPongTurns": 0}},
        }
    )
    add_session(engine, REQ)
    return engine


async def test_a_sub_agent_announce_with_a_lone_surrogate_is_delivered_as_u_fffd(model_engine, openai_server):
    openai_server.on(
        lambda r: (
            Reply(text="Result: bad \ud800 byte\nNotes: none") if "Sub-agent announce step" in system_text(r) else None
        )
    )
    openai_server.script(Reply(text="child says \udc00"))
    result = await call_tool(model_engine, "sessions_spawn", {"task": "work"}, as_key=REQ)
    await model_engine.drain()
    [announce] = [m for m in model_engine.store.transcripts.history(REQ).messages if m.get("announce")]
    assert announce["content"][0]["text"].startswith("Status: completed successfully\nResult: bad \ufffd byte")
    child = await call_tool(model_engine, "sessions_history", {"sessionKey": result["childSessionKey"]})
    replies = [m["content"][0]["text"] for m in child["messages"] if m["role"] == "assistant"]
    assert replies == ["child says \ufffd", "Result: bad \ufffd byte\nNotes: none"]  # the run, its announce step
    [delivery] = model_engine.outbox.list()
    assert "bad \ufffd byte" in delivery.message
    printable(await call_tool(model_engine, "sessions_list", {"messageLimit": 5}))


async def test_an_a2a_reply_and_announce_with_a_lone_surrogate(model_engine, openai_server):
    openai_server.on(lambda r: Reply(text="posting \udbff now") if "announce step" in system_text(r) else None)
    openai_server.script(Reply(text="target reply \ud800"))
    sent = await call_tool(model_engine, "sessions_send", {"sessionKey": REQ, "message": "m"})
    await model_engine.drain()
    assert sent["status"] == "ok" and sent["reply"] == "target reply \ufffd"
    history = await call_tool(model_engine, "sessions_history", {"sessionKey": REQ})
    assert [m["content"][0]["text"] for m in history["messages"] if m["role"] == "assistant"] == [
        "target reply \ufffd",
        "posting \ufffd now",
    ]
    [delivery] = model_engine.outbox.list()
    assert delivery.message == "posting \ufffd now"


def write_legacy_state(root: Path, lines: list[bytes]) -> None:
    sessions = root / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    sid = "0badc0de-0000-4000-8000-000000000001"
    (sessions / "sessions.json").write_text(json.dumps({GROUP: {"sessionId": sid, "updatedAt": NOW_MS}}))
    head = json.dumps({"type": "session", "version": 3, "id": sid, "timestamp": "2026-04-13T12:00:00.000Z"})
    (sessions / f"{sid}.jsonl").write_bytes(b"\n".join([head.encode(), *lines]) + b"\n")


def test_a_legacy_transcript_line_with_invalid_utf8_is_read_as_u_fffd(engine, tmp_path):
    def line(n: int, content: bytes) -> bytes:
        return (
            b'{"type":"message","id":"e%d","parentId":null,"timestamp":"2026-04-13T12:00:00.000Z",'
            b'"message":{"role":"user","content":"' % n + content + b'"}}'
        )

    root = tmp_path / "openclaw"
    write_legacy_state(root, [line(1, b"bad \xff\xfe bytes"), line(2, b"lone \\ud800 escape"), line(3, b"fine")])
    import_openclaw(engine.store, engine.canonical, root)
    history = run_tool(engine, "sessions_history", {"sessionKey": GROUP})
    assert [m["content"] for m in history["messages"]] == ["bad \ufffd\ufffd bytes", "lone \ufffd escape", "fine"]
    printable(history)


async def test_a_model_error_with_a_lone_surrogate_ends_the_run_and_is_announced(model_engine, openai_server):
    openai_server.default = Reply(status=500, error_message="boom \ud800")
    sent = await call_tool(model_engine, "sessions_send", {"sessionKey": REQ, "message": "m", "timeoutSeconds": 30})
    assert (sent["status"], sent["error"]) == ("error", "HTTP 500: boom \ufffd")
    await call_tool(model_engine, "sessions_spawn", {"task": "do"}, as_key=REQ)
    await model_engine.drain()
    [announce] = [m for m in model_engine.store.transcripts.history(REQ).messages if m.get("announce")]
    assert announce["content"][0]["text"].startswith("Status: failed: HTTP 500: boom \ufffd\n")


DEEP_KINDS = "parameter 'kinds' nested more than 64 levels deep"


@pytest.mark.parametrize(
    "raw, error",
    [
        ("[" * 100_000, "arguments nested more than 64 levels deep"),  # not even closed
        ('{"limit": 5, "kinds": ' + "[" * 100_000 + "]" * 100_000 + "}", DEEP_KINDS),
        ('{"kinds": ' + "[" * 64 + "]" * 64 + "}", DEEP_KINDS),  # 65 levels with the object
    ],
)
async def test_a_model_sending_tool_call_arguments_too_deep_gets_the_tool_error(
    model_engine, openai_server, raw, error
):
    openai_server.script(Reply(tool_calls=[("sessions_list", raw)]), Reply(text="understood"))
    sent = await call_tool(model_engine, "sessions_send", {"sessionKey": REQ, "message": "m", "timeoutSeconds": 30})
    assert (sent["status"], sent["reply"]) == ("ok", "understood")  # the run went on after the tool error
    [result] = [m for m in model_engine.store.transcripts.history(REQ).messages if m["role"] == "toolResult"]
    assert result["isError"] and result["details"] == {"status": "error", "error": error}
    [call] = [
        b
        for m in model_engine.store.transcripts.history(REQ).messages
        if m["role"] == "assistant"
        for b in m["content"]
        if b["type"] == "toolCall"
    ]
    assert call["arguments"] == {}  # nothing that deep is stored
    [seen] = [m for m in openai_server.requests[1]["messages"] if m["role"] == "tool"]
    assert json.loads(seen["content"]) == {"status": "error", "error": error}


async def test_tool_call_arguments_64_levels_deep_still_reach_the_tool(model_engine, openai_server):
    openai_server.script(
        Reply(tool_calls=[("sessions_list", '{"kinds": ' + "[" * 63 + "]" * 63 + "}")]), Reply(text="understood")
    )
    await call_tool(model_engine, "sessions_send", {"sessionKey": REQ, "message": "m", "timeoutSeconds": 30})
    [result] = [m for m in model_engine.store.transcripts.history(REQ).messages if m["role"] == "toolResult"]
    assert not result["isError"] and result["details"]["count"] >= 1


def test_brackets_inside_strings_do_not_count_as_nesting():
    assert too_deep_text('{"kinds": ["' + "[" * 1000 + '\\", "\\"' + "{" * 1000 + '"]}') is None
    assert too_deep_text('{"a\\\\": ' + "[" * 64 + "]" * 64 + "}") == (
        "parameter 'a\\\\' nested more than 64 levels deep"
    )


async def test_a_whole_completion_with_deep_arguments_as_an_object_gets_the_tool_error(live_engine, openai_server):
    engine = live_engine(
        {
            "models": {"providers": {"local": {"baseUrl": openai_server.url, "stream": False}}},
            "agents": {"defaults": {"model": "local/m"}},
        }
    )
    add_session(engine, REQ)
    call = {"id": "c1", "type": "function", "function": {"name": "sessions_list", "arguments": {"kinds": nested(500)}}}
    body = {
        "choices": [
            {"message": {"role": "assistant", "content": None, "tool_calls": [call]}, "finish_reason": "tool_calls"}
        ]
    }
    openai_server.script(Reply(raw_body=json.dumps(body)), Reply(text="understood"))
    sent = await call_tool(engine, "sessions_send", {"sessionKey": REQ, "message": "m", "timeoutSeconds": 30})
    assert (sent["status"], sent["reply"]) == ("ok", "understood")
    [result] = [m for m in engine.store.transcripts.history(REQ).messages if m["role"] == "toolResult"]
    assert result["details"] == {"status": "error", "error": DEEP_KINDS}


async def test_a_model_response_too_deep_to_parse_ends_the_run_as_an_error(model_engine, openai_server):
    openai_server.script(Reply(raw_events=["[" * 100_000]))
    sent = await call_tool(model_engine, "sessions_send", {"sessionKey": REQ, "message": "m", "timeoutSeconds": 30})
    assert (sent["status"], sent["error"]) == (
        "error",
        "invalid response from model server: JSON nested too deeply to parse",
    )


def test_the_dashboards_browse_takes_a_huge_active_window_too(listed):
    assert browse_sessions(ToolCall(engine=listed), BrowseQuery(active_minutes=10**30)).total == 2
