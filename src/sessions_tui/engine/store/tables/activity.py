"""The facts of sessions' live status read from the store (runs, sends, chain-guard refusals) and the
operator's seen marks (`session_seen`).

A seen mark is when the operator last opened a session; the row keyed `HORIZON` holds when the table
came to be, so what ended before it counts as seen (and a failed run from before it as old news);
what ends at that moment or later is news. The
seed read touches only what can make a session other than idle: running runs (`runs_by_status`), runs
ended since the horizon (`runs_by_end`), chain-guard refusals of the last `LOOPING_WINDOW_MS`
(`audit_by_ts`), each through its index, never a pass over every session.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from sessions_tui.engine.sessions.live_status import LOOPING_WINDOW_MS, Activity, live_status
from sessions_tui.engine.store.connection import Database

HORIZON = "*"
"""The `session_seen` row holding the horizon: no session key is `*`."""

FAILED_ENDS = ("error", "timeout", "killed")
"""The ends of a run that make its session `failed` (an operator's abort is not a failure)."""

_CHUNK = 500


def _marks(keys: Iterable[str]) -> list[list[str]]:
    keys = list(keys)
    return [keys[i : i + _CHUNK] for i in range(0, len(keys), _CHUNK)]


def _in(part: list[str]) -> str:
    return ", ".join("?" * len(part)) or "NULL"


class ActivityRepository:
    """The facts each session's live status derives from, and the operator's seen marks."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def mark_seen(self, key: str, at: int) -> None:
        """The operator opened `key` at `at` (a later mark only moves it on)."""
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO session_seen (key, seen_at) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET seen_at = CASE WHEN excluded.seen_at > session_seen.seen_at "
                "THEN excluded.seen_at ELSE session_seen.seen_at END",
                (key, at),
            )

    def facts(self, keys: list[str] | None, now: int) -> dict[str, Activity]:
        """The facts of `keys` (each named one that has any), or with None of every session that
        may not be idle at `now`: one snapshot of the store."""
        with self.db.read() as conn:
            horizon = self._horizon(conn)
            before = horizon - 1  # seen up to: what ended at the horizon or after is news
            running = self._running(conn)  # key -> (run id, started at): few, so read whole
            waiting = self._waiting(conn, running)
            if keys is None:
                ended = self._ended_since(conn, horizon)
                refused = self._refused(conn, now)
                wanted = set(running) | set(ended) | set(refused)
            else:
                wanted = set(keys)
                ended = self._last_ended(conn, wanted)
                refused = {k: at for k, at in self._refused(conn, now).items() if k in wanted}
            progress = self._updated(conn, [k for k in running if k in wanted])
            seen = self._seen(conn, wanted)
        out: dict[str, Activity] = {}
        for key in wanted:
            run = running.get(key)
            last = ended.get(key)
            ended_at, failed = last if last is not None and last[0] >= horizon else (None, False)
            marks = [t for t in (run[1], progress.get(key)) if t is not None] if run is not None else []
            out[key] = Activity(
                running=run is not None,
                waiting=key in waiting,
                progress_at=max(marks) if marks else None,
                ended_at=ended_at,
                failed=failed,
                refused_at=refused.get(key),
                seen_at=max(seen.get(key, before), before),
            )
        if keys is None:  # the seed: only what is not idle (stuck or not, a run is not idle)
            return {key: facts for key, facts in out.items() if live_status(facts, now, 0) != "idle"}
        return out

    # -- the reads ---------------------------------------------------------------------------------

    def _horizon(self, conn: sqlite3.Connection) -> int:
        row = conn.execute("SELECT seen_at FROM session_seen WHERE key = ?", (HORIZON,)).fetchone()
        return int(row[0]) if row is not None else 0

    def _running(self, conn: sqlite3.Connection) -> dict[str, tuple[str, int | None]]:
        rows = conn.execute(
            "SELECT session_key, run_id, started_at FROM runs WHERE status = 'running' ORDER BY created_at"
        ).fetchall()
        return {r[0]: (r[1], r[2]) for r in rows}

    def _waiting(self, conn: sqlite3.Connection, running: dict[str, tuple[str, int | None]]) -> set[str]:
        """Running sessions whose run waits: on a running child (spawnedBy), or on a `sessions_send`
        it made whose run is running and whose wait has not given up (no `timeout` state yet)."""
        out: set[str] = set()
        for part in _marks(running):
            sql = f"SELECT spawned_by FROM sessions WHERE key IN ({_in(part)}) AND spawned_by IS NOT NULL"
            out.update(r[0] for r in conn.execute(sql, part))
        run_ids = {run_id: key for key, (run_id, _) in running.items()}
        for part in _marks(run_ids):
            sql = f"SELECT requester, states FROM send_ledger WHERE run_id IN ({_in(part)}) AND requester IS NOT NULL"
            for requester, states in conn.execute(sql, part):
                said = [s.get("state") for s in json.loads(states or "[]") if isinstance(s, dict)]
                if "timeout" not in said:
                    out.add(requester)
        return {key for key in out if key in running}

    def _ended_since(self, conn: sqlite3.Connection, horizon: int) -> dict[str, tuple[int, bool]]:
        """Each session's last run ended at `horizon` or after: when, and whether it failed."""
        out: dict[str, tuple[int, bool]] = {}
        rows = conn.execute(
            "SELECT session_key, status, ended_at FROM runs WHERE ended_at >= ? ORDER BY ended_at, rowid", (horizon,)
        )
        for key, status, ended_at in rows:
            out[key] = (int(ended_at), status in FAILED_ENDS)
        return out

    def _last_ended(self, conn: sqlite3.Connection, keys: set[str]) -> dict[str, tuple[int, bool]]:
        out: dict[str, tuple[int, bool]] = {}
        for key in keys:
            row = conn.execute(
                "SELECT status, ended_at FROM runs WHERE session_key = ? AND ended_at IS NOT NULL "
                "ORDER BY ended_at DESC, rowid DESC LIMIT 1",
                (key,),
            ).fetchone()
            if row is not None:
                out[key] = (int(row[1]), row[0] in FAILED_ENDS)
        return out

    def _refused(self, conn: sqlite3.Connection, now: int) -> dict[str, int]:
        """The last chain-guard refusal within the window of each session it refused a hop into or out of."""
        out: dict[str, int] = {}
        rows = conn.execute(
            "SELECT ts, session_key, requester FROM audit WHERE ts > ? AND kind = 'send_refused' "
            "AND json_extract(data, '$.rule') IS NOT NULL ORDER BY ts",
            (now - LOOPING_WINDOW_MS,),
        )
        for ts, target, requester in rows:
            for key in (target, requester):
                if key:
                    out[key] = int(ts)
        return out

    def _updated(self, conn: sqlite3.Connection, keys: list[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for part in _marks(keys):
            sql = f"SELECT key, updated_at FROM sessions WHERE key IN ({_in(part)})"
            out.update((r[0], int(r[1])) for r in conn.execute(sql, part))
        return out

    def _seen(self, conn: sqlite3.Connection, keys: set[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for part in _marks(keys):
            sql = f"SELECT key, seen_at FROM session_seen WHERE key IN ({_in(part)})"
            out.update((r[0], int(r[1])) for r in conn.execute(sql, part))
        return out
