"""Bringing an engine to life: the tool layer attached, and what a crash left behind picked up.

Every front end (the command line, the dashboard) opens its engine through here, so agents'
tool calls work and no interrupted run or unannounced sub-agent is forgotten.
"""

from __future__ import annotations

from sessions_tui.engine.engine import Engine
from sessions_tui.tools.host import EngineToolHost


def attach_tools(engine: Engine) -> None:
    EngineToolHost(engine)


async def start(engine: Engine) -> None:
    """Attach the tools; end runs dead processes left; announce and archive what is due."""
    if engine.tool_host is None:
        attach_tools(engine)
    engine.runs.recover_interrupted()
    engine.subagents.recover()
    engine.subagents.sweep()
