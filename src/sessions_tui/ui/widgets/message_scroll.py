"""The scrolling list of a transcript's messages: it follows the end, or keeps the reader's place.

Following uses Textual's anchor, which pins the end while the layout is computed, so new
messages and a growing streamed reply stay in view however late they are laid out. Two gaps of
the anchor are closed here: a scroll that ends at the end (or has nowhere to go, in a short
transcript) follows again instead of leaving the anchor released, and messages put above the
reader's view (older ones, `m`) leave the message at the top of the view on its screen row,
applied while the new layout is arranged, so no frame shows the view jumped.

A message brought into view (a search hit, `reveal`) is held the same way, at the top row: a
scroll to it asked for once would be lost when it comes before the pages just mounted are laid out
(their layout takes several frames on a busy machine, and the message's place is not known until
then); held, it is put there by every layout until the reader scrolls.
"""

from __future__ import annotations

from typing import Any

from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.scrollbar import ScrollBar
from textual.widget import Widget

from sessions_tui.ui.widgets.message_view import MessageView


class MessageScroll(VerticalScroll):
    """Anchored to the end until the reader scrolls up; `home`/`end` jump without animation."""

    # The gutter is kept even with no scrollbar: a transcript that fits only without the
    # scrollbar (one row more when wrapped two columns narrower) would otherwise be shown either
    # way, depending on the order of layouts.
    DEFAULT_CSS = """
    MessageScroll {
        height: 1fr;
        scrollbar-gutter: stable;
    }
    """

    def __init__(self, *children: Widget, **kwargs: Any) -> None:
        super().__init__(*children, **kwargs)
        self._hold: tuple[Widget, int] | None = None  # a message kept on its screen row
        self._arranged: DockArrangeResult | None = None

    @property
    def following(self) -> bool:
        """Whether new content keeps the end in view."""
        return self.is_anchored and not self._anchor_released

    def follow(self) -> None:
        """Jump to the end and follow it from now on."""
        self._hold = None
        self.scroll_end(animate=False, immediate=True)

    def action_scroll_home(self) -> None:
        self._hold = None
        self.scroll_home(animate=False, immediate=True)

    def action_scroll_end(self) -> None:
        self.follow()

    def _scroll_to(self, x: float | None = None, y: float | None = None, **kwargs: Any) -> bool:
        # Textual releases the anchor on every scroll and takes it back only when the position
        # changes onto the end; a page-down at the end, or any scroll of a transcript shorter
        # than the pane, would leave it released and the pane would stop following.
        scrolled = super()._scroll_to(x, y, **kwargs)
        if self.is_anchored and self._anchor_released and self.scroll_target_y >= self.max_scroll_y:
            self._anchor_released = False
        return scrolled

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        self._hold = None  # the reader (or a jump) moved: their place is wherever they are now

    def hold_place(self) -> None:
        """Messages are about to go in above the view: keep the one at its top on its row."""
        if self.following or self._arranged is None:
            return  # following: the anchor keeps the end (and so everything shown) in place
        top = int(self.scroll_y)
        for placement in self._arranged.placements:
            if isinstance(placement.widget, MessageView) and placement.region.bottom > top:
                self._hold = (placement.widget, placement.region.y - top)
                return

    def reveal(self, widget: Widget) -> None:
        """Show `widget` at the top of the view (as far as the end allows) and keep it there through
        every layout to come, however late it is laid out, until the reader scrolls."""
        self.release_anchor()  # not following: the end is no longer kept in view
        if self.scroll_y < 0:
            # The anchor sets the offset unchecked, below 0 when all of it fits; released, such an
            # offset stays and is painted as it is (rows at the end left blank).
            self.scroll_to(y=0, animate=False, immediate=True)
        self._hold = (widget, 0)
        self.refresh(layout=True)

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        result = super().arrange(size, optimal)
        if optimal:  # measuring for an auto width, not laying out
            return result
        self._arranged = result
        if self._hold is not None and not self.following:
            widget, row = self._hold
            for placement in result.placements:
                if placement.widget is widget:
                    end = result.spatial_map.total_region.bottom - size.height  # the furthest scroll
                    y = max(0, min(placement.region.y - row, end))
                    # As the anchor does: set before the compositor reads the offset, no watchers.
                    self.set_reactive(VerticalScroll.scroll_y, y)
                    self.set_reactive(VerticalScroll.scroll_target_y, y)
                    self.vertical_scrollbar.set_reactive(ScrollBar.position, y)
                    break
        return result

    def first_visible(self) -> MessageView | None:
        """The message at the top of the view (what the reader is looking at)."""
        top = self.scroll_y
        for child in self.query_children(MessageView):
            if child.virtual_region.bottom > top:
                return child
        return None
