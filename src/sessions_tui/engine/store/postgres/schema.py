"""The PostgreSQL store's schema: its tables as PostgreSQL DDL, its version, and creating them on open.

The tables are SQLite's (store/schema.py), column for column, so one repository's SQL reads both: the
session index (with the browse columns SQLite generates, generated and stored here), the transcripts
(each line verbatim; `rowid` is a column here, the key the text index keys by), the text index's rows
and state, the usage sums a line adds, and the generations a reset leaves. The engine's other records
(runs, registry, outbox, ledger, audit, jobs) are not here yet. Search adds to the text index's rows a
`tsvector` of their text and their session terms as an array (`_TEXT_SEARCH`). `SCHEMA_VERSION` is kept in
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

INDEXED_CHARS = 262_144
"""A message's words past this many characters are not in its `tsvector` (which holds at most 1 MB)."""

_TEXT_SEARCH = f"""
ALTER TABLE transcript_text ADD COLUMN IF NOT EXISTS words tsvector
    GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, left(text, {INDEXED_CHARS}))) STORED;
ALTER TABLE transcript_text ADD COLUMN IF NOT EXISTS sids TEXT[]
    GENERATED ALWAYS AS (string_to_array(sid, ' ')) STORED;
CREATE INDEX IF NOT EXISTS transcript_text_by_words ON transcript_text USING gin (words);
CREATE INDEX IF NOT EXISTS transcript_text_by_sids ON transcript_text USING gin (sids);
"""
"""Search (postgres/text_search.py): the text index's redacted text as a `tsvector` (`INDEXED_CHARS` of
it) and its `sid` terms as an array, generated, each with a GIN index (schema 2)."""

STATEMENTS = [
    _JSON_SET,
    *(s for s in (_TABLES + _USAGE_TABLES).split(";") if s.strip()),
    *(s for s in _TEXT_SEARCH.split(";") if s.strip()),
]
"""Every statement creating the schema, in order (each safe to run again)."""

VERSION = "SELECT version FROM schema_version WHERE id = 1"
SET_VERSION = (
    f"INSERT INTO schema_version (id, version) VALUES (1, {SCHEMA_VERSION}) "
    f"ON CONFLICT (id) DO UPDATE SET version = {SCHEMA_VERSION}"
)
