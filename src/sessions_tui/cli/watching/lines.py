"""What `sessions-tui watch` prints of one happening: a `Record`, as a text line or a JSON line.

A record is an engine event as a person or a script reads it: the session by its display key, every
text redacted (agent text is data: the text line has its control and invisible characters made
visible, the JSON line escapes them), a message's text taken from its content. `event_record` makes
one of an engine event; the store's changes (watching/changes.py) make the `session_changed` and
`message_appended` ones of what other processes wrote; `watch --notify` makes `notice` ones
(watching/notices.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sessions_tui.backend.values.vocabulary import (
    Announced,
    CronRunStarted,
    DeliveryChanged,
    EngineEvent,
    FollowStatus,
    HookReceived,
    PolicyRefused,
    RunEnded,
    RunStarted,
    RunStreamed,
    SendProgress,
)
from sessions_tui.counting import plural
from sessions_tui.terminal_text import json_text, visible_line

LINE_TEXT_CHARS = 200
"""How much of a text a text line shows (a message's, a reply's), the rest cut with `…`."""
JSON_TEXT_CHARS = 8000
"""How much of a message's text a JSON line carries."""

KEY_FIELDS = ("target_key", "child_session_key", "speaker")
"""An event's fields that name another session: shown by their display key, as `session` is."""
TEXT_FIELDS = ("text", "error", "reason", "failure", "delta", "name")
"""An event's fields of free text (agent text, errors): redacted."""

WORDS = {
    "session_changed": "session",
    "message_appended": "message",
    "run_started": "run",
    "run_streamed": "stream",
    "run_ended": "run",
    "send_progress": "send",
    "announced": "announce",
    "policy_refused": "refused",
    "delivery_changed": "delivery",
    "follow_status": "follow",
    "hook_received": "hook",
    "cron_run_started": "cron",
    "notice": "notice",
}
"""The word a text line names each record's type by."""


@dataclass(frozen=True)
class Record:
    """One happening as `watch` prints it: when (epoch ms), its type word (an engine event's), the
    session it is about (display key), and its own fields, already redacted and shown."""

    ts: int
    type: str
    session: str | None
    fields: dict[str, Any] = field(default_factory=dict)

    def json_line(self) -> str:
        """The record as one JSON object: `ts`, `type`, `session`, then its fields. Every control
        and format character escaped, a pipe's reader being a terminal as often as not."""
        value = {"ts": self.ts, "type": self.type, "session": self.session, **self.fields}
        return json_text(value, indent=None, terminal=True)

    def text_line(self) -> str:
        """The record as one line for a person: time (UTC), type, session, what happened."""
        moment = datetime.fromtimestamp(self.ts / 1000, UTC).strftime("%H:%M:%S.%f")[:-3]
        parts = [moment, f"{WORDS.get(self.type, self.type):<8}"]
        if self.session:
            parts.append(self.session)
        said = _SAYS.get(self.type, _generic)(self.fields)
        return visible_line("  ".join([*parts, said] if said else parts))


def cut(text: str, chars: int) -> str:
    """`text` at most `chars` long, cut with `…`."""
    return text if len(text) <= chars else text[: chars - 1] + "…"


def one_line(text: str, chars: int = LINE_TEXT_CHARS) -> str:
    """A text's whitespace folded to single spaces, cut."""
    return cut(" ".join(text.split()), chars)


def redacted_strings(value: Any, redact: Callable[[str], str]) -> Any:
    """Every string inside a JSON value redacted."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redacted_strings(v, redact) for v in value]
    if isinstance(value, dict):
        return {k: redacted_strings(v, redact) for k, v in value.items()}
    return value


def event_record(
    event: EngineEvent, *, shown: Callable[[str], str], redact: Callable[[str], str], now: int, delta: str = ""
) -> Record:
    """An engine event as a record: keys through `shown` (display, redacted), free text through
    `redact`; for a streamed delta, `delta` is what of it may be shown (the stream's redaction).
    An event without a time gets `now`."""
    data = event.model_dump(mode="json")
    kind = str(data.pop("type"))
    data.pop("ts", None)
    key = data.pop("session_key", None) or (data.pop("target_key", None) if isinstance(event, SendProgress) else None)
    if isinstance(event, RunStreamed):
        data["delta"] = delta
    for name in KEY_FIELDS:
        if isinstance(data.get(name), str):
            data[name] = shown(data[name])
    for name in TEXT_FIELDS:
        if isinstance(data.get(name), str) and name != "delta":
            data[name] = redact(data[name])
    if isinstance(data.get("detail"), dict):
        data["detail"] = redacted_strings(data["detail"], redact)
    return Record(event.ts or now, kind, shown(key) if isinstance(key, str) and key else None, data)


# -- what a text line says of each type ------------------------------------------------------------


def _generic(fields: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in fields.items() if v not in (None, "", {}, []))


def _session(fields: dict[str, Any]) -> str:
    changes: dict[str, list[Any]] = fields.get("changes") or {}
    if fields.get("new"):
        shown = [f"{name} {_value(name, after)}" for name, (_, after) in changes.items() if after is not None]
        return " · ".join(["new", *shown])
    return " · ".join(
        f"{name} {_value(name, before)} → {_value(name, after)}" for name, (before, after) in changes.items()
    )


def _value(name: str, value: Any) -> str:
    if value is None:
        return "–"
    if name == "label":
        return f"“{one_line(str(value), 60)}”"
    return str(value)


def _message(fields: dict[str, Any]) -> str:
    seq = f"#{fields['seq']} " if fields.get("seq") else ""
    return f"{seq}{fields.get('role') or '?'}: {one_line(str(fields.get('text') or ''))}"


def _run_started(fields: dict[str, Any]) -> str:
    return " ".join(p for p in (_run(fields), "started", fields.get("lane") or "") if p)


def _run(fields: dict[str, Any]) -> str:
    run_id = fields.get("run_id")
    return f"run {str(run_id)[:8]}" if run_id else ""


def _run_ended(fields: dict[str, Any]) -> str:
    said = " ".join(p for p in (_run(fields), "ended:", str(fields.get("status") or "?")) if p)
    return f"{said} — {one_line(str(fields['error']))}" if fields.get("error") else said


def _streamed(fields: dict[str, Any]) -> str:
    kind = "" if fields.get("kind") == "text" else f"({fields.get('kind')}) "
    return f"{kind}{one_line(str(fields.get('delta') or ''))}"


def _send(fields: dict[str, Any]) -> str:
    parts = [_run(fields), str(fields.get("phase") or "")]
    if fields.get("turn") is not None:
        parts.append(f"turn {fields['turn']}/{fields.get('max_turns') or '?'}")
    if fields.get("text"):
        speaker = f"{fields['speaker']}: " if fields.get("speaker") else ""
        parts.append(speaker + one_line(str(fields["text"])))
    return " ".join(p for p in parts if p)


def _announced(fields: dict[str, Any]) -> str:
    how = ", ".join(str(fields[n]) for n in ("kind", "status", "delivery") if fields.get(n))
    child = f" from {fields['child_session_key']}" if fields.get("child_session_key") else ""
    return f"({how}){child}: {one_line(str(fields.get('text') or ''))}"


def _refused(fields: dict[str, Any]) -> str:
    return f"({fields.get('via')}) {one_line(str(fields.get('reason') or ''))}"


def _delivery(fields: dict[str, Any]) -> str:
    said = f"#{fields.get('outbox_id')} {fields.get('state')}"
    return f"{said} — {one_line(str(fields['error']))}" if fields.get("error") else said


def _follow(fields: dict[str, Any]) -> str:
    if fields.get("failure"):
        return f"{fields.get('root')} failing: {one_line(str(fields['failure']))}"
    changed = f" ({plural(int(fields['changed']), 'session')} brought up to date)" if fields.get("changed") else ""
    return f"following {fields.get('root')}{changed}"


def _hook(fields: dict[str, Any]) -> str:
    wake = " (a wake)" if fields.get("kind") == "wake" else ""
    started = f", {_run(fields)}" if fields.get("run_id") else ""
    return f"{one_line(str(fields.get('name') or ''))} received{wake}{started}"


def _cron(fields: dict[str, Any]) -> str:
    job = one_line(str(fields.get("job_name") or fields.get("job_id") or ""))
    trigger = f" ({fields['trigger']})" if fields.get("trigger") else ""
    return f"job {job} started{trigger}, {_run(fields)}"


def _notice(fields: dict[str, Any]) -> str:
    said = f"{fields.get('title') or ''}: {fields.get('body')}" if fields.get("body") else str(fields.get("title"))
    return f"{fields.get('kind')}  {one_line(said)}"


_SAYS: dict[str, Callable[[dict[str, Any]], str]] = {
    "session_changed": _session,
    "message_appended": _message,
    "run_started": _run_started,
    "run_streamed": _streamed,
    "run_ended": _run_ended,
    "send_progress": _send,
    "announced": _announced,
    "policy_refused": _refused,
    "delivery_changed": _delivery,
    "follow_status": _follow,
    "hook_received": _hook,
    "cron_run_started": _cron,
    "notice": _notice,
}

SAID_EVENTS = (
    RunStarted,
    RunStreamed,
    RunEnded,
    SendProgress,
    Announced,
    PolicyRefused,
    DeliveryChanged,
    FollowStatus,
    HookReceived,
    CronRunStarted,
)
"""The engine events printed as they come (session changes and messages are read from the store)."""
