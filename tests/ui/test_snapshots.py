"""Snapshots of the key screens: the scenes of scenes.py (frozen clock, fixed ids, the state under a
home directory of the test's own, shown as `~/…`).

Every scene at 160x48 (named by the scene alone); the key scenes also at 80x24 and 100x30
(`main-80x24`…), where the layout stacks, wraps and drops columns. The README's screenshots are
the same scenes (scripts/screenshots.py). After a deliberate change run
`pytest tests/ui/test_snapshots.py --snapshot-update`, and look at `snapshot_report.html`.
"""

import pytest

from scenes import (
    SMALL_SCENES,
    SMALL_SIZES,
    STATE_UNDER_HOME,
    attention_list,
    delete_confirm,
    demo_app,
    kill_confirm,
    new_session_form,
    sorted_by_channel,
    stop_confirm,
    two_marked,
)
from ui_support import SIZE, scene_app

SCENE_NAMES = [
    "main",
    "transcript-tools-off",
    "transcript-tools-on",
    "composer-countdown",
    "spawn-announcement",
    "policy-refusal",
    "sends",
    "spawn-tree",
    "why",
    "search",
    "search-opened",
    "help",
    "usage",
    "live-status",
]
SIZED_SCENES = {  # scenes whose layout matters at sizes of their own
    "main": [(200, 50)],  # a large terminal: the columns take its width
    "sends": [(80, 24), (120, 40)],  # the state column whole at each width
    "search": [(80, 24)],  # the snippet, what was found, keeps the width
    "usage": [(80, 24), (120, 40)],  # the numbers beside the chart, or under it when narrow
    "live-status": [(80, 24), (120, 40)],  # symbols when narrow, words where they fit
}
CASES = (
    [pytest.param(name, SIZE, id=name) for name in SCENE_NAMES]
    + [pytest.param(name, size, id=f"{name}-{size[0]}x{size[1]}") for name in SMALL_SCENES for size in SMALL_SIZES]
    + [
        pytest.param(name, size, id=f"{name}-{size[0]}x{size[1]}")
        for name, sizes in SIZED_SCENES.items()
        for size in sizes
    ]
)


@pytest.mark.parametrize(("name", "size"), CASES)
def test_screen(snap_compare, monkeypatch, tmp_path, name, size):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))  # the screen shows the state as ~/.local/share/sessions-tui
    app, scene = scene_app(name, home)
    assert snap_compare(app, terminal_size=size, run_before=scene)


def test_stop_confirmation_80x24(snap_compare, monkeypatch, tmp_path):
    """`x`: the box asking before the open session's running turn is stopped, on a small terminal."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    app = demo_app(home / STATE_UNDER_HOME, seed="stop-confirm")
    assert snap_compare(app, terminal_size=(80, 24), run_before=stop_confirm)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_sorted_by_a_hidden_column(snap_compare, monkeypatch, tmp_path, size):
    """Sorted by CHANNEL, which these widths drop: the line under the table says the sort."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    app = demo_app(home / STATE_UNDER_HOME, seed="sorted-by-channel")
    assert snap_compare(app, terminal_size=size, run_before=sorted_by_channel)


def test_kill_confirmation_80x24(snap_compare, monkeypatch, tmp_path):
    """Issue 28 item 13: `x` on a running sub-agent asks first, naming what dies, on a small terminal."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    app = demo_app(home / STATE_UNDER_HOME, latency_ms=60_000, seed="kill-confirm")
    assert snap_compare(app, terminal_size=(80, 24), run_before=kill_confirm)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_new_session_form(snap_compare, monkeypatch, tmp_path, size):
    """Issue 29: `n`, the new-session form, on a small and a middle terminal."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    app = demo_app(home / STATE_UNDER_HOME, seed="new-session")
    assert snap_compare(app, terminal_size=size, run_before=new_session_form)


def test_delete_confirmation_80x24(snap_compare, monkeypatch, tmp_path):
    """Issue 29: `D` asks first, naming the key and what is kept."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    app = demo_app(home / STATE_UNDER_HOME, seed="delete-confirm")
    assert snap_compare(app, terminal_size=(80, 24), run_before=delete_confirm)


def test_two_marked_rows_80x24(snap_compare, monkeypatch, tmp_path):
    """Issue 29: two rows marked with `space`, a `●` before their keys."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    app = demo_app(home / STATE_UNDER_HOME, seed="two-marked")
    assert snap_compare(app, terminal_size=(80, 24), run_before=two_marked)


def test_attention_list_80x24(snap_compare, monkeypatch, tmp_path):
    """Issue 31: `!`, the notices that wait for the operator, newest first, on a small terminal (toasts
    off: they would cover it)."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    config = {"ui": {"notify": {"watch": "all", "toast": False}}}
    app = demo_app(home / STATE_UNDER_HOME, config, seed="attention")
    assert snap_compare(app, terminal_size=(80, 24), run_before=attention_list)
