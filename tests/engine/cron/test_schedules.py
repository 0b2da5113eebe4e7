"""Schedules: the cron expression's syntax, the next run of `cron` (zones, daylight saving time, the
stagger), `every` and `at`, and durations. The expected instants were answered by OpenClaw's own
scheduler code (`computeNextRunAtMs`, `computeJobNextRunAtMs` of openclaw 2026.9.6, run under node),
for the same schedules at the same moments."""

from __future__ import annotations

import re

import pytest

from sessions_tui.engine.cron.expression import CronSyntaxError, parse_cron
from sessions_tui.engine.cron.schedules import (
    AtSchedule,
    CronSchedule,
    EverySchedule,
    ScheduleError,
    at_from_text,
    describe,
    duration_text,
    iso_utc,
    next_cron_ms,
    next_run_ms,
    parse_at_ms,
    parse_duration_ms,
)

NY = "America/New_York"

# (expression, zone, now, OpenClaw's next run)
OPENCLAW_CRON = [
    # spring forward in New York (2026-03-08, 02:00 EST -> 03:00 EDT): a wall time that does not exist is not run
    ("30 2 * * *", NY, "2026-03-08T05:00:00Z", "2026-03-09T06:30:00.000Z"),
    ("30 2 * * *", NY, "2026-03-08T06:59:00Z", "2026-03-09T06:30:00.000Z"),
    ("30 2 * * *", NY, "2026-03-08T07:31:00Z", "2026-03-09T06:30:00.000Z"),
    ("0 2 * * *", NY, "2026-03-08T05:00:00Z", "2026-03-09T06:00:00.000Z"),
    ("*/30 * * * *", NY, "2026-03-08T06:45:00Z", "2026-03-08T07:00:00.000Z"),
    # fall back (2026-11-01, 02:00 EDT -> 01:00 EST): a wall time that happens twice runs once, the first time
    ("30 1 * * *", NY, "2026-11-01T04:00:00Z", "2026-11-01T05:30:00.000Z"),
    ("30 1 * * *", NY, "2026-11-01T05:31:00Z", "2026-11-02T06:30:00.000Z"),
    ("30 1 * * *", NY, "2026-11-01T06:29:00Z", "2026-11-02T06:30:00.000Z"),
    ("30 1 * * *", NY, "2026-11-01T06:31:00Z", "2026-11-02T06:30:00.000Z"),
    ("0 * * * *", NY, "2026-11-01T05:30:00Z", "2026-11-01T07:00:00.000Z"),
    ("0 * * * *", NY, "2026-11-01T06:00:00Z", "2026-11-01T07:00:00.000Z"),
    ("*/15 1 * * *", NY, "2026-11-01T05:50:00Z", "2026-11-02T06:00:00.000Z"),
    # Europe's spring forward (2026-03-29, 02:00 CET -> 03:00 CEST)
    ("0 7 * * *", "Europe/Berlin", "2026-03-29T00:00:00Z", "2026-03-29T05:00:00.000Z"),
    ("30 2 * * *", "Europe/Berlin", "2026-03-28T23:00:00Z", "2026-03-30T00:30:00.000Z"),
    # day of month OR day of week when both are restricted (`*/2` restricts)
    ("0 9 15 * 1", "UTC", "2026-06-01T00:00:00Z", "2026-06-01T09:00:00.000Z"),
    ("0 9 */2 * 1", "UTC", "2026-06-01T10:00:00Z", "2026-06-03T09:00:00.000Z"),
    ("0 9 * * 7", "UTC", "2026-06-01T10:00:00Z", "2026-06-07T09:00:00.000Z"),
    ("@daily", "UTC", "2026-06-01T10:06:00Z", "2026-06-02T00:00:00.000Z"),
    ("0 0 31 2 *", "UTC", "2026-06-01T10:06:00Z", None),
    ("0 12 * JAN,feb MON-FRI", "UTC", "2026-06-01T10:06:00Z", "2027-01-01T12:00:00.000Z"),
    ("0 12 * * 5-7", "UTC", "2026-06-01T10:06:00Z", "2026-06-05T12:00:00.000Z"),
    ("1-10/3 * * * *", "UTC", "2026-06-01T10:06:00Z", "2026-06-01T10:07:00.000Z"),
    ("0 0 29 2 *", "UTC", "2026-06-01T10:06:00Z", "2028-02-29T00:00:00.000Z"),
]


@pytest.mark.parametrize(("expr", "tz", "now", "expected"), OPENCLAW_CRON)
def test_next_cron_run_is_openclaws(expr, tz, now, expected):
    found = next_cron_ms(expr, tz, parse_at_ms(now))
    assert (iso_utc(found) if found is not None else None) == expected


NOW = parse_at_ms("2026-06-01T10:06:00Z")

# (job id, schedule, created at, last run, last ok, OpenClaw's next run)
OPENCLAW_JOBS = [
    ("job-a", CronSchedule(expr="0 * * * *", tz="UTC"), 0, None, False, "2026-06-01T11:04:12.637Z"),  # staggered
    ("morning", CronSchedule(expr="0 */2 * * *", tz="UTC"), 0, None, False, "2026-06-01T12:00:59.232Z"),
    ("x1", CronSchedule(expr="0 7 * * *", tz="UTC"), 0, None, False, "2026-06-02T07:00:00.000Z"),  # not top of hour
    ("x1", CronSchedule(expr="0 * * * *", tz="UTC", staggerMs=0), 0, None, False, "2026-06-01T11:00:00.000Z"),
    ("e1", EverySchedule(everyMs=30000), 1000, None, False, "2026-06-01T10:06:01.000Z"),
    ("e1", EverySchedule(everyMs=30000), 1000, 1780308350000, False, "2026-06-01T10:06:20.000Z"),
    ("a1", AtSchedule(at="2026-06-01T09:00:00Z"), 0, None, False, "2026-06-01T09:00:00.000Z"),  # past, never run
    ("a1", AtSchedule(at="2026-06-01T09:00:00Z"), 0, 1780304400000, True, None),  # ran ok
]


@pytest.mark.parametrize(("job_id", "schedule", "created", "last", "ok", "expected"), OPENCLAW_JOBS)
def test_next_run_of_a_job_is_openclaws(job_id, schedule, created, last, ok, expected):
    found = next_run_ms(schedule, job_id=job_id, now_ms=NOW, created_at_ms=created, last_run_at_ms=last, last_ok=ok)
    assert (iso_utc(found) if found is not None else None) == expected


def test_every_counts_from_the_last_run_or_the_anchor():
    every = EverySchedule(everyMs=2000, anchorMs=NOW + 500)
    assert next_run_ms(every, job_id="j", now_ms=NOW, created_at_ms=0) == NOW + 500  # before the anchor
    assert next_run_ms(every, job_id="j", now_ms=NOW + 501, created_at_ms=0) == NOW + 2500
    # the last run's start plus the interval, while that is still to come
    assert next_run_ms(every, job_id="j", now_ms=NOW + 3000, created_at_ms=0, last_run_at_ms=NOW + 2600) == NOW + 4600
    # a run that outlasted its interval: the anchor's grid from now
    assert next_run_ms(every, job_id="j", now_ms=NOW + 9000, created_at_ms=0, last_run_at_ms=NOW + 2600) == NOW + 10500


def test_at_is_due_until_it_has_run_ok():
    at = AtSchedule(at=iso_utc(NOW + 60_000))
    assert next_run_ms(at, job_id="j", now_ms=NOW, created_at_ms=0) == NOW + 60_000
    assert next_run_ms(at, job_id="j", now_ms=NOW + 90_000, created_at_ms=0) == NOW + 60_000  # missed: still due
    failed = next_run_ms(at, job_id="j", now_ms=NOW + 90_000, created_at_ms=0, last_run_at_ms=NOW + 60_000)
    assert failed == NOW + 60_000
    ran = next_run_ms(at, job_id="j", now_ms=NOW + 90_000, created_at_ms=0, last_run_at_ms=NOW + 60_000, last_ok=True)
    assert ran is None


def test_at_times_and_durations():
    assert parse_duration_ms("30s") == 30_000
    assert parse_duration_ms("1h30m") == 5_400_000
    assert parse_duration_ms("2d") == 172_800_000
    assert parse_duration_ms("250ms") == 250
    assert parse_duration_ms("1500") == 1500
    for bad in ("", "soon", "10 parsecs", "0s", "-5m"):
        with pytest.raises(ScheduleError):
            parse_duration_ms(bad)
    assert at_from_text("20m", NOW) == iso_utc(NOW + 1_200_000)
    assert at_from_text("2027-02-01T16:00:00Z", NOW) == "2027-02-01T16:00:00.000Z"
    assert at_from_text("2027-02-01T16:00:00", NOW) == "2027-02-01T16:00:00.000Z"  # no offset: UTC
    assert at_from_text("2027-02-01T16:00:00", NOW, "Europe/Vienna") == "2027-02-01T15:00:00.000Z"
    with pytest.raises(ScheduleError):
        at_from_text("tomorrow-ish", NOW)
    assert duration_text(30_000) == "30s" and duration_text(5_400_000) == "1h30m" and duration_text(1500) == "1500ms"


def test_descriptions():
    assert describe(CronSchedule(expr="0 7 * * *", tz="Europe/Vienna")) == "cron 0 7 * * * (Europe/Vienna)"
    assert describe(EverySchedule(everyMs=30_000)) == "every 30s"
    assert describe(AtSchedule(at="2027-02-01T16:00:00.000Z")) == "at 2027-02-01T16:00:00.000Z"


@pytest.mark.parametrize(
    ("expr", "said"),
    [
        ("* * * *", "five fields"),
        ("61 * * * *", "minute: 61 is out of range (0-59)"),
        ("5/20 * * * *", "a step needs * or a range"),
        ("* 5-2 * * *", "runs backwards"),
        ("* * * foo *", "month: not a number or name"),
        ("*/0 * * * *", "not a step"),
        ("1,,2 * * * *", "an empty list item"),
    ],
)
def test_bad_expressions_say_why(expr, said):
    with pytest.raises(CronSyntaxError, match=re.escape(said)):
        parse_cron(expr)


def test_a_bad_zone_is_refused():
    with pytest.raises(ScheduleError, match="not a time zone"):
        next_cron_ms("0 7 * * *", "Bad/Zone", NOW)


def test_top_of_hour_is_recognised_as_openclaw_does():
    assert parse_cron("0 * * * *").top_of_hour and parse_cron("0 */2 * * *").top_of_hour
    assert not parse_cron("0 7 * * *").top_of_hour and not parse_cron("5 * * * *").top_of_hour
