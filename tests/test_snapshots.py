"""Snapshots of the key screens (frozen clock, fixed ids and paths, steady cursor).

Update after a deliberate change with `pytest tests/test_snapshots.py --snapshot-update`, and look
at the pictures (`snapshot_report.html`) before committing them.
"""

from ui_support import SIZE, demo_app, settle, snapshot_state

DEV = "agent:main:discord:group:dev"
FAMILY = "agent:main:whatsapp:group:family"


async def _select(pilot, key):
    table = pilot.app.main_screen.query_one("#sessions")
    table.move_cursor(row=table.get_row_index(key))
    await settle(pilot)


def test_main_screen(snap_compare):
    app = demo_app(snapshot_state("main"))
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_transcript_tools_off(snap_compare):
    async def run_before(pilot):
        await settle(pilot)
        await _select(pilot, DEV)

    assert snap_compare(demo_app(snapshot_state("tools-off")), terminal_size=SIZE, run_before=run_before)


def test_transcript_tools_on(snap_compare):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)

    assert snap_compare(demo_app(snapshot_state("tools-on")), terminal_size=SIZE, run_before=run_before)


def test_composer_in_the_middle_of_a_countdown(snap_compare):
    async def run_before(pilot):
        await settle(pilot)
        await _select(pilot, DEV)
        await pilot.press("enter", *"Please post the summary to the channel", "ctrl+s")
        await pilot.pause(0.3)
        pilot.app.engine.clock.advance(12_000)  # 12 of 30 seconds gone
        await pilot.pause(0.5)

    app = demo_app(snapshot_state("countdown"), latency_ms=60_000)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_spawn_panel_with_an_announcement(snap_compare):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("s", *"count the words in: one two three four five")
        pilot.app.main_screen.query_one("#spawn-label").value = "count-words-2"
        await pilot.press("enter")
        await settle(pilot, 0.3)
        await pilot.app.engine.drain()
        await settle(pilot, 0.3)
        pilot.app.main_screen.query_one("#spawn-task").blur()
        await settle(pilot)

    assert snap_compare(demo_app(snapshot_state("spawn")), terminal_size=SIZE, run_before=run_before)


def test_a_policy_refusal(snap_compare):
    async def run_before(pilot):
        await settle(pilot)
        await _select(pilot, FAMILY)
        await pilot.press("enter", *"dinner is at 8 now", "ctrl+s")
        await settle(pilot, 0.3)

    assert snap_compare(demo_app(snapshot_state("refusal")), terminal_size=SIZE, run_before=run_before)


def test_help(snap_compare):
    async def run_before(pilot):
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(demo_app(snapshot_state("help")), terminal_size=SIZE, run_before=run_before)
