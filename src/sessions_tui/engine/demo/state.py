"""The demo state: a realistic set of sessions so every screen has something to show.

Agents `main`, `research` and a sandboxed `helper` (whose main session, acted as, is a sandboxed
requester that may spawn sandboxed sub-agents); main, group, cron, hook, node and sub-agent
sessions, the finished sub-agent with its run record (so main's spawn panel lists it);
transcripts with thinking, tool calls and results, an image, secrets for the redaction to catch,
text that looks like markup, and a send-policy deny rule. Token counts are consistent (input +
output = total), as a run adds to them. Everything is derived from the clock, so a frozen clock
gives the same demo every time.
"""

from __future__ import annotations

import base64
import uuid
from pathlib import Path
from typing import Any, cast

from sessions_tui.engine.clock import iso_from_ms
from sessions_tui.engine.demo.config import DEMO_CONFIG, DEMO_PRICE
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.sessions.entry import SessionEntry
from sessions_tui.engine.store.disk.private_files import make_dirs, write_file
from sessions_tui.engine.store.tables.registry import SubagentRow
from sessions_tui.engine.store.tables.runs import RunRecord

__all__ = ["CHILD_KEY", "HELPER_KEY", "demo_uuid", "seed_demo"]


_NS = uuid.UUID("6f1c2b8e-3d4a-4c5b-9e7f-0a1b2c3d4e5f")


def demo_uuid(name: str) -> str:
    """Stable ids, so the demo (and its snapshots) never change."""
    return str(uuid.uuid5(_NS, name))


# A 1x1 PNG, enough to show an image placeholder with its size.
_PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


def _user(text: str, ts: int) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": ts}


def _assistant(blocks: list[dict[str, Any]], ts: int, stop: str = "stop") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": blocks,
        "provider": "demo",
        "model": "demo",
        "usage": {"input": 120, "output": 48, "totalTokens": 168},
        "stopReason": stop,
        "timestamp": ts,
    }


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _tokens(total: int, output: int) -> dict[str, int | float]:
    """A session's token counts, parts summing to the total (a run adds to each), and their cost
    at the demo model's price."""
    cost = ((total - output) * DEMO_PRICE[0] + output * DEMO_PRICE[1]) / 1_000_000
    return {"inputTokens": total - output, "outputTokens": output, "totalTokens": total, "estimatedCostUsd": cost}


CHILD_KEY = f"agent:main:subagent:{demo_uuid('child-count-words')}"
CHILD_RUN_ID = demo_uuid("run-count-words")
CHILD_TASK = "count the words in the docs folder"
HELPER_KEY = "agent:helper:main"


def _sessions(now: int) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """(key, entry, messages) of every demo session, newest activity first.

    Keys are spelled as the store keeps them (`keys.canonical_key` under the demo's config): the
    hook session is `agent:main:hook:…`, which `sessions_list` shows as `hook:…` and every tool
    finds under either spelling.
    """
    m = 60_000
    child = CHILD_KEY
    child_start = now - 16 * m
    hook = f"agent:main:hook:{demo_uuid('hook-github')}"
    call_id = "call_demo_list_1"
    return [
        (
            "agent:main:main",
            {
                "lastChannel": "webchat",
                "displayName": "Main",
                "model": "demo",
                **_tokens(2315, 412),
                "contextTokens": 128000,
                "childSessions": [child],
            },
            [
                _user("What are the other sessions up to?", now - 5 * m),
                _assistant(
                    [
                        {
                            "type": "thinking",
                            "thinking": "The user wants an overview. I should list the sessions first.",
                            "thinkingSignature": "sig-demo-1",
                        },
                        {
                            "type": "toolCall",
                            "id": call_id,
                            "name": "sessions_list",
                            "arguments": {"activeMinutes": 60},
                        },
                    ],
                    now - 5 * m + 800,
                    stop="toolUse",
                ),
                {
                    "role": "toolResult",
                    "toolCallId": call_id,
                    "toolName": "sessions_list",
                    "isError": False,
                    "content": [
                        _text('{"count": 4, "sessions": ["agent:main:discord:group:dev", "cron:nightly-report", "…"]}')
                    ],
                    "details": {"count": 4},
                    "timestamp": now - 5 * m + 900,
                },
                _assistant(
                    [
                        _text(
                            "Four sessions were active in the last hour: the #dev Discord group is "
                            "discussing the deploy, the nightly report ran, and a sub-agent counted words."
                        )
                    ],
                    now - 5 * m + 2000,
                ),
                _user("Here is the dashboard screenshot.", now - 2 * m),
                {
                    "role": "user",
                    "content": [_text("And the graph:"), {"type": "image", "data": _PNG, "mimeType": "image/png"}],
                    "timestamp": now - 2 * m + 100,
                },
                _assistant([_text("Thanks, the graph shows the error rate dropping after 10:39.")], now - 12_000),
            ],
        ),
        (
            "agent:main:discord:group:dev",
            {
                "channel": "discord",
                "chatType": "group",
                "displayName": "discord:#dev",
                "label": "dev-chat",
                "model": "demo",
                **_tokens(5120, 736),
                "lastTo": "group:dev",
                "deliveryContext": {"channel": "discord", "to": "group:dev"},
            },
            [
                _user("alice: can someone check why the deploy is slow?", now - 3 * m),
                _assistant(
                    [
                        {
                            "type": "thinking",
                            "thinking": "Check the deploy log for the slow step.",
                            "thinkingSignature": "sig-demo-2",
                        },
                        _text("On it. The deploy finished at 10:39; the slow step was the image build."),
                    ],
                    now - 3 * m + 1500,
                ),
                _user("bob: the CI used OPENAI_API_KEY=sk-demo1234567890abcdefXYZ by mistake, rotate it", now - 2 * m),
                _assistant(
                    [
                        _text(
                            "Rotated. Note that [bold red]markup[/] and \x1b[31mescapes\x1b[0m in chat stay "
                            "literal text."
                        )
                    ],
                    now - 60_000,
                ),
            ],
        ),
        (
            "agent:main:cron:nightly-report",
            {"label": "nightly-report", "model": "demo", **_tokens(900, 214)},
            [
                _user("[cron] Run the nightly report.", now - 14 * m),
                _assistant([_text("Nightly report: 3 deploys, 0 incidents, p99 latency 212 ms.")], now - 14 * m + 3000),
            ],
        ),
        (
            child,
            {
                "label": "count-words",
                "spawnedBy": "agent:main:main",
                "model": "demo",
                "modelOverride": "demo",
                "status": "done",
                "startedAt": child_start,
                "endedAt": child_start + 3000,
                "runtimeMs": 3000,
                **_tokens(310, 48),
                "spawnDepth": 1,
                "subagentRole": "leaf",
                "subagentControlScope": "none",
            },
            [
                _user(f"[Subagent Task]: {CHILD_TASK}", child_start),
                _assistant([_text("1,204 words in 3 files; README.md dominates.")], child_start + 3000),
            ],
        ),
        (
            "agent:main:whatsapp:group:family",
            {
                "channel": "whatsapp",
                "chatType": "group",
                "displayName": "whatsapp:Family",
                "lastTo": "123@g.us",
                "model": "demo",
            },
            [
                _user("mum: dinner at 7?", now - 40 * m),
                _assistant([_text("Noted: dinner at 7.")], now - 40 * m + 1000),
            ],
        ),
        (
            "agent:research:main",
            {"lastChannel": "webchat", "displayName": "Research", "model": "demo", **_tokens(4000, 1180)},
            [
                _user("Summarise the latest paper on retrieval.", now - 90 * m),
                _assistant(
                    [_text("It proposes late interaction over compressed token embeddings.")], now - 90 * m + 4000
                ),
            ],
        ),
        (
            HELPER_KEY,
            {"lastChannel": "webchat", "displayName": "Sandboxed helper", "model": "demo", **_tokens(1450, 260)},
            [
                _user("Draft the release notes from the merged pull requests.", now - 100 * m),
                _assistant(
                    [
                        _text(
                            "Drafted. I run sandboxed: I see only the sessions I spawn, and my sub-agents "
                            "run sandboxed too."
                        )
                    ],
                    now - 100 * m + 2500,
                ),
            ],
        ),
        (
            hook,
            {"label": "github-webhook", "model": "demo"},
            [
                _user(
                    '{"event": "push", "ref": "refs/heads/main", "token": "ghp_demoDEMOdemoDEMOdemo1234"}',
                    now - 120 * m,
                ),
                _assistant([_text("Push to main received; CI started.")], now - 120 * m + 500),
            ],
        ),
        (
            "agent:main:node-macbook",
            {"displayName": "node:macbook", "model": "demo"},
            [_user("battery at 12%", now - 180 * m)],
        ),
    ]


def seed_demo(engine: Engine, config_path: Path | None) -> bool:
    """Fill an empty state directory with the demo; returns False (and changes nothing) otherwise.

    The demo config is written only where no config file exists yet.
    """
    if engine.store.sessions.count(include_archived=True) > 0:
        return False
    if config_path is not None and not config_path.exists():
        make_dirs(config_path.parent)
        write_file(config_path, DEMO_CONFIG.encode("utf-8"))
    now = engine.now()
    sessions = _sessions(now)
    for key, entry, messages in sessions:
        first = messages[0]["timestamp"] if messages else now
        last = messages[-1]["timestamp"] if messages else now
        engine.store.sessions.create(
            key, cast(SessionEntry, {**entry, "updatedAt": last}), session_id=demo_uuid(key), created_at=first
        )
    requester, announce = _seed_child_run(engine)
    for key, _entry, messages in sessions:
        if key == requester:
            messages = sorted([*messages, announce], key=lambda m: m["timestamp"])
        lines, parent = [], None
        for index, message in enumerate(messages):
            entry_id = demo_uuid(f"{key}#{index}")[:8]
            lines.append(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": iso_from_ms(message["timestamp"]),
                    "message": message,
                }
            )
            parent = entry_id
        engine.store.transcripts.append_lines(key, lines, touch=False)
    return True


def _seed_child_run(engine: Engine) -> tuple[str, dict[str, Any]]:
    """The finished count-words child's run and sub-agent record, as a spawn leaves them once the
    child has ended and been announced: the spawn panel lists it for main with its runtime and
    tokens, and nothing is left to announce or recover on start-up. Returns the requester and the
    announce message for its transcript (the engine's own Status/Result/Stats block). It is never
    due for the archive sweep (archive_at NULL), so a demo reopened days later still shows it."""
    session = engine.store.sessions.get(CHILD_KEY)
    assert session is not None
    started, ended = int(session.entry["startedAt"]), int(session.entry["endedAt"])
    requester = str(session.entry["spawnedBy"])
    request = {
        "session_key": CHILD_KEY,
        "message": f"[Subagent Task]: {CHILD_TASK}",
        "lane": "subagent",
        "model": "demo",
        "label": "count-words",
    }
    data = {
        "model": "demo",
        "runTimeoutSeconds": 0,
        "requesterOrigin": {"channel": "webchat"},
        "announceDelivery": "none",
    }
    with engine.store.write():  # both records or neither (the inner writes are savepoints of this one)
        engine.store.runs.insert_run(
            RunRecord(
                run_id=CHILD_RUN_ID,
                session_key=CHILD_KEY,
                status="ok",
                error=None,
                lane="subagent",
                pid=None,
                created_at=started,
                started_at=started,
                ended_at=ended,
            ),
            {"request": request},
        )
        engine.store.registry.insert_subagent_run(
            SubagentRow(
                run_id=CHILD_RUN_ID,
                child_key=CHILD_KEY,
                requester_key=requester,
                task=CHILD_TASK,
                label="count-words",
                created_at=started,
                ended_at=ended,
                outcome="ok",
                announce_state="done",
                announced_at=ended + 1000,
                data=data,
            )
        )
    run = engine.subagents.get(CHILD_RUN_ID)
    assert run is not None
    text = engine.subagents.compose(run, "1,204 words in 3 files; README.md dominates.", "")
    message = {
        "role": "assistant",
        "content": [_text(text)],
        "timestamp": ended + 1000,
        "announce": {"childSessionKey": CHILD_KEY, "runId": CHILD_RUN_ID, "status": "ok"},
    }
    return requester, message
