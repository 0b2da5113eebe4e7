"""Redaction and sanitising for output: every rule, streamed redaction, the history's sanitising
(docs/decisions.md D16)."""
