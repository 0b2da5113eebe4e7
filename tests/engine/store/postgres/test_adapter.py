"""The PostgreSQL adapter's translation of SQLite's SQL (no server needed) and its rows."""

import pytest

from sessions_tui.engine.store.postgres.adapter import Row, returning_key, translate


@pytest.mark.parametrize(
    ("sqlite", "postgresql"),
    [
        ("SELECT * FROM sessions WHERE key = ?", "SELECT * FROM sessions WHERE key = %s"),
        ("SELECT key FROM s WHERE key LIKE ? ESCAPE '\\'", "SELECT key FROM s WHERE key LIKE %s ESCAPE '\\'"),
        ("SELECT '?', ? WHERE a LIKE 'x%'", "SELECT '?', %s WHERE a LIKE 'x%%'"),
        ("SELECT 'it''s ?', ?", "SELECT 'it''s ?', %s"),
        ("SELECT * FROM s LIMIT -1 OFFSET ?", "SELECT * FROM s LIMIT ALL OFFSET %s"),
        ("INSERT OR IGNORE INTO t (a) VALUES (?)", "INSERT INTO t (a) VALUES (%s) ON CONFLICT DO NOTHING"),
        (
            "INSERT OR REPLACE INTO session_generations (session_id, key, replaced_at, mirror_path) "
            "VALUES (?, ?, ?, ?)",
            "INSERT INTO session_generations (session_id, key, replaced_at, mirror_path) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (session_id) DO UPDATE SET key = excluded.key, replaced_at = excluded.replaced_at, "
            "mirror_path = excluded.mirror_path",
        ),
    ],
)
def test_sqlite_spelling_becomes_postgresql_s(sqlite, postgresql):
    assert translate(sqlite) == postgresql


def test_a_row_reads_by_name_and_by_position():
    row = Row(("k", 3), {"key": 0, "n": 1})
    assert row["key"] == "k" and row[1] == 3 and row.keys() == ["key", "n"] and tuple(row) == ("k", 3)


@pytest.mark.parametrize(
    ("sql", "key"),
    [
        ("INSERT INTO outbox (kind) VALUES (?)", "id"),
        ("INSERT OR IGNORE INTO send_ledger (run_id) VALUES (?)", "id"),
        ("  insert into run_controls (run_id) values (?)", "id"),
        ("INSERT INTO audit (kind) VALUES (?)", None),  # its inserts' lastrowid is never read
        ("INSERT INTO outbox (kind) VALUES (?) RETURNING id, kind", None),  # returns what it asks for
        ("UPDATE outbox SET kind = ? WHERE id = ?", None),
        ("SELECT * FROM outbox", None),
    ],
)
def test_an_insert_whose_lastrowid_is_read_returns_its_key(sql, key):
    assert returning_key(sql) == key
