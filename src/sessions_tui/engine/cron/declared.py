"""The jobs the config file declares (`cron.jobs`): checked one by one, and brought into the store.

Each entry is a job as OpenClaw stores one; `id` defaults to its `name` made into an id (lower case,
runs of other characters a `-`). An entry that does not check out, or repeats an id, is left out
with a line saying why (the others run). Bringing them in (`sync_declared`) writes only what
changed: a job whose spec is as stored keeps its next run and state; a changed one gets a new
scheduling decision (its next run from now); one no longer declared is deleted. A job made from
the command line under the same id is never overwritten.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from sessions_tui.engine.cron.jobs import CronJob
from sessions_tui.engine.cron.schedules import ScheduleError, check, next_run_ms
from sessions_tui.engine.store.store import Store

_NOT_ID = re.compile(r"[^a-z0-9_.]+")


@dataclass
class Declared:
    """The config's jobs that check out, and a line for each entry that does not."""

    jobs: list[CronJob] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def id_from_name(name: str) -> str:
    """`Morning brief` → `morning-brief`."""
    return _NOT_ID.sub("-", name.strip().lower()).strip("-.")[:128] or "job"


def validation_text(exc: ValidationError) -> str:
    """A pydantic error as one line: each field's path and what is wrong with it."""
    said = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"])
        said.append(f"{where}: {error['msg']}" if where else str(error["msg"]))
    return "; ".join(said)


def declared_jobs(entries: list[dict[str, Any]]) -> Declared:
    """The entries of `cron.jobs` as jobs (`source` config)."""
    out = Declared()
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"cron.jobs[{index}]"
        if not isinstance(entry, dict):
            out.problems.append(f"{where}: not an object")
            continue
        data = dict(entry)
        data.pop("state", None)  # a declaration says what to run, not where it stands
        if "id" not in data and isinstance(data.get("name"), str):
            data["id"] = id_from_name(data["name"])
        data["source"] = "config"
        try:
            job = CronJob.model_validate(data)
            check(job.schedule)
        except ValidationError as exc:
            out.problems.append(f"{where}: {validation_text(exc)}")
            continue
        except ScheduleError as exc:
            out.problems.append(f"{where}: {exc}")
            continue
        if job.id in seen:
            out.problems.append(f"{where}: id {job.id} is declared twice; the first is used")
            continue
        seen.add(job.id)
        out.jobs.append(job)
    return out


def _stored(spec: dict[str, Any]) -> str:
    return json.dumps(spec)


def sync_declared(store: Store, jobs: list[CronJob], now: int) -> int:
    """Bring the declared jobs into the store (the module's text); returns how many were written."""
    stored = store.cron.declared_specs()
    upserts: list[tuple[str, dict[str, Any], bool, int | None]] = []
    for job in jobs:
        spec = job.spec()
        spec.pop("createdAtMs", None)
        spec.pop("updatedAtMs", None)
        if stored.get(job.id) == _stored(spec):
            continue
        try:
            due = next_run_ms(job.schedule, job_id=job.id, now_ms=now, created_at_ms=now) if job.enabled else None
        except ScheduleError:
            due = None
        upserts.append((job.id, spec, job.enabled, due))
    wanted = {job.id for job in jobs}
    removed = [job_id for job_id in stored if job_id not in wanted]
    if upserts or removed:
        store.cron.apply_declared(upserts, removed, now)
    return len(upserts) + len(removed)
