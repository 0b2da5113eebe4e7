"""The Sends view (`l`) and the thread view: what became of each send, from the dashboard."""

from __future__ import annotations

from conftest import add_session, call_tool
from scenes import DEV, FAMILY
from sessions_tui.ui.screens.sends import SendsScreen
from sessions_tui.ui.screens.thread import ThreadScreen
from ui_support import SIZE, demo_app, select, send_from_composer, settle, text_of, until


async def test_a_send_and_its_life_show_in_the_sends_view_and_its_thread(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_from_composer(pilot, DEV, "what is the status of the deploy")
        await pilot.app.engine.drain()
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, SendsScreen), "the Sends view")
        screen = app.screen
        table = screen.query_one("#sends-table")
        await until(pilot, lambda: table.row_count >= 1, "the send listed")
        detail = screen.query_one("#sends-detail")
        await until(pilot, lambda: "replied" in text_of(detail), "the send's life")
        shown = text_of(detail)
        assert "what is the status of the deploy" in shown and "accepted" in shown and "started" in shown
        assert "Sends of" in text_of(screen.query_one("#sends-title"))


async def test_a_refused_send_stands_out_and_the_state_filter_cycles(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_from_composer(pilot, FAMILY, "dinner at 8")
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, SendsScreen), "the Sends view")
        screen = app.screen
        table = screen.query_one("#sends-table")
        await until(pilot, lambda: table.row_count == 1, "the refused send listed")
        assert "forbidden" in text_of(screen.query_one("#sends-detail"))
        state_cell = table.get_row_at(0)[3]
        assert "forbidden" in str(state_cell) and state_cell.spans  # coloured: it stands out
        for _ in range(2):  # "" → replied → timeout: no refused send is a timeout
            await pilot.press("f")
        await until(
            pilot, lambda: table.row_count == 0 and "timeout" in text_of(screen.query_one("#sends-title")), "filtered"
        )
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, SendsScreen), "back on the sessions")


async def test_the_thread_view_draws_a_two_session_conversation(tmp_path):
    app = demo_app(tmp_path / "s", config={"tools": {"agentToAgent": {"enabled": True}}})
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await call_tool(
            app.engine,
            "sessions_send",
            {"sessionKey": DEV, "message": "hello dev", "timeoutSeconds": 10},
            as_key="agent:main:main",
        )
        await app.engine.drain()
        await app.push_screen(ThreadScreen(app.backend, app.display_key, "agent:main:main", DEV))
        await until(pilot, lambda: isinstance(app.screen, ThreadScreen), "the thread")
        text = app.screen.query_one("#thread-text")
        await until(pilot, lambda: "hello dev" in text_of(text), "the thread's lines")
        shown = text_of(text)
        assert "→ " in shown and "reply" in shown


async def test_the_sends_view_shows_the_open_sessions_key_redacted_and_its_field_still_names_it(tmp_path):
    token = "sk-proj-qw3er5ty7ui9op1as3df5gh7jk9lz1xc3vb5"
    app = demo_app(tmp_path / "s")
    engine = app.engine
    key = add_session(engine, f"agent:main:telegram:group:{token}\u202egnp\u200bx", [{"role": "user", "content": "hi"}])
    me = engine.main_session_key()
    engine.ledger.open(run_id="run-secret", requester=me, target=key, message="ping", via="owner", chain=[me, key])
    engine.ledger.flush()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, key)
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, SendsScreen), "the Sends view")
        screen = app.screen
        table, field = screen.query_one("#sends-table"), screen.query_one("#sends-session")
        await until(pilot, lambda: table.row_count == 1, "the session's send")
        for shown in (text_of(screen.query_one("#sends-title")), field.value):
            assert "sk-pro…3vb5" in shown and "⟨U+202E⟩gnp⟨U+200B⟩x" in shown, shown
            assert "ty7ui9op1as3df5gh" not in shown and "\u202e" not in shown and "\u200b" not in shown
        field.focus()
        await pilot.press("enter")  # the field as shown: still the session
        await settle(pilot)
        await until(pilot, lambda: table.row_count == 1, "the session's send again")
        assert "sk-pro…3vb5" in text_of(screen.query_one("#sends-title"))
        assert "\u202e" not in app.export_screenshot()
