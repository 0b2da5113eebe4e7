"""The PostgreSQL store's schema: its tables as PostgreSQL DDL, its version, and creating them on open.

The tables are SQLite's (store/schema.py), column for column, so one repository's SQL reads both: the
session index (with the browse columns SQLite generates, generated and stored here), the transcripts
(each line verbatim; `rowid` is a column here, the key the text index keys by), the text index's rows
and state, the usage sums a line adds, and the generations a reset leaves; the engine's run records
(runs, run controls, the sub-agent registry, outbox, audit, send ledger: `_RUN_TABLES`). Search adds to the
text index's rows a `tsvector` of their text and their session terms as an array (`_TEXT_SEARCH`); the jobs
and their runs, the seen marks, the OpenClaw imports and follows (`_CRON_ACTIVITY_IMPORTS`). `SCHEMA_VERSION` is kept in
`schema_version`; a database written by a newer sessions-tui is refused rather than misread.
"""

from __future__ import annotations

from typing import LiteralString

from sessions_tui.engine.store.postgres import hosts
from sessions_tui.engine.store.schema import SCHEMA_VERSION as SQLITE_SCHEMA_VERSION

_PIDS = (("runs", "pid"), ("run_controls", "owner_pid"), ("subagent_runs", "announce_pid"), ("send_ledger", "flow_pid"))
"""The columns holding a process id: a host's (postgres/hosts.py) does not fit an INTEGER."""

SCHEMA_VERSION = 6
# 2: the engine's run records (runs, run_controls, subagent_runs, outbox, audit, send_ledger and
# send_ledger_state), `json` and `json_insert` (the ledger's states appended in SQL)
# 3: search, the text index's `words` (a tsvector) and `sids` (an array), each GIN-indexed
# 4: the jobs and their runs, the seen marks (and the horizon), the OpenClaw imports and follows; `json_extract`
# 5: the session table's sort indexes, and its trigram index where the server has `pg_trgm`
# 6: the hosts (postgres/hosts.py; process ids BIGINT), the events table and the triggers writing every change to it
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
    redaction TEXT NOT NULL DEFAULT '',
    inline BOOLEAN NOT NULL DEFAULT true
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

_JSON = """
CREATE OR REPLACE FUNCTION json(value text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$ SELECT $1::json::text $fn$
"""
"""SQLite's `json(text)`: the text, checked to be JSON (what `json_insert` is given)."""

_JSON_INSERT = """
CREATE OR REPLACE FUNCTION json_insert(doc text, path text, value text) RETURNS text
LANGUAGE sql IMMUTABLE AS $fn$
    SELECT coalesce(json_agg(item ORDER BY place), '[]')::text FROM (
        SELECT a.item, a.place FROM json_array_elements($1::json) WITH ORDINALITY AS a(item, place)
        UNION ALL
        SELECT $3::json, 9223372036854775807 WHERE $2 = '$[#]'
    ) AS items
$fn$
"""
"""SQLite's `json_insert(doc, '$[#]', json(value))` as the send ledger writes it: the JSON `value` appended
to the JSON array `doc` (both texts), its items kept as they are. Only that path: any other appends nothing."""

_RUN_TABLES = """
CREATE TABLE IF NOT EXISTS runs (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY,
    run_id TEXT PRIMARY KEY,
    session_key TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    lane TEXT,
    pid BIGINT,
    created_at BIGINT NOT NULL,
    started_at BIGINT,
    ended_at BIGINT,
    data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS runs_by_session ON runs(session_key, created_at);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status);
CREATE INDEX IF NOT EXISTS runs_by_end ON runs(ended_at) WHERE ended_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS run_controls (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    run_id TEXT NOT NULL,
    action TEXT NOT NULL,
    message TEXT,
    owner_pid BIGINT,
    requested_at BIGINT NOT NULL,
    done_at BIGINT,
    result TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS run_controls_pending ON run_controls(owner_pid, id) WHERE done_at IS NULL;
CREATE TABLE IF NOT EXISTS subagent_runs (
    rowid BIGINT GENERATED ALWAYS AS IDENTITY,
    run_id TEXT PRIMARY KEY,
    child_key TEXT NOT NULL,
    requester_key TEXT NOT NULL,
    task TEXT NOT NULL,
    label TEXT,
    cleanup TEXT NOT NULL DEFAULT 'keep',
    created_at BIGINT NOT NULL,
    ended_at BIGINT,
    outcome TEXT,
    outcome_error TEXT,
    announce_state TEXT NOT NULL DEFAULT 'waiting',
    announce_pid BIGINT,
    announced_at BIGINT,
    archive_at BIGINT,
    data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS subagent_runs_by_requester ON subagent_runs(requester_key, ended_at);
CREATE INDEX IF NOT EXISTS subagent_runs_by_state ON subagent_runs(announce_state);
CREATE TABLE IF NOT EXISTS outbox (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    created_at BIGINT NOT NULL,
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
    next_attempt_at BIGINT,
    delivered_at BIGINT,
    data TEXT NOT NULL DEFAULT '{}',
    idempotency_key TEXT,
    lease_owner TEXT,
    lease_until BIGINT
);
CREATE INDEX IF NOT EXISTS outbox_by_state ON outbox(state, next_attempt_at);
CREATE TABLE IF NOT EXISTS audit (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    ts BIGINT NOT NULL,
    kind TEXT NOT NULL,
    session_key TEXT,
    requester TEXT,
    via TEXT,
    reason TEXT,
    data TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS audit_by_ts ON audit(ts);
CREATE TABLE IF NOT EXISTS send_ledger (
    id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    run_id TEXT NOT NULL UNIQUE,
    requester TEXT,
    target TEXT NOT NULL,
    message TEXT NOT NULL,
    via TEXT NOT NULL,
    chain TEXT NOT NULL DEFAULT '[]',
    created_at BIGINT NOT NULL,
    states TEXT NOT NULL DEFAULT '[]',
    outbox_id BIGINT,
    flow_pid BIGINT
);
CREATE INDEX IF NOT EXISTS send_ledger_by_time ON send_ledger(created_at);
CREATE INDEX IF NOT EXISTS send_ledger_by_requester ON send_ledger(requester, created_at);
CREATE INDEX IF NOT EXISTS send_ledger_by_target ON send_ledger(target, created_at);
CREATE INDEX IF NOT EXISTS send_ledger_by_outbox ON send_ledger(outbox_id) WHERE outbox_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS send_ledger_in_flow ON send_ledger(flow_pid) WHERE flow_pid IS NOT NULL;
CREATE TABLE IF NOT EXISTS send_ledger_state (
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    entry_id BIGINT NOT NULL,
    PRIMARY KEY (state, created_at, entry_id)
)
"""
"""The engine's run records, SQLite's tables column for column (`rowid` a column where a repository orders
by it; SQLite's `AUTOINCREMENT` keys identities, never reused either)."""

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
it) and its `sid` terms as an array, generated, each with a GIN index (schema 3)."""

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
the operator's seen marks, and the OpenClaw imports and follows (schema 4)."""

AT_CREATION = ["INSERT OR IGNORE INTO session_seen (key, seen_at) VALUES ('*', ?)"]
"""Rows written when the schema is created or brought up to this version, each given the store's time:
the live status's horizon (what ended before it counts as seen: store/tables/activity.py)."""

STATEMENTS = [
    _JSON_SET,
    _JSON_EXTRACT,
    *(s for s in (_TABLES + _USAGE_TABLES + _CRON_ACTIVITY_IMPORTS).split(";") if s.strip()),
    *(s for s in _TEXT_SEARCH.split(";") if s.strip()),
]
"""Every statement creating the schema, in order (each safe to run again)."""
STATEMENTS += [_JSON, _JSON_INSERT, *(s for s in _RUN_TABLES.split(";") if s.strip())]

SORTED = (
    "updated_at",
    "sort_model",
    "sort_tokens",
    "sort_status",
    "sort_label",
    "sort_display",
    "sort_kind",
    "channel",
)
"""The session table's sort columns (browse_schema.py's), each with an index read in either direction."""

SEARCHED_TEXT = (
    "(key || ' ' || coalesce(label, '') || ' ' || coalesce(display_name, '') || ' ' || session_id || ' ' || channel)"
)
"""The searched columns as one text (what the trigram index holds): a needle one of them holds, it holds."""

_BROWSE = [
    *(f"CREATE INDEX IF NOT EXISTS sessions_sort_{c} ON sessions({c}, key) WHERE listable = 1" for c in SORTED),
    f"""DO $do$ BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE INDEX IF NOT EXISTS sessions_search ON sessions USING gin ({SEARCHED_TEXT} gin_trgm_ops);
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'no trigram index: %', SQLERRM;
END $do$""",
]
"""The session table's browsing (postgres/browse.py, schema 5): an index per sort column, and where the
server has `pg_trgm` (and lets this user create it) a trigram index over the searched columns; without
it, text filters test each row."""
STATEMENTS += _BROWSE

CHANNEL = "sessions_tui_events"
"""The channel every change notifies and every reader of the events table listens on (events.py)."""

EVENTS_DDL: list[LiteralString] = [
    """CREATE TABLE IF NOT EXISTS events (
        id bigserial PRIMARY KEY,
        tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
        session_key text NOT NULL,
        seq bigint NOT NULL,
        kind text NOT NULL,
        body text NOT NULL,
        at bigint NOT NULL,
        UNIQUE (session_key, seq)
    )""",
    "CREATE INDEX IF NOT EXISTS events_in_read_order ON events (tx, id)",
    "CREATE INDEX IF NOT EXISTS events_by_time ON events (at)",
    "CREATE TABLE IF NOT EXISTS event_sequences (session_key text PRIMARY KEY, seq bigint NOT NULL)",
]
"""The events table (events.py) and its sessions' counters (schema 6)."""

_CHANGED = (
    ("sessions", "key"),
    ("runs", "session_key"),
    ("subagent_runs", "child_key"),
    ("outbox", "session_key"),
    ("send_ledger", "target"),
    ("audit", "session_key"),
    ("cron_jobs", ""),
    ("cron_runs", "session_key"),
    ("run_controls", ""),
    ("session_seen", "key"),
)
"""The tables whose changes go to the events table, each with its session's column ('': none, the event's
session is '' — a job, a run control). A transcript line is written with its session's row, so `sessions`
names it."""

_NOTE_CHANGE = f"""
CREATE OR REPLACE FUNCTION note_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
    keys text[];
    k text;
BEGIN
    IF TG_ARGV[0] = '' THEN
        keys := ARRAY[''];
    ELSIF TG_OP = 'DELETE' THEN
        EXECUTE format('SELECT array_agg(DISTINCT coalesce(%I, '''') ORDER BY coalesce(%I, '''')) FROM gone',
                       TG_ARGV[0], TG_ARGV[0]) INTO keys;
    ELSE
        EXECUTE format('SELECT array_agg(DISTINCT coalesce(%I, '''') ORDER BY coalesce(%I, '''')) FROM fresh',
                       TG_ARGV[0], TG_ARGV[0]) INTO keys;
    END IF;
    IF keys IS NULL THEN
        RETURN NULL;
    END IF;
    FOREACH k IN ARRAY keys LOOP
        WITH s AS (
            INSERT INTO event_sequences (session_key, seq) VALUES (k, 1)
            ON CONFLICT (session_key) DO UPDATE SET seq = event_sequences.seq + 1 RETURNING seq
        )
        INSERT INTO events (session_key, seq, kind, body, at)
        SELECT k, s.seq, TG_TABLE_NAME || '.' || lower(TG_OP), '{{}}', {hosts.DB_NOW} FROM s;
    END LOOP;
    PERFORM pg_notify('{CHANNEL}', '');
    RETURN NULL;
END $fn$"""
"""Every change of a `_CHANGED` table as events: one per session a statement touched, numbered in the
session's sequence (events.py), and one wake for the readers at commit (NOTIFY folds a transaction's alike)."""


def _triggers(table: str, column: str) -> list[str]:
    made = []
    for op, ref in (
        ("INSERT", "NEW TABLE AS fresh"),
        ("UPDATE", "NEW TABLE AS fresh"),
        ("DELETE", "OLD TABLE AS gone"),
    ):
        made.append(
            f"CREATE OR REPLACE TRIGGER {table}_{op.lower()}_noted AFTER {op} ON {table} REFERENCING {ref}"
            f" FOR EACH STATEMENT EXECUTE FUNCTION note_change('{column}')"
        )
    return made


ROWIDS_LOCK = 0x5E55_0001
"""The advisory lock held while a block of transcript rowids is reserved (a moment, never to commit)."""

_ROWIDS = [
    "ALTER TABLE transcript_text_state ADD COLUMN IF NOT EXISTS inline BOOLEAN NOT NULL DEFAULT true",
    """DO $do$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
                   AND table_name = 'transcript' AND column_name = 'rowid' AND is_identity = 'YES') THEN
        ALTER TABLE transcript ALTER COLUMN rowid ADD GENERATED BY DEFAULT AS IDENTITY;
        PERFORM setval(pg_get_serial_sequence('transcript', 'rowid'),
                       greatest((SELECT coalesce(max(rowid), 0) FROM transcript),
                                (SELECT indexed_through FROM transcript_text_state WHERE id = 1)) + 1, false);
        UPDATE transcript_text_state SET inline = (indexed_through >= (SELECT coalesce(max(rowid), 0) FROM transcript));
    END IF;
END $do$""",
    f"""CREATE OR REPLACE FUNCTION reserve_rowids(n bigint) RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE
    rowids text := pg_get_serial_sequence('transcript', 'rowid');
    first bigint;
BEGIN
    PERFORM pg_advisory_lock({ROWIDS_LOCK});
    BEGIN
        first := nextval(rowids);
        IF n > 1 THEN
            PERFORM setval(rowids, first + n - 1);
        END IF;
    EXCEPTION WHEN OTHERS THEN
        PERFORM pg_advisory_unlock({ROWIDS_LOCK});
        RAISE;
    END;
    PERFORM pg_advisory_unlock({ROWIDS_LOCK});
    RETURN first;
END $fn$""",
]
"""Transcript rowids from an identity, a block of them reserved per append (`reserve_rowids`: appends of
different sessions at once never take the same ones), and the text index's `inline`: true while appends
index their own lines (it is caught up), false while a catch-up runs (text_search.py). Schema 6."""

_HOSTS_AND_EVENTS = [
    *(f"ALTER TABLE {t} ALTER COLUMN {c} TYPE BIGINT" for t, c in _PIDS),
    *hosts.DDL,
    *EVENTS_DDL,
    *_ROWIDS,
    _NOTE_CHANGE,
    *(statement for table, column in _CHANGED for statement in _triggers(table, column)),
]
"""The hosts, the events table and its triggers (schema 6)."""
STATEMENTS += _HOSTS_AND_EVENTS

VERSION = "SELECT version FROM schema_version WHERE id = 1"
SET_VERSION = (
    f"INSERT INTO schema_version (id, version) VALUES (1, {SCHEMA_VERSION}) "
    f"ON CONFLICT (id) DO UPDATE SET version = {SCHEMA_VERSION}"
)
