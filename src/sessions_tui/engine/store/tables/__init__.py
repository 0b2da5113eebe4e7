"""One repository per table family (sessions, transcripts, runs, the ledger, the outbox…), composed into the store."""
