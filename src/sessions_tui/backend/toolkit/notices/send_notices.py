"""The replies to the operator's sends, found in the send ledger as it moves.

A face cannot take them from events alone: a `sessions-tui send` in another terminal writes the
ledger from its own process, and the dashboard or `watch` on the same state directory sees only the
store move. So on every sign the ledger may have moved (a `SendLedgerChanged` of its own process, the
store's `data_version` moving) the newest sends are read again and each state not seen before goes
through the rules (`NoticeRules.entry_notice`): a send begun watches its target (`sends`), a reply is
a notice. What the ledger held when the face began is its baseline: the targets of the operator's
earlier sends are watched, their replies are not news.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from sessions_tui.backend.toolkit.notices.notice import Notice
from sessions_tui.backend.toolkit.notices.rules import ENTRY_STATES, NoticeRules, is_operator_send
from sessions_tui.backend.values.vocabulary import EngineEvent, LedgerEntry, SendLedgerChanged, StoreChanged

READ = 50
"""The newest sends read at each look (more between two looks: the older ones are not said)."""


def may_move_ledger(event: EngineEvent) -> bool:
    """Whether `event` may mean a send began or was answered: a look is worth it."""
    return (isinstance(event, SendLedgerChanged) and event.state in ENTRY_STATES) or isinstance(event, StoreChanged)


class SendNotices:
    """The ledger's states seen so far, per send; `sends` reads the newest `READ` sends (the backend's
    `sends(None, None, READ)`)."""

    def __init__(self, rules: NoticeRules, sends: Callable[[], Awaitable[list[LedgerEntry]]]) -> None:
        self.rules = rules
        self.sends = sends
        self._seen: dict[str, set[str]] | None = None
        self._lock = asyncio.Lock()

    async def look(self, shown: str | None) -> list[Notice]:
        """The notices of what changed in the ledger since the last look (none at the first: the
        baseline); `shown`: the key on screen."""
        async with self._lock:
            entries = await self.sends()
            baseline = self._seen is None
            seen = self._seen if self._seen is not None else {}
            self._seen = seen
            made: list[Notice] = []
            for entry in reversed(entries):  # oldest first: the notices in the order they happened
                if not is_operator_send(entry):
                    continue
                states = seen.setdefault(entry.run_id, set())
                for step in entry.states:
                    if step.state not in ENTRY_STATES or step.state in states:
                        continue
                    states.add(step.state)
                    if baseline:
                        self.rules.watch.sent_to(entry.target)
                        continue
                    item = self.rules.entry_notice(entry, step.state, step.at, shown)
                    if item is not None:
                        made.append(item)
            return made
