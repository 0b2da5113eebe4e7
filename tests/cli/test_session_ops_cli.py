"""`sessions-tui session new|reset|rename|model|archive|unarchive|delete` and `send main` on a fresh
state directory: one line each (or `--json`), exit 2 for bad input, 1 for a refusal."""

from __future__ import annotations

import json

from cli_support import cli
from conftest import FAST_DEMO
from server_support import local_backend

GROUP = "agent:main:discord:group:ops"


def _fresh(tmp_path):
    state = tmp_path / "s"
    local_backend(state, FAST_DEMO).close()  # its config.json5: the demo model without latency
    return state


def test_send_main_on_a_fresh_state_creates_it(tmp_path):
    state = _fresh(tmp_path)
    done = cli("send", "main", "hello", state=state)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("→ main") and "\nok · replied" in done.stdout
    listed = json.loads(cli("tool", "sessions_list", "{}", state=state).stdout)
    assert [s["key"] for s in listed["sessions"]] == ["main"]
