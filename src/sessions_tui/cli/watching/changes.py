"""What changed in the sessions since `watch` last looked: their rows and their transcripts' tails.

A backend's events say what its own process does; what another process writes shows only as the
store moving (a local state directory's `data_version`, a server's `store_changed`). Then the rows
of the sessions updated last are read again (`browse`, newest first) and compared with what was
seen: a session not seen before is new, one whose status, tokens, label or archiving moved is
changed, and the messages its transcript gained are read (`sessions_history`, the newest first).
A session's status reaching or leaving `running` there is a run starting or ending, and a reply
in a session not seen running, a run that came and went between two looks: said as such (without
a run id: another process ran it; runs in a row between two looks are said as one). An event
naming a session (`session_changed`, `message_appended`) reads only that one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, Requester
from sessions_tui.backend.toolkit.messages import message_text
from sessions_tui.backend.values.views import BrowseQuery
from sessions_tui.backend.values.vocabulary import ToolInputError
from sessions_tui.cli.watching.lines import JSON_TEXT_CHARS, Record, cut

TRACKED = ("status", "totalTokens", "label", "archived")
"""What of a row a person watching cares about: a change to any of them is said."""
ROWS_READ = 200
"""The rows read at each look, the sessions updated last (a change moves a session to the top)."""
TAIL_LIMIT = 50
"""The newest messages read of a changed session's transcript."""
RUNNING = "running"


class StoreChanges:
    """The rows and transcript positions seen so far, and what is new since (as records).

    `wanted(key)`: whether a session (its canonical key) is watched at all. Messages of a session
    whose transcript was not read yet are new when written from `since` (epoch ms: when watching
    began) on."""

    def __init__(self, backend: Backend, requester: Requester, since: int, wanted: Callable[[str], bool]) -> None:
        self.backend = backend
        self.requester = requester
        self.since = since
        self.wanted = wanted
        self.rows: dict[str, dict[str, Any]] = {}  # canonical key → what was seen of its row
        self.last_seq: dict[str, int] = {}  # canonical key → the newest message seen

    async def baseline(self) -> None:
        """What there is when watching begins: nothing of it is said."""
        for row in await self._recent():
            self.rows[row["_key"]] = _seen(row)

    async def look(self) -> list[Record]:
        """Another process wrote: what changed among the sessions updated last, runs included."""
        records: list[Record] = []
        for row in reversed(await self._recent()):  # oldest change first
            if self.wanted(row["_key"]):
                records += await self._compare(row["_key"], row, runs=True)
        return records

    async def session(self, key: str) -> list[Record]:
        """An event named a session: what changed in its row."""
        if not self.wanted(key):
            return []
        found = await self.backend.browse_rows(self.requester, [key])
        row = found.get(key)
        return await self._compare(key, row, runs=False, messages=False) if row is not None else []

    def carried(self, key: str, at: int, role: str, seq: int, text: str) -> list[Record]:
        """A message whose event brought it (a gateway's), said as it came: no read of the
        transcript (a later `tail` does not say it again)."""
        if not self.wanted(key) or seq <= (self.last_seq.get(key) or 0):
            return []
        self.last_seq[key] = seq
        fields = {"role": role, "seq": seq, "text": cut(text, JSON_TEXT_CHARS)}
        return [Record(at, "message_appended", self.backend.display(key), fields)]

    async def tail(self, key: str) -> list[Record]:
        """The messages a session's transcript gained since last read."""
        if not self.wanted(key):
            return []
        try:
            result = await self.backend.call_tool(
                "sessions_history", {"sessionKey": key, "limit": TAIL_LIMIT}, self.requester
            )
        except (ToolInputError, BackendUnavailable):
            return []
        messages = [m for m in result.get("messages") or [] if isinstance(m, dict)]
        last = self.last_seq.get(key)
        records: list[Record] = []
        newest = last or 0
        for message in messages:
            seq = _seq(message)
            stamp = message.get("timestamp")
            at = int(stamp) if isinstance(stamp, (int, float)) else self.backend.now()
            newest = max(newest, seq)
            if seq <= 0 or (seq <= last if last is not None else at < self.since):
                continue
            text = cut(self.backend.redact(message_text(message)), JSON_TEXT_CHARS)
            fields = {"role": str(message.get("role") or ""), "seq": seq, "text": text}
            records.append(Record(at, "message_appended", self.backend.display(key), fields))
        self.last_seq[key] = newest
        return records

    async def _recent(self) -> list[dict[str, Any]]:
        query = BrowseQuery(include_archived=True)
        page = await self.backend.browse(self.requester, query, offset=0, limit=ROWS_READ, count=False)
        return [dict(row) for row in page.rows]

    async def _compare(self, key: str, row: dict[str, Any], *, runs: bool, messages: bool = True) -> list[Record]:
        """The records of one row against what was seen of it (nothing when nothing moved)."""
        now = _seen(row)
        before = self.rows.get(key)
        self.rows[key] = now
        if before == now:
            return []
        records: list[Record] = []
        shown = self.backend.display(key)
        at = int(row.get("updatedAt") or 0) or self.backend.now()
        if before is None:
            changes = {name: [None, now[name]] for name in TRACKED if now[name] is not None}
            records.append(Record(at, "session_changed", shown, {"new": True, "changes": changes}))
        else:
            changes = {name: [before[name], now[name]] for name in TRACKED if before[name] != now[name]}
            if changes:
                records.append(Record(at, "session_changed", shown, {"new": False, "changes": changes}))
        messages_now = await self.tail(key) if messages and _moved(before, now) else []
        was, status = (before or {}).get("status"), now["status"]
        replied = any(r.fields.get("role") == "assistant" for r in messages_now)
        started = runs and status == RUNNING and was != RUNNING
        ended = runs and status != RUNNING and (was == RUNNING or (replied and before is not None))
        if started or (ended and was != RUNNING):  # a run that came and went between two looks
            records.append(Record(at, "run_started", shown, {"run_id": None, "lane": ""}))
        records += messages_now
        if ended:
            records.append(Record(at, "run_ended", shown, {"run_id": None, "status": status, "error": None}))
        return records


def _moved(before: dict[str, Any] | None, now: dict[str, Any]) -> bool:
    return before is None or before.get("updatedAt") != now.get("updatedAt")


def _seen(row: dict[str, Any]) -> dict[str, Any]:
    return {**{name: row.get(name) for name in TRACKED}, "updatedAt": row.get("updatedAt")}


def _seq(message: dict[str, Any]) -> int:
    meta = message.get("__openclaw")
    seq = meta.get("seq", 0) if isinstance(meta, dict) else 0
    return seq if isinstance(seq, int) else 0
