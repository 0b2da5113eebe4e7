"""An OpenClaw state directory as the faces meet it: finding one, and a follow's progress.

`require_agents` finds the directory (or raises `NoOpenClawState`); `FollowTick` is what a follow
reports after each tick. Loaded only by the commands and the dashboard that import or follow.
"""

from __future__ import annotations

from sessions_tui.engine.openclaw.follow import FollowTick
from sessions_tui.engine.openclaw.layout import NoOpenClawState, require_agents

__all__ = ["FollowTick", "NoOpenClawState", "require_agents"]
