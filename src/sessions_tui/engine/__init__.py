"""The session engine, a package per concept (docs/architecture.md): sessions, runs, messaging,
sub-agents, redaction, search, the store, model clients, config. Never imports Textual."""
