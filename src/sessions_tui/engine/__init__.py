"""The session engine: store, keys, sanitising, runs. Never imports Textual."""
