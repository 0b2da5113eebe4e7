"""Follows: the OpenClaw state directories this state directory follows (`import-openclaw --follow`, `--openclaw`).

A follow is recorded when it starts and stays recorded: the sessions it mirrors are that OpenClaw's
(docs/decisions.md D17), so `import-openclaw --adopt` refuses a followed store here.
"""

from __future__ import annotations

from sessions_tui.engine.store.connection import Database


class FollowsRepository:
    """The `openclaw_follows` table: one row per followed OpenClaw, by its resolved path."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def record(self, root: str) -> None:
        """`root` is followed from now on (the time of its first follow is kept)."""
        with self.db.write() as conn:
            conn.execute("INSERT OR IGNORE INTO openclaw_follows (root, since) VALUES (?, ?)", (root, self.db.now()))

    def follows(self, root: str) -> bool:
        with self.db.peek() as conn:
            row = conn.execute("SELECT 1 FROM openclaw_follows WHERE root = ?", (root,)).fetchone()
        return row is not None
