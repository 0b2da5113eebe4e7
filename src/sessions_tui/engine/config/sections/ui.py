"""The `ui` section, sessions-tui's own: settings of the dashboard that the engine carries for it."""

from typing import Literal

from pydantic import Field

from sessions_tui.engine.config.model.base import ConfigModel, FlooredInt
from sessions_tui.engine.sessions.live_status import STUCK_AFTER_MINUTES

__all__ = ["DesktopChannel", "NotifyConfig", "UiConfig", "WatchDefault"]

DesktopChannel = Literal["auto", "osc9", "osc777", "notify-send"]
"""How a notice reaches the desktop: `auto` decides from the terminal (OSC 9 / OSC 777 where it
shows them, else `notify-send` when on PATH)."""
WatchDefault = Literal["all", "sends", "none"]
"""Which sessions are watched before any is toggled: every one, those the operator sent to, none."""


class NotifyConfig(ConfigModel):
    """`ui.notify`: how a notice (a watched session done, failed, stuck or looping; a reply to the
    operator's send; a hook; a cron run) reaches the operator. Each channel is switched on its own."""

    toast: bool = Field(default=True, description="A toast in the dashboard; default true.")
    bell: bool = Field(default=True, description="The terminal's bell with each notice; default true.")
    desktop: DesktopChannel | Literal[False] = Field(
        default="auto",
        description='A desktop notification: "osc9" or "osc777" written to the terminal, "notify-send" run, '
        '"auto" (the terminal\'s when TERM_PROGRAM/TERM names one that shows them: iTerm2, WezTerm, kitty, '
        'foot, ghostty; else notify-send when on PATH) or false (none); default "auto".',
    )
    watch: WatchDefault = Field(
        default="sends",
        description='The sessions watched unless toggled (`W`): "all", "sends" (those the operator sent '
        'to, and replies to those sends) or "none"; default "sends". Hooks and cron runs notify unless "none".',
    )


class UiConfig(ConfigModel):
    """sessions-tui's own section: `keybindings` maps an action name to key string(s); `theme` names
    the dashboard's colours; `sendWait` is the composer's wait each send starts with; `stuckAfterMinutes`
    when a run without progress shows as `stuck`."""

    theme: str | None = Field(
        None,
        description='The dashboard\'s theme by name, e.g. "textual-light", "nord", "gruvbox" (the command '
        'palette\'s "Change theme" lists them); default: its own, "sessions-dark".',
    )

    keybindings: dict[str, str] = Field(
        default_factory=dict,
        description='Dashboard keys by binding id, e.g. {"send": "ctrl+enter,ctrl+s"} (comma-separated for '
        "several); default: the built-in keys.",
    )

    send_wait: FlooredInt = Field(
        default=30,
        alias="sendWait",
        description="How long a send from the dashboard's composer waits for the reply unless changed for "
        "that send (its `timeoutSeconds`), in seconds, 0–9999 (0: do not wait); default 30. The composer's "
        "wait goes back to it whenever another session is opened.",
    )

    stuck_after_minutes: FlooredInt = Field(
        default=STUCK_AFTER_MINUTES,
        alias="stuckAfterMinutes",
        description="After how many minutes without progress (no streamed text, message or tool event) a "
        "running session's status is `stuck`, 0–1440 (0: never); default 2, OpenClaw's own threshold.",
    )

    notify: NotifyConfig = Field(
        default_factory=NotifyConfig,
        description="Notifications: the toast, the bell, the desktop channel and what is watched by default.",
    )
