"""The tool registry: every tool by name, each loaded only when it is looked up."""

from __future__ import annotations

import subprocess
import sys

import pytest

from sessions_tui.tools.calling.base import ToolSpec
from sessions_tui.tools.calling.host import SESSION_TOOLS
from sessions_tui.tools.calling.registry import TOOLS


def test_every_name_gives_the_spec_of_that_name():
    assert list(TOOLS) == list(SESSION_TOOLS)  # the order agents are offered them in
    for name, spec in TOOLS.items():
        assert isinstance(spec, ToolSpec)
        assert spec.name == name
    assert "no_such_tool" not in TOOLS
    assert TOOLS.get("no_such_tool") is None


def test_a_tool_call_loads_that_tool_alone(tmp_path):
    """`sessions-tui tool agents_list` imports no other tool's module, and builds no other tool's schema."""
    code = (
        "import sys\n"
        "from sessions_tui.cli import main\n"
        f"code = main(['--state', {str(tmp_path / 'state')!r}, 'tool', 'agents_list'])\n"
        "tools = sorted(m for m in sys.modules if m.startswith('sessions_tui.tools.') and m.split('.')[-1] in "
        "('sessions_list', 'sessions_history', 'sessions_search', 'sessions_send', 'sessions_spawn', 'subagents', "
        "'agents_list'))\n"
        "print(code, ','.join(tools), file=sys.stderr)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert '"agents"' in proc.stdout
    assert proc.stderr.strip().splitlines()[-1] == "0 sessions_tui.tools.reading.agents_list"


def test_the_tool_help_still_lists_every_tool(capsys):
    from sessions_tui.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["tool", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    for name in TOOLS:
        assert f"e.g. sessions-tui tool {name}" in out
