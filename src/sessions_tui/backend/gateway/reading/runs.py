"""A gateway's run events as the engine's: `chat`, `agent` and `session.message` frames become
`RunStarted`, `RunStreamed`, `RunEnded` and `MessageAppended`, the streamed text redacted as the
local engine's is.

- `chat` with `state: "status"`, or `agent` `lifecycle` `start` (or its first `run_status`): the
  run started (`RunStarted`, once per run).
- `chat` with `state: "delta"`: its `deltaText` (protocol 4) is the new text. It goes through a
  `StreamRedaction` over the built-in rules, so what is published is only what the redaction of the
  whole text so far shows, a word at a time; a run joined halfway (a delta before its start) streams
  nothing (the words before a secret may be what makes it one), and a non-prefix replacement
  (`replace: true`) stops its stream (the message shows whole when appended). Events published so
  are safe to pass on: the backend's `stream_redaction()` is None.
- `chat` `final` / `error` / `aborted`, `agent` `lifecycle` `end` / `error`: `RunEnded` (once per
  run) with the engine's `RunEnd`, and `MessageAppended` (the reply is in the transcript).
- `session.message`: `MessageAppended` for its session (with the transcript's `messageSeq`).
- A gap in a run's `agent.seq` means frames were missed: `MessageAppended` for that session, so
  a face reads its history again.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sessions_tui.engine.events import EngineEvent, MessageAppended, RunEnded, RunStarted, RunStreamed
from sessions_tui.engine.redaction.redact import default_redactor
from sessions_tui.engine.redaction.stream import StreamRedaction
from sessions_tui.engine.run_end import RunEnd
from sessions_tui.engine.sessions.message_text import message_text

MAX_RUNS = 256
"""Runs remembered at once (their start, end and last agent seq); the oldest is forgotten."""

_CHAT_END: dict[str, RunEnd] = {"final": "ok", "error": "error", "aborted": "aborted"}


@dataclass
class _Run:
    started: bool = False
    streams: bool = False
    ended: bool = False
    joined: bool = False
    """A delta came before its start: seen halfway, so its text never streams."""
    agent_seq: int | None = None


class RunEvents:
    """Turns one gateway's run frames into engine events (see the module's docstring)."""

    def __init__(self, canonical: Callable[[str], str], now: Callable[[], int]) -> None:
        self._canonical = canonical
        self._now = now
        self._runs: OrderedDict[str, _Run] = OrderedDict()
        self.redaction = StreamRedaction(default_redactor())

    def _run(self, run_id: str) -> _Run:
        run = self._runs.get(run_id)
        if run is None:
            run = self._runs[run_id] = _Run()
            while len(self._runs) > MAX_RUNS:
                old, _ = self._runs.popitem(last=False)
                self.redaction.end(old)
        else:
            self._runs.move_to_end(run_id)
        return run

    def events(self, name: str, payload: Any) -> list[EngineEvent]:
        """The engine events of one gateway event (none for the events it does not map)."""
        if not isinstance(payload, dict):
            return []
        key = payload.get("sessionKey")
        if not isinstance(key, str) or not key:
            return []
        session = self._canonical(key)
        if name == "session.message":
            seq = payload.get("messageSeq")
            message = payload.get("message")
            if not isinstance(message, dict):
                return [MessageAppended(ts=self._now(), session_key=session, seq=seq if isinstance(seq, int) else None)]
            stamp = message.get("timestamp")
            return [
                MessageAppended(
                    ts=stamp if isinstance(stamp, int) else self._now(),
                    session_key=session,
                    role=str(message.get("role") or ""),
                    seq=seq if isinstance(seq, int) else None,
                    text=self.redaction.redactor.redact(message_text(message)),
                )
            ]
        run_id = payload.get("runId")
        if not isinstance(run_id, str) or not run_id:
            return []
        if name == "chat":
            return self._chat(run_id, session, payload)
        if name == "agent":
            return self._agent(run_id, session, payload)
        return []

    def _start(self, run_id: str, session: str, lane: str) -> list[EngineEvent]:
        run = self._run(run_id)
        if run.started or run.ended:
            return []
        run.started = True
        if not run.joined:
            run.streams = True
            self.redaction.start(run_id)
        return [RunStarted(ts=self._now(), run_id=run_id, session_key=session, lane=lane)]

    def _end(self, run_id: str, session: str, status: RunEnd, error: str | None) -> list[EngineEvent]:
        run = self._run(run_id)
        if run.ended:
            return []
        run.ended = True
        self.redaction.end(run_id)
        now = self._now()
        return [
            RunEnded(ts=now, run_id=run_id, session_key=session, status=status, error=error),
            MessageAppended(ts=now, session_key=session),
        ]

    def _chat(self, run_id: str, session: str, payload: dict[str, Any]) -> list[EngineEvent]:
        state = payload.get("state")
        if state == "status":
            return self._start(run_id, session, "")
        if state == "delta":
            run = self._run(run_id)
            if not run.started:
                run.joined = True
                return []
            delta = payload.get("deltaText")
            if not run.streams or not isinstance(delta, str) or not delta:
                return []
            if payload.get("replace") is True:
                run.streams = False
                self.redaction.end(run_id)
                return []
            shown = self.redaction.take(run_id, "text", delta)
            return [RunStreamed(ts=self._now(), run_id=run_id, session_key=session, delta=shown)] if shown else []
        if isinstance(state, str) and state in _CHAT_END:
            error = payload.get("errorMessage")
            return self._end(run_id, session, _CHAT_END[state], error if isinstance(error, str) else None)
        return []

    def _agent(self, run_id: str, session: str, payload: dict[str, Any]) -> list[EngineEvent]:
        out: list[EngineEvent] = []
        run = self._run(run_id)
        seq = payload.get("seq")
        if isinstance(seq, int):
            if run.agent_seq is not None and seq > run.agent_seq + 1:
                out.append(MessageAppended(ts=self._now(), session_key=session))  # frames missed: read it again
            run.agent_seq = max(seq, run.agent_seq or 0)
        stream = payload.get("stream")
        raw = payload.get("data")
        data: dict[str, Any] = raw if isinstance(raw, dict) else {}
        lane = str(payload.get("lane") or "")
        if stream == "run_status" or (stream == "lifecycle" and data.get("phase") == "start"):
            out += self._start(run_id, session, lane)
        elif stream == "lifecycle" and data.get("phase") in ("end", "error"):
            error = data.get("error")
            status: RunEnd = "error" if data.get("phase") == "error" else "ok"
            if data.get("aborted") is True:
                status = "aborted"
            elif data.get("timedOut") is True:
                status = "timeout"
            out += self._end(run_id, session, status, error if isinstance(error, str) else None)
        return out
