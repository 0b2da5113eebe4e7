"""A refused spawn in the spawn panel says why: the deciding rule of `explain`'s spawn verdict for
the acting-as requester and the agent asked for, as a "Why refused" toast (as a refused send's)."""

from ui_support import demo_app, settle, text_of, until


def why_toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications if n.title == "Why refused"]


async def spawn_from_panel(pilot, outcome_starts: str) -> None:
    """The spawn panel opened, a task typed and spawned; waits for the outcome to say `outcome_starts`."""
    await pilot.press("s", *"count the words in: a b")
    await pilot.press("enter")
    outcome = pilot.app.main_screen.query_one("#spawn-outcome")
    await until(pilot, lambda: text_of(outcome).startswith(outcome_starts), f"the outcome {outcome_starts}")


async def test_a_refused_spawn_shows_the_rule_that_refused_it(tmp_path):
    app = demo_app(tmp_path / "s", {"agents": {"defaults": {"subagents": {"requireAgentId": True}}}})
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await spawn_from_panel(pilot, "forbidden")
        await until(pilot, lambda: why_toasts(app), "the why toast")
        assert why_toasts(app) == ["requireAgentId: agent main requires an explicit agentId"]


async def test_a_spawn_past_the_depth_limit_names_maxspawndepth(tmp_path):
    app = demo_app(tmp_path / "s", {"agents": {"defaults": {"subagents": {"maxSpawnDepth": 1}}}})
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        engine = app.engine
        leaf = engine.canonical("agent:main:subagent:leaf")
        engine.store.sessions.create(leaf, {"spawnDepth": 1, "spawnedBy": engine.main_session_key()})
        app.requester_key = leaf
        app.main_screen.requester_changed()
        await spawn_from_panel(pilot, "forbidden")
        await until(pilot, lambda: why_toasts(app), "the why toast")
        assert why_toasts(app) == ["maxSpawnDepth: depth 1 reaches maxSpawnDepth 1"]


async def test_an_accepted_spawn_shows_no_why(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await spawn_from_panel(pilot, "accepted")
        await app.engine.drain()
        await settle(pilot)
        assert why_toasts(app) == []
