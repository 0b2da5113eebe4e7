"""The Usage view (`U`): tokens and estimated cost over time, by agent, model or session, as the
acting-as session may see them, the open session's spawn tree rolled up; its keys; no usage, its line."""

from __future__ import annotations

from scenes import seed_usage
from sessions_tui.backend.contract.types import Capability
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.ui.screens.usage.usage import UsageScreen
from ui_support import SIZE, demo_app, settle, text_of, until


def _names(screen: UsageScreen) -> list[str]:
    table = screen.query_one("#usage-groups")
    return [str(table.get_row_at(n)[0]) for n in range(table.row_count)]


async def _open(pilot, app) -> UsageScreen:
    await settle(pilot)
    await pilot.press("U")
    await until(pilot, lambda: isinstance(app.screen, UsageScreen) and app.screen.painted > 0, "the Usage view")
    screen = app.screen
    assert isinstance(screen, UsageScreen)
    return screen


async def test_the_usage_view_opens_on_u_and_its_keys_change_what_it_reads(tmp_path):
    app = demo_app(tmp_path / "s")
    seed_usage(app.engine)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot, app)
        assert _names(screen) == ["main", "research", "helper"]
        assert "estimated cost $" in text_of(screen.query_one("#usage-total"))
        assert "operator · since 7d · per day · by agent" in text_of(screen.query_one("#usage-title"))
        shown = screen.report
        assert shown is not None and shown.every == "day" and shown.tree_of == "agent:main:main"
        tree = screen.query_one("#usage-tree")
        assert tree.row_count == 1 and "subagent" in str(tree.get_row_at(0)[0])

        async def pressed(key: str, words: str) -> None:
            painted = screen.painted
            await pilot.press(key)
            await until(pilot, lambda: screen.painted > painted, f"the view read again after {key}")
            assert words in text_of(screen.query_one("#usage-title"))

        await pressed("b", "by model")
        assert _names(screen) == ["demo/demo", "openai/gpt-5"]
        await pressed("b", "by session")
        assert "main" in _names(screen)[0]
        await pressed("e", "per hour")
        assert screen.report is not None and screen.report.every == "hour"
        await pressed("s", "since 30d")
        await pressed("s", "since 24h")
        assert screen.report is not None and screen.report.since == app.engine.now() - 86_400_000
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, UsageScreen), "back on the sessions")


async def test_the_usage_view_is_the_acting_as_sessions_view(tmp_path):
    agent_only = {"tools": {"sessions": {"visibility": "agent"}}}
    app = demo_app(tmp_path / "s", agent_only, acting_as="agent:research:main")
    seed_usage(app.engine)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(pilot, app)
        assert _names(screen) == ["research"]  # visibility agent: its own agent's sessions only
        assert "Usage as agent:research:main ·" in text_of(screen.query_one("#usage-title"))


class _NoUsage(LocalBackend):
    asked = 0

    @property
    def capabilities(self) -> frozenset[Capability]:
        return super().capabilities - {Capability.USAGE}

    async def usage(self, query):  # type: ignore[no-untyped-def]
        self.asked += 1
        return await super().usage(query)


async def test_a_backend_without_usage_says_its_line_and_is_not_asked(tmp_path):
    app = demo_app(tmp_path / "s")
    backend = _NoUsage(app.engine)
    app.backend = backend
    async with app.run_test(size=SIZE) as pilot:
        screen = UsageScreen(backend, str)
        await settle(pilot)
        app.push_screen(screen)
        await until(pilot, lambda: screen.painted > 0, "the view painted")
        assert backend.not_offered(Capability.USAGE) in text_of(screen.query_one("#usage-total"))
        assert backend.asked == 0 and screen.query_one("#usage-groups").row_count == 0


class _Counting(LocalBackend):
    def __init__(self, engine) -> None:  # type: ignore[no-untyped-def]
        super().__init__(engine)
        self.activity_reads: list[int] = []

    async def usage(self, query):  # type: ignore[no-untyped-def]
        if query.activity_ms is not None:
            self.activity_reads.append(len(query.keys or ()))
        return await super().usage(query)


async def test_the_tables_sparklines_are_one_usage_read_per_page(tmp_path):
    app = demo_app(tmp_path / "s")
    seed_usage(app.engine)
    backend = _Counting(app.engine)
    app.backend = backend
    async with app.run_test(size=(220, 50)) as pilot:
        await settle(pilot)
        table = app.main_screen.query_one("#sessions")
        await until(pilot, lambda: backend.activity_reads, "the sparklines read")
        await settle(pilot)
        assert backend.activity_reads == [table.row_count]  # the page's keys at once, not a read per row
        assert "activity" in table.widths  # the room left at 220 cells, once the key is whole
        shown = str(table.cell("agent:main:main", "activity"))
        assert len(shown) == 8 and len(set(shown.strip())) > 2 and set(shown) <= set(" ▁▂▃▄▅▆▇█")
        node = next(key for key in table.rows_by_key if "node" in key)
        assert str(table.cell(node, "activity")) == ""  # no turn in the last day


def test_a_sparkline_is_the_last_day_per_3_hours_scaled_to_its_highest():
    from sessions_tui.ui.widgets.table_line import SPARK_MS, sparkline

    now = 10 * 86_400_000 + 5 * 3_600_000  # 05:00: its bucket starts at 03:00
    last = now // SPARK_MS * SPARK_MS
    assert sparkline({}, now) == "" and sparkline({last - 8 * SPARK_MS: 50}, now) == ""  # older than a day
    assert sparkline({last: 100, last - 7 * SPARK_MS: 1, last - 2 * SPARK_MS: 50}, now) == "▁    ▄ █"


class _WholeReports(_Counting):
    """A backend that answers its whole report whatever is asked (an OpenClaw gateway's, with its note)."""

    async def usage(self, query):  # type: ignore[no-untyped-def]
        from dataclasses import replace

        if query.activity_ms is not None:
            self.activity_reads.append(len(query.keys or ()))
        return await super(_Counting, self).usage(replace(query, activity_ms=None))


async def test_a_backend_answering_no_sparklines_is_not_asked_again(tmp_path):
    app = demo_app(tmp_path / "s")
    seed_usage(app.engine)
    backend = _WholeReports(app.engine)
    app.backend = backend
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: backend.activity_reads, "the sparklines asked for")
        screen = app.main_screen
        await pilot.press("r")  # the page read again: the sparklines are not asked for again
        await settle(pilot)
        assert len(backend.activity_reads) == 1 and screen._activity_off
        table = screen.query_one("#sessions")
        assert str(table.cell("agent:main:main", "activity")) == ""
