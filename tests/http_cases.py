"""The requests `POST /tools/invoke` must answer as OpenClaw's gateway does, and how to send them.

`scripts/record_http_answers.py` sends each case to a real gateway and records what it answered
in `fixtures/openclaw-2026.9.6/http_answers.json`; `test_server_gateway_answers.py` sends the same
cases to `sessions-tui serve` and compares. A case names the config profile it needs: `default`
(no `gateway.tools`), or `allow` (`PROFILES["allow"]`, the gateway's `gateway.tools` section).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx

ANSWERS = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6" / "http_answers.json"

PROFILES: dict[str, dict[str, Any]] = {
    "default": {},
    "allow": {"allow": ["sessions_send", "sessions_spawn"], "deny": ["sessions_spawn", "agents_list"]},
}
"""Profile -> the `gateway.tools` section it runs with."""

BIG = 3 * 1024 * 1024
"""A body over the 2 MB limit."""

JUST_UNDER = 2 * 1024 * 1024 - 100


def _padded(size: int) -> bytes:
    return json.dumps({"tool": "agents_list", "args": {"pad": "a" * size}}).encode()


@dataclass(frozen=True)
class Case:
    """One request. `compare`: what of the answer must be the gateway's — `all` (status, the
    headers in `HEADERS`, the body), `error_type` (status and `error.type`: the message is the
    JSON parser's own words), `ok` (status and `ok`: the result is the data's)."""

    name: str
    method: str = "POST"
    path: str = "/tools/invoke"
    body: bytes | None = None
    auth: Literal["token", "wrong", "lower", "none"] = "token"
    content_type: str | None = "application/json"
    profile: str = "default"
    compare: Literal["all", "error_type", "ok"] = "all"
    repeat: int = 1
    notes: str = ""
    headers: dict[str, str] = field(default_factory=dict)


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


CASES: tuple[Case, ...] = (
    Case("no_auth", body=_json({"tool": "agents_list"}), auth="none"),
    Case("wrong_token", body=_json({"tool": "agents_list"}), auth="wrong"),
    Case(
        "wrong_token_20_times",
        body=_json({"tool": "agents_list"}),
        auth="wrong",
        repeat=20,
        notes="loopback: never rate-limited",
    ),
    Case("lowercase_bearer", body=_json({"tool": "agents_list"}), auth="lower", compare="ok"),
    Case("get", method="GET", body=None),
    Case("head", method="HEAD", body=None),
    Case("options", method="OPTIONS", body=None),
    Case("put", method="PUT", body=_json({"tool": "agents_list"})),
    Case("get_no_auth", method="GET", body=None, auth="none"),
    Case("bad_json", body=b'{"tool":', compare="error_type"),
    Case("not_utf8", body=b'{"tool":"\xff"}', compare="error_type"),
    Case("no_tool", body=_json({"args": {}})),
    Case("tool_number", body=_json({"tool": 123})),
    Case("tool_empty", body=_json({"tool": ""})),
    Case("body_array", body=_json([1])),
    Case("body_null", body=b"null"),
    Case("empty_body", body=b""),
    Case("name_field", body=_json({"name": "agents_list"}), compare="ok"),
    Case("args_string", body=_json({"tool": "agents_list", "args": "x"}), compare="ok"),
    Case("args_array", body=_json({"tool": "agents_list", "args": [1]}), compare="ok"),
    Case("no_content_type", body=_json({"tool": "agents_list"}), content_type=None, compare="ok"),
    Case("session_key_number", body=_json({"tool": "agents_list", "sessionKey": 5}), compare="ok"),
    Case("dry_run", body=_json({"tool": "sessions_list", "args": {"limit": 1}, "dryRun": True}), compare="ok"),
    Case("query_string", path="/tools/invoke?x=1", body=_json({"tool": "agents_list"}), compare="ok"),
    Case("trailing_slash", path="/tools/invoke/", body=_json({"tool": "agents_list"})),
    Case("unknown_tool", body=_json({"tool": "nope"})),
    Case("send_denied", body=_json({"tool": "sessions_send", "args": {"sessionKey": "main", "message": "x"}})),
    Case("spawn_denied", body=_json({"tool": "sessions_spawn", "args": {"task": "x"}})),
    Case("history_without_key", body=_json({"tool": "sessions_history", "args": {}})),
    Case("too_large", body=_padded(BIG)),
    Case("too_large_no_auth", body=_padded(BIG), auth="none"),
    Case("just_under_limit", body=_padded(JUST_UNDER), compare="ok"),
    Case("health", method="GET", path="/health", auth="none", body=None),
    Case("readyz", method="GET", path="/readyz", auth="none", body=None, compare="ok"),
    Case(
        "send_allowed",
        profile="allow",
        body=_json(
            {
                "tool": "sessions_send",
                "args": {"sessionKey": "agent:main:cron:job1", "message": "hi", "timeoutSeconds": 0},
            }
        ),
        compare="ok",
    ),
    Case("send_allowed_bad_args", profile="allow", body=_json({"tool": "sessions_send", "args": {}})),
    Case("spawn_allowed_and_denied", profile="allow", body=_json({"tool": "sessions_spawn", "args": {"task": "x"}})),
    Case("agents_list_denied", profile="allow", body=_json({"tool": "agents_list"})),
)

HEADERS = ("allow", "retry-after")
"""Headers whose value must be the gateway's."""


def request_headers(case: Case, token: str) -> dict[str, str]:
    headers = dict(case.headers)
    if case.content_type is not None:
        headers["content-type"] = case.content_type
    if case.auth == "token":
        headers["authorization"] = f"Bearer {token}"
    elif case.auth == "lower":
        headers["authorization"] = f"bearer {token}"
    elif case.auth == "wrong":
        headers["authorization"] = "Bearer not-the-token"
    return headers


def answer_of(response: httpx.Response) -> dict[str, Any]:
    """What is compared of a response: status, the chosen headers, the body (JSON when it is)."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    media = response.headers.get("content-type", "").split(";")[0].strip()
    return {
        "status": response.status_code,
        "headers": {name: response.headers[name] for name in HEADERS if name in response.headers},
        "media": media,
        "body": body,
    }


def send(client: httpx.Client, case: Case, token: str) -> list[dict[str, Any]]:
    """The answers to `case`, `repeat` times."""
    answers = []
    for _ in range(case.repeat):
        response = client.request(case.method, case.path, content=case.body, headers=request_headers(case, token))
        answers.append(answer_of(response))
    return answers


def compared(case: Case, answer: dict[str, Any]) -> dict[str, Any]:
    """The part of an answer that must match the gateway's."""
    body = answer["body"]
    if case.compare == "ok":
        return {"status": answer["status"], "ok": body.get("ok", body.get("ready")) if isinstance(body, dict) else body}
    if case.compare == "error_type":
        error = body.get("error") if isinstance(body, dict) else None
        return {"status": answer["status"], "type": error.get("type") if isinstance(error, dict) else None}
    return {key: answer[key] for key in ("status", "headers", "media", "body")}
