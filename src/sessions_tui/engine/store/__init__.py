"""The state directory's SQLite store: session index, transcripts, runs, sub-agent registry, outbox, audit,
send ledger.

`Store` is one object over one connection (`connection.Database`: its transactions, its paths, its
damage), composed of one repository per table family, each holding that connection and named for
what it holds: `store.sessions` (the session index: rows, entries), `store.transcripts` (each
session's lines and their mirror files), `store.text_index` (the transcripts' search index),
`store.imports` (OpenClaw imports, adopted or not), `store.follows` (the OpenClaws followed),
`store.browse` (pages of sessions by filter), `store.runs`, `store.run_controls`, `store.registry`
(sub-agents), `store.outbox`, `store.audit`, `store.ledger`, `store.cron` (the scheduled jobs and their runs),
`store.usage` (model turns' tokens and cost by the hour).
Their queries live in `tables/` and `browsing/`. The schema and its migration are in `schema`. No module outside
this package writes SQL for these tables.
"""
