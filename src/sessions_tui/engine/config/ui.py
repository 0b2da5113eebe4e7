"""The `ui` section, sessions-tui's own: settings of the dashboard that the engine carries for it."""

from pydantic import Field

from sessions_tui.engine.config.base import ConfigModel

__all__ = ["UiConfig"]


class UiConfig(ConfigModel):
    """sessions-tui's own section: `keybindings` maps an action name to key string(s); `theme` names
    the dashboard's colours."""

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
