"""Issue 29, the operator's hands in the dashboard: `n` the new-session form, `R` reset, `L` rename,
`M` model and thinking, `A` archive / unarchive, `D` delete, `alt+a` the archived sessions, `space`
marks for a bulk archive / stop / delete. Each flow: the key, the form or the question, then what the
table shows live (no reload) and the one line saying what came of it; a sandboxed requester refused
outside its tree; no key on a backend without the operations."""

from __future__ import annotations

from textual.command import CommandList, CommandPalette
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from scenes import DEV, FAMILY, demo_app, select, settle, until
from sessions_tui.backend.contract.types import Capability
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.ui.app import SessionsApp
from sessions_tui.ui.widgets.message_view import MessageView
from ui_support import SIZE, pick_acting_as, text_of

OPS = "agent:main:discord:group:ops"
CRON = "agent:main:cron:nightly-report"
NODE = "agent:main:node-macbook"
WIDE = (240, 50)  # every key in the footer


def table_of(app):
    return app.main_screen.query_one("#sessions")


def toasts(app) -> list[str]:
    return [notification.message for notification in app._notifications]


async def on_screen(pilot, name: str) -> None:
    await until(pilot, lambda: type(pilot.app.screen).__name__ == name, name)


async def back_on_main(pilot) -> None:
    await until(pilot, lambda: pilot.app.screen is pilot.app.main_screen, "the main screen")


async def test_n_creates_a_session_the_table_shows_and_highlights(tmp_path):
    """The form keeps what is wrong beside its field (a key that exists, a label taken) and stays
    open; once created it closes, the new row appears live with the cursor on it, and its first
    message is sent."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        await pilot.press("n")
        await on_screen(pilot, "NewSessionScreen")
        form = app.screen
        form.query_one("#new-key", Input).value = DEV
        await pilot.press("ctrl+s")
        error = form.query_one("#new-error")
        await until(pilot, lambda: "already exists" in text_of(error), "the error in the form")
        assert app.screen is form and form.query_one("#new-key").has_class("-invalid")
        assert app.focused is form.query_one("#new-key")
        form.query_one("#new-key", Input).value = OPS
        form.query_one("#new-label", Input).value = "ops"
        form.query_one("#new-model", Input).value = "demo/fast"
        form.query_one("#new-message", Input).value = "hello ops"
        app.set_focus(form.query_one("#new-message"))
        await pilot.press("enter")  # in the last field: creates
        await back_on_main(pilot)
        await until(pilot, lambda: OPS in table.rows_by_key, "the new row, live")
        await until(pilot, lambda: table.current_key() == OPS, "the cursor on it")
        row = table.rows_by_key[OPS]
        assert row.get("label") == "ops" and row.get("model") == "fast"  # as sessions_list shows it: no provider
        assert any(line.startswith(f"created {OPS}; its first message:") for line in toasts(app))
        await until(pilot, lambda: "hello ops" in str(app.engine.store.transcripts.history(OPS).messages), "sent")


async def test_n_says_a_label_in_use_beside_the_label_and_esc_cancels(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        label = table_of(app).rows_by_key[DEV].get("label")
        assert label
        await pilot.press("n")
        await on_screen(pilot, "NewSessionScreen")
        form = app.screen
        form.query_one("#new-key", Input).value = OPS
        form.query_one("#new-label", Input).value = label
        await pilot.press("ctrl+s")
        await until(pilot, lambda: "label already in use" in text_of(form.query_one("#new-error")), "the refusal")
        assert form.query_one("#new-label").has_class("-invalid") and not form.query_one("#new-key").has_class(
            "-invalid"
        )
        await pilot.press("escape")
        await back_on_main(pilot)
        assert app.engine.store.sessions.get(OPS) is None


async def test_capital_r_asks_then_resets_and_the_transcript_opens_on_its_reset_line(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        before = app.engine.store.sessions.get(DEV).session_id
        await pilot.press("R")
        await on_screen(pilot, "ResetScreen")
        assert f"reset {DEV}?" in text_of(app.screen.query_one("#confirm-question"))
        await pilot.press("y")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith(f"reset {DEV}"), "the line")
        assert "the old one kept" in text_of(outcome)
        assert app.engine.store.sessions.get(DEV).session_id != before
        await until(
            pilot,
            lambda: any("Reset" in view.plain for view in app.main_screen.query(MessageView)),
            "the Reset line, live",
        )


async def test_capital_l_renames_and_empty_clears_the_label(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        await select(pilot, DEV)
        await pilot.press("L")
        await on_screen(pilot, "RenameScreen")
        field = app.screen.query_one("#rename-label", Input)
        assert field.value == table.rows_by_key[DEV].get("label")
        field.value = "the dev room"
        await pilot.press("enter")
        await until(pilot, lambda: table.rows_by_key[DEV].get("label") == "the dev room", "the label, live")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome) == f"renamed {DEV}: the dev room", "the line")
        await pilot.press("L")
        await on_screen(pilot, "RenameScreen")
        app.screen.query_one("#rename-label", Input).value = ""
        await pilot.press("enter")
        await until(pilot, lambda: not table.rows_by_key[DEV].get("label"), "the label cleared")


async def test_capital_m_sets_the_model_and_the_thinking_level(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        await select(pilot, DEV)
        await pilot.press("M")
        await on_screen(pilot, "ModelScreen")
        app.screen.query_one("#model-name", Input).value = "demo/deep"
        app.screen.query_one("#model-thinking").value = "high"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: table.rows_by_key[DEV].get("model") == "deep", "the model, live")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome) == f"{DEV}: model demo/deep, thinking high", "the line")
        assert app.engine.store.sessions.get(DEV).entry.get("thinkingLevel") == "high"
        assert table.rows_by_key[DEV].get("thinkingLevel") == "high"


async def test_capital_a_archives_alt_a_shows_it_dimmed_and_capital_a_unarchives(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        await select(pilot, DEV)
        await pilot.press("A")  # no question for one session
        await until(pilot, lambda: DEV not in table.rows_by_key, "the archived row leaves the list")
        assert f"archived {DEV}" in toasts(app)
        await pilot.press("alt+a")
        await until(pilot, lambda: DEV in table.rows_by_key, "the archived sessions shown")
        assert table.cell(DEV, "status").plain == "ar"
        assert "dim" in str(table.get_cell(DEV, "line").spans[-1].style)
        await select(pilot, DEV)
        await pilot.press("A")
        await until(pilot, lambda: not table.rows_by_key[DEV].get("archived"), "unarchived, live")
        assert f"unarchived {DEV}" in toasts(app)


async def test_capital_d_asks_naming_the_key_then_deletes(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        await select(pilot, FAMILY)
        await pilot.press("D")
        await on_screen(pilot, "DeleteScreen")
        assert f"delete {FAMILY}?" in text_of(app.screen.query_one("#confirm-question"))
        await pilot.press("n")
        await back_on_main(pilot)
        assert FAMILY in table.rows_by_key
        await pilot.press("D")
        await on_screen(pilot, "DeleteScreen")
        await pilot.press("y")
        await until(pilot, lambda: FAMILY not in table.rows_by_key, "the row gone, live")
        assert any(line.startswith(f"deleted {FAMILY}") for line in toasts(app))
        assert app.engine.store.sessions.get(FAMILY) is None


async def mark(pilot, *keys: str) -> None:
    for key in keys:
        await select(pilot, key)
        await pilot.press("space")


async def test_space_marks_three_and_capital_a_archives_them_after_one_question(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        await mark(pilot, DEV, FAMILY, CRON)
        assert table.marked == {DEV, FAMILY, CRON}
        assert table.cell(DEV, "key").plain.startswith("● ")
        await mark(pilot, NODE)
        await pilot.press("space")  # unmarked again
        assert NODE not in table.marked and not table.cell(NODE, "key").plain.startswith("● ")
        await app.backend.rename_session(DEV, "changed meanwhile")  # from elsewhere: a live update keeps the mark
        await until(pilot, lambda: table.rows_by_key[DEV].get("label") == "changed meanwhile", "the live update")
        assert table.cell(DEV, "key").plain.startswith("● ")
        await pilot.press("A")
        await on_screen(pilot, "BulkScreen")
        assert "archive 3 sessions?" in text_of(app.screen.query_one("#confirm-question"))
        await pilot.press("y")
        await until(pilot, lambda: not ({DEV, FAMILY, CRON} & set(table.rows_by_key)), "all three leave the list")
        assert "archived 3 sessions" in toasts(app)
        assert not table.marked


async def test_esc_clears_the_marks_and_without_marks_d_acts_on_the_highlighted_row(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        await mark(pilot, DEV, FAMILY)
        await pilot.press("escape")
        assert not table.marked and not table.cell(DEV, "key").plain.startswith("● ")
        await select(pilot, FAMILY)
        await pilot.press("D")
        await on_screen(pilot, "DeleteScreen")
        assert f"delete {FAMILY}?" in text_of(app.screen.query_one("#confirm-question"))


async def test_marks_stop_every_marked_running_turn_after_one_question(tmp_path):
    app = demo_app(tmp_path / "s", latency_ms=60_000)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        runs = [app.engine.runs.start(RunRequest(session_key=key, message="work slowly")) for key in (DEV, FAMILY)]
        await until(pilot, lambda: all(app.engine.runs.get(r).status == "running" for r in runs), "both running")
        await mark(pilot, DEV, FAMILY, CRON)
        await pilot.press("x")
        await on_screen(pilot, "BulkScreen")
        assert "stop 3 sessions?" in text_of(app.screen.query_one("#confirm-question"))
        await pilot.press("y")
        line = "stopped the running turn of 2 sessions; nothing running in 1 session"
        await until(pilot, lambda: line in toasts(app), "the one line")
        assert all(app.engine.runs.get(r).status == "killed" for r in runs)


async def test_a_sandboxed_requester_is_refused_outside_its_tree(tmp_path):
    """Acting as a sandboxed session (`a`), the operations are its: the marked sessions outside its
    tree are refused, and the line says so with the first reason."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        await mark(pilot, FAMILY, CRON)
        await pick_acting_as(pilot, "discord", sandboxed=True)
        await pilot.press("enter")
        await back_on_main(pilot)
        await settle(pilot)
        assert app.operator() is not None and app.operator().sandboxed
        assert table.marked == {FAMILY, CRON}  # kept while the table shows another requester's view
        await pilot.press("A")
        await on_screen(pilot, "BulkScreen")
        await pilot.press("y")
        await until(pilot, lambda: any(line.startswith("archived 0 sessions; refused 2:") for line in toasts(app)), "")
        assert any("sandboxed" in line for line in toasts(app))
        assert app.engine.store.sessions.get(FAMILY).archived_at is None


async def test_the_operator_acts_until_a_session_is_chosen(tmp_path):
    """Without `a` (or `--as`), an operation is the operator's (as `sessions-tui session` without
    `--as`), though the tools run as main."""
    app = demo_app(tmp_path / "s")
    assert app.operator() is None
    chosen = SessionsApp(app.backend, acting_as=DEV, chosen=True)
    assert chosen.operator() is not None and chosen.operator().key == DEV


class _NoOperations(LocalBackend):
    @property
    def capabilities(self) -> frozenset[Capability]:
        return super().capabilities - {Capability.SESSION_OPS}


async def test_without_session_ops_the_keys_are_neither_shown_nor_active(tmp_path):
    engine = demo_app(tmp_path / "s").engine
    staged = SessionsApp(_NoOperations(engine), steady=True)
    async with staged.run_test(size=WIDE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        shown = [key.action for key in staged.main_screen.query(FooterKey)]
        assert "toggle_tools" in shown
        assert not {"new_session", "reset_session", "rename_session", "delete_session", "toggle_mark"} & set(shown)
        for key in ("n", "R", "L", "M", "D"):
            await pilot.press(key)
            await settle(pilot)
            assert staged.screen is staged.main_screen, key
        await pilot.press("A", "space")
        await settle(pilot)
        assert not staged.main_screen.query_one("#sessions").marked
        assert engine.store.sessions.get(DEV).archived_at is None
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(staged.screen, CommandPalette), "the palette")
        await pilot.press(*"delete")
        await settle(pilot)
        options = staged.screen.query_one(CommandList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert not any("delete the highlighted" in prompt.lower() for prompt in prompts)


async def test_with_session_ops_the_wide_footer_and_the_palette_offer_them(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)
        shown = [key.action for key in app.main_screen.query(FooterKey)]
        assert {"new_session", "reset_session", "archive_session", "delete_session"} <= set(shown)
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"new session")
        await settle(pilot)
        options = app.screen.query_one(CommandList)
        prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert any(prompt.lower().startswith("new session") for prompt in prompts)


async def test_at_200_columns_the_footer_keeps_send_help_and_quit_and_offers_n(tmp_path):
    """The operations on a session show in the footer only from 240 columns: at 200 they would push
    send, help and quit off its end; `n new` shows from 180."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        shown = set(key.action for key in app.main_screen.query(FooterKey))
        assert {"send", "help", "quit", "new_session"} <= shown
        assert not {"reset_session", "delete_session", "toggle_mark"} & shown


async def test_a_mark_stays_while_its_row_is_hidden_and_space_in_a_field_is_typed(tmp_path):
    """Marks are kept by key: a reload that hides the row and shows it again keeps it; in a text
    field space is a space."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = table_of(app)
        await mark(pilot, DEV)
        await pilot.press("alt+g")  # the groups hidden: DEV leaves the table
        await until(pilot, lambda: DEV not in table.rows_by_key, "the groups hidden")
        await pilot.press("alt+g")
        await until(pilot, lambda: DEV in table.rows_by_key, "the groups back")
        assert table.marked == {DEV} and table.cell(DEV, "key").plain.startswith("● ")
        await pilot.press("slash", "a", "space", "b")
        assert app.main_screen.query_one("#filter", Input).value == "a b"
        assert table.marked == {DEV}


async def test_a_reset_of_a_one_message_session_elsewhere_shows_the_new_transcript(tmp_path):
    """A reset done by another face (here the engine, as `session reset` in a shell would) of a
    session whose transcript held one message: the new transcript's first line has the same number
    as the shown one, so it is told by its line id, and the pane shows the new transcript."""
    from conftest import add_session
    from sessions_tui.engine import session_operations as ops

    app = demo_app(tmp_path / "s")
    add_session(app.engine, OPS, [{"role": "user", "content": "the only message"}])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, OPS)
        views = lambda: [view.plain for view in app.main_screen.query(MessageView)]  # noqa: E731
        await until(pilot, lambda: any("the only message" in v for v in views()), "the one message")
        ops.reset_session(app.engine, OPS)
        await until(pilot, lambda: any(v.endswith("\nReset") for v in views()), "the Reset line")
        assert not any("the only message" in v for v in views())
