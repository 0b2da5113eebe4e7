"""The store's on-disk schema: its tables, its version, and the migration that brings an older file up to it.

Every table of the state directory's database is created here; the modules beside this one hold the
queries on them. `SCHEMA_VERSION` is written to SQLite's `user_version`, so a file written by a newer
sessions-tui is refused rather than misread.
"""

from __future__ import annotations

import sqlite3

from sessions_tui.engine.store.browse_schema import add_browse_indexes, drop_paired_indexes
from sessions_tui.engine.store.usage_hours import fill_agent_hours, fill_from_transcripts

SCHEMA_VERSION = 14
# 2: outbox.idempotency_key, lease_owner, lease_until; 3: the browse indexes (browse_schema.py);
# 4: transcript a rowid table (below); 5: one browse index per sort column, not two (and none by
# kind or by time alone: no query reads them); 6: the send ledger (`send_ledger`, `send_ledger_state`);
# 7: the transcript text index (`transcript_text`, store/tables/text_index.py) and `run_controls` (a kill or
# steer asked of the process running a sub-agent, store/tables/run_controls.py); 8: `send_ledger.flow_pid`
# (the process running a send's agent-to-agent flow, engine/runs/recovery.py); 9: `imports.adopted` (a session
# `import-openclaw --adopt` took over, store/tables/imports.py) and `openclaw_follows` (store/tables/follows.py);
# 10: `session_generations` (the sessionIds a reset replaced, whose lines stay: engine/session_operations.py);
# 11: `cron_jobs` and `cron_runs` (the scheduled jobs, their claims and their run history: store/tables/cron.py);
# 12: `usage_hours` and `usage_days` (the tokens and cost of model turns per hour or day, session and model:
# store/usage_hours.py, store/tables/usage.py); 13: `session_seen` (the operator's seen marks and the horizon row)
# and the indexes the live status's seed reads by (`runs_by_end`, `audit_by_ts`: store/tables/activity.py);
# 14: `usage_agent_hours` (the same sums per hour, agent and model
# without the session: what a report not by session reads, a few rows an hour however many sessions work)
TRANSCRIPT_VERSION = 3
DB_NAME = "sessions.sqlite3"

_TRANSCRIPT = """
CREATE TABLE IF NOT EXISTS transcript (
    session_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    msg_seq INTEGER,
    entry_id TEXT,
    line TEXT NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE INDEX IF NOT EXISTS transcript_by_msg_seq
    ON transcript(session_id, msg_seq) WHERE msg_seq IS NOT NULL;
"""

_USAGE_TABLE = """
CREATE TABLE IF NOT EXISTS {table} (
    {at} INTEGER NOT NULL,
    {session}agent_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    turns INTEGER NOT NULL DEFAULT 0,
    input INTEGER NOT NULL DEFAULT 0,
    output INTEGER NOT NULL DEFAULT 0,
    cache_read INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    reported_cost REAL NOT NULL DEFAULT 0,
    unreported_input INTEGER NOT NULL DEFAULT 0,
    unreported_output INTEGER NOT NULL DEFAULT 0,
    unreported_cache_read INTEGER NOT NULL DEFAULT 0,
    unreported_turns INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY ({at}, {whose}, provider, model)
) WITHOUT ROWID;
"""
"""Usage summed per session (or agent) and model over one span (`usage_hours`, `usage_days`, `usage_agent_hours`:
store/usage_hours.py): one declaration, a table per span and owner."""
_SESSION = "session_key TEXT NOT NULL,\n    "
_USAGE_TABLES = "".join(
    _USAGE_TABLE.format(table=table, at=at, session=session, whose=whose).lstrip("\n")
    for table, at, session, whose in (
        ("usage_hours", "hour", _SESSION, "session_key"),
        ("usage_days", "day", _SESSION, "session_key"),
        ("usage_agent_hours", "hour", "", "agent_id"),
    )
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    key TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    session_id TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    label TEXT,
    spawned_by TEXT,
    parent_session_key TEXT,
    display_name TEXT,
    rest TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'other',
    channel TEXT NOT NULL DEFAULT 'unknown',
    listable INTEGER NOT NULL DEFAULT 1,
    archived_at INTEGER,
    last_seq INTEGER NOT NULL DEFAULT 0,
    msg_count INTEGER NOT NULL DEFAULT 0,
    last_entry_id TEXT,
    mirror_path TEXT NOT NULL,
    mirror_size INTEGER NOT NULL DEFAULT 0,
    entry TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_spawned_by ON sessions(spawned_by);
CREATE INDEX IF NOT EXISTS sessions_by_parent ON sessions(parent_session_key);
CREATE INDEX IF NOT EXISTS sessions_by_label ON sessions(label);
CREATE INDEX IF NOT EXISTS sessions_by_agent ON sessions(agent_id, updated_at DESC);
CREATE INDEX IF NOT EXISTS sessions_browse ON sessions(
    updated_at DESC, key, agent_id, kind, rest, channel, listable, archived_at, label, display_name,
    session_id, spawned_by, parent_session_key);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    session_key TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    lane TEXT,
    pid INTEGER,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    ended_at INTEGER,
    data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs(session_key, created_at);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status);
CREATE INDEX IF NOT EXISTS runs_by_end ON runs(ended_at) WHERE ended_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts INTEGER NOT NULL,
    kind TEXT NOT NULL,
    session_key TEXT,
    requester TEXT,
    via TEXT,
    reason TEXT,
    data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS audit_by_ts ON audit(ts);
CREATE TABLE IF NOT EXISTS session_seen (
    key TEXT PRIMARY KEY,
    seen_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    session_key TEXT,
    channel TEXT,
    target TEXT,
    account_id TEXT,
    thread_id TEXT,
    message TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    next_attempt_at INTEGER,
    delivered_at INTEGER,
    data TEXT NOT NULL DEFAULT '{}',
    idempotency_key TEXT,
    lease_owner TEXT,
    lease_until INTEGER
);
CREATE INDEX IF NOT EXISTS outbox_by_state ON outbox(state, next_attempt_at);
CREATE TABLE IF NOT EXISTS subagent_runs (
    run_id TEXT PRIMARY KEY,
    child_key TEXT NOT NULL,
    requester_key TEXT NOT NULL,
    task TEXT NOT NULL,
    label TEXT,
    cleanup TEXT NOT NULL DEFAULT 'keep',
    created_at INTEGER NOT NULL,
    ended_at INTEGER,
    outcome TEXT,
    outcome_error TEXT,
    announce_state TEXT NOT NULL DEFAULT 'waiting',
    announce_pid INTEGER,
    announced_at INTEGER,
    archive_at INTEGER,
    data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS subagent_runs_by_requester ON subagent_runs(requester_key, ended_at);
CREATE INDEX IF NOT EXISTS subagent_runs_by_state ON subagent_runs(announce_state);
CREATE TABLE IF NOT EXISTS imports (
    source TEXT PRIMARY KEY,
    session_key TEXT NOT NULL,
    lines INTEGER NOT NULL DEFAULT 0,
    entry TEXT NOT NULL DEFAULT '{}',
    imported_at INTEGER NOT NULL,
    adopted TEXT
);
CREATE INDEX IF NOT EXISTS imports_by_session ON imports(session_key);
CREATE TABLE IF NOT EXISTS openclaw_follows (
    root TEXT PRIMARY KEY,
    since INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS send_ledger (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL UNIQUE,
    requester TEXT,
    target TEXT NOT NULL,
    message TEXT NOT NULL,
    via TEXT NOT NULL,
    chain TEXT NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL,
    states TEXT NOT NULL DEFAULT '[]',
    outbox_id INTEGER,
    flow_pid INTEGER
);
CREATE INDEX IF NOT EXISTS send_ledger_by_time ON send_ledger(created_at);
CREATE INDEX IF NOT EXISTS send_ledger_by_requester ON send_ledger(requester, created_at);
CREATE INDEX IF NOT EXISTS send_ledger_by_target ON send_ledger(target, created_at);
CREATE INDEX IF NOT EXISTS send_ledger_by_outbox ON send_ledger(outbox_id) WHERE outbox_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS send_ledger_state (
    state TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    entry_id INTEGER NOT NULL,
    PRIMARY KEY (state, created_at, entry_id)
);
CREATE TABLE IF NOT EXISTS run_controls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    action TEXT NOT NULL,
    message TEXT,
    owner_pid INTEGER,
    requested_at INTEGER NOT NULL,
    done_at INTEGER,
    result TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS run_controls_pending ON run_controls(owner_pid, id) WHERE done_at IS NULL;
CREATE TABLE IF NOT EXISTS session_generations (
    session_id TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    replaced_at INTEGER NOT NULL,
    mirror_path TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS session_generations_by_key ON session_generations(key, replaced_at);
CREATE TABLE IF NOT EXISTS cron_jobs (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    spec TEXT NOT NULL,
    enabled INTEGER NOT NULL DEFAULT 1,
    next_run_at INTEGER,
    state TEXT NOT NULL DEFAULT '{}',
    lease_owner TEXT,
    lease_until INTEGER,
    running_run_id TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS cron_jobs_due ON cron_jobs(next_run_at) WHERE enabled = 1;
CREATE TABLE IF NOT EXISTS cron_runs (
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL,
    trigger TEXT NOT NULL,
    scheduled_at INTEGER,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    status TEXT,
    error TEXT,
    session_key TEXT,
    run_id TEXT,
    tokens INTEGER,
    delivery_status TEXT,
    delivery_error TEXT,
    owner TEXT
);
CREATE INDEX IF NOT EXISTS cron_runs_by_job ON cron_runs(job_id, started_at);
CREATE INDEX IF NOT EXISTS cron_runs_by_session ON cron_runs(session_key, started_at);
{usage_tables}
CREATE VIRTUAL TABLE IF NOT EXISTS transcript_text USING fts5(
    text, sid, tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS transcript_text_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    indexed_through INTEGER NOT NULL DEFAULT 0,
    redaction TEXT NOT NULL DEFAULT ''
);
""".replace("{usage_tables}\n", _USAGE_TABLES)


def user_version(conn: sqlite3.Connection) -> int:
    """The schema version the database file was last written with (0: a new file)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _run(conn: sqlite3.Connection, script: str) -> None:
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def migrate(conn: sqlite3.Connection, version: int, now: int) -> None:
    """Create what is missing and bring a file of schema `version` up to date, in the caller's transaction
    (`now`: the time of a usage line without one)."""
    _run(conn, _SCHEMA)
    _run(conn, _TRANSCRIPT)
    if version < 2:  # the outbox's Idempotency-Key per delivery, and a process's lease on one (outbox.py)
        have = {r[1] for r in conn.execute("PRAGMA table_info(outbox)")}
        for column in ("idempotency_key TEXT", "lease_owner TEXT", "lease_until INTEGER"):
            if column.split()[0] not in have:
                conn.execute(f"ALTER TABLE outbox ADD COLUMN {column}")
        conn.execute("UPDATE outbox SET idempotency_key = lower(hex(randomblob(16))) WHERE idempotency_key IS NULL")
    if 0 < version < 5:  # every index a session's write maintains costs an import its share
        drop_paired_indexes(conn)
        conn.execute("DROP INDEX IF EXISTS sessions_by_updated")
        conn.execute("DROP INDEX IF EXISTS sessions_by_kind")
    conn.execute("INSERT OR IGNORE INTO transcript_text_state (id) VALUES (1)")  # 7: indexed through line 0
    add_browse_indexes(conn, fill_search=version < 3)  # 3: sort columns, their indexes, the search index
    if 0 < version < 4:
        _transcript_by_rowid(conn)
    if 0 < version < 8 and "flow_pid" not in {r[1] for r in conn.execute("PRAGMA table_info(send_ledger)")}:
        conn.execute("ALTER TABLE send_ledger ADD COLUMN flow_pid INTEGER")  # 8: a flow's process
    if 0 < version < 10 and "adopted" not in {r[1] for r in conn.execute("PRAGMA table_info(imports)")}:
        conn.execute(
            "ALTER TABLE imports ADD COLUMN adopted TEXT"
        )  # 9: a session the engine took over (10: a file of the 9 without it)
    if 0 < version < 12:  # 12: the usage the transcripts already hold, by the hour
        fill_from_transcripts(conn, now)
    elif 0 < version < 14:  # 14: the hours of every agent and model, from the sessions' hours
        fill_agent_hours(conn)
    # 13: what ended before the seen marks existed counts as seen (store/tables/activity.py)
    conn.execute("INSERT OR IGNORE INTO session_seen (key, seen_at) VALUES ('*', ?)", (now,))
    conn.execute("CREATE INDEX IF NOT EXISTS send_ledger_in_flow ON send_ledger(flow_pid) WHERE flow_pid IS NOT NULL")
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


def _transcript_by_rowid(conn: sqlite3.Connection) -> None:
    """Schema 4: transcript lines in a rowid table, its key an index. Lines are stored in the order
    they are written (appended, not spread over a tree ordered by the session's random UUID), so a
    batch of new lines rewrites few pages: an import writes a fraction of the bytes it did."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'transcript'").fetchone()
    if row is None or "WITHOUT ROWID" not in row[0].upper():
        return
    conn.execute("ALTER TABLE transcript RENAME TO transcript_schema3")
    conn.execute("DROP INDEX IF EXISTS transcript_by_msg_seq")
    _run(conn, _TRANSCRIPT)
    conn.execute(
        "INSERT INTO transcript (session_id, seq, msg_seq, entry_id, line) "
        "SELECT session_id, seq, msg_seq, entry_id, line FROM transcript_schema3 ORDER BY session_id, seq"
    )
    conn.execute("DROP TABLE transcript_schema3")
