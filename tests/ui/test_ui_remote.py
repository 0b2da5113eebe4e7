"""The dashboard on a remote backend: the same screens over `serve`, live through its events."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import json5

from scenes import DEV, merge
from server_support import TOKEN, served
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.values.views import BrowseQuery
from sessions_tui.engine.clock import FrozenClock
from sessions_tui.engine.config import parse_config
from sessions_tui.engine.demo.config import DEMO_CONFIG
from sessions_tui.engine.demo.state import seed_demo
from sessions_tui.engine.engine import Engine
from sessions_tui.ui.app import SessionsApp
from sessions_tui.ui.widgets.message_view import StreamView
from sessions_tui.ui.widgets.transcript import MessageView
from ui_support import SIZE, pick_acting_as, select, settle, text_of, until

NOW_MS = 1_776_081_600_000
ALLOW = {
    "gateway": {"tools": {"allow": ["sessions_send", "sessions_spawn"]}},
    "models": {"demo": {"latencyMs": 0, "chunkMs": 0}},
}


def demo_backend(tmp_path, extra: dict | None = None) -> LocalBackend:
    cfg, _ = parse_config(merge(merge(json5.loads(DEMO_CONFIG), ALLOW), extra or {}))
    engine = Engine(tmp_path / "server-state", cfg, clock=FrozenClock(NOW_MS))
    seed_demo(engine, None)
    return LocalBackend(engine)


async def test_the_table_transcript_and_composer_work_over_a_remote(tmp_path):
    local = demo_backend(tmp_path)
    expected = [row["_key"] for row in (await local.browse(Requester(), BrowseQuery(), offset=0, limit=100)).rows]
    with served(local, allow=("sessions_send", "sessions_spawn")) as url:
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        app = SessionsApp(remote, acting_as="main")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            table = app.main_screen.query_one("#sessions")
            await until(pilot, lambda: len(table.rows) == len(expected), "every demo session listed")
            assert sorted(row.value for row in table.rows) == sorted(expected)
            await select(pilot, DEV)
            shown = app.main_screen.query(MessageView)
            assert len(shown) > 0
            await pilot.press("enter")
            app.main_screen.query_one("#message").value = "status please"
            await pilot.press("ctrl+s")
            outcome = app.main_screen.query_one("#outcome")
            await until(pilot, lambda: "ok" in text_of(outcome), "the send's outcome")
            await until(
                pilot,
                lambda: any("status please" in v.plain for v in app.main_screen.query(MessageView)),
                "the sent message in the transcript, through the event stream",
            )


@contextmanager
def remote_demo(tmp_path: Path) -> Iterator[SessionsApp]:
    """The dashboard on a remote backend over `serve` of the demo (sends and spawns allowed)."""
    with served(demo_backend(tmp_path), allow=("sessions_send", "sessions_spawn")) as url:
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        yield SessionsApp(remote, acting_as="main")


async def test_acting_as_a_sandboxed_session_over_a_remote_narrows_the_table(tmp_path):
    with remote_demo(tmp_path) as app:
        async with app.run_test(size=SIZE) as pilot:
            modal = await pick_acting_as(pilot, "discord:group:dev", sandboxed=True)
            assert "sees only the sessions it spawned" in text_of(modal.query_one("#acting-describe"))
            modal.query_one("#acting-use").press()
            table = app.main_screen.query_one("#sessions")
            await until(pilot, lambda: app.requester_key == DEV and len(table.rows) == 0, "the narrowed table")


async def test_a_spawn_from_the_panel_over_a_remote_announces_back(tmp_path):
    with remote_demo(tmp_path) as app:
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await pilot.press("s")
            screen = app.main_screen
            screen.query_one("#spawn-task").value = "count the words in: one two three"
            screen.query_one("#spawn-label").value = "remote-words"
            await pilot.press("enter")
            outcome = screen.query_one("#spawn-outcome")
            await until(pilot, lambda: text_of(outcome).startswith("accepted"), "the spawn to be accepted")
            await until(
                pilot,
                lambda: any("remote-words" in text_of(a) for a in screen.query(".announcement")),
                "the child's announcement, through the event stream",
            )


async def test_one_dashboard_over_two_servers_lists_both_marked_by_server(tmp_path):
    from sessions_tui.backend.several import SeveralBackends

    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    one, two = demo_backend(tmp_path / "one"), demo_backend(tmp_path / "two")
    with served(one) as url_one, served(two) as url_two:
        remotes = [RemoteBackend(url, TOKEN) for url in (url_one, url_two)]
        for remote in remotes:
            remote.connect_blocking()
        both = SeveralBackends(remotes)
        labels = [url.removeprefix("http://") for url in (url_one, url_two)]
        app = SessionsApp(both, acting_as=both.main_session_key())
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            table = app.main_screen.query_one("#sessions")
            await until(pilot, lambda: {str(r.value).split("/")[0] for r in table.rows} == set(labels), "both servers")
            dev_two = f"{labels[1]}/{DEV}"
            await select(pilot, dev_two)
            assert len(app.main_screen.query(MessageView)) > 0
            app.main_screen.query_one("#filter").value = "dev"
            await until(
                pilot,
                lambda: sorted(str(r.value) for r in table.rows) == sorted(f"{label}/{DEV}" for label in labels),
                "the filter across both servers",
            )


async def test_the_header_names_the_server(tmp_path):
    with remote_demo(tmp_path) as app:
        url = app.backend.location
        async with app.run_test(size=(160, 40)) as pilot:
            await settle(pilot)
            header = text_of(app.main_screen.query_one("#status-header"))
            assert f"remote {url}" in header and " state " not in header


async def test_a_reply_streams_into_a_remote_dashboard_word_by_word(tmp_path):
    """Over `serve` the reply being written shows as it comes, a word at a time (the server passes
    on what the redaction of the text so far shows), before the message lands whole."""
    local = demo_backend(tmp_path, {"models": {"demo": {"chunkMs": 250}}})  # a reply that takes seconds to write
    with served(local, allow=("sessions_send",)) as url:
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        app = SessionsApp(remote, acting_as="main")
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            await select(pilot, DEV)
            await pilot.press("enter")
            app.main_screen.query_one("#message").value = "status please"
            await pilot.press("ctrl+s")
            preview = app.main_screen.query_one(StreamView)
            await until(pilot, lambda: "please" in preview.plain, "the reply's words streaming in")
            assert not any(
                "please" in v.plain and v.message.get("role") == "assistant" for v in app.main_screen.query(MessageView)
            )
