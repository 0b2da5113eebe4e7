"""The footer with the keys that fit the screen: the essentials from 80 columns, more as it widens.

Textual's footer shows every binding marked `show` and cuts what does not fit at the right, so at
80 columns send, help and quit fell off. This one shows the keys of the widest tier the screen
reaches; every key stays in help (`?`) and the command palette (`ctrl+p`). The focused widget's own
keys (the spawn runs list's `x kill  e steer`) show at every width: they are what it is for.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from itertools import groupby
from typing import Protocol, runtime_checkable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Resize
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup

NARROW = frozenset({"filter", "sort_prev", "sort_next", "send", "help", "quit"})
MEDIUM = NARROW | {"toggle_tools", "toggle_spawn", "acting_as"}
WIDE = MEDIUM | {"older", "search", "stop", "export", "prev_page", "next_page"}
OPERATIONS = frozenset(
    {
        "reset_session",
        "rename_session",
        "model_session",
        "archive_session",
        "delete_session",
        "toggle_mark",
        "run_cron_job",
    }
)
"""The operations on the highlighted session: only the widest footer has room for them (`n new` shows
from 180 columns)."""
IN_FIELD_ONLY = frozenset({"step_back"})
"""Shown only while a text field has the focus: the keys it types are gone from the footer then."""
Tier = tuple[frozenset[str] | None, frozenset[str]]
"""The actions a footer shows (None: every binding marked `show`) and those it leaves out."""
TIERS: tuple[tuple[int, Tier], ...] = (
    (0, (NARROW, frozenset())),
    (100, (MEDIUM, frozenset())),
    (140, (WIDE, frozenset())),
    (180, (None, OPERATIONS)),
    (240, (None, frozenset())),
)
"""(from this many columns, the tier shown there)."""


@runtime_checkable
class FooterLabels(Protocol):
    """A screen whose footer words depend on where the focus is (the main screen's ctrl+s)."""

    def footer_labels(self) -> dict[str, str]:
        """action → the word the footer shows for it now."""
        ...


def shown_actions(width: int) -> Tier:
    """The actions the footer shows at `width` columns (None: all) and those it leaves out."""
    chosen: Tier = TIERS[0][1]
    for start, tier in TIERS:
        if width >= start:
            chosen = tier
    return chosen


class DashboardFooter(Footer):
    """A footer showing the bindings of the screen width's tier, the focused widget's own and the
    palette key always (Textual's Footer.compose with the bindings chosen before they are laid out,
    so a group whose keys the tier leaves out leaves no label or gap)."""

    def __init__(self) -> None:
        super().__init__()
        self._width = 0

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._width = self.app.size.width
        active = self.screen.active_bindings
        labels = self.screen.footer_labels() if isinstance(self.screen, FooterLabels) else {}
        wanted = self._wanted(shown_actions(self._width), isinstance(self.app.focused, Input), self._own_actions())
        by_action: defaultdict[str, list[tuple[Binding, bool, str]]] = defaultdict(list)
        for _, binding, enabled, tooltip in active.values():
            if binding.show and wanted(binding.action):
                by_action[binding.action].append((binding, enabled, tooltip))
        self.styles.grid_size_columns = len(by_action)
        for group, runs in groupby(by_action.values(), lambda bindings: bindings[0][0].group):
            firsts = [bindings[0] for bindings in runs]
            if group is not None and len(firsts) > 1:
                with KeyGroup(classes="-compact" if group.compact else ""):
                    for binding, enabled, tooltip in firsts:
                        yield self._key(binding, "", enabled, tooltip or binding.description, "-grouped")
                yield FooterLabel(group.description)
            else:
                for binding, enabled, tooltip in firsts:
                    yield self._key(binding, labels.get(binding.action, binding.description), enabled, tooltip)
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE and palette is not None:
            binding = palette.binding
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                classes="-command-palette",
                disabled=not palette.enabled,
                tooltip=binding.tooltip or binding.description,
            )

    def _key(self, binding: Binding, description: str, enabled: bool, tooltip: str, classes: str = "") -> FooterKey:
        key = FooterKey(
            binding.key,
            self.app.get_key_display(binding),
            description,
            binding.action,
            disabled=not enabled,
            tooltip=tooltip,
            classes=classes,
        )
        return key.data_bind(compact=Footer.compact)

    @staticmethod
    def _wanted(tier: Tier, in_field: bool, own: frozenset[str]) -> Callable[[str], bool]:
        """Whether the footer shows an action: the tier's, the focused widget's own, `esc` only in a
        field (where the keys it would show are typed)."""
        actions, left_out = tier

        def wanted(action: str) -> bool:
            if action in IN_FIELD_ONLY:
                return in_field
            return action in own or (action not in left_out and (actions is None or action in actions))

        return wanted

    def _own_actions(self) -> frozenset[str]:
        """The actions the focused widget binds itself (shown at any width)."""
        focused = self.app.focused
        if focused is None:
            return frozenset()
        return frozenset(a.binding.action for a in self.screen.active_bindings.values() if a.node is focused)

    def on_resize(self, _: Resize) -> None:
        if shown_actions(self.app.size.width) != shown_actions(self._width):
            self.call_after_refresh(self.recompose)
