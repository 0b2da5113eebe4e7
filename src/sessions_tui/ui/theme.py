"""The dashboard's colours come from the active Textual theme, never from literals in the code.

`THEME` is the default: Textual's dark theme with the dashboard's own warning, error, success
and accent colours, so it looks as it always did; any other theme (the command palette's "Change
theme") recolours it all. Rich styles name theme variables (`bold $error`); `themed` resolves
them against the running app's theme when the text is built.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from functools import cache

from textual._context import active_app
from textual.color import Color, ColorParseError
from textual.theme import BUILTIN_THEMES

THEME = replace(  # the one place colours are written down
    BUILTIN_THEMES["textual-dark"],
    name="sessions-dark",
    accent="#C678DD",
    warning="#E5C07B",
    error="#E06C75",
    success="#9EE493",
    variables={"footer-key-foreground": "#FFA62B"},  # the footer's keys keep their orange
)
_VARIABLE = re.compile(r"\$([a-z][a-z0-9-]*)")


@cache
def _default_variables() -> dict[str, str]:
    """The default theme's variables, for text built outside a running app."""
    return THEME.to_color_system().generate()


def theme_variables() -> Mapping[str, str]:
    """The running app's theme variables (the default theme's outside an app)."""
    try:
        app = active_app.get()
    except LookupError:
        return _default_variables()
    return app.theme_variables or _default_variables()


def themed(style: str, variables: Mapping[str, str] | None = None) -> str:
    """`style` with each `$name` replaced by the theme's colour (Rich cannot read `$name`); a
    variable that is not a plain colour (`$text-muted` is `auto 60%`) is dropped."""
    if "$" not in style:
        return style
    values = theme_variables() if variables is None else variables

    def colour(match: re.Match[str]) -> str:
        try:
            return Color.parse(values.get(match.group(1), "")).hex
        except ColorParseError:
            return ""

    return " ".join(_VARIABLE.sub(colour, style).split())
