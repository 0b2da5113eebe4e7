"""The notification rules without a face: what notifies (a watched session's status, a reply to the
operator's send, a hook, a cron run), never the session on screen, the watch set's defaults and
toggles, the notice's clean one-line text, and the desktop channel (OSC 9 / 777, notify-send)."""

from __future__ import annotations

import asyncio

import pytest

from sessions_tui.backend.toolkit.notices import desktop
from sessions_tui.backend.toolkit.notices.desktop import (
    DesktopNotices,
    desktop_channel,
    notify_send_argv,
    osc_sequence,
    terminal_channel,
)
from sessions_tui.backend.toolkit.notices.notice import clean_line, notice
from sessions_tui.backend.toolkit.notices.rules import NoticeRules
from sessions_tui.backend.toolkit.notices.send_notices import SendNotices, may_move_ledger
from sessions_tui.backend.toolkit.notices.watch_set import WatchSet
from sessions_tui.backend.values.vocabulary import (
    CronRunStarted,
    HookReceived,
    LedgerEntry,
    LedgerState,
    NotifyConfig,
    RunEnded,
    SendLedgerChanged,
    StatusChanged,
    StoreChanged,
)

A, B = "agent:main:a", "agent:main:b"


LONG = "agent:main:longname"


def _rules(default="all"):
    return NoticeRules(
        WatchSet(default), display=lambda key: key.rsplit(":", 1)[-1], redact=lambda t: t.replace("sk-secret", "sk-***")
    )


def _status(key, status, previous="working", ts=5):
    return StatusChanged(ts=ts, session_key=key, status=status, previous=previous)


def _entry(via="owner", target=A, states=(("accepted", None), ("replied", {"text": "all good\nsk-secret"}))):
    return LedgerEntry(
        run_id="r1",
        requester=None,
        target=target,
        message="hi",
        via=via,
        chain=[target],
        created_at=1,
        states=[LedgerState(state=s, at=i, detail=d) for i, (s, d) in enumerate(states)],
    )


@pytest.mark.parametrize("status", ["done", "failed", "stuck", "looping"])
def test_a_watched_session_becoming_done_failed_stuck_or_looping_notifies(status):
    made = _rules().notice_of(_status(LONG, status), shown=None)
    assert made is not None and (made.kind, made.session_key, made.at) == (status, LONG, 5)
    assert "longname" in made.body and "longname" not in made.gist and made.gist  # the list names it apart


def test_other_statuses_the_first_status_and_the_session_on_screen_do_not():
    rules = _rules()
    assert rules.notice_of(_status(A, "working"), shown=None) is None
    assert rules.notice_of(_status(A, "idle"), shown=None) is None
    assert rules.notice_of(_status(A, "done", previous=None), shown=None) is None  # no change: a watcher's first
    assert rules.notice_of(_status(A, "done"), shown=A) is None
    assert rules.notice_of(_status(A, "done"), shown=B) is not None
    assert rules.notice_of(RunEnded(run_id="x", session_key=A, status="ok"), shown=None) is None


def test_the_watch_defaults_and_the_toggles():
    watch = WatchSet("none")
    assert not watch.watched(A) and not watch.happens_to(A)
    assert watch.toggle(A) and watch.watched(A) and watch.happens_to(A) and watch.toggled_on == [A]
    assert not watch.toggle(A) and not watch.watched(A)
    sends = WatchSet("sends")
    assert not sends.watched(A) and sends.happens_to(A)
    sends.sent_to(A)
    assert sends.watched(A) and not sends.watched(B)
    assert not sends.toggle(A) and not sends.watched(A) and not sends.happens_to(A)  # unwatched by hand
    everything = WatchSet.of(NotifyConfig.model_validate({"watch": "all"}))
    assert everything.watched(B)
    assert WatchSet.of(NotifyConfig()).default == "sends"  # the default: watch my sends


def test_under_sends_a_session_is_watched_once_the_operator_sent_to_it():
    rules = _rules("sends")
    assert rules.notice_of(_status(A, "done"), shown=None) is None
    begun = _entry(states=(("accepted", None),))
    assert rules.entry_notice(begun, "accepted", 3, shown=None) is None
    assert rules.notice_of(_status(A, "done"), shown=None) is not None


def test_a_reply_to_the_operators_send_notifies_once_redacted_and_one_line():
    rules = _rules("sends")
    assert may_move_ledger(SendLedgerChanged(run_id="r1", state="replied")) and may_move_ledger(StoreChanged())
    assert not may_move_ledger(SendLedgerChanged(run_id="r1", state="started"))
    made = rules.entry_notice(_entry(), "replied", 9, shown=None)
    assert made is not None and (made.kind, made.title, made.body, made.at) == (
        "reply",
        "Reply from a",
        "all good sk-***",
        9,
    )
    assert rules.entry_notice(_entry(), "replied", 9, shown=None) is None  # once a send


def test_a_models_send_or_a_reply_on_screen_does_not_notify():
    assert _rules().entry_notice(_entry(via="agent"), "replied", 9, shown=None) is None
    assert _rules().entry_notice(_entry(), "replied", 9, shown=A) is None
    assert _rules("none").entry_notice(_entry(), "replied", 9, shown=None) is None


def test_a_hook_and_a_cron_run_notify_unless_nothing_is_watched():
    hook = HookReceived(ts=2, session_key=A, name="Nightly sk-secret")
    cron = CronRunStarted(ts=3, session_key=B, job_id="tick", job_name="Tick", run_id="r", trigger="due")
    made = _rules("sends").notice_of(hook, shown=None)
    assert made is not None and (made.title, made.body, made.kind) == ("Hook received", "Nightly sk-*** → a", "hook")
    assert made.gist == "Nightly sk-***"  # redacted there too
    wake = _rules("sends").notice_of(HookReceived(ts=2, session_key=A, name="Wake", kind="wake"), shown=None)
    assert wake is not None and wake.title == "Wake received"
    made = _rules("sends").notice_of(cron, shown=None)
    assert made is not None and (made.title, made.body, made.kind) == ("Cron run started", "Tick → b", "cron")
    assert _rules("none").notice_of(hook, shown=None) is None
    assert _rules("all").notice_of(cron, shown=B) is None


def test_a_notice_is_one_line_without_control_or_format_characters():
    assert clean_line("a\x1b]52;c;x\x07b\n c\u202e d\t", 100) == "a]52;c;xb c d"
    assert clean_line("x" * 50, 10) == "x" * 9 + "…"
    made = notice("T\x1b[2J", "line one\r\nline two", session_key=A, kind="done", at=1)
    assert (made.title, made.body, made.line()) == ("T[2J", "line one line two", "T[2J: line one line two")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"TERM_PROGRAM": "iTerm.app"}, "osc9"),
        ({"TERM_PROGRAM": "WezTerm"}, "osc9"),
        ({"TERM": "xterm-kitty"}, "osc9"),
        ({"TERM_PROGRAM": "ghostty"}, "osc9"),
        ({"TERM": "foot"}, "osc777"),
        ({"TERM": "xterm-256color"}, None),
        ({"TERM_PROGRAM": "tmux", "TERM": "tmux-256color"}, None),
        ({"TERM": "xterm-kitty", "TMUX": "/tmp/tmux"}, None),
    ],
)
def test_the_terminal_decides_the_osc_channel(environ, expected):
    assert terminal_channel(environ) == expected


def test_the_desktop_setting():
    found = {"notify-send": "/usr/bin/notify-send"}.get
    assert desktop_channel(False, {"TERM": "foot"}, found) is None
    assert desktop_channel("osc777", {}, found) == "osc777"
    assert desktop_channel("auto", {"TERM": "foot"}, found) == "osc777"
    assert desktop_channel("auto", {"TERM": "xterm"}, found) == "notify-send"
    assert desktop_channel("auto", {"TERM": "xterm"}, lambda _: None) is None


def test_the_osc_sequences_carry_no_control_characters_of_the_text():
    made = notice("Reply; from\x07 a", "ok\x1b]0;pwned\x07 now\x9c", session_key=A, kind="reply", at=1)
    assert osc_sequence("osc9", made) == "\x1b]9;Reply; from a: ok]0;pwned now\x07"
    assert osc_sequence("osc777", made) == "\x1b]777;notify;Reply, from a;ok]0;pwned now\x07"
    assert notify_send_argv(made, "notify-send") == [
        "notify-send",
        "--app-name=sessions-tui",
        "--",
        "Reply; from a",
        "ok]0;pwned now",
    ]


async def test_notify_send_runs_without_a_shell_and_without_blocking(monkeypatch, tmp_path):
    record = tmp_path / "args"
    program = tmp_path / "notify-send"
    program.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {record}\n')
    program.chmod(0o755)
    monkeypatch.setattr(desktop.shutil, "which", lambda name: str(program) if name == "notify-send" else None)
    written: list[str] = []
    notices = DesktopNotices("notify-send", written.append)
    notices.show(notice("Done", "$(touch x); a", session_key=A, kind="done", at=1))
    await asyncio.wait_for(notices.wait(), 10)
    assert record.read_text().splitlines() == ["--app-name=sessions-tui", "--", "Done", "$(touch x); a"]
    assert written == [] and not (tmp_path / "x").exists()
    osc = DesktopNotices("osc9", written.append)
    osc.show(notice("Done", "a", session_key=A, kind="done", at=1))
    assert written == ["\x1b]9;Done: a\x07"]


async def test_the_ledger_read_again_says_each_reply_once_and_the_baseline_is_not_news():
    rules = _rules("sends")
    ledger: list[LedgerEntry] = []

    async def sends():
        return list(ledger)

    found = SendNotices(rules, sends)
    earlier = _entry(target=B).model_copy(update={"run_id": "r0"})
    ledger[:] = [earlier]
    assert await found.look(None) == []  # the baseline: its reply is old news, its target watched
    assert rules.watch.watched(B)
    begun = _entry(states=(("accepted", None),))
    ledger[:] = [begun, earlier]
    assert await found.look(None) == [] and rules.watch.watched(A)
    ledger[:] = [_entry(), _entry(via="agent").model_copy(update={"run_id": "r2"}), earlier]
    [reply] = await found.look(shown=B)
    assert (reply.kind, reply.session_key, reply.body) == ("reply", A, "all good sk-***")
    assert await found.look(None) == []  # said once
