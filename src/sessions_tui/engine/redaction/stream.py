"""Streamed model output made safe to send before its message is whole: word by word, and only
what the redaction of all the text so far shows.

A delta may hold the first characters of a secret that only the characters after it make one
(a key is masked once it is all there). So the text sent is the redaction of everything streamed
so far, cut after its last whitespace: the word still coming is held back. For the built-in rules
that prefix only ever grows as the text does (tests/engine/redaction/test_stream_redaction.py streams every kind
of secret the redactor knows, cut at random); should the redaction of what was already sent ever
change, nothing more of that text is sent, and the message shows whole when it is appended.

Only a run seen from its start (`start`) streams: the words before a secret may be what makes
it one (`DATABASE_PASSWORD=…`), so a stream joined halfway sends none of that run's text.
Redacting the whole text again costs about 1 ms per KB, so it is done at most every `EVERY_S`
per run (deltas meanwhile wait for the next one), and a text beyond `MAX_CHARS` stops streaming.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from sessions_tui.engine.events import EngineEvent, RunEnded, RunStarted, RunStreamed
from sessions_tui.engine.redaction.redact import Redactor

EVERY_S = 0.2
MAX_CHARS = 16_000
MAX_RUNS = 64  # runs streaming at once that are remembered (a run that never ended is forgotten)


@dataclass
class _Text:
    raw: str = ""
    sent: str = ""
    redacted_at: float = float("-inf")
    stopped: bool = False


class StreamRedaction:
    """What of each run's streamed text may be sent; one per stream of events (thread-safe)."""

    def __init__(
        self,
        redactor: Redactor,
        *,
        every_s: float | None = None,
        max_chars: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.redactor = redactor
        self.every_s = EVERY_S if every_s is None else every_s
        self.max_chars = MAX_CHARS if max_chars is None else max_chars
        self.clock = clock
        self._runs: OrderedDict[str, dict[str, _Text]] = OrderedDict()  # run id → its texts by kind
        self._lock = threading.Lock()

    def start(self, run_id: str) -> None:
        """A run started: its streamed text is seen from the first delta."""
        with self._lock:
            self._runs[run_id] = {}
            while len(self._runs) > MAX_RUNS:
                self._runs.popitem(last=False)

    def observe(self, event: EngineEvent, *, shown: bool = True) -> str:
        """Follow the engine's events: a run's start and end, and each delta; returns what of a
        delta to show or send now ("" for the other events). `shown=False`: a run no one is
        looking at, whose delta is only kept (nothing redacted); it shows at its next `take`."""
        if isinstance(event, RunStarted):
            self.start(event.run_id)
        elif isinstance(event, RunEnded):
            self.end(event.run_id)
        elif isinstance(event, RunStreamed):
            return self.take(event.run_id, event.kind, event.delta, redact=shown)
        return ""

    def take(self, run_id: str, kind: str, delta: str, *, redact: bool = True) -> str:
        """The text to send now for this delta of run `run_id`'s `kind` ("text", "thinking"):
        "" when nothing new may be sent yet (or any more), or when `redact` is False (kept only)."""
        if not self.redactor.streams_by_word:
            return ""  # custom patterns may need what follows a secret: the message shows it whole
        with self._lock:
            texts = self._runs.get(run_id)
            if texts is None:
                return ""  # started before this stream saw it
            text = texts.setdefault(kind, _Text())
            if text.stopped:
                return ""
            text.raw += delta
            if len(text.raw) > self.max_chars:
                text.stopped = True
                return ""
            now = self.clock()
            if not redact or now - text.redacted_at < self.every_s:
                return ""
            text.redacted_at = now
            shown = self.redactor.redact_unremembered(text.raw)
            words = shown[: max(shown.rfind(c) for c in " \t\n\r") + 1]
            if not words.startswith(text.sent):
                text.stopped = True
                return ""
            new, text.sent = words[len(text.sent) :], words
            return new

    def end(self, run_id: str) -> None:
        """The run ended: its texts are forgotten."""
        with self._lock:
            self._runs.pop(run_id, None)
