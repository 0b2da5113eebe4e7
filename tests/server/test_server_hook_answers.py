"""`sessions-tui serve` answers each recorded hook request as the real OpenClaw 2026.9.6 gateway did.

The requests are tests/hook_cases.py's; the gateway's answers were recorded from two gateways,
one per hooks profile (scripts/record_hook_answers.py). Our server runs with the same `agents` and
`hooks` sections per profile, on the demo model (the gateway had none: its runs ended in error,
so what a run says is not compared, only that one was admitted and what its completion holds).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from hook_cases import AGENTS, ANSWERS, CASES, PROFILES, Case, compared, send
from server_support import local_backend, served
from sessions_tui.cli.commands.serve import hook_settings

RECORDED = json.loads(ANSWERS.read_text())


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    urls: dict[str, str] = {}
    stack = []
    try:
        for profile, hooks in PROFILES.items():
            state = tmp_path_factory.mktemp(profile) / "state"
            backend = local_backend(state, {"agents": AGENTS, "hooks": hooks})
            context = served(backend, hooks=hook_settings(backend))
            urls[profile] = context.__enter__()
            stack.append(context)
        yield urls
    finally:
        for context in reversed(stack):
            context.__exit__(None, None, None)


def test_every_case_was_recorded():
    assert set(RECORDED) == {case.name for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_answers_as_the_gateway(servers: dict[str, str], case: Case) -> None:
    with httpx.Client(base_url=servers[case.profile], timeout=60) as client:
        ours = send(client, case)
    assert compared(case, ours) == compared(case, RECORDED[case.name])
