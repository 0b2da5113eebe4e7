"""`sessions-tui serve` answers each recorded request as the real OpenClaw 2026.9.6 gateway did.

The requests are tests/http_cases.py's; the gateway's answers were recorded from two gateways on
the OpenClaw fixture (scripts/record_http_answers.py). Our server runs on the same sessions,
imported from that fixture, with the same `gateway.tools` per profile.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from http_cases import ANSWERS, CASES, PROFILES, Case, compared, send
from server_support import TOKEN, local_backend, served

RECORDED = json.loads(ANSWERS.read_text())


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    urls: dict[str, str] = {}
    stack = []
    try:
        for profile, tools in PROFILES.items():
            state = tmp_path_factory.mktemp(profile) / "state"
            backend = local_backend(state, {"gateway": {"tools": tools}}, seed=True)
            context = served(backend, allow=tuple(tools.get("allow", ())), deny=tuple(tools.get("deny", ())))
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
    with httpx.Client(base_url=servers[case.profile], timeout=30) as client:
        ours = send(client, case, TOKEN)
    theirs = RECORDED[case.name]
    assert [compared(case, a) for a in ours] == [compared(case, a) for a in theirs]
