"""Snapshots of the key screens: the scenes of scripts/scenes.py (frozen clock, fixed ids and paths).

Every scene at 160x48 (named by the scene alone); the key scenes also at 80x24 and 100x30
(`main-80x24`…), where the layout stacks, wraps and drops columns. The README's screenshots are
the same scenes (scripts/screenshots.py). After a deliberate change run
`pytest tests/test_snapshots.py --snapshot-update`, and look at `snapshot_report.html`.
"""

import pytest
from scenes import SMALL_SCENES, SMALL_SIZES, scene_lock

from ui_support import SIZE, scene_app

SCENE_NAMES = [
    "main",
    "transcript-tools-off",
    "transcript-tools-on",
    "composer-countdown",
    "spawn-announcement",
    "policy-refusal",
    "help",
]
CASES = [pytest.param(name, SIZE, id=name) for name in SCENE_NAMES] + [
    pytest.param(name, size, id=f"{name}-{size[0]}x{size[1]}") for name in SMALL_SCENES for size in SMALL_SIZES
]


@pytest.mark.parametrize(("name", "size"), CASES)
def test_screen(snap_compare, name, size):
    with scene_lock(name):  # another run on this machine waits: the scene's path is fixed
        app, scene = scene_app(name)
        assert snap_compare(app, terminal_size=size, run_before=scene)
