"""sessions-tui: a terminal dashboard on an embedded OpenClaw-compatible session engine."""

__version__ = "0.1.0"
