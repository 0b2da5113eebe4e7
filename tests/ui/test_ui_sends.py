"""The Sends view (`l`) and the thread view: what became of each send, from the dashboard."""

from __future__ import annotations

import pytest
from textual.geometry import Region

from conftest import add_session, call_tool
from scenes import DEV, FAMILY
from sessions_tui.ui.screens.ledger.sends import SendsScreen
from sessions_tui.ui.screens.ledger.thread import ThreadScreen
from ui_support import SIZE, demo_app, select, send_from_composer, settle, text_of, until


def lines_on_screen(widget) -> list[str]:
    """The lines a widget draws, as the terminal shows them (wrapped, indented)."""
    width, height = widget.size
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, width, height))]


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
        await until(pilot, lambda: "hello dev" in "".join(lines_on_screen(text)), "the thread's lines")
        shown = "\n".join(lines_on_screen(text))  # issue 28 item 15: the lines as drawn, a grid now
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


def _late_and_undelivered(engine) -> None:
    """A send that timed out, whose reply came late and whose announce was not delivered: the
    widest state cell (`timeout · late_reply · delivery_failed`), and one made by the operator
    with no requester session."""
    me = engine.main_session_key()
    engine.ledger.open(run_id="run-late", requester=me, target=DEV, message="slow one", via="agent", chain=[me, DEV])
    for state in ("accepted", "started", "timeout", "late_reply", "announce", "delivery_failed"):
        engine.ledger.mark("run-late", state, {"text": "x"})
    engine.ledger.open(run_id="run-op", requester=None, target=FAMILY, message="from a person", via="owner", chain=[])
    engine.ledger.mark("run-op", "forbidden", {"error": "send blocked by session policy: rule 1"})
    engine.ledger.flush()


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_item_3_the_state_column_is_whole_at_every_width(tmp_path, size):
    """Issue 28 item 3: the state was off screen at 80x24 and cut to `timeout · late_` at 120x40."""
    app = demo_app(tmp_path / "s")
    _late_and_undelivered(app.engine)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, SendsScreen), "the Sends view")
        table = app.screen.query_one("#sends-table")
        await pilot.press("slash")  # the Session field, emptied: every session's sends
        await settle(pilot)
        app.screen.query_one("#sends-session").value = ""
        await pilot.press("enter")
        await until(pilot, lambda: table.row_count == 2, "both sends")
        await settle(pilot)
        keys = [column.key.value for column in table.columns.values()]
        assert keys[-1] == "state"
        widths = [column.get_render_width(table) for column in table.columns.values()]
        assert sum(widths) <= table.scrollable_content_region.width  # no column off screen
        cells = [str(table.get_row_at(row)[-1]) for row in range(table.row_count)]
        assert "timeout · late_reply · delivery_failed" in cells
        assert table.columns["state"].width >= max(len(cell) for cell in cells)  # each state whole
        senders = [str(table.get_row_at(row)[keys.index("who")]) for row in range(table.row_count)]
        assert any(who.startswith("operator → ") for who in senders)  # the operator's send, named as everywhere
        if size == (80, 24):
            assert "message" not in keys  # the message gives way first (it is in the detail below)


async def test_item_15_a_thread_lines_wrapped_text_stays_under_the_message_text(tmp_path):
    """Issue 28 item 15: a long message's wrapped lines started at column 1, under the times."""
    app = demo_app(tmp_path / "s")
    me = app.engine.main_session_key()
    words = " ".join(f"word{i}" for i in range(60))
    app.engine.ledger.open(run_id="run-long", requester=me, target=DEV, message=words, via="owner", chain=[me, DEV])
    app.engine.ledger.flush()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.push_screen(ThreadScreen(app.backend, app.display_key, me, DEV))
        text = app.screen.query_one("#thread-text")
        await until(pilot, lambda: "word59" in "".join(lines_on_screen(text)), "the thread's lines")
        lines = [line for line in lines_on_screen(text) if line.strip()]
        assert lines[0].startswith("12:00:00  main ")
        said = lines[1:]
        assert len(said) >= 3 and said[0].lstrip().startswith("word0")  # wrapped over several lines
        assert all(line.startswith(" " * 10) and line[10] != " " for line in said)  # each under the speaker


async def test_item_15_the_sends_view_opens_on_its_table_and_enter_opens_the_thread(tmp_path):
    """Issue 28 item 15: the view opened in its Session field (`enter` re-queried); `/` is the
    field now, `f` and `F` step the state filter both ways and the state shows beside the field."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await send_from_composer(pilot, DEV, "what is the status of the deploy")
        await app.engine.drain()
        await pilot.press("l")
        await until(pilot, lambda: isinstance(app.screen, SendsScreen), "the Sends view")
        screen = app.screen
        table, field, state = (screen.query_one(f"#sends-{name}") for name in ("table", "session", "state"))
        await until(pilot, lambda: table.row_count == 1, "the send listed")
        assert screen.focused is table
        assert text_of(state).startswith("State any")
        await pilot.press("F")  # back from every state: the last one
        await until(pilot, lambda: text_of(state).startswith("State delivery_failed"), "the state before")
        await pilot.press("f", "f")  # on to every send, then `replied`
        await until(pilot, lambda: text_of(state).startswith("State replied"), "the next state")
        await until(pilot, lambda: table.row_count == 1, "the replied send")
        await pilot.press("slash")
        await until(pilot, lambda: screen.focused is field, "the Session field, a key away")
        await pilot.press("escape")
        await until(pilot, lambda: screen.focused is table, "back on the table")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ThreadScreen), "the thread of the highlighted send")
