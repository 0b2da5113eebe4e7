"""Notifications in the dashboard (issue 31): a watched session's status, a reply to the operator's
send, a hook as a toast, the bell and the desktop channel (each switchable), never the session on
screen; `W` watches the highlighted session (the header marks it); `!` lists the notices newest first,
`enter` opens one's session (its notices drop out), `escape` goes back."""

from __future__ import annotations

import os
import subprocess
import sys

from scenes import DEV, FAMILY
from sessions_tui.backend.toolkit.notices.desktop import desktop_channel
from sessions_tui.backend.values.vocabulary import StatusChanged
from sessions_tui.ui.messages import EngineEventMessage
from sessions_tui.ui.screens.attention.attention import AttentionScreen
from sessions_tui.ui.widgets.header import StatusHeader
from sessions_tui.ui.widgets.transcript import TranscriptPane
from ui_support import demo_app, select, settle, text_of, until


def _status(key, status, previous="working"):
    return EngineEventMessage(StatusChanged(ts=1, session_key=key, status=status, previous=previous))


def _channels(app):
    """The bell and the desktop's writes, counted instead of sent to a terminal."""
    rung, written = [], []
    app.bell = lambda: rung.append(1)
    screen = app.main_screen
    screen.desktop.channel = "osc9"
    screen.desktop.write = written.append
    return rung, written


async def test_a_watched_sessions_status_is_a_toast_a_bell_and_a_desktop_notice(tmp_path):
    app = demo_app(tmp_path / "s", {"ui": {"notify": {"watch": "all"}}})
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        rung, written = _channels(app)
        shown = screen.query_one(TranscriptPane).key
        other = DEV if shown != DEV else FAMILY
        screen.post_message(_status(shown, "done"))  # on screen: no notice
        screen.post_message(_status(other, "working", previous="idle"))  # not a status that notifies
        screen.post_message(_status(other, "failed"))
        await until(pilot, lambda: screen.notices, "the notice")
        await settle(pilot)
        [notice] = screen.notices
        assert (notice.kind, notice.session_key, notice.title) == ("failed", other, "Failed")
        assert any(n.title == "Failed" and n.severity == "error" for n in app._notifications)
        assert rung == [1] and written == [f"\x1b]9;Failed: {notice.body}\x07"]
        assert "! 1" in text_of(screen.query_one(StatusHeader))


async def test_each_channel_is_switched_off_in_the_config(tmp_path):
    config = {"ui": {"notify": {"watch": "all", "toast": False, "bell": False, "desktop": False}}}
    app = demo_app(tmp_path / "s", config)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        rung = []
        app.bell = lambda: rung.append(1)
        assert screen.desktop.channel is None  # headless: never a desktop notice from a test
        assert desktop_channel(app.backend.notify.desktop, {"TERM": "foot"}) is None  # switched off
        other = DEV if screen.query_one(TranscriptPane).key != DEV else FAMILY
        screen.post_message(_status(other, "stuck"))
        await until(pilot, lambda: screen.notices, "the notice, in the attention list still")
        assert rung == [] and not any(n.title == "Stuck" for n in app._notifications)


async def test_w_watches_the_highlighted_session_and_the_header_marks_it(tmp_path):
    app = demo_app(tmp_path / "s", {"ui": {"notify": {"watch": "none"}}})
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        _channels(app)
        await select(pilot, DEV)
        await select(pilot, FAMILY)  # DEV highlighted no more: its status may notify
        screen.post_message(_status(DEV, "done"))
        await settle(pilot)
        assert screen.notices == []  # nothing watched
        await select(pilot, DEV)
        await pilot.press("W")
        await settle(pilot)
        assert screen.watch_set.watched(DEV)
        assert "◉ watched" in text_of(screen.query_one(StatusHeader))
        await select(pilot, FAMILY)
        assert "watched" not in text_of(screen.query_one(StatusHeader))
        screen.post_message(_status(DEV, "looping"))
        await until(pilot, lambda: [n.kind for n in screen.notices] == ["looping"], "the watched session's notice")
        await select(pilot, DEV)
        await pilot.press("W")  # unwatched again
        assert not screen.watch_set.watched(DEV)


async def test_a_reply_to_the_operators_send_is_a_notice(tmp_path):
    app = demo_app(tmp_path / "s")  # the default: watch my sends
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        _channels(app)
        other = DEV if screen.query_one(TranscriptPane).key != DEV else FAMILY
        args = {"sessionKey": other, "message": "status?", "timeoutSeconds": 10}
        await app.backend.call_tool("sessions_send", args, app.requester())
        await until(pilot, lambda: any(n.kind == "reply" for n in screen.notices), "the reply's notice")
        [reply] = [n for n in screen.notices if n.kind == "reply"]
        assert reply.session_key == other and reply.title.startswith("Reply from ")
        assert screen.watch_set.watched(other)  # sent to: watched under "sends"
        screen.post_message(_status(other, "done"))
        await until(pilot, lambda: screen.notices[0].kind == "done", "the sent-to session's status")


async def test_the_attention_list_newest_first_enter_opens_and_escape_closes(tmp_path):
    app = demo_app(tmp_path / "s", {"ui": {"notify": {"watch": "all"}}})
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        _channels(app)
        await select(pilot, FAMILY)
        await settle(pilot)
        screen.post_message(_status(DEV, "done"))
        screen.post_message(_status(DEV, "failed", previous="done"))
        await until(pilot, lambda: len(screen.notices) == 2, "two notices")
        await pilot.press("exclamation_mark")
        await until(pilot, lambda: isinstance(app.screen, AttentionScreen), "the attention list")
        listed = app.screen
        assert [n.kind for n in listed.notices] == ["failed", "done"]  # newest first
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "back on the sessions")
        assert len(screen.notices) == 2
        await pilot.press("exclamation_mark")
        await until(pilot, lambda: isinstance(app.screen, AttentionScreen), "the attention list again")
        await pilot.press("enter")
        await until(pilot, lambda: screen.query_one(TranscriptPane).key == DEV, "the notice's session open")
        assert app.screen is screen and screen.notices == []  # opened: its notices dropped out
        assert "!" not in text_of(screen.query_one(StatusHeader)).split("live")[0].split("running)")[-1]


async def test_a_reply_to_a_send_made_by_another_process_is_a_notice(tmp_path):
    """`sessions-tui send` in another terminal: the dashboard sees the store move, reads the ledger
    again and says the reply (the baseline before it: not news)."""
    state = tmp_path / "s"
    app = demo_app(state)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        _channels(app)
        await select(pilot, FAMILY)
        (state / "config.json5").write_text("{ models: { demo: { latencyMs: 0, chunkMs: 0 } } }")
        env = {k: v for k, v in os.environ.items() if k not in ("SESSIONS_TUI_HOME", "SESSIONS_TUI_CONFIG")}
        argv = [sys.executable, "-m", "sessions_tui", "--state", str(state), "send", DEV, "status?"]
        sent = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60)
        assert sent.returncode == 0, sent.stderr
        await until(pilot, lambda: any(n.kind == "reply" for n in screen.notices), "the other process's reply")
        [reply] = screen.notices
        assert (reply.kind, reply.session_key) == ("reply", DEV)


async def test_the_composers_send_watches_its_target_on_a_backend_without_a_ledger(tmp_path):
    """An OpenClaw gateway keeps no send ledger here: the composer's own send still watches its target
    (under `sends`), so the target finishing later is a notice."""
    from sessions_tui.backend.contract.types import Capability
    from sessions_tui.backend.local.backend import LocalBackend

    class NoLedger(LocalBackend):
        @property
        def capabilities(self):  # type: ignore[no-untyped-def]
            return super().capabilities - {Capability.LEDGER}

    app = demo_app(tmp_path / "s")
    app.backend = NoLedger(app.engine)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        _channels(app)
        await select(pilot, DEV)
        assert not screen.watch_set.watched(DEV)
        screen.query_one("#timeout").value = "0"  # do not wait: accepted
        screen.query_one("#message").value = "status?"
        await pilot.press("ctrl+s")
        outcome = screen.query_one("#outcome")
        await until(pilot, lambda: str(outcome.render()).startswith("accepted"), "sent")
        await until(pilot, lambda: screen.watch_set.watched(DEV), "the target watched")
        await select(pilot, FAMILY)
        screen.post_message(_status(DEV, "done"))
        await until(pilot, lambda: screen.notices and screen.notices[0].kind == "done", "its status a notice")
