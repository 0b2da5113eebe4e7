"""`explain` says what the tools do: for a grid of requesters, targets and configs its verdict on
list, history, send and spawn is what calling the tool does (forbidden or not), and it names the
deciding rule."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest

from conftest import FAST_DEMO, add_session
from openclaw_fake import copy_fixture
from scenes import merge
from sessions_tui.cli import main
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.openclaw.importer import import_openclaw
from sessions_tui.tools.calling.base import ToolCall, ToolInputError
from sessions_tui.tools.calling.registry import invoke
from sessions_tui.tools.requester.explain import Explanation, explain_access

MAIN = "agent:main:main"
CHILD = "agent:main:subagent:c1"
OPS = "agent:ops:main"
TARGETS = [
    MAIN,
    "agent:main:discord:group:dev",
    "agent:main:whatsapp:group:family",
    "agent:main:telegram:direct:off",  # the owner said /send off
    "agent:main:slack:direct:on",  # the owner said /send on
    CHILD,
    OPS,
    "agent:ops:discord:group:ops",
]
REQUESTERS = [(MAIN, False), (MAIN, True), (CHILD, False), (CHILD, True), (OPS, False), (OPS, True)]
SEND_POLICY = {
    "rules": [
        {"action": "deny", "match": {"channel": "whatsapp", "chatType": "group"}},
        {"action": "allow", "match": {"keyPrefix": "agent:main:slack"}},
    ]
}


def configs() -> list[tuple[str, dict[str, Any]]]:
    """Visibility levels × agent-to-agent off, on, an allow list; then send policy, sandbox and spawn variants."""
    a2a_variants: list[dict[str, Any]] = [{"enabled": False}, {"enabled": True}, {"enabled": True, "allow": ["main"]}]
    grid = [
        (
            f"{vis}-a2a{i}",
            {"tools": {"sessions": {"visibility": vis}, "agentToAgent": a2a}, "session": {"sendPolicy": SEND_POLICY}},
        )
        for vis, (i, a2a) in itertools.product(["self", "tree", "agent", "all"], enumerate(a2a_variants))
    ]
    every = {"tools": {"sessions": {"visibility": "all"}, "agentToAgent": {"enabled": True}}}
    grid += [
        ("default-deny", merge(every, {"session": {"sendPolicy": {**SEND_POLICY, "default": "deny"}}})),
        (
            "sandbox-non-main",
            merge(every, {"agents": {"defaults": {"sandbox": {"sessionToolsVisibility": "all", "mode": "non-main"}}}}),
        ),
        (
            "allow-ops",
            merge(every, {"agents": {"defaults": {"subagents": {"allowAgents": ["ops"], "maxChildrenPerAgent": 1}}}}),
        ),
        (
            "require-agent-id",
            merge(every, {"agents": {"defaults": {"subagents": {"allowAgents": ["*"], "requireAgentId": True}}}}),
        ),
        (
            "depth-2",
            merge(every, {"agents": {"defaults": {"subagents": {"maxSpawnDepth": 2}}, "list": [{"id": "ops"}]}}),
        ),
    ]
    return grid


def stage(engine: Engine) -> None:
    entries: dict[str, dict[str, Any]] = {
        CHILD: {"spawnedBy": MAIN, "spawnDepth": 1},
        "agent:main:telegram:direct:off": {"sendPolicy": "deny"},
        "agent:main:slack:direct:on": {"sendPolicy": "allow"},
    }
    for key in TARGETS:
        add_session(engine, key, **entries.get(key, {}))


async def tool_says(call: ToolCall, action: str, target: str, agent: str | None) -> bool:
    """Whether calling the tool is let through (not `forbidden`)."""
    engine = call.engine
    if action == "list":
        result = await invoke(call, "sessions_list", {"limit": 200})
        agent_id = engine.canonical(call.agent_session_key or MAIN).split(":")[1]
        return target in {engine.canonical(row["key"], agent_id) for row in result["sessions"]}
    if action == "history":
        result = await invoke(call, "sessions_history", {"sessionKey": target})
    elif action == "send":
        result = await invoke(call, "sessions_send", {"sessionKey": target, "message": "hi", "timeoutSeconds": 0})
    else:
        result = await invoke(call, "sessions_spawn", {"task": "t", **({"agentId": agent} if agent else {})})
    assert result.get("status") in ("forbidden", "ok", "accepted", None), result
    return result.get("status") != "forbidden"


def spawn_argument(explanation: Explanation) -> str | None:
    return explanation.spawn_agent if explanation.spawn_agent_named else None


@pytest.mark.parametrize(("name", "config"), configs(), ids=[name for name, _ in configs()])
def test_explain_agrees_with_the_tools(make_engine, name, config):
    engine = make_engine(merge(FAST_DEMO, config))
    stage(engine)
    rules: set[tuple[str, bool, str]] = set()

    async def grid() -> None:
        for (requester, sandboxed), target, agent in itertools.product(REQUESTERS, TARGETS, [None, "ops", "main"]):
            call = ToolCall(engine=engine, agent_session_key=requester, sandboxed=sandboxed)
            for action in ("list", "history", "send", "spawn"):
                explanation = explain_access(call, target, agent)  # just before the tool: no await between
                verdict = explanation.verdict(action)  # type: ignore[arg-type]
                allowed = await tool_says(call, action, target, spawn_argument(explanation))
                where = f"{requester} sandboxed={sandboxed} → {target} agent={agent}: {action}"
                assert verdict.allowed == allowed, f"{where}: explain says {verdict}"
                rules.add((action, verdict.allowed, verdict.rule))
        await engine.drain()

    asyncio.run(grid())
    assert rules  # every cell compared


def test_the_grid_reaches_every_rule(make_engine):
    """The rules the grid above compares, so a rule it never reaches is noticed."""
    seen: set[str] = set()
    for _, config in configs():
        engine = make_engine(merge(FAST_DEMO, config))
        stage(engine)
        for (requester, sandboxed), target in itertools.product(REQUESTERS, TARGETS):
            call = ToolCall(engine=engine, agent_session_key=requester, sandboxed=sandboxed)
            for agent in (None, "ops"):
                seen |= {f"{v.rule}:{v.allowed}" for v in explain_access(call, target, agent).verdicts}
    expected = {
        "visibility:False",
        "visibility:True",
        "sandbox:False",
        "agentToAgent.enabled:False",
        "agentToAgent.allow:False",
        "agentToAgent.allow:True",
        "sendPolicy:False",
        "sendPolicy:True",
        "sendPolicy.override:False",
        "sendPolicy.override:True",
        "allowAgents:False",
        "allowAgents:True",
        "maxSpawnDepth:False",
        "requireAgentId:False",
    }
    assert expected <= seen, expected - seen


def test_a_send_policy_rule_is_named_with_its_match(make_engine):
    engine = make_engine({"session": {"sendPolicy": SEND_POLICY}})
    stage(engine)
    send = explain_access(ToolCall(engine=engine), "agent:main:whatsapp:group:family").verdict("send")
    assert (send.allowed, send.rule) == (False, "sendPolicy")
    assert send.why == "send policy rule 1 (channel=whatsapp, chatType=group): deny"
    assert send.error == "send blocked by session policy: rule 1 (channel=whatsapp, chatType=group)"
    override = explain_access(ToolCall(engine=engine), "agent:main:telegram:direct:off").verdict("send")
    assert override.why == "the session's override (/send off): deny"


def test_a_full_children_cap_is_the_deciding_rule(make_engine):
    engine = make_engine(merge(FAST_DEMO, {"agents": {"defaults": {"subagents": {"maxChildrenPerAgent": 1}}}}))
    stage(engine)

    async def go() -> None:
        call = ToolCall(engine=engine)
        assert explain_access(call, MAIN).verdict("spawn").allowed
        assert (await invoke(call, "sessions_spawn", {"task": "t"}))["status"] == "accepted"
        spawn = explain_access(call, MAIN).verdict("spawn")
        assert (spawn.allowed, spawn.rule) == (False, "maxChildrenPerAgent")
        assert (await invoke(call, "sessions_spawn", {"task": "t"}))["error"] == spawn.error
        await engine.drain()

    asyncio.run(go())


def test_an_openclaw_session_without_a_gateway_is_the_deciding_rule(make_engine, tmp_path: Path):
    root = copy_fixture(tmp_path / "openclaw", "sqlite-state")
    engine = make_engine({"tools": {"agentToAgent": {"enabled": True}}})
    import_openclaw(engine.store, engine.canonical, root)
    group = "agent:main:discord:group:123"
    call = ToolCall(engine=engine)
    send = explain_access(call, group).verdict("send")
    assert (send.allowed, send.rule) == (False, "openclaw")
    result = asyncio.run(invoke(call, "sessions_send", {"sessionKey": group, "message": "hi", "timeoutSeconds": 0}))
    assert result["status"] == "forbidden" and result["error"] == send.error


def test_a_key_that_names_no_session_or_a_bad_agent_is_bad_input(make_engine):
    engine = make_engine()
    stage(engine)
    call = ToolCall(engine=engine)
    for target, agent in [("agent:main:nosuch", None), ("not a key", None), (MAIN, "Bad Agent!")]:
        with pytest.raises(ToolInputError):
            explain_access(call, target, agent)


def run_cli(tmp_path: Path, *args: str) -> int:
    return main(["explain", "--state", str(tmp_path / "state"), *args])


def test_the_command_prints_one_line_per_action_and_exits_0(make_engine, tmp_path, capsys):
    config = tmp_path / "config.json5"
    config.write_text('{session: {sendPolicy: {rules: [{action: "deny", match: {channel: "whatsapp"}}]}}}')
    engine = make_engine(None, tmp_path / "state")
    stage(engine)
    engine.close()
    assert run_cli(tmp_path, "--config", str(config), "main", "agent:main:whatsapp:group:family") == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[1:5]] == ["list", "history", "send", "spawn"]
    assert lines[3] == "send     no   send policy rule 1 (channel=whatsapp): deny"
    assert run_cli(tmp_path, "--config", str(config), "main", MAIN, "--json") == 0
    explanation = Explanation.model_validate_json(capsys.readouterr().out)
    assert explanation.requester == MAIN and all(v.allowed for v in explanation.verdicts)


@pytest.mark.parametrize(
    "args", [["main", "agent:main:nosuch"], ["not a key", MAIN], ["main", MAIN, "--agent", "Bad Agent!"]]
)
def test_the_command_exits_2_on_bad_input(make_engine, tmp_path, capsys, args):
    engine = make_engine(None, tmp_path / "state")
    stage(engine)
    engine.close()
    assert run_cli(tmp_path, *args) == 2
    assert capsys.readouterr().err.startswith("sessions-tui: ")
