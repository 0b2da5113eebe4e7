"""The HTTP face: `sessions-tui serve` answers OpenClaw's `POST /tools/invoke` on the engine of a
state directory, and streams the engine's events to remote dashboards.

A face like the dashboard and the command line: it reaches the engine only through a `Backend`.
Starlette and uvicorn load only when `serve` runs.
"""
