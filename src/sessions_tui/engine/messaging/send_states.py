"""The states of a send's life, as the send ledger records them (ledger.py says when each is marked):
accepted → started → replied | timeout | error | forbidden → late_reply → pingpong per turn →
announce | announce_skipped → delivered | delivery_failed; `aborted` whenever the operator stopped it.

Apart from the ledger so that what only names them (the command line's `sends --state` choices) does
not load the ledger, and the engine with it.
"""

from __future__ import annotations

from typing import Literal

SendState = Literal[
    "accepted",
    "started",
    "replied",
    "timeout",
    "error",
    "aborted",
    "forbidden",
    "late_reply",
    "pingpong",
    "announce",
    "announce_skipped",
    "delivered",
    "delivery_failed",
]
SEND_STATES: tuple[str, ...] = SendState.__args__  # type: ignore[attr-defined]
