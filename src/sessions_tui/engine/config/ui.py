"""The `ui` section, sessions-tui's own: settings of the dashboard that the engine carries for it."""

from pydantic import Field

from sessions_tui.engine.config.base import ConfigModel, FlooredInt
from sessions_tui.engine.sessions.live_status import STUCK_AFTER_MINUTES

__all__ = ["UiConfig"]


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
