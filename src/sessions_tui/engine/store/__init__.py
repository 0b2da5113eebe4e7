"""The state directory's SQLite store: session index, transcripts, runs, sub-agent registry, outbox, audit,
send ledger.

`Store` is one object over one connection; each table family's queries live in a module of this
package (`sessions`, `browse`, `transcripts`, `imports`, `runs`, `run_controls`, `registry`, `outbox`,
`audit`, `ledger`) as a part `Store` is composed of, on the connection and transactions of `connection.StoreBase`. The
schema and its migration are in `schema`. No module outside this package writes SQL for these tables.
"""

from __future__ import annotations

from sessions_tui.engine.store.browsing.browse import SORT_COLUMNS, BrowsePart, SessionFilter
from sessions_tui.engine.store.codec import dumps, exact_dumps
from sessions_tui.engine.store.connection import SearchUnreadable, StoreBase, StoreDamaged, StoreError
from sessions_tui.engine.store.schema import DB_NAME, SCHEMA_VERSION, TRANSCRIPT_VERSION
from sessions_tui.engine.store.tables.audit import AuditEntry, AuditPart
from sessions_tui.engine.store.tables.imports import ImportsPart
from sessions_tui.engine.store.tables.ledger import LedgerPart, LedgerRow
from sessions_tui.engine.store.tables.messages import message_of_line
from sessions_tui.engine.store.tables.outbox import OutboxPart, OutboxRow
from sessions_tui.engine.store.tables.registry import RegistryPart, SubagentRow
from sessions_tui.engine.store.tables.run_controls import RunControlRow, RunControlsPart
from sessions_tui.engine.store.tables.runs import RunRecord, RunsPart
from sessions_tui.engine.store.tables.sessions import StoredSession, derived_columns
from sessions_tui.engine.store.tables.transcripts import Appended, HistoryPage


class Store(ImportsPart, BrowsePart, RunsPart, RunControlsPart, RegistryPart, OutboxPart, AuditPart, LedgerPart):
    """The session index and transcripts of one state directory, and the engine's records beside them."""


__all__ = [
    "DB_NAME",
    "SCHEMA_VERSION",
    "SORT_COLUMNS",
    "TRANSCRIPT_VERSION",
    "Appended",
    "AuditEntry",
    "HistoryPage",
    "LedgerRow",
    "OutboxRow",
    "RunControlRow",
    "RunRecord",
    "SearchUnreadable",
    "SessionFilter",
    "Store",
    "StoreBase",
    "StoreDamaged",
    "StoreError",
    "StoredSession",
    "SubagentRow",
    "derived_columns",
    "dumps",
    "exact_dumps",
    "message_of_line",
]
