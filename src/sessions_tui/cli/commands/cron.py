"""`sessions-tui cron ACTION …`: the scheduled jobs, one sub-command each (`ACTIONS`; their options in
cron_parser.py): `add`, `list`, `edit`, `rm`, `enable`, `disable`, `run` (now, waited for) and `runs`
(the history), through `Backend` `Scheduling` (Capability.CRON).

Each prints a line per job or run, or with `--json` OpenClaw's JSON (a job as `cron.get` answers it,
a run as its history keeps it). Exit status: 0 done, 1 a refusal (`OperationRefused`, a backend
without cron jobs: its one line on stderr, or a run now that ended in error), 2 bad input.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TextIO

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import BackendUnavailable, Capability, OperationRefused
from sessions_tui.backend.toolkit.keys import looks_like_session_key
from sessions_tui.backend.values.cron import (
    CronJob,
    CronRun,
    ScheduleError,
    at_from_text,
    describe,
    iso_utc,
    parse_duration_ms,
)
from sessions_tui.cli.backends import face_backend
from sessions_tui.cli.errors import EXIT_OK, EXIT_REFUSED, UsageError, require, said
from sessions_tui.terminal_text import json_text, visible_line

Action = Callable[[Backend, argparse.Namespace, TextIO], Awaitable[int]]


def refused(line: str) -> int:
    print(f"sessions-tui: {visible_line(line)}", file=sys.stderr)
    return EXIT_REFUSED


def _duration(option: str, text: str) -> int:
    try:
        return parse_duration_ms(text)
    except ScheduleError as exc:
        raise UsageError(f"{option}: {exc}") from None


def _schedule(opts: argparse.Namespace, now: int) -> dict[str, Any] | None:
    """The schedule the options give (None: none given, on `edit`)."""
    if opts.cron is not None:
        schedule: dict[str, Any] = {"kind": "cron", "expr": opts.cron}
        if opts.tz:
            schedule["tz"] = opts.tz
        if opts.exact:
            schedule["staggerMs"] = 0
        elif opts.stagger is not None:
            schedule["staggerMs"] = _duration("--stagger", opts.stagger)
        return schedule
    if opts.tz or opts.exact or opts.stagger is not None:
        if opts.at is None or opts.exact or opts.stagger is not None:
            raise UsageError("--tz, --exact and --stagger go with --cron (--tz with --at too)")
    if opts.every is not None:
        return {"kind": "every", "everyMs": _duration("--every", opts.every)}
    if opts.at is not None:
        try:
            return {"kind": "at", "at": at_from_text(opts.at, now, opts.tz)}
        except ScheduleError as exc:
            raise UsageError(f"--at: {exc}") from None
    return None


def _session_target(text: str) -> str:
    target = text.strip()
    if target in ("isolated", "main"):
        return target
    key = target.removeprefix("session:")
    if not key or not looks_like_session_key(key):
        raise UsageError(f"--session: isolated, main, or a session key: {text!r}")
    return f"session:{key}"


def _delivery(opts: argparse.Namespace) -> dict[str, Any] | None:
    if opts.webhook is not None:
        if opts.channel or opts.to:
            raise UsageError("--webhook: not with --channel or --to (they are an announce's)")
        return {"mode": "webhook", "to": opts.webhook}
    if opts.no_deliver:
        return {"mode": "none"}
    if opts.announce or opts.channel or opts.to:
        return {"mode": "announce", "channel": opts.channel, "to": opts.to}
    return None


def job_fields(opts: argparse.Namespace, now: int, *, editing: bool) -> dict[str, Any]:
    """OpenClaw's job JSON (a patch, editing) from the options given."""
    fields: dict[str, Any] = {}
    schedule = _schedule(opts, now)
    if schedule is not None:
        fields["schedule"] = schedule
    for option, name in (("name", "name"), ("description", "description"), ("agent", "agentId")):
        if getattr(opts, option) is not None:
            fields[name] = getattr(opts, option)
    if opts.session is not None:
        fields["sessionTarget"] = _session_target(opts.session)
    payload: dict[str, Any] = {"kind": "agentTurn"}
    if opts.message is not None:
        payload["message"] = opts.message
    for option, name in (("model", "model"), ("thinking", "thinking"), ("timeout_seconds", "timeoutSeconds")):
        if getattr(opts, option) is not None:
            payload[name] = getattr(opts, option)
    if editing:
        if opts.clear_model and opts.model is not None or opts.clear_thinking and opts.thinking is not None:
            raise UsageError("--clear-model and --model (or --clear-thinking and --thinking): one or the other")
        payload.update({"model": None} if opts.clear_model else {})
        payload.update({"thinking": None} if opts.clear_thinking else {})
    if len(payload) > 1:
        fields["payload"] = payload
    delivery = _delivery(opts)
    if delivery is not None:
        fields["delivery"] = delivery
    if opts.keep_after_run:
        fields["deleteAfterRun"] = False
    if not editing:
        if opts.id is not None:
            fields["id"] = opts.id
        fields["enabled"] = not opts.disabled
    return fields


def _when(ms: int | None) -> str:
    return iso_utc(ms) if ms is not None else "-"


def job_line(job: CronJob) -> str:
    """`ID  NAME  SCHEDULE  next … · last … · SESSION (disabled)`."""
    state = job.state
    last = f"last {state.last_run_status} {_when(state.last_run_at_ms)}" if state.last_run_status else "never run"
    off = "" if job.enabled else " (disabled)"
    declared = " [config]" if job.source == "config" else ""
    return (
        f"{job.id}  {job.name}  {describe(job.schedule)}  next {_when(state.next_run_at_ms)} · {last}"
        f" · {job.session_target}{off}{declared}"
    )


def run_line(run: CronRun) -> str:
    """`STARTED  DURATION  OUTCOME  TOKENS  TRIGGER  SESSION`."""
    took = f"{run.duration_ms / 1000:.1f}s" if run.duration_ms is not None else "running"
    outcome = run.status or "running"
    if run.error:
        outcome += f" ({run.error})"
    tokens = f"{run.tokens} tokens" if run.tokens is not None else "- tokens"
    delivered = f" · delivery {run.delivery_status}" if run.delivery_status not in (None, "not-requested") else ""
    return (
        f"{_when(run.started_at_ms)}  {took}  {outcome}  {tokens}  {run.trigger}  {run.session_key or '-'}{delivered}"
    )


def _print_json(out: TextIO, data: Any) -> None:
    out.write(json_text(data, terminal=out.isatty()) + "\n")


def _lines(backend: Backend, out: TextIO, lines: list[str]) -> None:
    for line in lines:
        out.write(visible_line(backend.redact(line)) + "\n")


async def list_jobs(backend: Backend, opts: argparse.Namespace, out: TextIO) -> int:
    jobs = [job for job in await backend.cron_jobs() if opts.all or job.enabled]
    if opts.json:
        _print_json(out, {"jobs": [job.public() for job in jobs]})
    elif not jobs:
        out.write("no cron jobs\n" if opts.all else "no enabled cron jobs (--all: the disabled ones too)\n")
    else:
        _lines(backend, out, [job_line(job) for job in jobs])
    return EXIT_OK


async def change(backend: Backend, opts: argparse.Namespace, out: TextIO) -> int:
    """`add`, `edit`, `rm`, `enable`, `disable`: one line saying what was done, or the job as JSON."""
    action = opts.cron_command
    if action == "add":
        job = await backend.add_cron_job(job_fields(opts, backend.now(), editing=False))
        said_line = f"added {job_line(job)}"
    elif action == "edit":
        patch = job_fields(opts, backend.now(), editing=True)
        if not patch:
            raise UsageError("edit: give what to change (e.g. --message, --every, --name)")
        job = await backend.edit_cron_job(opts.job, patch)
        said_line = f"edited {job_line(job)}"
    elif action == "rm":
        job = await backend.remove_cron_job(opts.job)
        said_line = f"removed {job.id} ({job.name})"
    else:
        job = await backend.enable_cron_job(opts.job, action == "enable")
        said_line = f"{action}d {job_line(job)}"
    if opts.json:
        _print_json(out, job.public())
    else:
        _lines(backend, out, [said_line])
    return EXIT_OK


async def run_now(backend: Backend, opts: argparse.Namespace, out: TextIO) -> int:
    await backend.start()  # a run here is a run like any: the agents' tools attached
    run = await backend.run_cron_job(opts.job)
    if opts.json:
        _print_json(out, run.model_dump(mode="json", by_alias=True))
    else:
        _lines(backend, out, [f"ran {run.job_id}: {run_line(run)}"])
    return EXIT_OK if run.status == "ok" else EXIT_REFUSED


async def runs(backend: Backend, opts: argparse.Namespace, out: TextIO) -> int:
    if opts.limit < 1:
        raise UsageError("--limit: at least 1")
    found = await backend.cron_runs(opts.job, opts.limit)
    if opts.json:
        _print_json(out, {"runs": [run.model_dump(mode="json", by_alias=True) for run in found]})
    elif not found:
        out.write(f"{visible_line(opts.job)}: no runs yet\n")
    else:
        _lines(backend, out, [run_line(run) for run in found])
    return EXIT_OK


ACTIONS: dict[str, Action] = {
    "list": list_jobs,
    "run": run_now,
    "runs": runs,
    **dict.fromkeys(("add", "edit", "rm", "enable", "disable"), change),
}
"""Each sub-command of `cron` to what runs it."""


async def _run(opts: argparse.Namespace) -> int:
    from sessions_tui.backend.values.vocabulary import ToolInputError

    backend = face_backend(opts)
    try:
        try:
            require(backend, Capability.CRON)
        except UsageError as exc:  # the backend's line for what it cannot do: a refusal
            return refused(said(exc))
        said_before = len(backend.config_warnings)
        try:
            return await ACTIONS[opts.cron_command](backend, opts, sys.stdout)
        except (BackendUnavailable, OperationRefused) as exc:
            return refused(backend.redact(str(exc)))
        except ToolInputError as exc:
            raise UsageError(backend.redact(str(exc))) from exc
        finally:  # what taking up the config's jobs found wrong with one
            for warning in backend.config_warnings[said_before:]:
                print(f"warning: {visible_line(backend.redact(warning))}", file=sys.stderr)
    finally:
        await backend.aclose()


def run(opts: argparse.Namespace) -> int:
    return asyncio.run(_run(opts))
