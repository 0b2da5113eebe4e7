"""Inbound hooks: work handed to the engine from outside (OpenClaw's `POST /hooks/agent` and `/hooks/wake`)."""
