"""A `sessions-tui tool` call loads only what it uses: the requirement is a fast start, and these
checks name what must stay out of its way (the timing itself is bench/startup_bench.py)."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
from pathlib import Path

from sessions_tui.engine.config import Config, defaults_of, parse_config
from sessions_tui.engine.config.model.base import ConfigModel

_TOOL_CALL = """
import json, sys
from sessions_tui.cli import main
from sessions_tui.engine.config import Config
code = main(["--state", sys.argv[1], "tool", sys.argv[2]])
print(json.dumps({
    "code": code,
    "modules": sorted(sys.modules),
    "config_validator_built": Config.__pydantic_complete__,
}))
"""


def _tool_call(state: Path, tool: str = "agents_list") -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", _TOOL_CALL, str(state), tool], capture_output=True, text=True, timeout=60, check=True
    )
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _loaded(modules: object, unwanted: tuple[str, ...]) -> list[str]:
    """The modules of `modules` (a call's loaded modules) that are, or are under, one of `unwanted`."""
    assert isinstance(modules, list)
    return [m for m in modules if any(m == u or m.startswith(u + ".") for u in unwanted)]


def test_a_tool_call_loads_neither_the_dashboard_nor_http_nor_openclaw(tmp_path: Path) -> None:
    result = _tool_call(tmp_path)
    assert result["code"] == 0
    modules = result["modules"]
    assert isinstance(modules, list)
    unwanted = (
        "textual",
        "httpx",
        "json5",
        "sessions_tui.engine.openclaw",
        "sessions_tui.tools.reading.browse",
        "sessions_tui.ui",
        "sessions_tui.backend.gateway",  # the gateway's WebSocket client, with websockets and cryptography
        "websockets",
        "cryptography",
    )
    assert _loaded(modules, unwanted) == []
    assert "sessions_tui.tools.calling.registry" in modules  # the call did run through the tools


def test_a_tool_call_loads_its_own_command_alone(tmp_path: Path) -> None:
    """The handler table loads a command's module only when it runs: a `tool` call loads no other
    command's module, and not the HTTP server `serve` runs."""
    modules = _tool_call(tmp_path)["modules"]
    assert isinstance(modules, list)
    assert [m for m in modules if m.startswith("sessions_tui.cli.commands.")] == ["sessions_tui.cli.commands.tool"]
    serving = ("sessions_tui.server", "uvicorn", "starlette")
    assert _loaded(modules, serving) == []


def test_every_command_has_a_handler_that_runs_it() -> None:
    """Each subcommand the parser declares (and the dashboard, no command) has a module in the
    handler table, and each of those modules has a `run`."""
    from sessions_tui.cli import HANDLERS, handler
    from sessions_tui.cli.parser import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(HANDLERS) == {None, *commands.choices}
    assert all(callable(handler(command)) for command in HANDLERS)


def test_no_config_file_builds_no_config_validator(tmp_path: Path) -> None:
    assert _tool_call(tmp_path)["config_validator_built"] is False


def _sections(model: ConfigModel) -> list[ConfigModel]:
    found = [model]
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, ConfigModel):
            found += _sections(value)
    return found


def test_defaults_without_validation_are_the_validated_defaults() -> None:
    built = defaults_of(Config)
    validated = Config()
    assert built == validated
    assert built.model_dump(by_alias=True) == validated.model_dump(by_alias=True)
    assert [type(s) for s in _sections(built)] == [type(s) for s in _sections(validated)]
    assert all(not s.model_fields_set for s in _sections(built))  # nothing counts as written in a file
    parsed, warnings = parse_config({})
    assert parsed == built and warnings == []


def test_every_backend_name_loads_from_the_module_that_lists_it() -> None:
    """The seam's public modules each list what they export; every name loads from its module, and
    none is listed by two of them (the vocabulary the seam carries is listed once)."""
    import types

    import sessions_tui.backend as backend

    own = [n for n, v in vars(backend).items() if not n.startswith("__") and not isinstance(v, types.ModuleType)]
    assert own == []  # the root exports nothing but its submodules
    listed: dict[str, str] = {}
    root = Path(backend.__file__).parent
    for path in sorted(root.rglob("*.py")):
        dotted = ".".join(path.relative_to(root).with_suffix("").parts)
        module = importlib.import_module(f"sessions_tui.backend.{dotted}")
        for name in getattr(module, "__all__", []):
            assert getattr(module, name) is not None
            assert name not in listed, f"{name}: listed by {listed.get(name)} and {dotted}"
            listed[name] = dotted
    assert len(listed) > 60


def test_a_read_only_tool_call_loads_nothing_that_runs_sends_or_picks_up(tmp_path: Path) -> None:
    """In a state directory with nothing left to pick up, a tool that reads builds none of the
    engine's running parts: no runs, outbox, sends, sub-agents or run controls, none of their
    tables, and not what finds the everyday state directory when `--state` names one."""
    modules = _tool_call(tmp_path)["modules"]
    assert isinstance(modules, list)
    unwanted = (
        "sessions_tui.engine.runs.runs",
        "sessions_tui.engine.runs.recovery",
        "sessions_tui.engine.runs.turns",
        "sessions_tui.engine.messaging.outbox",
        "sessions_tui.engine.messaging.send_service",
        "sessions_tui.engine.messaging.a2a",
        "sessions_tui.engine.messaging.announce_route",
        "sessions_tui.engine.messaging.commands",
        "sessions_tui.engine.subagents",
        "sessions_tui.engine.llm.registry",
        "sessions_tui.engine.store.tables.runs",
        "sessions_tui.engine.store.tables.run_controls",
        "sessions_tui.engine.store.tables.registry",
        "sessions_tui.engine.store.tables.outbox",
        "sessions_tui.engine.store.tables.audit",
        "sessions_tui.engine.store.tables.ledger",
        "platformdirs",
    )
    assert _loaded(modules, unwanted) == []


def test_listing_sessions_loads_no_transcripts_imports_or_hooks(tmp_path: Path) -> None:
    """`sessions_list` (no messages asked for) reads the session index alone: the transcripts' and
    OpenClaw imports' tables, the hooks' part of the seam's vocabulary, and the row's model (the
    rows are built as the dicts it declares), stay unloaded."""
    result = _tool_call(tmp_path, "sessions_list")
    assert result["code"] == 0
    modules = result["modules"]
    assert isinstance(modules, list)
    unwanted = (
        "sessions_tui.engine.store.tables.transcripts",
        "sessions_tui.engine.store.tables.imports",
        "sessions_tui.engine.store.tables.follows",
        "sessions_tui.engine.hooks",
        "sessions_tui.engine.session_operations",
        "sessions_tui.tools.reading.session_row",
        "sessions_tui.engine.redaction.js_patterns",  # a config's own redaction patterns' translation
        "difflib",  # the command line's suggestions for a mistyped word
        "sessions_tui.backend.contract.protocols",  # the seam's protocols: the type checker's
    )
    assert _loaded(modules, unwanted) == []
    assert "sessions_tui.tools.reading.sessions_list" in modules


def test_the_store_says_whether_anything_is_left_to_pick_up(tmp_path: Path) -> None:
    """`Store.left_to_pick_up`, start-up's one read: nothing in a new store; a run left queued, a
    pending delivery, or an unanswered run control is something."""
    from sessions_tui.engine.store.store import Store
    from sessions_tui.engine.store.tables.runs import RunRecord

    for left in ("run", "delivery", "control"):
        store = Store(tmp_path / left)
        try:
            assert store.left_to_pick_up(0) is False
            if left == "run":
                store.runs.insert_run(RunRecord(run_id="r1", session_key="agent:main:main", pid=1), {})
            elif left == "delivery":
                store.outbox.insert_delivery(
                    created_at=0,
                    kind="announce",
                    session_key="agent:main:main",
                    channel="x",
                    target=None,
                    account_id=None,
                    thread_id=None,
                    message="hi",
                    state="pending",
                    data={},
                    idempotency_key="k1",
                    lease_owner=None,
                    lease_until=None,
                )
            else:
                store.run_controls.add_run_control("r1", "kill", None, 1)
            assert store.left_to_pick_up(0) is True
        finally:
            store.close()


def test_the_dashboard_on_gateways_loads_no_local_engine() -> None:
    """The command line and a gateway's backend load no engine of their own: no `Engine`, no store
    (the dashboard on gateways opens none), no send ledger."""
    code = (
        "import sys, json\n"
        "import sessions_tui.cli.parser, sessions_tui.cli.arguments, sessions_tui.cli.errors\n"
        "import sessions_tui.cli.commands.dashboard, sessions_tui.backend.gateway.live\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    unwanted = (
        "sessions_tui.engine.engine",
        "sessions_tui.engine.store.store",
        "sessions_tui.engine.messaging.ledger",
        "sessions_tui.backend.local.backend",
        "sessions_tui.backend.local.opening",
    )
    assert _loaded(json.loads(proc.stdout), unwanted) == []
