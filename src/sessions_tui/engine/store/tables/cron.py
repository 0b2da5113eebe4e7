"""The `cron_jobs` and `cron_runs` tables: the scheduled jobs, who holds each one's claim, and their run history.

A job row keeps its spec (OpenClaw's job JSON, without its state), whether it is enabled, when it is
due next (`next_run_at`, indexed: the scheduler reads the soonest), its state (OpenClaw's `state`), and
the claim of the process running it (`lease_owner`, `lease_until`, `running_run_id`). A due run is
claimed in one write transaction that checks the job is still due as the claimer saw it and that no
live claim holds it, moves `next_run_at` on and records the run: of processes sharing the state
directory, exactly one claims each due run. A claim whose process died is free at once on this host,
and anywhere once it expires.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sessions_tui.engine.store.connection import CLAIM, Database, StoreError

LeaseFree = Callable[[str | None, int | None], bool]
"""Whether a claim (its owner and expiry) no longer stands."""


@dataclass(frozen=True)
class CronJobRow:
    id: str
    source: str
    spec: dict[str, Any]
    enabled: bool
    next_run_at: int | None
    state: dict[str, Any]
    lease_owner: str | None
    lease_until: int | None
    running_run_id: str | None
    created_at: int
    updated_at: int


@dataclass(frozen=True)
class CronRunRow:
    """One run of a job: `trigger` is `due`, `catch-up` or `manual`; `status` None while it runs."""

    id: str
    job_id: str
    trigger: str
    scheduled_at: int | None
    started_at: int
    ended_at: int | None = None
    status: str | None = None
    error: str | None = None
    session_key: str | None = None
    run_id: str | None = None
    tokens: int | None = None
    delivery_status: str | None = None
    delivery_error: str | None = None
    owner: str | None = None


def _json(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _job(row: sqlite3.Row) -> CronJobRow:
    return CronJobRow(
        id=row["id"],
        source=row["source"],
        spec=_json(row["spec"]),
        enabled=bool(row["enabled"]),
        next_run_at=row["next_run_at"],
        state=_json(row["state"]),
        lease_owner=row["lease_owner"],
        lease_until=row["lease_until"],
        running_run_id=row["running_run_id"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


_RUN_COLUMNS = tuple(CronRunRow.__dataclass_fields__)


def _run(row: sqlite3.Row) -> CronRunRow:
    """A run's row by its fields (PostgreSQL's `cron_runs` has `rowid` as a column: not one of them)."""
    return CronRunRow(**{name: row[name] for name in _RUN_COLUMNS})


class CronRepository:
    """Jobs and their runs: recording, claiming a due run, finishing it, reading the history."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- jobs ----------------------------------------------------------------------------------

    def get_job(self, job_id: str) -> CronJobRow | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM cron_jobs WHERE id = ?", (job_id,)).fetchone()
        return _job(row) if row else None

    def jobs(self) -> list[CronJobRow]:
        """Every job, in the order of their next run (those never due again last), then by id."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT * FROM cron_jobs ORDER BY next_run_at IS NULL, next_run_at, id").fetchall()
        return [_job(r) for r in rows]

    def declared_specs(self) -> dict[str, str]:
        """The spec (as stored) of every job the config declares, by id."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT id, spec FROM cron_jobs WHERE source = 'config'").fetchall()
        return {r["id"]: r["spec"] for r in rows}

    def apply_declared(
        self, upserts: list[tuple[str, dict[str, Any], bool, int | None]], removed: list[str], now: int
    ) -> None:
        """The config's jobs brought in: each (id, spec, enabled, next run) written (a job the command
        line made under the same id is left alone), and the ones it no longer declares deleted."""
        with self.db.write() as conn:
            for job_id, spec, enabled, next_run_at in upserts:
                conn.execute(
                    "INSERT INTO cron_jobs (id, source, spec, enabled, next_run_at, created_at, updated_at)"
                    " VALUES (?, 'config', ?, ?, ?, ?, ?)"
                    " ON CONFLICT(id) DO UPDATE SET spec = excluded.spec, enabled = excluded.enabled,"
                    " next_run_at = excluded.next_run_at, updated_at = excluded.updated_at"
                    " WHERE cron_jobs.source = 'config'",
                    (job_id, json.dumps(spec), int(enabled), next_run_at, now, now),
                )
            for job_id in removed:
                conn.execute("DELETE FROM cron_jobs WHERE id = ? AND source = 'config'", (job_id,))

    def insert_job(self, job_id: str, spec: dict[str, Any], enabled: bool, next_run_at: int | None, now: int) -> None:
        """A job the command line made; `StoreError` when the id is taken."""
        try:
            with self.db.write() as conn:
                conn.execute(
                    "INSERT INTO cron_jobs (id, source, spec, enabled, next_run_at, created_at, updated_at)"
                    " VALUES (?, 'cli', ?, ?, ?, ?, ?)",
                    (job_id, json.dumps(spec), int(enabled), next_run_at, now, now),
                )
        except sqlite3.IntegrityError:
            raise StoreError(f"a job with id {job_id} exists already") from None

    def update_job(
        self,
        job_id: str,
        *,
        now: int,
        spec: dict[str, Any] | None = None,
        enabled: bool | None = None,
        next_run_at: int | None = None,
        set_next: bool = False,
    ) -> bool:
        """Change a job's spec, enabled flag and/or next run (`set_next`: `next_run_at` is written,
        None included); whether it exists."""
        fields: dict[str, Any] = {"updated_at": now}
        if spec is not None:
            fields["spec"] = json.dumps(spec)
        if enabled is not None:
            fields["enabled"] = int(enabled)
        if set_next:
            fields["next_run_at"] = next_run_at
        names = ", ".join(f"{k} = ?" for k in fields)
        with self.db.write() as conn:
            cursor = conn.execute(f"UPDATE cron_jobs SET {names} WHERE id = ?", (*fields.values(), job_id))
            return cursor.rowcount > 0

    def delete_job(self, job_id: str) -> bool:
        """The job gone (its run history stays); whether it was there."""
        with self.db.write() as conn:
            return conn.execute("DELETE FROM cron_jobs WHERE id = ?", (job_id,)).rowcount > 0

    def reschedule(self, job_id: str, expected: int, next_run_at: int | None, state: dict[str, Any]) -> bool:
        """Move a job's next run from `expected` (as the caller read it) to `next_run_at`, its state
        changed as given, unless it has moved meanwhile; whether this did."""
        with self.db.write() as conn:
            row = conn.execute("SELECT state FROM cron_jobs WHERE id = ? AND next_run_at = ?", (job_id, expected))
            found = row.fetchone()
            if found is None:
                return False
            merged = {**_json(found["state"]), **state}
            conn.execute(
                "UPDATE cron_jobs SET next_run_at = ?, state = ? WHERE id = ?",
                (next_run_at, json.dumps(merged), job_id),
            )
            return True

    # -- the scheduler's reads -----------------------------------------------------------------

    def soonest_unclaimed(self) -> int | None:
        """When the soonest enabled job no process holds a claim on is due (the index, in order)."""
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT next_run_at FROM cron_jobs WHERE enabled = 1 AND next_run_at IS NOT NULL"
                " AND lease_owner IS NULL ORDER BY next_run_at LIMIT 1"
            ).fetchone()
        return None if row is None else int(row[0])

    def due(self, now: int) -> list[CronJobRow]:
        """The enabled jobs due at `now`, soonest first."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM cron_jobs WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ?"
                " ORDER BY next_run_at, id",
                (now,),
            ).fetchall()
        return [_job(r) for r in rows]

    def claimed(self) -> list[CronJobRow]:
        """The jobs some process holds a claim on."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT * FROM cron_jobs WHERE lease_owner IS NOT NULL").fetchall()
        return [_job(r) for r in rows]

    # -- claims --------------------------------------------------------------------------------

    def claim(
        self,
        run: CronRunRow,
        *,
        owner: str,
        lease_until: int,
        lease_free: LeaseFree,
        expected_next: int | None,
        next_run_at: int | None,
        state: dict[str, Any],
        manual: bool = False,
    ) -> bool:
        """Claim a run of `run.job_id` for `owner` and record it, in one write transaction: only when
        no live claim holds the job and (not `manual`) it is enabled and still due at `expected_next`.
        `next_run_at` is its next run from now on (a manual run leaves it), `state` merged into its
        state. Whether this process got it."""
        with self.db.write(claim=True) as conn:
            row = conn.execute(f"SELECT * FROM cron_jobs WHERE id = ? {CLAIM}", (run.job_id,)).fetchone()
            if row is None:
                return False
            job = _job(row)
            if job.lease_owner is not None and not lease_free(job.lease_owner, job.lease_until):
                return False
            if not manual and (not job.enabled or job.next_run_at is None or job.next_run_at != expected_next):
                return False
            merged = {**job.state, **state}
            conn.execute(
                "UPDATE cron_jobs SET lease_owner = ?, lease_until = ?, running_run_id = ?, next_run_at = ?,"
                " state = ? WHERE id = ?",
                (
                    owner,
                    lease_until,
                    run.id,
                    job.next_run_at if manual else next_run_at,
                    json.dumps(merged),
                    run.job_id,
                ),
            )
            values = {**run.__dict__, "owner": owner}
            conn.execute(
                f"INSERT INTO cron_runs ({', '.join(_RUN_COLUMNS)}) VALUES ({', '.join('?' * len(_RUN_COLUMNS))})",
                tuple(values[name] for name in _RUN_COLUMNS),
            )
            return True

    def run_started(self, cron_run_id: str, session_key: str, run_id: str | None) -> None:
        with self.db.write() as conn:
            conn.execute(
                "UPDATE cron_runs SET session_key = ?, run_id = ? WHERE id = ?", (session_key, run_id, cron_run_id)
            )

    def finish(
        self,
        run: CronRunRow,
        *,
        owner: str,
        state: dict[str, Any],
        next_run_at: int | None,
        keep_next: bool,
        enabled: bool | None,
        delete_job: bool,
    ) -> None:
        """A run's end: its row written, the job's claim given back (if `owner` still holds it), its
        state merged, its next run set (`keep_next`: left as it is), disabled or deleted as told."""
        with self.db.write() as conn:
            conn.execute(
                "UPDATE cron_runs SET ended_at = ?, status = ?, error = ?, tokens = ?, delivery_status = ?,"
                " delivery_error = ?, session_key = COALESCE(?, session_key), run_id = COALESCE(?, run_id)"
                " WHERE id = ?",
                (
                    run.ended_at,
                    run.status,
                    run.error,
                    run.tokens,
                    run.delivery_status,
                    run.delivery_error,
                    run.session_key,
                    run.run_id,
                    run.id,
                ),
            )
            row = conn.execute(
                "SELECT * FROM cron_jobs WHERE id = ? AND lease_owner = ? AND running_run_id = ?",
                (run.job_id, owner, run.id),
            ).fetchone()
            if row is None:
                return  # the job went (removed) or its claim was taken over
            if delete_job:
                conn.execute("DELETE FROM cron_jobs WHERE id = ?", (run.job_id,))
                return
            job = _job(row)
            conn.execute(
                "UPDATE cron_jobs SET lease_owner = NULL, lease_until = NULL, running_run_id = NULL,"
                " next_run_at = ?, state = ?, enabled = ? WHERE id = ?",
                (
                    job.next_run_at if keep_next else next_run_at,
                    json.dumps({**job.state, **state}),
                    int(job.enabled if enabled is None else enabled),
                    run.job_id,
                ),
            )

    def release_dead(self, lease_free: LeaseFree, now: int, error: str) -> list[CronRunRow]:
        """The claims of processes that stopped or died given back, and their runs ended as `error`
        with `error` (OpenClaw records an interrupted run as failed); returns those runs."""
        ended: list[CronRunRow] = []
        with self.db.write() as conn:
            rows = conn.execute("SELECT * FROM cron_jobs WHERE lease_owner IS NOT NULL").fetchall()
            for job in map(_job, rows):
                if not lease_free(job.lease_owner, job.lease_until):
                    continue
                state = {**job.state, "runningAtMs": None, "lastRunStatus": "error", "lastError": error}
                conn.execute(
                    "UPDATE cron_jobs SET lease_owner = NULL, lease_until = NULL, running_run_id = NULL, state = ?"
                    " WHERE id = ?",
                    (json.dumps({k: v for k, v in state.items() if v is not None}), job.id),
                )
                found = conn.execute(
                    "SELECT * FROM cron_runs WHERE id = ? AND ended_at IS NULL", (job.running_run_id,)
                ).fetchone()
                if found is not None:
                    conn.execute(
                        "UPDATE cron_runs SET ended_at = ?, status = 'error', error = ? WHERE id = ?",
                        (now, error, found["id"]),
                    )
                    ended.append(_run(found))
        return ended

    # -- history -------------------------------------------------------------------------------

    def runs(self, job_id: str, limit: int = 50) -> list[CronRunRow]:
        """A job's runs, newest first."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM cron_runs WHERE job_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?",
                (job_id, limit),
            ).fetchall()
        return [_run(r) for r in rows]

    def get_run(self, cron_run_id: str) -> CronRunRow | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM cron_runs WHERE id = ?", (cron_run_id,)).fetchone()
        return _run(row) if row else None

    def job_of_session(self, session_key: str) -> str | None:
        """The job whose latest run went into `session_key`, if any ran there."""
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT job_id FROM cron_runs WHERE session_key = ? ORDER BY started_at DESC LIMIT 1", (session_key,)
            ).fetchone()
        return None if row is None else str(row[0])
