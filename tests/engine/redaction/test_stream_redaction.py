"""Streamed model output passed on word by word (engine/redaction/stream.py): what is sent is only
ever a prefix of the whole text's redaction, so no secret leaks through a stream, whatever the
kind of secret and however the model cuts its deltas."""

from __future__ import annotations

import random

import pytest

from secret_corpus import KINDS, leaks, secret
from server_support import local_backend
from sessions_tui.engine.events import RunEnded, RunStarted, RunStreamed
from sessions_tui.engine.redaction.redact import Redactor
from sessions_tui.engine.redaction.stream import StreamRedaction
from sessions_tui.server.events import EventStream


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def chunks(text: str, rng: random.Random, most: int = 7) -> list[str]:
    out, i = [], 0
    while i < len(text):
        n = rng.randint(1, most)
        out.append(text[i : i + n])
        i += n
    return out


def streamed(redaction: StreamRedaction, pieces: list[str], run: str = "r1", kind: str = "text") -> str:
    return "".join(redaction.take(run, kind, piece) for piece in pieces)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_no_kind_of_secret_leaks_through_a_stream_cut_anywhere(kind):
    rng = random.Random(kind)
    redactor = Redactor()
    for _ in range(25):
        text, core = secret(kind, rng)
        whole = f"Here it is: {text} and then more words.\nA second line, done."
        redaction = StreamRedaction(redactor, every_s=0)
        redaction.start("r1")
        sent = streamed(redaction, chunks(whole, rng))
        assert leaks(sent, [core]) == []
        assert redactor.redact(whole).startswith(sent)  # never more than the whole text's redaction shows
        assert sent.startswith("Here it is: ")  # and the words before the secret did stream


def test_the_word_still_coming_is_held_back():
    redaction = StreamRedaction(Redactor(), every_s=0)
    redaction.start("r1")
    assert redaction.take("r1", "text", "Hello wor") == "Hello "
    assert redaction.take("r1", "text", "ld, and") == "world, "
    assert redaction.take("r1", "text", " more") == "and "
    assert redaction.take("r1", "thinking", "apart ") == "apart "  # each kind is its own text


def test_deltas_within_the_interval_wait_for_the_next_redaction():
    clock = Clock()
    redaction = StreamRedaction(Redactor(), every_s=0.2, clock=clock)
    redaction.start("r1")
    assert redaction.take("r1", "text", "one ") == "one "
    clock.now = 0.1
    assert redaction.take("r1", "text", "two ") == ""
    clock.now = 0.3
    assert redaction.take("r1", "text", "three ") == "two three "


def test_a_run_joined_halfway_streams_none_of_its_text():
    """The words before a secret may be what makes it one: a run whose start this stream did not
    see sends nothing (its message shows whole when appended)."""
    redaction = StreamRedaction(Redactor(), every_s=0)
    assert redaction.take("r1", "text", "Xq7pLm2vRt9sKw4nBz8cYd1f and more ") == ""
    redaction.start("r2")
    assert redaction.take("r2", "text", "fine words ") == "fine words "
    redaction.end("r2")
    assert redaction.take("r2", "text", "after the end ") == ""


def test_custom_patterns_stream_nothing():
    """A custom pattern may look past a secret (at what follows it): nothing streams."""
    redactor = Redactor(patterns=[r"code \w+ expires"])
    assert not redactor.streams_by_word
    redaction = StreamRedaction(redactor, every_s=0)
    redaction.start("r1")
    assert streamed(redaction, ["your code ", "A1B2 ", "expires soon "]) == ""
    assert Redactor().streams_by_word and Redactor(known_secrets=["a secret phrase here"]).streams_by_word is False


def test_a_text_past_the_limit_stops_streaming():
    redaction = StreamRedaction(Redactor(), every_s=0, max_chars=20)
    redaction.start("r1")
    assert redaction.take("r1", "text", "short words ") == "short words "
    assert redaction.take("r1", "text", "and now far too many ") == ""
    assert redaction.take("r1", "text", "more ") == ""


class Rewriting:
    """A redaction that masks an earlier word once a later one comes (no built-in rule does)."""

    streams_by_word = True

    def redact_unremembered(self, text: str) -> str:
        return text.replace("alpha", "*****") if "omega" in text else text


def test_once_what_was_sent_would_read_otherwise_nothing_more_is_sent():
    redaction = StreamRedaction(Rewriting(), every_s=0)  # type: ignore[arg-type]
    redaction.start("r1")
    assert redaction.take("r1", "text", "alpha beta ") == "alpha beta "
    assert redaction.take("r1", "text", "omega ") == ""
    assert redaction.take("r1", "text", "gamma ") == ""


def test_the_server_stream_forgets_its_runs_when_its_last_reader_leaves(tmp_path, monkeypatch):
    """While no one reads, no deltas are seen: a run that goes on streams none of its text to the
    next reader (a secret's first half may have passed unseen)."""
    monkeypatch.setattr("sessions_tui.engine.redaction.stream.EVERY_S", 0.0)
    backend = local_backend(tmp_path / "s")
    stream = EventStream(backend, queue_size=100)
    got: list[dict] = []
    stream._readers.add(got.append)  # a reader, as `handle` adds one
    stream.broadcast(RunStarted(ts=0, run_id="r1", session_key="main"))
    stream.broadcast(RunStreamed(ts=0, run_id="r1", session_key="main", kind="text", delta="first words "))
    stream._readers.clear()
    stream.last_reader_left()
    stream._readers.add(got.append)  # the next reader
    stream.broadcast(RunStreamed(ts=0, run_id="r1", session_key="main", kind="text", delta="more words "))
    assert [e["delta"] for e in got if e["type"] == "run_streamed"] == ["first words ", ""]
    backend.close()


def test_a_run_not_shown_is_kept_and_shows_whole_at_its_next_take():
    """The dashboard redacts only the run it shows: another run's deltas are kept as they come, and
    once shown its text so far comes at once, as its redaction shows it."""
    redaction = StreamRedaction(Redactor(), every_s=0)
    redaction.observe(RunStarted(ts=0, run_id="r1", session_key="main"))
    unseen = RunStreamed(ts=0, run_id="r1", session_key="main", kind="text", delta="first words ")
    assert redaction.observe(unseen, shown=False) == ""
    seen = RunStreamed(ts=0, run_id="r1", session_key="main", kind="text", delta="then more ")
    assert redaction.observe(seen) == "first words then more "
    redaction.observe(RunEnded(ts=0, run_id="r1", session_key="main", status="ok"))
    assert redaction.observe(seen) == ""
