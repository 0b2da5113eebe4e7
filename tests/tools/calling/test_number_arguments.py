"""The tools' integer parameters, read as OpenClaw 2026.9.6's gateway reads them (its answers are in
tests/fixtures/openclaw-2026.9.6/numbers/), and `NaN`/`Infinity`, which are not JSON at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import add_session
from sessions_tui.backend.values.vocabulary import TOOLS, ToolInputError
from sessions_tui.cli import main
from sessions_tui.engine.engine import Engine

ANSWERS = json.loads(
    (Path(__file__).parents[2] / "fixtures" / "openclaw-2026.9.6" / "numbers" / "answers.json").read_text()
)

# Every integer parameter of every tool, with arguments that make the rest of the call valid.
NUMBERS = [
    ("sessions_list", {}, "limit", "positive"),
    ("sessions_list", {}, "activeMinutes", "positive"),
    ("sessions_list", {}, "messageLimit", "non-negative"),
    ("sessions_list", {}, "offset", "non-negative"),
    ("sessions_history", {"sessionKey": "main"}, "limit", "positive"),
    ("sessions_history", {"sessionKey": "main"}, "offset", "non-negative"),
    ("sessions_search", {"query": "fox"}, "limit", "positive"),
    ("subagents", {}, "recentMinutes", "positive"),
    ("sessions_send", {"sessionKey": "main", "message": "hi"}, "timeoutSeconds", "non-negative"),
    ("sessions_spawn", {"task": "hi"}, "runTimeoutSeconds", "non-negative"),
]


@pytest.mark.parametrize("case", sorted(ANSWERS))
def test_the_tools_read_integers_as_the_gateway_does(case):
    answer = ANSWERS[case]
    args = json.loads(answer["args"])  # `1e400` is Infinity, as in JavaScript
    model = TOOLS[answer["tool"]].arguments
    if answer["status"] == 400:
        with pytest.raises(ToolInputError) as refused:
            model.model_validate(args)
        assert str(refused.value) == answer["error"]
        return
    assert answer["status"] == 200
    parsed = model.model_validate(args)
    if "limitApplied" in answer:
        assert parsed.model_dump()["limit"] == answer["limitApplied"]


@pytest.fixture
def cli_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("SESSIONS_TUI_HOME", raising=False)
    monkeypatch.delenv("SESSIONS_TUI_CONFIG", raising=False)
    state = tmp_path / "state"
    engine = Engine(state)
    add_session(engine, "agent:main:discord:group:dev", [{"role": "user", "content": "hello"}])
    engine.close()
    return state


def _args(base: dict[str, Any], name: str, value_json: str) -> str:
    return json.dumps(base)[:-1] + (", " if base else "") + f'"{name}": {value_json}' + "}"


@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("tool, base, name, _", NUMBERS, ids=[f"{t}.{n}" for t, _, n, _ in NUMBERS])
def test_the_tool_command_refuses_nan_and_infinity_as_not_json(cli_state, capsys, tool, base, name, _, word):
    assert main(["--state", str(cli_state), "tool", tool, _args(base, name, word)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"sessions-tui: ARGS_JSON: invalid JSON: {word} is not a JSON number\n"


@pytest.mark.parametrize("value", ['"x"', "true", "[]", "{}", "[3]", "2.5", "-1", "1e400"])
@pytest.mark.parametrize("tool, base, name, words", NUMBERS, ids=[f"{t}.{n}" for t, _, n, _ in NUMBERS])
def test_the_tool_command_refuses_a_wrong_type_with_the_tools_error(cli_state, capsys, tool, base, name, words, value):
    assert main(["--state", str(cli_state), "tool", tool, _args(base, name, value)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"sessions-tui: {name} must be a {words} integer\n"


def test_a_string_of_an_integer_is_taken_as_the_gateway_takes_it(cli_state, capsys):
    assert main(["--state", str(cli_state), "tool", "sessions_list", '{"limit": " 1e0 ", "messageLimit": "1"}']) == 0
    row = json.loads(capsys.readouterr().out)["sessions"][0]
    assert [m["content"] for m in row["messages"]] == ["hello"]


@pytest.mark.parametrize("value", ["-5", "-0.5", "inf", "-inf", "nan", "2.5"])
def test_send_refuses_a_timeout_that_is_no_whole_number_of_seconds(cli_state, capsys, value):
    group = "agent:main:discord:group:dev"
    assert main(["--state", str(cli_state), "send", group, "hi", f"--timeout={value}"]) == 2
    captured = capsys.readouterr()
    shown = f"{float(value):g}"
    assert captured.out == ""
    assert captured.err == f"sessions-tui: --timeout: must be a whole number of seconds, 0 or more, not {shown}\n"
    engine = Engine(cli_state)
    try:
        assert engine.store.transcripts.history(group).total == 1  # nothing sent
    finally:
        engine.close()


@pytest.mark.parametrize("value", ["1e20", "1e300", "9007199254740992"])
def test_send_refuses_a_timeout_past_the_largest_the_tool_takes_saying_so(cli_state, capsys, value):
    assert main(["--state", str(cli_state), "send", "agent:main:discord:group:dev", "hi", f"--timeout={value}"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "sessions-tui: --timeout: at most 9007199254740991 seconds (the largest the tool takes), "
        f"not {float(value):g}\n"
    )


@pytest.mark.parametrize("value", ["0", "-1", "5001", "99999999999999999999999"])
def test_sends_refuses_a_limit_out_of_its_bounds_in_one_line(cli_state, capsys, value):
    assert main(["--state", str(cli_state), "sends", "--limit", value]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"sessions-tui: --limit: between 1 and 5000, not {value}\n"
