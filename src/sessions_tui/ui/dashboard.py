"""What the screens may ask of the app (a protocol, so no screen imports the app): who the tools run
as and changing it, who an operation on a session is done as, how a key is named, and the collector that waits for
quiet moments."""

from __future__ import annotations

from typing import Protocol

from sessions_tui.backend.contract.types import Requester
from sessions_tui.ui.collector import Collector


class Dashboard(Protocol):
    """The app as its screens see it (`SessionsApp` is one)."""

    requester_key: str  # the acting-as session
    sandboxed: bool
    collector: Collector

    def requester(self) -> Requester:
        """Who the tools run as now: the acting-as session and its sandbox flag."""
        ...

    def operator(self) -> Requester | None:
        """Who an operation on a session is done as: the acting-as session once the user chose
        one, else None (the operator)."""
        ...

    def display_key(self, key: str) -> str:
        """A key as the viewer names it, redacted."""
        ...

    def act_as(self, key: str, sandboxed: bool) -> None:
        """Run the tools as `key` from now on, sandboxed or not."""
        ...
