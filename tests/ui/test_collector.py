"""The dashboard's garbage collection: full collections only at quiet moments, the process's own
settings given back when it exits."""

from __future__ import annotations

import gc

from sessions_tui.ui.collector import EVERY_S, QUIET_S, Collector
from ui_support import SIZE, demo_app, settle


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_full_collection_waits_for_its_interval_and_a_quiet_moment():
    before = gc.get_threshold()
    clock = Clock()
    collector = Collector(clock)
    assert collector.tick() is False  # not installed: the process's own collector decides
    collector.install()
    try:
        assert gc.get_threshold()[:2] == before[:2] and gc.get_threshold()[2] > 10_000  # no automatic full ones
        clock.now += EVERY_S / 2
        assert collector.tick() is False  # too soon after the last
        clock.now += EVERY_S
        collector.active()  # a key, a page read
        clock.now += QUIET_S / 2
        assert collector.tick() is False  # not quiet yet
        clock.now += QUIET_S
        assert collector.tick() is True
        assert collector.tick() is False  # and then not again for EVERY_S
    finally:
        collector.uninstall()
    assert gc.get_threshold() == before


async def test_the_dashboard_installs_it_and_gives_the_thresholds_back(tmp_path):
    before = gc.get_threshold()
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert gc.get_threshold()[2] > 10_000
    assert gc.get_threshold() == before
