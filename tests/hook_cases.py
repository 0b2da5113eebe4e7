"""The requests `POST /hooks/agent` and `/hooks/wake` must answer as OpenClaw's gateway does, and how to send them.

`scripts/record_hook_answers.py` sends each case to a real gateway and records what it answered in
`fixtures/openclaw-2026.9.6/hook_answers.json`; `tests/server/test_server_hook_answers.py` sends
the same cases to `sessions-tui serve` and compares. A case names its config profile (`PROFILES`):
`open` (request keys allowed, prefixes `hook:` and `ops:`) or `closed` (no request keys, only agent
`main` allowed); both configure agents `main` and `ops` and no delivery channel. Within a profile
the cases run in order: the last one locks the client out (the throttle).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx

ANSWERS = Path(__file__).parent / "fixtures" / "openclaw-2026.9.6" / "hook_answers.json"
HOOK_TOKEN = "hook-token-9c1e"

AGENTS = {"list": [{"id": "main"}, {"id": "ops"}]}
PROFILES: dict[str, dict[str, Any]] = {
    "open": {
        "enabled": True,
        "token": HOOK_TOKEN,
        "path": "/hooks",
        "allowRequestSessionKey": True,
        "allowedSessionKeyPrefixes": ["hook:", "ops:"],
    },
    "closed": {"enabled": True, "token": HOOK_TOKEN, "path": "/hooks", "allowedAgentIds": ["main"]},
}
"""Profile -> its `hooks` section (the config also has `agents: AGENTS`)."""

Auth = Literal["bearer", "header", "lower", "wrong", "none", "wrong_bearer_good_header", "empty_bearer_good_header"]
Compare = Literal["all", "error_shape", "admitted", "replay", "statuses"]


@dataclass(frozen=True)
class Case:
    """One request, or several (`more`: further bodies, `auths`: one request per auth kind).
    `compare`: what of the answers must be the gateway's — `all` (status, `HEADERS`, media type,
    body), `error_shape` (status, media, `ok`: the message is the JSON parser's own words),
    `admitted` (status, `ok`, whether a `runId` came, the `completion`'s keys: the run is the
    model's), `replay` (statuses, and which answers have the first one's `runId`), `statuses`
    (status and `HEADERS` of each)."""

    name: str
    profile: str = "open"
    method: str = "POST"
    path: str = "/hooks/agent"
    body: bytes | None = b"{}"
    more: tuple[bytes, ...] = ()
    auth: Auth = "bearer"
    auths: tuple[Auth, ...] = ()
    headers: dict[str, str] = field(default_factory=dict)
    compare: Compare = "all"


def _j(value: Any) -> bytes:
    return json.dumps(value).encode()


HI = {"message": "Summarize: the nightly import completed.", "name": "Nightly", "deliver": False}


def _hi(**changes: Any) -> bytes:
    return _j({**HI, **changes})


CASES: tuple[Case, ...] = (
    # -- transport and auth, in the gateway's order
    Case("no_auth", body=_hi(), auth="none"),
    Case("wrong_token", body=_hi(), auth="wrong"),
    Case("x_openclaw_token", body=_hi(), auth="header", compare="admitted"),
    Case("lowercase_bearer", body=_hi(), auth="lower", compare="admitted"),
    Case("wrong_bearer_beats_good_header", body=_hi(), auth="wrong_bearer_good_header"),
    Case("empty_bearer_then_header", body=_hi(), auth="empty_bearer_good_header", compare="admitted"),
    Case("query_token", path="/hooks/agent?token=" + HOOK_TOKEN, body=_hi()),
    Case("query_token_no_auth", path="/hooks/agent?token=x", body=_hi(), auth="none"),
    Case("get", method="GET", body=None),
    Case("get_no_auth", method="GET", body=None, auth="none"),
    Case("put", method="PUT", body=_hi()),
    Case("base_path", path="/hooks", body=_hi()),
    Case("base_path_no_auth", path="/hooks", body=_hi(), auth="none"),
    Case("unknown_path", path="/hooks/github", body=_hi()),
    Case("trailing_slash", path="/hooks/agent/", body=_hi()),
    # -- the body
    Case("too_large", body=_hi(message="x" * (300 * 1024))),
    Case("too_large_no_auth", body=_hi(message="x" * (300 * 1024)), auth="none"),
    Case("just_under_limit", body=_hi(message="y" * (250 * 1024)), compare="admitted"),
    Case("bad_json", body=b'{"message":', compare="error_shape"),
    Case("empty_body", body=b""),
    Case("body_array", body=b"[1]"),
    Case("body_null", body=b"null"),
    Case("no_content_type", body=_hi(), headers={"content-type": ""}, compare="admitted"),
    # -- the agent payload
    Case("message_missing", body=_j({"name": "x"})),
    Case("message_blank", body=_hi(message="   ")),
    Case("message_number", body=_hi(message=5)),
    Case("wait_not_boolean", body=_hi(waitForCompletion="yes")),
    Case("agent_blank", body=_hi(agentId=" ")),
    Case("agent_number", body=_hi(agentId=5)),
    Case("agent_unknown", body=_hi(agentId="nobody")),
    Case("agent_invalid", body=_hi(agentId="Bad Agent!")),
    Case("agent_ops", body=_hi(agentId="ops"), compare="admitted"),
    Case("agent_upper", body=_hi(agentId="OPS"), compare="admitted"),
    Case("session_mode_bad", body=_hi(sessionMode="forever")),
    Case("channel_unknown", body=_j({"message": "x", "channel": "pigeon", "to": "a"})),
    Case("channel_last_alone", body=_j({"message": "x", "channel": "last"})),
    Case("channel_last_with_to", body=_j({"message": "x", "channel": "last", "to": "a"})),
    Case("to_alone", body=_j({"message": "x", "to": "someone"})),
    Case("to_blank", body=_j({"message": "x", "to": " "})),
    Case("account_blank", body=_j({"message": "x", "accountId": ""})),
    Case("account_alone", body=_j({"message": "x", "accountId": "a1"})),
    Case("deliver_false_ignores_destination", body=_hi(channel="pigeon", to=""), compare="admitted"),
    Case("model_blank", body=_hi(model=" ")),
    Case("model_given", body=_hi(model="demo/demo"), compare="admitted"),
    Case("timeout_ignored", body=_hi(timeoutSeconds=-3), compare="admitted"),
    Case("name_blank", body=_hi(name=" "), compare="admitted"),
    Case("wait_for_completion", body=_hi(waitForCompletion=True), compare="admitted"),
    # -- the session policy (open: request keys with prefixes hook: and ops:)
    Case("key_allowed", body=_hi(sessionKey="hook:ci:build-7"), compare="admitted"),
    Case("key_any_case", body=_hi(sessionKey="HOOK:CI"), compare="admitted"),
    Case("key_prefix_refused", body=_hi(sessionKey="other:x")),
    Case("key_agent_prefixed", body=_hi(sessionKey="agent:main:hook:x")),
    Case("key_number_is_none", body=_hi(sessionKey=5), compare="admitted"),
    Case("persistent_without_key", body=_hi(sessionMode="persistent")),
    Case("persistent_with_key", body=_hi(sessionMode="persistent", sessionKey="ops:thread"), compare="admitted"),
    # -- the replay rule
    Case(
        "replay_same_request",
        body=_hi(message="replay one"),
        more=(_hi(message="replay one"),),
        headers={"idempotency-key": "replay-1"},
        compare="replay",
    ),
    Case(
        "replay_changed_message",
        body=_hi(message="replay two"),
        more=(_hi(message="replay two, changed"),),
        headers={"idempotency-key": "replay-2"},
        compare="replay",
    ),
    Case(
        "replay_body_key",
        body=_hi(message="replay three", idempotencyKey="replay-3"),
        more=(_hi(message="replay three", idempotencyKey="replay-3"), _hi(message="replay three")),
        compare="replay",
    ),
    Case(
        "replay_openclaw_header",
        body=_hi(message="replay four"),
        more=(_hi(message="replay four"),),
        headers={"x-openclaw-idempotency-key": "replay-4"},
        compare="replay",
    ),
    Case(
        "replay_key_too_long",
        body=_hi(message="replay five", idempotencyKey="k" * 257),
        more=(_hi(message="replay five", idempotencyKey="k" * 257),),
        compare="replay",
    ),
    Case(
        "replay_then_wait",
        body=_hi(message="replay six"),
        more=(_hi(message="replay six", waitForCompletion=True),),
        headers={"idempotency-key": "replay-6"},
        compare="replay",
    ),
    # -- wake
    Case("wake", path="/hooks/wake", body=_j({"text": "The sample import completed"})),
    Case(
        "wake_later_twice",
        path="/hooks/wake",
        body=_j({"text": "later", "mode": "next-heartbeat"}),
        more=(_j({"text": "later", "mode": "next-heartbeat"}),),
    ),
    Case("wake_text_missing", path="/hooks/wake", body=_j({"mode": "now"})),
    Case("wake_key_blank", path="/hooks/wake", body=_j({"text": "t", "sessionKey": " "})),
    Case(
        "wake_key_later", path="/hooks/wake", body=_j({"text": "t", "mode": "next-heartbeat", "sessionKey": "hook:w"})
    ),
    Case("wake_agent_unknown", path="/hooks/wake", body=_j({"text": "t", "agentId": "nobody"})),
    Case("wake_key_prefix_refused", path="/hooks/wake", body=_j({"text": "t", "sessionKey": "other:w"})),
    # -- the closed profile: no request keys, agent main only
    Case("closed_ok", profile="closed", body=_hi(), compare="admitted"),
    Case("closed_key_refused", profile="closed", body=_hi(sessionKey="hook:x")),
    Case("closed_persistent_with_key", profile="closed", body=_hi(sessionMode="persistent", sessionKey="hook:x")),
    Case("closed_agent_not_allowed", profile="closed", body=_hi(agentId="ops")),
    Case(
        "closed_wake_key_refused",
        profile="closed",
        path="/hooks/wake",
        body=_j({"text": "t", "sessionKey": "hook:w"}),
    ),
    Case(
        "closed_throttle",
        profile="closed",
        body=_hi(message="throttle"),
        auths=("wrong",) * 19 + ("bearer",) + ("wrong",) * 21 + ("bearer",),
        compare="statuses",
    ),
)

HEADERS = ("allow", "retry-after")
"""Headers whose value must be the gateway's (and `connection` when it is `close`)."""


def request_headers(case: Case, auth: Auth) -> dict[str, str]:
    headers = {"content-type": "application/json", **case.headers}
    if not headers["content-type"]:
        del headers["content-type"]
    given = {
        "bearer": {"authorization": f"Bearer {HOOK_TOKEN}"},
        "lower": {"authorization": f"bearer {HOOK_TOKEN}"},
        "header": {"x-openclaw-token": HOOK_TOKEN},
        "wrong": {"authorization": "Bearer not-the-hook-token"},
        "none": {},
        "wrong_bearer_good_header": {"authorization": "Bearer nope", "x-openclaw-token": HOOK_TOKEN},
        "empty_bearer_good_header": {"authorization": "Bearer", "x-openclaw-token": HOOK_TOKEN},
    }[auth]
    return {**headers, **given}


def answer_of(response: httpx.Response) -> dict[str, Any]:
    """What is kept of a response: status, the chosen headers, media type, body (JSON when it is)."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    headers = {name: response.headers[name] for name in HEADERS if name in response.headers}
    if response.headers.get("connection", "").lower() == "close":
        headers["connection"] = "close"
    return {
        "status": response.status_code,
        "headers": headers,
        "media": response.headers.get("content-type", "").split(";")[0].strip(),
        "body": body,
    }


def send(client: httpx.Client, case: Case) -> list[dict[str, Any]]:
    """The answers to `case`, each request in turn."""
    requests = [(auth, case.body) for auth in case.auths] or [(case.auth, body) for body in (case.body, *case.more)]
    answers = []
    for auth, body in requests:
        response = client.request(case.method, case.path, content=body, headers=request_headers(case, auth))
        answers.append(answer_of(response))
    return answers


def _run_id(answer: dict[str, Any]) -> Any:
    body = answer["body"]
    return body.get("runId") if isinstance(body, dict) else None


def compared(case: Case, answers: list[dict[str, Any]]) -> Any:
    """The part of the answers that must match the gateway's."""
    if case.compare == "replay":
        first = _run_id(answers[0])
        return [(a["status"], first is not None and _run_id(a) == first) for a in answers]
    if case.compare == "statuses":
        return [(a["status"], a["headers"]) for a in answers]
    out = []
    for answer in answers:
        body = answer["body"]
        if case.compare == "error_shape":
            out.append((answer["status"], answer["media"], body.get("ok") if isinstance(body, dict) else body))
        elif case.compare == "admitted":
            completion = body.get("completion") if isinstance(body, dict) else None
            keys = sorted(completion) if isinstance(completion, dict) else None
            ok = body.get("ok") if isinstance(body, dict) else body
            out.append((answer["status"], ok, isinstance(_run_id(answer), str), keys))
        else:
            out.append({key: answer[key] for key in ("status", "headers", "media", "body")})
    return out
