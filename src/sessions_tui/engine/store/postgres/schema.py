"""The PostgreSQL store's schema: its tables as PostgreSQL DDL, its version, and creating them on open.

The tables are SQLite's (store/schema.py), column for column, so one repository's SQL reads both: the
session index (with the browse columns SQLite generates, generated and stored here), the transcripts
(each line verbatim; `rowid` is a column here, the key the text index keys by), the text index's rows
and state, the usage sums a line adds, and the generations a reset leaves. The engine's other records
(runs, registry, outbox, ledger, audit, jobs) and search are not here yet. `SCHEMA_VERSION` is kept in
`schema_version`; a database written by a newer sessions-tui is refused rather than misread.
"""

from __future__ import annotations

from sessions_tui.engine.store.schema import SCHEMA_VERSION as SQLITE_SCHEMA_VERSION

SCHEMA_VERSION = 2
"""This schema's version (its own: PostgreSQL's migrations are not SQLite's)."""
SQLITE_EQUIVALENT = SQLITE_SCHEMA_VERSION
"""The SQLite schema whose tables these are (for `store copy` to come)."""

_JSON_SET = """
CREATE OR REPLACE FUNCTION json_set(doc text, path text, value anyelement) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT coalesce(json_object_agg(name, item ORDER BY place), '{}')::text FROM (
        SELECT f.key AS name, CASE WHEN f.key = substr($2, 3) THEN to_json($3) ELSE f.value END AS item, f.place
        FROM json_each($1::json) WITH ORDINALITY AS f(key, value, place)
        UNION ALL
        SELECT substr($2, 3), to_json($3), 9223372036854775807
        WHERE NOT EXISTS (SELECT 1 FROM json_each($1::json) AS had WHERE had.key = substr($2, 3))
    ) AS fields
$fn$
"""
"""SQLite's `json_set(doc, '$.field', value)` for one top-level field of a JSON text: the field set in
place (or added last), the others kept in their order."""

_SORT_NUMBER = """CASE WHEN jsonb_typeof(entry::jsonb -> 'totalTokens') = 'number'
    THEN (entry::jsonb ->> 'totalTokens')::numeric ELSE 0 END"""

_TABLES = f"""
CREATE TABLE IF NOT EXISTS schema_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    key TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    session_id TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    label TEXT,
    spawned_by TEXT,
    parent_session_key TEXT,
    display_name TEXT,
    rest TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'other',
    channel TEXT NOT NULL DEFAULT 'unknown',
    listable INTEGER NOT NULL DEFAULT 1,
    archived_at BIGINT,
    last_seq BIGINT NOT NULL DEFAULT 0,
    msg_count BIGINT NOT NULL DEFAULT 0,
    last_entry_id TEXT,
    mirror_path TEXT NOT NULL,
    mirror_size BIGINT NOT NULL DEFAULT 0,
    entry TEXT NOT NULL,
    sort_model TEXT GENERATED ALWAYS AS (coalesce(entry::jsonb ->> 'model', '')) STORED,
    sort_tokens NUMERIC GENERATED ALWAYS AS ({_SORT_NUMBER}) STORED,
    sort_status TEXT GENERATED ALWAYS AS (coalesce(entry::jsonb ->> 'status', '')) STORED,
    sort_label TEXT GENERATED ALWAYS AS (coalesce(label, display_name, '')) STORED,
    sort_display TEXT GENERATED ALWAYS AS (CASE WHEN key = 'global' THEN 'main' WHEN agent_id = 'main' AND (
        rest LIKE 'cron:%' OR rest LIKE 'hook:%' OR rest LIKE 'node-%' OR rest LIKE 'node:%') THEN rest ELSE key END
    ) STORED,
    sort_kind TEXT GENERATED ALWAYS AS (CASE WHEN key = 'global' THEN 'main' WHEN rest = 'main' THEN 'main'
        WHEN kind = 'main' THEN 'other' ELSE kind END) STORED
);
CREATE INDEX IF NOT EXISTS sessions_by_spawned_by ON sessions(spawned_by);
CREATE INDEX IF NOT EXISTS sessions_by_parent ON sessions(parent_session_key);
CREATE INDEX IF NOT EXISTS sessions_by_label ON sessions(label);
CREATE INDEX IF NOT EXISTS sessions_by_agent ON sessions(agent_id, updated_at DESC);
CREATE INDEX IF NOT EXISTS sessions_by_updated ON sessions(updated_at DESC, key);
CREATE TABLE IF NOT EXISTS transcript (
    rowid BIGINT PRIMARY KEY,
    session_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    msg_seq BIGINT,
    entry_id TEXT,
    line TEXT NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE INDEX IF NOT EXISTS transcript_by_msg_seq ON transcript(session_id, msg_seq) WHERE msg_seq IS NOT NULL;
CREATE TABLE IF NOT EXISTS transcript_text (
    rowid BIGINT PRIMARY KEY,
    text TEXT NOT NULL,
    sid TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS transcript_text_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    indexed_through BIGINT NOT NULL DEFAULT 0,
    redaction TEXT NOT NULL DEFAULT ''
);
INSERT INTO transcript_text_state (id) VALUES (1) ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS session_generations (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY,
    session_id TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    replaced_at BIGINT NOT NULL,
    mirror_path TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS session_generations_by_key ON session_generations(key, replaced_at);
"""

_USAGE_TABLE = """
CREATE TABLE IF NOT EXISTS {table} (
    {at} BIGINT NOT NULL,
    {session}agent_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    model TEXT NOT NULL,
    turns BIGINT NOT NULL DEFAULT 0,
    input BIGINT NOT NULL DEFAULT 0,
    output BIGINT NOT NULL DEFAULT 0,
    cache_read BIGINT NOT NULL DEFAULT 0,
    total BIGINT NOT NULL DEFAULT 0,
    reported_cost DOUBLE PRECISION NOT NULL DEFAULT 0,
    unreported_input BIGINT NOT NULL DEFAULT 0,
    unreported_output BIGINT NOT NULL DEFAULT 0,
    unreported_cache_read BIGINT NOT NULL DEFAULT 0,
    unreported_turns BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY ({at}, {whose}, provider, model)
);
"""
_SESSION = "session_key TEXT NOT NULL,\n    "
_USAGE_TABLES = "".join(
    _USAGE_TABLE.format(table=table, at=at, session=session, whose=whose)
    for table, at, session, whose in (
        ("usage_hours", "hour", _SESSION, "session_key"),
        ("usage_days", "day", _SESSION, "session_key"),
        ("usage_agent_hours", "hour", "", "agent_id"),
    )
)

_JSON_EXTRACT = """
CREATE OR REPLACE FUNCTION json_extract(doc text, path text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$ SELECT $1::json ->> substr($2, 3) $fn$
"""
"""SQLite's `json_extract(doc, '$.field')` for one top-level field of a JSON text, as text (what the live
status asks of an audit row's data: whether its field is there)."""

_CRON_ACTIVITY_IMPORTS = """
CREATE TABLE IF NOT EXISTS cron_jobs (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    spec TEXT NOT NULL,
    enabled INTEGER NOT NULL DEFAULT 1,
    next_run_at BIGINT,
    state TEXT NOT NULL DEFAULT '{}',
    lease_owner TEXT,
    lease_until BIGINT,
    running_run_id TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS cron_jobs_due ON cron_jobs(next_run_at) WHERE enabled = 1;
CREATE TABLE IF NOT EXISTS cron_runs (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY,
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL,
    trigger TEXT NOT NULL,
    scheduled_at BIGINT,
    started_at BIGINT NOT NULL,
    ended_at BIGINT,
    status TEXT,
    error TEXT,
    session_key TEXT,
    run_id TEXT,
    tokens BIGINT,
    delivery_status TEXT,
    delivery_error TEXT,
    owner TEXT
);
CREATE INDEX IF NOT EXISTS cron_runs_by_job ON cron_runs(job_id, started_at);
CREATE INDEX IF NOT EXISTS cron_runs_by_session ON cron_runs(session_key, started_at);
CREATE TABLE IF NOT EXISTS session_seen (
    key TEXT PRIMARY KEY,
    seen_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS imports (
    source TEXT PRIMARY KEY,
    session_key TEXT NOT NULL,
    lines BIGINT NOT NULL DEFAULT 0,
    entry TEXT NOT NULL DEFAULT '{}',
    imported_at BIGINT NOT NULL,
    adopted TEXT
);
CREATE INDEX IF NOT EXISTS imports_by_session ON imports(session_key);
CREATE TABLE IF NOT EXISTS openclaw_follows (
    root TEXT PRIMARY KEY,
    since BIGINT NOT NULL
);
"""
"""The jobs and their runs (`cron_runs.rowid`: a column here, the order of runs started at one time),
the operator's seen marks, and the OpenClaw imports and follows (schema 2)."""

AT_CREATION = ["INSERT OR IGNORE INTO session_seen (key, seen_at) VALUES ('*', ?)"]
"""Rows written when the schema is created or brought up to this version, each given the store's time:
the live status's horizon (what ended before it counts as seen: store/tables/activity.py)."""

STATEMENTS = [
    _JSON_SET,
    _JSON_EXTRACT,
    *(s for s in (_TABLES + _USAGE_TABLES + _CRON_ACTIVITY_IMPORTS).split(";") if s.strip()),
]
"""Every statement creating the schema, in order (each safe to run again)."""

VERSION = "SELECT version FROM schema_version WHERE id = 1"
SET_VERSION = (
    f"INSERT INTO schema_version (id, version) VALUES (1, {SCHEMA_VERSION}) "
    f"ON CONFLICT (id) DO UPDATE SET version = {SCHEMA_VERSION}"
)
