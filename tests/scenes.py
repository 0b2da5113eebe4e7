"""The dashboard's key screens, staged on the demo state: used by the snapshot tests and by the
README's screenshots (`scripts/screenshots.py`), so both show exactly the same thing.

Every scene runs on a fresh demo with a frozen clock and repeatable ids, its state where a real
user's is by default (`~/.local/share/sessions-tui`) under a home directory of its own: the caller
points HOME there, and the screen shows the path as `~/…` whatever that directory is, so two runs
at once never share a directory and still show the same screen.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import json5

from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.engine.clock import FrozenClock
from sessions_tui.engine.config import parse_config
from sessions_tui.engine.demo.config import DEMO_CONFIG
from sessions_tui.engine.demo.state import seed_demo
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.sessions import ids
from sessions_tui.ui.app import SessionsApp
from sessions_tui.ui.widgets.transcript import TranscriptPane

SIZE = (160, 48)  # the README's screenshots and the snapshots without a size in their name
SMALL_SIZES = [(80, 24), (100, 30), (120, 40)]  # the key scenes are snapshot at these too (`main-80x24`…)
SMALL_SCENES = ["main", "transcript-tools-off", "spawn-announcement"]
NOW_MS = 1_776_081_600_000  # 2026-04-13T12:00:00Z
STATE_UNDER_HOME = Path(".local/share/sessions-tui")  # the default state directory on Linux
DEV = "agent:main:discord:group:dev"
FAMILY = "agent:main:whatsapp:group:family"


def merge(*parts: dict[str, Any]) -> dict[str, Any]:
    """Deep-merge config dicts (later wins)."""
    out: dict[str, Any] = {}
    for part in parts:
        for key, value in part.items():
            out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


class StagedApp(SessionsApp):
    """The dashboard on a local backend, with its engine at hand for staging a scene (the clock,
    draining the work a send started, the store)."""

    def __init__(self, engine: Engine, **kwargs: Any) -> None:
        super().__init__(LocalBackend(engine), **kwargs)
        self.engine = engine


def demo_app(
    state: Path,
    config: dict[str, Any] | None = None,
    *,
    latency_ms: int = 0,
    watch_store: bool = True,
    acting_as: str = "main",
    sandboxed: bool = False,
    seed: str | None = None,
) -> StagedApp:
    """The demo on a fresh state directory, with the demo config plus `config`; its ids are
    repeatable, drawn from `seed` (by default the directory's name)."""
    ids.use_sequence(seed or state.name)
    if state.exists():
        shutil.rmtree(state)
    data = merge(json5.loads(DEMO_CONFIG), {"models": {"demo": {"latencyMs": latency_ms, "chunkMs": 0}}}, config or {})
    cfg, _ = parse_config(data)
    engine = Engine(state, cfg, clock=FrozenClock(NOW_MS))
    seed_demo(engine, None)
    chosen = acting_as != "main" or sandboxed  # as the command line's --as/--sandboxed choose a session
    return StagedApp(
        engine, acting_as=acting_as, sandboxed=sandboxed, chosen=chosen, watch_store=watch_store, steady=True
    )


def _transcripts_loading(app: Any) -> bool:
    try:
        screen = app.main_screen
    except LookupError:  # before the main screen is up
        return False
    return any(pane.page_loading for pane in screen.query(TranscriptPane))


async def settle(pilot: Any, seconds: float = 0.15, *, whole_page: bool = True) -> None:
    """Let workers and message handlers finish (all but the OpenClaw follow, which never does),
    and a transcript's whole page go in (its newest messages show first, the rest after), unless
    `whole_page` is False (a test holding the rest of the page back)."""
    await pilot.pause(seconds)
    for _ in range(3 if whole_page else 1):  # a page that lands starts one more round at most
        busy = [w for w in pilot.app.workers if w.group != "follow"]
        if busy:  # an empty list would mean every worker to Textual
            await pilot.app.workers.wait_for_complete(busy)
        if whole_page:
            await until(pilot, lambda: not _transcripts_loading(pilot.app), "the transcript's page")
        await pilot.pause(0.05)


async def until(pilot: Any, condition: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Wait for what the app shows to reach `condition` (a state, not a fixed delay): the app
    keeps processing meanwhile; fails after `timeout` seconds naming `what`."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def select(pilot: Any, key: str, *, whole_page: bool = True) -> None:
    """Move the cursor to `key` once the table lists it (a session that has just arrived, from
    another process or a follow, is counted in the header before its page is read again)."""
    table = pilot.app.main_screen.query_one("#sessions")
    await until(pilot, lambda: any(row.value == key for row in table.rows), f"{key} in the table")
    table.move_cursor(row=table.get_row_index(key))
    await settle(pilot, whole_page=whole_page)


async def type_message(pilot: Any, text: str) -> None:
    """Open the highlighted session in the composer and fill in `text` (set, not typed key by key:
    the scenes stay quick)."""
    await pilot.press("enter")
    pilot.app.main_screen.query_one("#message").value = text


async def main_screen(pilot: Any) -> None:
    await settle(pilot)


async def transcript_tools_off(pilot: Any) -> None:
    await settle(pilot)
    await select(pilot, DEV)


async def transcript_tools_on(pilot: Any) -> None:
    await settle(pilot)
    await pilot.press("t")
    await settle(pilot)


async def countdown(pilot: Any) -> None:
    await settle(pilot)
    await select(pilot, DEV)
    await type_message(pilot, "Please post the summary to the channel")
    await pilot.press("ctrl+s")
    outcome = pilot.app.main_screen.query_one("#outcome")
    await until(pilot, lambda: "running" in str(outcome.render()), "the send's run to start")
    pilot.app.engine.clock.advance(12_000)  # 12 of 30 seconds gone
    await until(pilot, lambda: "18 s left" in str(outcome.render()), "the countdown to show 18 s")
    await pilot.pause(0.05)


async def spawn_with_announcement(pilot: Any) -> None:
    await settle(pilot)
    await pilot.press("s")
    screen = pilot.app.main_screen
    screen.query_one("#spawn-task").value = "count the words in: one two three four five"  # not typed: quicker
    screen.query_one("#spawn-label").value = "count-words-2"
    await pilot.press("enter")
    outcome = screen.query_one("#spawn-outcome")
    await until(pilot, lambda: str(outcome.render()).startswith("accepted"), "the spawn to be accepted")
    await pilot.app.engine.drain()
    await until(
        pilot,
        lambda: any("count-words-2" in str(a.render()) for a in screen.query(".announcement")),
        "the new child's announcement",
    )
    screen.query_one("#spawn-runs").focus()  # no blinking cursor; the runs list in focus
    await settle(pilot)


async def policy_refusal(pilot: Any) -> None:
    await settle(pilot)
    await select(pilot, FAMILY)
    await type_message(pilot, "dinner is at 8 now")
    await pilot.press("ctrl+s")
    await until(
        pilot, lambda: any(n.title == "Why refused" for n in pilot.app._notifications), "the refusal's deciding rule"
    )
    await settle(pilot, 0.3)


async def sends_view(pilot: Any) -> None:
    """The Sends view on a session: a send answered, one refused by the send policy."""
    await settle(pilot)
    for key, text in ((DEV, "Please post the summary to the channel"), (FAMILY, "dinner is at 8 now")):
        await select(pilot, key)
        await type_message(pilot, text)
        await pilot.press("ctrl+s")
        outcome = pilot.app.main_screen.query_one("#outcome")
        await until(pilot, lambda box=outcome: str(box.render()).startswith(("ok", "forbidden")), "the outcome")
        await pilot.app.engine.drain()
        await pilot.press("escape")
    await select(pilot, DEV)
    await pilot.press("l")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "SendsScreen", "the Sends view")
    screen = pilot.app.screen
    screen.query_one("#sends-session").value = ""  # every session's sends, the refused one too
    screen.query_one("#sends-session").focus()
    await pilot.press("enter")
    table = screen.query_one("#sends-table")
    await until(pilot, lambda: table.row_count == 2, "both sends listed")
    table.move_cursor(row=1)  # the answered one (newest first)
    detail = screen.query_one("#sends-detail")
    await until(pilot, lambda: "announce" in str(detail.render()), "the send's life, its announce included")
    await settle(pilot)
    pilot.app.clear_notifications()  # the refusal's toast comes when it comes: not part of this view
    await settle(pilot)


async def spawn_tree_scene(pilot: Any) -> None:
    """A two-level spawn tree in the demo: a child that spawned a grandchild, costs rolled up."""
    from sessions_tui.backend.contract.types import Requester

    await settle(pilot)
    await pilot.press("s")
    app = pilot.app
    first = await app.backend.call_tool(
        "sessions_spawn", {"task": "count the words in: plan the release notes", "label": "release-notes"}, Requester()
    )
    await app.engine.drain()  # the first child's run draws its ids before the second spawn draws its own
    await app.backend.call_tool(
        "sessions_spawn",
        {"task": "count the words in: list the merged pull requests", "label": "merged-prs"},
        Requester(key=first["childSessionKey"]),
    )
    await app.engine.drain()
    screen = app.main_screen
    screen.query_one("#spawn").refresh_runs()
    runs = screen.query_one("#spawn-runs")
    await until(pilot, lambda: runs.row_count == 3, "the tree listed")
    runs.focus()
    await settle(pilot)


async def why_scene(pilot: Any) -> None:
    """`w` on the WhatsApp group: what main may do there, and the send policy rule that refuses sends."""
    await settle(pilot)
    await select(pilot, FAMILY)
    await pilot.press("w")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "ExplainScreen", "the why box")
    box = pilot.app.screen.query_one("#explain-text")
    await until(pilot, lambda: "send" in str(box.render()), "the explanation")
    await settle(pilot)


async def search_scene(pilot: Any) -> None:
    """`f`, "deploy": every message that says it, best first, the word highlighted in its context."""
    await settle(pilot)
    await pilot.press("f")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "SearchScreen", "the Search view")
    screen = pilot.app.screen
    for char in "deploy":
        await pilot.press(char)
    await pilot.press("enter")
    table = screen.query_one("#search-table")
    await until(pilot, lambda: table.row_count == 3, "three messages found")
    table.move_cursor(row=1)
    await settle(pilot)


async def search_opened(pilot: Any) -> None:
    """The search's second hit opened: its session, at that message, marked."""
    await search_scene(pilot)
    await pilot.press("enter")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "MainScreen", "back on the sessions")
    pane = pilot.app.main_screen.query_one("#transcript")
    await until(pilot, lambda: bool(pane.query(".found")), "the message marked")
    await settle(pilot)


async def help_screen(pilot: Any) -> None:
    await settle(pilot)
    await pilot.press("question_mark")
    await settle(pilot)


async def stop_confirm(pilot: Any) -> None:
    """`x` on the Discord group: the box asking before its running turn is stopped."""
    await settle(pilot)
    await select(pilot, DEV)
    await pilot.press("x")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "StopScreen", "the stop box")
    await settle(pilot)


async def new_session_form(pilot: Any) -> None:
    """`n`: the new-session form, its key and label filled in, a first message being written."""
    await settle(pilot)
    await pilot.press("n")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "NewSessionScreen", "the form")
    form = pilot.app.screen
    form.query_one("#new-key").value = "agent:main:discord:group:ops"
    form.query_one("#new-label").value = "ops"
    form.query_one("#new-message").value = "hello ops"
    form.query_one("#new-message").focus()
    await settle(pilot)


async def delete_confirm(pilot: Any) -> None:
    """`D` on the WhatsApp group: the box naming the key before it is deleted."""
    await settle(pilot)
    await select(pilot, FAMILY)
    await pilot.press("D")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "DeleteScreen", "the delete box")
    await settle(pilot)


async def two_marked(pilot: Any) -> None:
    """`space` on the Discord and WhatsApp groups: two rows marked for a bulk action."""
    await settle(pilot)
    for key in (DEV, FAMILY):
        await select(pilot, key)
        await pilot.press("space")
    await settle(pilot)


async def sorted_by_channel(pilot: Any) -> None:
    """`<` twice from the first sort (UPDATED): sorted by CHANNEL, a column small terminals drop."""
    await settle(pilot)
    for _ in range(2):
        await pilot.press("less_than_sign")
        await settle(pilot)


async def kill_confirm(pilot: Any) -> None:
    """`x` on a running sub-agent with two running children of its own: the box naming what dies
    (the demo model slow, so all three run)."""
    from sessions_tui.backend.contract.types import Requester

    await settle(pilot)
    await pilot.press("s")
    app = pilot.app
    spawn = {"task": "count the words in: gather the sources", "label": "research-1"}
    first = await app.backend.call_tool("sessions_spawn", spawn, Requester())
    for n in (1, 2):
        part = {"task": f"count the words in: source {n}", "label": f"source-{n}"}
        await app.backend.call_tool("sessions_spawn", part, Requester(key=first["childSessionKey"]))
    screen = app.main_screen
    screen.query_one("#spawn").refresh_runs()
    runs = screen.query_one("#spawn-runs")
    await until(pilot, lambda: runs.row_count >= 3 and "research-1" in str(runs.get_row_at(0)[0]), "the tree listed")
    runs.focus()
    runs.move_cursor(row=0)
    await pilot.press("x")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "KillScreen", "the kill box")
    await settle(pilot)


async def attention_list(pilot: Any) -> None:
    """`!` after five notices (a session done, then failed; another stuck; a hook; a cron run), the
    newest first, at the frozen clock's times."""
    from sessions_tui.backend.values.vocabulary import CronRunStarted, HookReceived, StatusChanged

    await settle(pilot)
    await select(pilot, FAMILY)
    app = pilot.app
    now = app.engine.now()
    screen = app.main_screen
    for key in (DEV, "agent:main:main"):  # watched, whatever the config's default
        if not screen.watch_set.watched(key):
            screen.watch_set.toggle(key)
    for event in (
        StatusChanged(ts=now - 3_600_000, session_key=DEV, status="done", previous="working"),
        HookReceived(ts=now - 1_800_000, session_key=DEV, name="Nightly import"),
        CronRunStarted(ts=now - 600_000, session_key=DEV, job_id="digest", job_name="Morning digest", run_id="r1"),
        StatusChanged(ts=now - 120_000, session_key="agent:main:main", status="stuck", previous="working"),
        StatusChanged(ts=now - 5_000, session_key=DEV, status="failed", previous="done"),
    ):
        app.engine.events.publish(event)
    await until(pilot, lambda: len(screen.notices) == 5, "the five notices")
    app.clear_notifications()  # the toasts would cover the list
    await pilot.press("exclamation_mark")
    await until(pilot, lambda: type(pilot.app.screen).__name__ == "AttentionScreen", "the attention list")
    await settle(pilot)


CRON = "agent:main:cron:nightly-report"


async def live_statuses(pilot: Any) -> None:
    """The table's live statuses at once: a run stuck for three minutes, one working, one done since
    last looked at, one failed; the header counts them."""
    from sessions_tui.backend.values.vocabulary import RunEnded, RunStarted
    from sessions_tui.engine.store.tables.runs import RunRecord

    await settle(pilot)
    app = pilot.app
    engine = app.engine

    def start(key: str, run_id: str) -> None:
        now = engine.now()
        record = RunRecord(run_id=run_id, session_key=key, status="running", created_at=now, started_at=now)
        engine.store.runs.insert_run(record, {})
        engine.events.publish(RunStarted(ts=now, run_id=run_id, session_key=key))

    def end(key: str, run_id: str, status: str) -> None:
        now = engine.now()
        engine.store.runs.update_run(run_id, status=status, error=None, started_at=now, ended_at=now)
        engine.events.publish(RunEnded(ts=now, run_id=run_id, session_key=key, status=status))  # type: ignore[arg-type]

    screen = app.main_screen
    start(DEV, "run-stuck")
    start("agent:research:main", "run-done")
    start(CRON, "run-failed")
    engine.clock.advance(3 * 60_000)
    screen.board.recheck()  # the board's one timer, at the frozen clock's moment
    end("agent:research:main", "run-done", "ok")
    end(CRON, "run-failed", "error")
    start(FAMILY, "run-working")
    wanted = {DEV: "stuck", "agent:research:main": "done", CRON: "failed", FAMILY: "working"}
    await until(pilot, lambda: all(screen.board.status(k) == status for k, status in wanted.items()), "the statuses")
    await settle(pilot)


def seed_usage(engine: Engine) -> None:
    """A week of model turns in the demo's sessions, each hour's tokens a pattern of its own (the
    demo model's, priced by the config; one provider reporting its own cost), so the chart has shape."""
    sessions = (("agent:main:main", 1.0), (DEV, 0.6), (FAMILY, 0.25), ("agent:research:main", 0.4))
    for day in range(7):
        for hour in (2, 9, 10, 14, 15, 16, 21):
            at = NOW_MS - (6 - day) * 86_400_000 - 12 * 3_600_000 + hour * 3_600_000
            if at > NOW_MS:
                continue
            for n, (key, share) in enumerate(sessions):
                tokens = int((1_000 + 700 * ((day * 5 + hour * 3 + n) % 9)) * share * (1 + day / 3))
                reported = n == 1 and hour == 14  # this one's provider reports its cost
                usage: dict[str, Any] = {"input": tokens * 4 // 5, "output": tokens // 5, "totalTokens": tokens}
                if reported:
                    usage["cost"] = {"total": round(tokens * 0.000012, 6)}
                message = {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "done"}],
                    "provider": "openai" if reported else "demo",
                    "model": "gpt-5" if reported else "demo",
                    "usage": usage,
                    "timestamp": at,
                }
                engine.store.transcripts.append(key, message, touch=False)


async def usage_scene(pilot: Any) -> None:
    """`U` on the main session: a week of tokens per day by agent, the spawn tree's roll-up under them."""
    app = pilot.app
    seed_usage(app.engine)
    await settle(pilot)
    await pilot.press("U")
    await until(pilot, lambda: type(app.screen).__name__ == "UsageScreen" and app.screen.painted > 0, "the usage")
    await settle(pilot)


Scene = Callable[[Any], Awaitable[None]]

# name -> (scene, demo model latency in ms)
SCENES: dict[str, tuple[Scene, int]] = {
    "main": (main_screen, 0),
    "transcript-tools-off": (transcript_tools_off, 0),
    "transcript-tools-on": (transcript_tools_on, 0),
    "composer-countdown": (countdown, 60_000),
    "spawn-announcement": (spawn_with_announcement, 0),
    "policy-refusal": (policy_refusal, 0),
    "sends": (sends_view, 0),
    "spawn-tree": (spawn_tree_scene, 0),
    "why": (why_scene, 0),
    "search": (search_scene, 0),
    "search-opened": (search_opened, 0),
    "help": (help_screen, 0),
    "usage": (usage_scene, 0),
    "live-status": (live_statuses, 0),
    "attention": (attention_list, 0),
    "new-session": (new_session_form, 0),
    "marked-rows": (two_marked, 0),
}


def scene_app(name: str, home: Path) -> tuple[StagedApp, Scene]:
    """Scene `name` on a fresh demo under `home`, which must be the user's home (HOME) meanwhile."""
    if Path(os.path.expanduser("~")) != home:
        raise RuntimeError(f"point HOME at {home} first: the scene's paths show relative to it")
    scene, latency = SCENES[name]
    return demo_app(home / STATE_UNDER_HOME, latency_ms=latency, seed=name), scene
