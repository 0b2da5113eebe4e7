"""Dashboard test support: the scenes of scenes.py plus a few readers of what is shown."""

from __future__ import annotations

from typing import Any

from scenes import SIZE, StagedApp, demo_app, scene_app, select, settle, until  # noqa: F401
from sessions_tui.ui.app import SessionsApp
from sessions_tui.ui.screens.dialogs.acting_as import OPERATOR


def text_of(widget: Any) -> str:
    """The plain text a Static shows."""
    return str(widget.render())


def ordered_keys(app: SessionsApp) -> list[str]:
    """The displayed keys of the session table, top to bottom."""
    table = app.main_screen.query_one("#sessions")
    return [table.rows_by_key[row.key.value]["key"] for row in table.ordered_rows]


async def pick_acting_as(pilot: Any, needle: str, *, sandboxed: bool) -> Any:
    """Open the acting-as picker (`a`), highlight the first session matching `needle` and set the
    sandboxed switch; returns the picker, its choice not yet used."""
    await settle(pilot)
    await pilot.press("a")
    await settle(pilot)
    modal = pilot.app.screen
    modal.query_one("#acting-filter").value = needle
    await settle(pilot)
    options = modal.query_one("#acting-options")
    heads = (OPERATOR, pilot.app.backend.main_session_key())  # the operator and main head the list
    ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
    options.highlighted = next(i for i, key in enumerate(ids) if key not in heads)
    await settle(pilot)
    modal.query_one("#acting-sandboxed").value = sandboxed
    await settle(pilot)
    return modal


async def send_from_composer(pilot: Any, key: str, text: str) -> None:
    """Select `key`, write `text` in the composer and send it; back on the table once it answered."""
    await select(pilot, key)
    await pilot.press("enter")
    pilot.app.main_screen.query_one("#message").value = text
    await pilot.press("ctrl+s")
    outcome = pilot.app.main_screen.query_one("#outcome")
    await until(pilot, lambda: text_of(outcome).split(" ")[0] in ("ok", "forbidden", "error", "timeout"), "the outcome")
    await pilot.press("escape")
