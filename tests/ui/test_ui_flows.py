"""Pilot tests of the dashboard's flows on the demo state (App.run_test)."""

import subprocess
import sys

from textual.widgets import ProgressBar

from sessions_tui.engine.events import MessageAppended
from sessions_tui.ui.widgets.transcript import MessageView
from ui_support import SIZE, demo_app, ordered_keys, pick_acting_as, select, settle, text_of, until

DEV = "agent:main:discord:group:dev"
FAMILY = "agent:main:whatsapp:group:family"


def screen(app):
    return app.main_screen


async def test_starts_on_the_table_with_every_demo_session(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.focused is screen(app).query_one("#sessions")
        assert ordered_keys(app)[0] == "main"
        assert len(ordered_keys(app)) == 9  # with the sandboxed helper's session
        header = text_of(screen(app).query_one("#status-header"))
        assert "as main" in header and "9 sessions" in header and "● live" in header
        assert str(tmp_path / "s") in header


async def test_filter_narrows_the_table_and_escape_clears_it(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"nightly")
        await settle(pilot)
        assert ordered_keys(app) == ["cron:nightly-report"]
        assert "rows 1–1 of 1" in text_of(screen(app).query_one("#page-info"))
        await pilot.press("escape")
        await settle(pilot)
        assert len(ordered_keys(app)) == 9


async def test_kind_toggles_and_active_minutes(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for kind in ("main", "group", "hook", "node", "other"):
            screen(app).query_one(f"#kind-{kind}").value = False
        await settle(pilot)
        assert ordered_keys(app) == ["cron:nightly-report"]
        screen(app).query_one("#kind-group").value = True
        screen(app).query_one("#active").value = 15
        await settle(pilot)
        assert ordered_keys(app) == [DEV, "cron:nightly-report"]


async def test_sorting_by_a_column_header(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = screen(app).query_one("#sessions")
        table.post_message(table.SortRequested("key"))
        await settle(pilot)
        keys = ordered_keys(app)
        assert keys == sorted(keys, reverse=True) or keys == sorted(keys)
        table.post_message(table.SortRequested("key"))
        await settle(pilot)
        assert ordered_keys(app) == list(reversed(keys))


async def test_selecting_a_row_opens_its_transcript_and_enter_focuses_the_composer(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down")
        await settle(pilot)
        pane = screen(app).query_one("#transcript")
        assert pane.key == DEV
        assert text_of(screen(app).query_one("#transcript-title")).startswith(DEV)
        badges = text_of(screen(app).query_one("#transcript-badges"))
        assert "redacted ●" in badges and "tools: off" in badges
        await pilot.press("enter")
        assert app.focused.id == "message"
        assert DEV in text_of(screen(app).query_one("#composer-target"))


async def test_tools_toggle_shows_tool_calls_and_results(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = screen(app).query_one("#transcript")
        roles = lambda: [m.message["role"] for m in pane.query(MessageView)]  # noqa: E731
        calls = lambda: [v for v in pane.query(MessageView) if "\n→ sessions_list(" in v.plain]  # noqa: E731
        assert "toolResult" not in roles() and not calls()
        await pilot.press("t")
        await settle(pilot)
        assert "toolResult" in roles() and calls()
        assert "tools: on" in text_of(screen(app).query_one("#transcript-badges"))
        await pilot.press("t")
        await settle(pilot)
        assert "toolResult" not in roles()


async def test_thinking_is_collapsed_and_images_are_placeholders(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = screen(app).query_one("#transcript")
        thinking = [v for v in pane.query(MessageView) if v.thinking_blocks()]
        assert thinking and all(not v.open_thinking and "▶ thinking · " in v.plain for v in thinking)
        images = [line.strip() for v in pane.query(MessageView) for line in v.plain.splitlines() if "omitted" in line]
        assert images and all(t.startswith("[image/png omitted · ") and t.endswith(" bytes]") for t in images)


async def test_agent_text_is_shown_literally_never_as_markup_or_escapes(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        texts = [v.plain for v in screen(app).query_one("#transcript").query(MessageView)]
        shown = next(t for t in texts if "markup" in t)
        assert "[bold red]markup[/]" in shown
        assert "\x1b" not in shown and "␛[31m" in shown
        svg = app.export_screenshot()
        assert "[bold red]markup[/]" in svg.replace("&#160;", " ")


async def test_send_counts_down_then_shows_ok_with_the_reply(tmp_path):
    app = demo_app(tmp_path / "s", latency_ms=1500)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        await pilot.press("enter", *"count the words in: one two")
        await pilot.press("ctrl+s")
        outcome_view = screen(app).query_one("#outcome")
        await until(pilot, lambda: "waiting" in text_of(outcome_view), "the countdown")
        bar = screen(app).query_one("#countdown", ProgressBar)
        assert bar.display is True
        assert "30 s left" in text_of(outcome_view)  # frozen clock: no time passes
        await until(pilot, lambda: text_of(outcome_view).startswith("ok"), "the reply")
        outcome = text_of(screen(app).query_one("#outcome"))
        assert outcome.startswith("ok · replied in ") and "That text has 2 words." in outcome
        assert bar.display is False
        await app.engine.drain()
        await settle(pilot)
        log = text_of(screen(app).query_one("#send-log"))
        assert "↔ turn 1 of 2 · main:" in log and "announce (recorded in the outbox)" in log


async def test_send_with_ctrl_j_too(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter", *"hi")
        await pilot.press("ctrl+j")
        await settle(pilot, 0.5)
        assert text_of(screen(app).query_one("#outcome")).startswith("ok · ")


async def test_timeout_says_the_run_goes_on(tmp_path):
    app = demo_app(tmp_path / "s", latency_ms=2500)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        timeout = screen(app).query_one("#timeout")
        timeout.value = "1"
        await pilot.press("enter", *"slow please")
        await pilot.press("ctrl+s")
        await settle(pilot, 1.5)
        assert text_of(screen(app).query_one("#outcome")) == "timeout · run goes on, see transcript"


async def test_a_policy_refusal_shows_forbidden_with_the_reason(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, FAMILY)
        await pilot.press("enter", *"hello family")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert text_of(screen(app).query_one("#outcome")) == (
            "forbidden · send blocked by session policy: rule 1 (channel=whatsapp, chatType=group)"
        )
        assert str(screen(app).query_one("#sessions").cell(FAMILY, "send")) == "deny"


async def test_slash_send_off_sets_the_override_and_the_table_shows_it(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        await pilot.press("enter", *"/send off", "enter")
        await settle(pilot, 0.3)
        assert text_of(screen(app).query_one("#outcome")) == "⚙️ Send policy set to off."
        table = screen(app).query_one("#sessions")
        assert str(table.cell(DEV, "send")) == "deny*"
        assert str(table.cell(DEV, "key")).startswith("⊘ ")
        await pilot.press(*"/send inherit", "enter")
        await settle(pilot, 0.3)
        assert str(table.cell(DEV, "send")) == "allow"


async def test_spawn_then_the_announcement_arrives(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        assert app.focused.id == "spawn-task"
        await pilot.press(*"count the words in: alpha beta gamma delta")
        screen(app).query_one("#spawn-label").value = "words"
        await pilot.press("enter")
        await settle(pilot, 0.3)
        await app.engine.drain()
        await settle(pilot, 0.3)
        outcome = text_of(screen(app).query_one("#spawn-outcome"))
        assert outcome.startswith("accepted · agent:main:subagent:")
        announcements = [text_of(w) for w in screen(app).query(".announcement")]
        assert any(
            "words" in a and "Status: completed successfully" in a and "That text has 4 words." in a
            for a in announcements
        )
        runs = screen(app).query_one("#spawn-runs")
        assert runs.row_count >= 1 and any(
            "done" in " ".join(map(str, runs.get_row_at(i))) for i in range(runs.row_count)
        )


async def test_acting_as_a_sandboxed_session_hides_sessions(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        modal = await pick_acting_as(pilot, "discord:group:dev", sandboxed=True)
        assert "sees only the sessions it spawned" in text_of(modal.query_one("#acting-describe"))
        modal.query_one("#acting-use").press()
        await settle(pilot, 0.3)
        assert app.requester_key == DEV and app.sandboxed
        assert ordered_keys(app) == []
        header = text_of(screen(app).query_one("#status-header"))
        assert f"as {DEV} (sandboxed)" in header


async def test_acting_as_main_sandboxed_sees_only_its_children(tmp_path):
    app = demo_app(tmp_path / "s", sandboxed=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert [k.startswith("agent:main:subagent:") for k in ordered_keys(app)] == [True]


async def test_a_message_written_by_another_process_appears(tmp_path):
    state = tmp_path / "s"
    app = demo_app(state)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        pane = screen(app).query_one("#transcript")
        before = len(pane.query(MessageView))
        code = (
            "import sys; from sessions_tui.engine.store.store import Store; s = Store(sys.argv[1]); "
            f"s.transcripts.append({DEV!r}, {{'role': 'user', 'content': 'from another process'}}); "
            "s.sessions.create('agent:main:telegram:group:new', {'label': 'brand new'})"
        )
        subprocess.run([sys.executable, "-c", code, str(state)], check=True, timeout=30)
        await until(  # without a key press
            pilot,
            lambda: len(pane.query(MessageView)) > before and "agent:main:telegram:group:new" in ordered_keys(app),
            "the other process's message and session",
        )
        texts = [v.plain for v in pane.query(MessageView)]
        assert "from another process" in texts[-1]
        assert "agent:main:telegram:group:new" in ordered_keys(app)


async def test_pause_holds_live_updates_until_resumed(tmp_path):
    state = tmp_path / "s"
    app = demo_app(state)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("p")
        assert "⏸ paused" in text_of(screen(app).query_one("#status-header"))
        code = (
            "import sys; from sessions_tui.engine.store.store import Store; "
            "Store(sys.argv[1]).sessions.create('agent:main:x', {})"
        )
        subprocess.run([sys.executable, "-c", code, str(state)], check=True, timeout=30)
        await settle(pilot, 0.6)
        assert "agent:main:x" not in ordered_keys(app)
        await pilot.press("p")
        await until(pilot, lambda: "agent:main:x" in ordered_keys(app), "the held session to appear")


async def test_live_updates_are_row_diffs_not_rebuilds(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = screen(app).query_one("#sessions")
        calls = {"clear": 0}
        original = table.clear

        def counting_clear(*args, **kwargs):
            calls["clear"] += 1
            return original(*args, **kwargs)

        table.clear = counting_clear
        await pilot.press("enter", *"hello", "ctrl+s")
        await settle(pilot, 0.5)
        await app.engine.drain()
        await settle(pilot, 0.3)
        assert calls["clear"] == 0
        assert ordered_keys(app)[0] == "main"  # main spoke last in the ping-pong: it moved to the top


async def test_help_lists_the_bindings(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        plain = app.export_screenshot().replace("&#160;", " ")
        help_view = app.screen.query_one("#help")
        while not help_view.is_vertical_scroll_end:  # help scrolls: read it page by page
            await pilot.press("pagedown")
            await settle(pilot)
            plain += app.export_screenshot().replace("&#160;", " ")
        for word in ("filter", "tools", "spawn", "act as", "pause", "refresh", "send", "quit", "^s / ^j"):
            assert word in plain
        await pilot.press("escape")
        assert app.screen is screen(app)


async def test_keybindings_are_remappable_from_the_config(tmp_path):
    app = demo_app(tmp_path / "s", {"ui": {"keybindings": {"tools": "x"}}})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert screen(app).query_one("#transcript").tools is True


async def test_errors_become_toasts_not_crashes(tmp_path):
    app = demo_app(tmp_path / "s", {"agents": {"defaults": {"model": "nowhere/x"}}})
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await pilot.press("enter", *"hi", "ctrl+s")
        await settle(pilot, 0.5)
        assert text_of(screen(app).query_one("#outcome")).startswith("error · invalid model")
        await pilot.press("ctrl+s")  # nothing typed: a warning toast
        await settle(pilot)
        assert any("Type a message first." in n.message for n in app._notifications)
        assert app.is_running


async def test_a_failing_worker_is_a_toast_not_a_crash(tmp_path, monkeypatch):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)

        async def broken(*args, **kwargs):
            raise RuntimeError("disk on fire")

        monkeypatch.setattr(app.backend, "browse", broken)
        await pilot.press("r")
        await settle(pilot, 0.3)
        assert app.is_running
        assert any("disk on fire" in n.message for n in app._notifications)


async def test_the_transcript_follows_new_messages_unless_scrolled_up(tmp_path):
    app = demo_app(tmp_path / "s", {"models": {"demo": {"latencyMs": 0}}})
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        scroll = screen(app).query_one("#messages")
        for i in range(6):
            await pilot.press("enter", *f"message {i}", "ctrl+s")
            await settle(pilot, 0.2)
            await app.engine.drain()
            await settle(pilot, 0.2)
            screen(app).query_one("#sessions").focus()
        assert scroll.max_scroll_y > 0 and scroll.is_vertical_scroll_end
        scroll.scroll_home(animate=False)
        await settle(pilot)
        await pilot.press("enter", *"one more", "ctrl+s")
        await settle(pilot, 0.3)
        await app.engine.drain()
        await settle(pilot, 0.3)
        assert scroll.scroll_y == 0  # the reader scrolled up: the pane stays where they are


async def test_older_messages_page_back_into_the_transcript(tmp_path):
    app = demo_app(tmp_path / "s")
    engine = app.engine
    engine.store.sessions.create("agent:main:discord:group:long", {"updatedAt": 1_900_000_000_000})
    for i in range(250):
        engine.store.transcripts.append(
            "agent:main:discord:group:long", {"role": "user", "content": f"m{i}"}, touch=False
        )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "agent:main:discord:group:long")
        await settle(pilot, 0.3)
        pane = screen(app).query_one("#transcript")
        texts = lambda: [v.message["content"] for v in pane.query(MessageView)]  # noqa: E731
        assert len(texts()) == 200 and texts()[0] == "m50"
        assert "m: older" in text_of(screen(app).query_one("#transcript-title"))
        await pilot.press("m")
        await settle(pilot, 0.3)
        assert len(texts()) == 250 and texts()[0] == "m0" and texts()[-1] == "m249"
        assert "m: older" not in text_of(screen(app).query_one("#transcript-title"))


async def test_a_session_that_comes_to_say_the_words_joins_a_transcript_filter(tmp_path):
    """`~words` keeps the sessions whose messages say them; a session not shown that is written to
    and now says them is added as it changes, not at some later page read."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"~zeppelin")
        await settle(pilot)
        assert ordered_keys(app) == []
        app.engine.store.transcripts.append(FAMILY, {"role": "user", "content": "who booked the zeppelin?"})
        app.engine.events.publish(MessageAppended(ts=app.engine.now(), session_key=FAMILY, role="user"))
        await until(pilot, lambda: ordered_keys(app) == [FAMILY], "the family group listed")
