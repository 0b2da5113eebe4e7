"""Snapshots of the key screens: the scenes of scripts/scenes.py (frozen clock, fixed ids and paths).

The README's screenshots are the same scenes (scripts/screenshots.py). After a deliberate change
run `pytest tests/test_snapshots.py --snapshot-update`, and look at `snapshot_report.html`.
"""

import pytest

from ui_support import SIZE, scene_app


@pytest.mark.parametrize("name", ["main", "transcript-tools-off", "transcript-tools-on", "composer-countdown",
                                  "spawn-announcement", "policy-refusal", "help"])
def test_screen(snap_compare, name):
    app, scene = scene_app(name)
    assert snap_compare(app, terminal_size=SIZE, run_before=scene)
