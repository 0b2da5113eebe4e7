"""The spawn panel: usable from 80x24, submits from every field, keeps a refused task, forgets the
last requester's spawn, opens a child's transcript from the runs list, never cuts a status."""

import random

import pytest
from textual.coordinate import Coordinate

from openai_server import Reply
from secret_corpus import LEAK_WINDOW, leaks, secret
from sessions_tui.ui.widgets.spawn_panel import SpawnPanel
from sessions_tui.ui.widgets.spawn_runs import STATUS_WIDTH, fit_run_columns, status_cell
from ui_support import demo_app, settle, text_of, until

FIELDS = [
    "#spawn-task",
    "#spawn-label",
    "#spawn-agent",
    "#spawn-model",
    "#spawn-timeout",
    "#spawn-cleanup",
    "#spawn-button",
]


def inside(widget, size):
    region = widget.region
    return (
        widget.display
        and region.width > 0
        and region.height > 0
        and region.x >= 0
        and region.y >= 0
        and region.right <= size[0]
        and region.bottom <= size[1]
    )


async def spawn_one(pilot, task="count the words in: one two three", label="words"):
    """Spawn `task` with `label` from the panel (opened if need be), wait for its announcement."""
    app = pilot.app
    screen = app.main_screen
    if not screen.query_one(SpawnPanel).display:
        await pilot.press("s")
    outcome = screen.query_one("#spawn-outcome")
    before, announced = text_of(outcome), len(screen.query(".announcement"))
    screen.query_one("#spawn-task").value = task
    screen.query_one("#spawn-label").value = label
    screen.query_one("#spawn-task").focus()
    await pilot.press("enter")
    await until(
        pilot,
        lambda: text_of(outcome).startswith("accepted") and text_of(outcome) != before,
        "the spawn to be accepted",
    )
    await app.engine.drain()
    await until(pilot, lambda: len(screen.query(".announcement")) > announced, "the announcement")
    await settle(pilot)


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 48), (120, 24), (160, 24)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_form_is_usable_at_every_size(tmp_path, size):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        screen = app.main_screen
        for selector in FIELDS:
            widget = screen.query_one(selector)
            assert inside(widget, size), selector
            assert widget.region.width >= (9 if selector == "#spawn-button" else 10), selector
        runs = screen.query_one("#spawn-runs")
        assert inside(runs, size) and runs.virtual_size.width <= runs.size.width
        assert "status" in runs.widths and runs.widths["status"] == STATUS_WIDTH
        announcements = screen.query_one("#announcements")
        assert announcements.region.height >= 3


async def test_results_wrap_inside_the_panel_at_80x24(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await spawn_one(pilot)
        screen = app.main_screen
        outcome = screen.query_one("#spawn-outcome")
        assert outcome.region.width >= 40 and outcome.region.right <= 80
        runs = screen.query_one("#spawn-runs")
        assert runs.row_count == 2 and inside(runs, (80, 24))  # the demo's child and this one, newest first
        row = [str(cell) for cell in runs.get_row_at(0)]
        assert "words" in row and "✓ done" in row


async def test_enter_in_the_model_field_spawns(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("s", *"count the words in: a b")
        screen = app.main_screen
        screen.query_one("#spawn-model").focus()
        await pilot.press("enter")
        outcome = screen.query_one("#spawn-outcome")
        await until(pilot, lambda: text_of(outcome).startswith("accepted"), "enter in Model to spawn")
        assert screen.query_one("#spawn-task").value == ""  # accepted: the form is ready for the next


async def test_submit_spawns_like_the_button(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("s", *"count the words in: a b")
        screen = app.main_screen
        panel = screen.query_one(SpawnPanel)
        assert panel.form_has_focus
        panel.submit()
        outcome = screen.query_one("#spawn-outcome")
        await until(pilot, lambda: text_of(outcome).startswith("accepted"), "submit() to spawn")
        screen.query_one("#spawn-runs").focus()
        await until(pilot, lambda: not panel.form_has_focus, "the focus to leave the form")


async def test_a_refused_spawn_keeps_the_task_and_label(tmp_path):
    app = demo_app(tmp_path / "s", {"agents": {"defaults": {"subagents": {"requireAgentId": True}}}})
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("s", *"count the words in: a b")
        screen = app.main_screen
        screen.query_one("#spawn-label").value = "words"
        await pilot.press("enter")
        outcome = screen.query_one("#spawn-outcome")
        await until(pilot, lambda: text_of(outcome).startswith("forbidden"), "the refusal")
        assert "requireAgentId" in text_of(outcome)
        assert screen.query_one("#spawn-task").value == "count the words in: a b"
        assert screen.query_one("#spawn-label").value == "words"


async def test_a_new_requester_clears_the_last_spawn(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await spawn_one(pilot)
        screen = app.main_screen
        runs = screen.query_one("#spawn-runs")
        assert runs.row_count == 2 and text_of(screen.query_one("#spawn-outcome"))
        app.requester_key = "agent:research:main"
        screen.requester_changed()
        await settle(pilot)
        assert text_of(screen.query_one("#spawn-outcome")) == ""
        assert runs.row_count == 0 and not screen.query(".announcement")


@pytest.mark.parametrize("how", ["enter", "click"])
async def test_choosing_a_child_posts_child_chosen(tmp_path, how):
    chosen = {}  # message → key: a bubbling message reaches the hook once per node it visits

    def hook(message):
        if isinstance(message, SpawnPanel.ChildChosen):
            chosen[id(message)] = message.session_key

    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48), message_hook=hook) as pilot:
        await settle(pilot)
        await spawn_one(pilot, label="first")
        await spawn_one(pilot, label="second")
        runs = app.main_screen.query_one("#spawn-runs")
        await until(pilot, lambda: runs.row_count == 3, "both runs and the demo's")
        run_id = runs.coordinate_to_cell_key(Coordinate(1, 0)).row_key.value
        child = app.engine.subagents.get(run_id).child_key
        runs.move_cursor(row=0)
        if how == "enter":
            runs.focus()
            await pilot.press("down", "enter")
            await until(pilot, lambda: chosen, "ChildChosen")
        else:
            await pilot.click(runs, offset=(2, 2))  # the second row (below the titles), not highlighted yet
            await until(pilot, lambda: chosen, "ChildChosen")
            await pilot.press("s")  # the transcript opened in the panel's place: back to the panel
            await until(pilot, lambda: runs.display and runs.region.height, "the panel to show again")
            await pilot.click(runs, offset=(2, 2))  # again, now highlighted: chosen once more, not twice
            await until(pilot, lambda: len(chosen) >= 2, "ChildChosen again")
        await settle(pilot)
        assert set(chosen.values()) == {child} and len(chosen) == (1 if how == "enter" else 2)


def test_statuses_are_never_cut():
    for status, shown in [
        ("running", "▶ running"),
        ("done", "✓ done"),
        ("failed", "✗ failed"),
        ("timeout", "⏱ timed out"),
        ("killed", "✗ killed"),
    ]:
        assert str(status_cell(status)) == shown and len(shown) <= STATUS_WIDTH
    assert str(status_cell("an-unheard-of-status")) == "·"  # too long for the column: the icon alone
    for width in (30, 36, 53, 80):
        widths = fit_run_columns(width)
        assert widths["status"] == STATUS_WIDTH and sum(w + 2 for w in widths.values()) <= max(width, 25)
    assert list(fit_run_columns(36)) == ["label", "status", "elapsed"]


async def test_narrow_gives_the_panel_the_body_and_escape_gives_it_back(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        table_column = screen.query_one("#table-column")
        await pilot.press("s")
        await until(pilot, lambda: not table_column.display, "the table to make room for the panel")
        assert not screen.query_one("#composer").display  # its session is out of sight: room for the panel
        assert screen.query_one(SpawnPanel).region.height >= 20
        assert screen.query_one("#announcements").region.height >= 8
        await pilot.press("escape", "escape")  # the form → the runs list → the panel closed
        await until(pilot, lambda: table_column.display, "the table to come back")
        assert inside(screen.query_one("#composer"), (80, 24))
        assert app.focused is screen.query_one("#sessions")
        await pilot.press("down")
        await until(pilot, lambda: screen.query_one("#sessions").cursor_row == 1, "the table to take keys")


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_chosen_child_opens_its_transcript(tmp_path, size):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await spawn_one(pilot, label="words")
        screen = app.main_screen
        runs = screen.query_one("#spawn-runs")
        child = app.engine.subagents.get(runs.coordinate_to_cell_key(Coordinate(0, 0)).row_key.value).child_key
        runs.focus()
        runs.move_cursor(row=0)
        await pilot.press("enter")
        transcript = screen.query_one("#transcript")
        await until(pilot, lambda: transcript.key == child, "the child's transcript to open")
        await settle(pilot)
        assert transcript.display and not screen.query_one(SpawnPanel).display
        assert inside(transcript, size)
        table = screen.query_one("#sessions")
        assert table.current_key() == child and app.focused is table  # the cursor on the child, keys on the table
        assert transcript.key == child  # nothing reopened the row the cursor was on before


async def test_the_newest_announcement_shows_from_its_head(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await spawn_one(pilot, label="words")
        screen = app.main_screen
        box, newest = screen.query_one("#announcements"), screen.query(".announcement").first()
        assert "words" in text_of(newest).splitlines()[0]  # the newest is the first
        assert len(screen.query(".announcement")) > 1  # the demo's earlier child is below it
        assert newest.virtual_region.height > box.scrollable_content_region.height  # taller than the panel
        await until(pilot, lambda: box.scroll_offset.y == 0 == newest.virtual_region.y, "its head at the top")


async def test_a_short_terminal_gives_the_panel_the_body_at_any_width(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        table_column, panel = screen.query_one("#table-column"), screen.query_one(SpawnPanel)
        await pilot.press("s")
        await until(pilot, lambda: panel.region.width, "the panel to show")
        assert table_column.display and panel.region.x >= table_column.region.right  # tall: beside the table
        await pilot.resize_terminal(160, 24)
        await until(pilot, lambda: not table_column.display, "the panel to take the body")
        await settle(pilot)
        assert panel.region.width == 160 and not screen.query_one("#composer").display
        assert screen.query_one("#announcements").region.height >= 8
        assert screen.query_one("#spawn-label").region.y == screen.query_one("#spawn-agent").region.y  # 2 a row
        await pilot.press("escape", "escape")  # the form → the runs list → the panel closed
        await until(pilot, lambda: table_column.display, "the table to come back")
        assert screen.query_one("#composer").display and "-spawn-short" not in screen.classes
        await pilot.resize_terminal(160, 48)
        await pilot.press("s")
        await until(pilot, lambda: panel.region.width, "the panel to show again")
        await settle(pilot)
        assert table_column.display and panel.region.x >= table_column.region.right


def _planted(kind: str, rng: random.Random, cut: int, before: str) -> tuple[str, str]:
    """`before`, filler, then a secret whose core a cut at `cut` splits; and the secret's core."""
    text, core = secret(kind, rng)
    middle = text.index(core[:LEAK_WINDOW]) + len(core) // 2
    return f"{before} {'w' * max(1, cut - len(before) - 2 - middle)} {text}", core


async def test_no_fragment_of_a_secret_in_a_task_label_or_announce_is_ever_in_the_panel(tmp_path, openai_server):
    """The runs list shows a child's label or task cut at 60, an announcement's head its label
    cut at 32 and its text what the child said: each redacted before it is cut, whether it comes
    from an engine event or is read again (`children`, `announcements`, `run_label`)."""
    rng = random.Random("spawn panel")
    said, said_core = secret("aws secret bare", rng)
    label, label_core = _planted("gitlab", rng, 31, "deploy")
    task, task_core = _planted("github", rng, 59, "count the words in:")
    cores = [said_core, label_core, task_core]
    openai_server.default = Reply(text=f"Result: found {said} in the logs")
    config = {
        "models": {"providers": {"local": {"baseUrl": openai_server.url, "apiKey": "test-key"}}},
        "agents": {"defaults": {"model": "local/test-model"}},
    }
    app = demo_app(tmp_path / "s", config)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        screen = app.main_screen
        runs, outcome = screen.query_one("#spawn-runs"), screen.query_one("#spawn-outcome")
        shown: list[str] = []

        def on_screen() -> str:
            rows = [" ".join(str(cell) for cell in runs.get_row_at(i)) for i in range(runs.row_count)]
            now = "\n".join([text_of(outcome), *rows, *(text_of(a) for a in screen.query(".announcement"))])
            shown.append(now)
            return now

        await spawn_one(pilot, task=f"{task} (labelled)", label=label)
        on_screen()
        await spawn_one(pilot, task=task, label="")
        await until(pilot, lambda: on_screen().count("Result: found secret ") == 2, "both announcements")
        await until(pilot, lambda: runs.row_count == 3 and on_screen().count("✓ done") == 3, "both runs done")
        assert leaks("\n".join(shown), cores) == []
        masked = f"Result: found secret {said_core[:6]}…{said_core[-4:]} here"
        assert on_screen().count(masked) == 2
        assert f"deploy w{'w' * 6} glpat-…{label_core[-4:]}" in on_screen()  # the label, in the head

        before = list(screen.query(".announcement"))
        screen.requester_changed(reload=False)  # the runs and announcements read again

        def read_again() -> bool:
            now = list(screen.query(".announcement"))
            return len(now) == len(before) and not set(now) & set(before) and runs.row_count == 3

        await until(pilot, lambda: read_again() and bool(on_screen()), "the runs and announcements read again")
        assert leaks("\n".join(shown), cores) == []
        assert on_screen().count(masked) == 2

        requester = app.requester_key
        backend = app.backend
        children = await backend.children(requester)
        read = [child.model_dump_json() for child in children]
        read += [one.model_dump_json() for one in await backend.announcements(requester)]
        read += [str(await backend.run_label(child.run_id)) for child in children]
        assert len(children) == 3 and leaks("\n".join(read), cores) == []
        assert f"…{label_core[-4:]}" in read[0] + read[1] and f"…{task_core[-4:]}" in read[0] + read[1]
