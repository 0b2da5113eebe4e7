"""Cron jobs: OpenClaw's scheduled agent turns, run by the engine itself. One concept per module:

* `expression` — a five-field cron expression and the wall times it names;
* `schedules` — `at`, `every` and `cron` schedules (a zone, daylight saving time, the stagger) and their next run;
* `jobs` — the job as OpenClaw stores one (`CronJob`), and the session its runs go into;
* `declared` — the jobs the config file declares (`cron.jobs`), brought into the store;
* `catalog` — the jobs as the operator manages them (add, edit, remove, enable, disable, runs);
* `scheduler` — due runs claimed exactly once across processes, missed runs caught up, runs started;
* `runner` — one run carried out and recorded; `delivery` — its reply announced or POSTed to a webhook.

The tables are the store's (`store/tables/cron.py`).
"""
