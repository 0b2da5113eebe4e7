"""Kill (`x`) and steer (`e`) a sub-agent from the spawn panel's runs list."""

from __future__ import annotations

import asyncio

from sessions_tui.backend.values.views import ChildView
from sessions_tui.ui.screens.dialogs.kill import KillScreen
from sessions_tui.ui.screens.dialogs.steer import SteerScreen
from sessions_tui.ui.widgets.spawn_control import ShownRun, kill_question
from sessions_tui.ui.widgets.spawn_runs import status_cell, waiting_on
from ui_support import SIZE, demo_app, settle, text_of, until


async def spawn(pilot, task: str, label: str) -> None:
    screen = pilot.app.main_screen
    screen.query_one("#spawn-task").value = task
    screen.query_one("#spawn-label").value = label
    screen.query_one("#spawn-task").focus()
    await pilot.press("enter")
    outcome = screen.query_one("#spawn-outcome")
    await until(pilot, lambda: text_of(outcome).startswith("accepted"), "the spawn accepted")


def runs_text(app) -> str:
    table = app.main_screen.query_one("#spawn-runs")
    return "\n".join(" ".join(str(c) for c in table.get_row_at(i)) for i in range(table.row_count))


async def running_child(pilot, label: str):
    """The spawn panel open, a slow child `label` spawned and running, the runs list focused on it."""
    app = pilot.app
    await settle(pilot)
    await pilot.press("s")
    await spawn(pilot, "count the words in: a b c", label)
    table = app.main_screen.query_one("#spawn-runs")
    await until(pilot, lambda: label in runs_text(app) and "running" in runs_text(app), "the child running")
    table.focus()
    table.move_cursor(row=0)
    return table


async def steer_highlighted(pilot, text: str) -> None:
    """`e` on the highlighted run, `text` typed into the prompt and sent."""
    await pilot.press("e")
    await until(pilot, lambda: isinstance(pilot.app.screen, SteerScreen), "the steer prompt")
    pilot.app.screen.query_one("#steer-message").value = text
    await pilot.press("enter")


async def kill_highlighted(pilot) -> None:
    """`x` on the highlighted run, and y in the box that asks (issue 28 item 13: `x` asks first)."""
    await pilot.press("x")
    await until(pilot, lambda: isinstance(pilot.app.screen, KillScreen), "the kill box")
    await pilot.press("y")


async def test_x_kills_the_highlighted_running_sub_agent(tmp_path):
    app = demo_app(tmp_path / "s", latency_ms=60_000)  # the demo model thinks for a minute: the child runs
    async with app.run_test(size=SIZE) as pilot:
        await running_child(pilot, "slow-one")
        await kill_highlighted(pilot)
        await until(pilot, lambda: "slow-one" in runs_text(app) and "killed" in runs_text(app), "the child killed")
        child = next(c for c in app.engine.subagents.children(app.engine.main_session_key()) if c.label == "slow-one")
        with app.engine.store.read() as conn:
            statuses = [r[0] for r in conn.execute("SELECT status FROM runs WHERE session_key = ?", (child.child_key,))]
        assert statuses and not {"running", "queued"} & set(statuses)


async def test_e_steers_the_highlighted_running_sub_agent(tmp_path):
    app = demo_app(tmp_path / "s", latency_ms=60_000)
    async with app.run_test(size=SIZE) as pilot:
        await running_child(pilot, "steered")
        await steer_highlighted(pilot, "also count the letters")
        await until(pilot, lambda: not isinstance(app.screen, SteerScreen), "the prompt closed")
        await until(
            pilot,
            lambda: any("steer" in str(n.title) for n in app._notifications),
            "the steer's answer as a toast",
        )


async def test_a_two_level_tree_from_the_panel(tmp_path):
    """In the demo a task that says "spawn …" makes the child spawn a grandchild: the tree shows
    both, the grandchild indented under its parent, costs rolled up; `x` on a finished one says so."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await spawn(pilot, "spawn count the words in: a b c", "boss")
        await app.engine.drain()
        app.main_screen.query_one("#spawn").refresh_runs()
        table = app.main_screen.query_one("#spawn-runs")
        await until(pilot, lambda: "└ " in runs_text(app), "the grandchild under its parent")
        lines = runs_text(app).splitlines()
        boss = next(line for line in lines if line.startswith("boss"))
        assert "$" in boss and lines.index(boss) + 1 < len(lines) and lines[lines.index(boss) + 1].startswith("└ ")
        leaf = next(i for i in range(table.row_count) if "└ " in str(table.get_row_at(i)[0]))
        table.focus()
        table.move_cursor(row=leaf)
        await pilot.press("x")
        await until(
            pilot,
            lambda: any("already finished" in n.message for n in app._notifications),
            "the kill's answer: already finished",
        )


async def test_kill_and_steer_run_on_the_loop_the_runs_live_on(tmp_path):
    """The `subagents` call of `x` and `e` runs on the app's event loop, where the child's run is
    a task: a kill cancels it there, not from another thread's loop."""
    app = demo_app(tmp_path / "s", latency_ms=60_000)
    loops: list[tuple[str, object]] = []
    async with app.run_test(size=SIZE) as pilot:
        call_tool = app.backend.call_tool

        async def recording(name, args, requester):
            if name == "subagents":
                loops.append((args["action"], asyncio.get_running_loop()))
            return await call_tool(name, args, requester)

        app.backend.call_tool = recording
        table = await running_child(pilot, "both")
        await steer_highlighted(pilot, "also count the letters")
        await until(pilot, lambda: any("steer" in str(n.title) for n in app._notifications), "the steer answered")
        table.focus()
        await kill_highlighted(pilot)
        await until(pilot, lambda: "killed" in runs_text(app), "the child killed")
        assert loops == [("steer", asyncio.get_running_loop()), ("kill", asyncio.get_running_loop())]


def _child(key: str, status: str, depth: int, parent: str, label: str) -> ChildView:
    return ChildView(
        run_id=f"run-{key}",
        child_key=key,
        label=label,
        task=label,
        status=status,
        started_at=0,
        ended_at=None if status == "running" else 1000,
        depth=depth,
        parent_key=parent,
    )


def test_waiting_on_counts_every_running_descendant():
    tree = [
        _child("a", "done", 1, "main", "a"),
        _child("b", "done", 2, "a", "b"),
        _child("c", "running", 3, "b", "c"),
        _child("d", "running", 2, "a", "d"),
        _child("e", "done", 1, "main", "e"),
    ]
    assert waiting_on(tree) == {"a": 2, "b": 1, "c": 0, "d": 0, "e": 0}
    assert str(status_cell("done", 1)) == "▶ waiting on 1 child"
    assert str(status_cell("running", 2)) == "▶ waiting on 2 children"
    assert str(status_cell("failed", 1)) == "✗ failed"  # as the subagents tool: a failed run stays failed
    assert str(status_cell("done")) == "✓ done"


async def test_a_done_parent_with_a_running_child_says_it_is_waiting(tmp_path):
    """Issue 28 item 8: a finished parent whose child still runs shows `waiting on 1 child` (the
    `subagents` tool's words), never `✓ done`; the STATUS column widens so it is not cut."""
    app = demo_app(tmp_path / "s")
    main = "agent:main:main"
    tree = [
        _child("agent:main:subagent:boss", "done", 1, main, "boss"),
        _child("agent:main:subagent:leaf", "running", 2, "agent:main:subagent:boss", "leaf"),
    ]

    async def children(requester_key: str) -> list[ChildView]:
        return list(tree)

    async with app.run_test(size=SIZE) as pilot:
        app.backend.children = children
        await settle(pilot)
        await pilot.press("s")
        panel = app.main_screen.query_one("#spawn")
        panel.refresh_runs()
        await until(pilot, lambda: "boss" in runs_text(app), "the tree")
        boss = runs_text(app).splitlines()[0]
        assert "waiting on 1 child" in boss and "done" not in boss
        tree.append(_child("agent:main:subagent:leaf2", "running", 2, "agent:main:subagent:boss", "leaf2"))
        panel.refresh_runs()
        await until(pilot, lambda: "waiting on 2 children" in runs_text(app), "two children waited on")
        tree[:] = [tree[0], tree[1].model_copy(update={"status": "done"})]
        panel.refresh_runs()
        await until(pilot, lambda: "✓ done" in runs_text(app).splitlines()[0], "done at last")
        assert "waiting" not in runs_text(app)


async def running_tree(pilot, label: str = "research-1", grandchildren: int = 2):
    """A slow child `label` spawned from the panel with `grandchildren` of its own, all running;
    the runs list focused on the child."""
    from sessions_tui.backend.contract.types import Requester

    app = pilot.app
    await settle(pilot)
    await pilot.press("s")
    await spawn(pilot, "count the words in: a b c", label)
    child = next(c for c in app.engine.subagents.children(app.engine.main_session_key()) if c.label == label)
    for n in range(grandchildren):
        grandchild = {"task": "count the words in: d e", "label": f"part-{n + 1}"}
        answer = await app.backend.call_tool("sessions_spawn", grandchild, Requester(key=child.child_key))
        assert answer["status"] == "accepted"
    panel = app.main_screen.query_one("#spawn")
    panel.refresh_runs()
    table = app.main_screen.query_one("#spawn-runs")
    await until(pilot, lambda: runs_text(app).count("└ part-") == grandchildren, "the tree listed")
    table.focus()
    table.move_cursor(row=next(i for i, line in enumerate(runs_text(app).splitlines()) if line.startswith(label)))
    await settle(pilot)
    return table


async def test_x_asks_naming_what_dies_and_n_kills_nothing(tmp_path):
    """Issue 28 item 13: `x` opens a y/n box naming the sub-agent and how many descendants die
    with it; n (or esc) leaves every run going, y kills the whole subtree."""
    app = demo_app(tmp_path / "s", latency_ms=60_000)
    async with app.run_test(size=SIZE) as pilot:
        await running_tree(pilot)
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, KillScreen), "the kill box")
        assert text_of(app.screen.query_one("#confirm-question")) == "kill research-1 and its 2 descendants?"
        await pilot.press("n")
        await until(pilot, lambda: not isinstance(app.screen, KillScreen), "the box closed")
        await settle(pilot)
        assert "killed" not in runs_text(app)
        assert "research-1 ▶ waiting on 2 children" in runs_text(app) and runs_text(app).count("▶ running") == 2
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, KillScreen), "the kill box again")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, KillScreen), "the box closed again")
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, KillScreen), "the kill box a third time")
        await pilot.press("y")
        await until(pilot, lambda: runs_text(app).count("killed") == 3, "the subtree killed")


def test_the_kill_question_counts_descendants_in_words():
    run = ShownRun("agent:main:subagent:x", "research-1", True, 0)
    assert kill_question(run) == "kill research-1?"
    assert kill_question(ShownRun(run.child_key, "research-1", True, 1)) == "kill research-1 and its 1 descendant?"
    assert kill_question(ShownRun(run.child_key, "research-1", False, 2)) == (
        "kill the running 2 descendants of research-1? (it has finished itself)"
    )


async def test_e_on_a_finished_run_says_at_once_it_cannot_be_steered(tmp_path):
    """Issue 28 item 13: no steer prompt for a run that has ended, a toast saying why instead."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await spawn(pilot, "count the words in: a b c", "quick")
        await app.engine.drain()
        app.main_screen.query_one("#spawn").refresh_runs()
        await until(pilot, lambda: "done" in runs_text(app), "the child done")
        table = app.main_screen.query_one("#spawn-runs")
        table.focus()
        table.move_cursor(row=next(i for i, line in enumerate(runs_text(app).splitlines()) if "quick" in line))
        await pilot.press("e")
        await settle(pilot)
        assert not isinstance(app.screen, SteerScreen)
        said = [str(n.message) for n in app._notifications if n.title == "Steer"]
        assert said == ["quick has finished: it cannot be steered (only a running sub-agent takes a steer)."]
        await pilot.press("x")
        await settle(pilot)
        assert not isinstance(app.screen, KillScreen)  # nothing to kill: said at once too
        assert any(str(n.message) == "quick is already finished: nothing to kill." for n in app._notifications)
