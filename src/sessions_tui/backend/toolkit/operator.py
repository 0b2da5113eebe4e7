"""How every face names the person acting through it (at the dashboard, `send`, `tool`, HTTP): the operator.

The ledger stores such a send with `via: "owner"` and, when no session was named as its requester,
none: both are shown as the operator's, in the same word everywhere. The stored and wire values stay
as they are (`sends --json` prints `via` as stored).
"""

from __future__ import annotations

OPERATOR = "operator"
"""The person, as the faces name them."""


def via_shown(via: str) -> str:
    """How a send was made, as the faces say it: `operator` (a person's send) or `agent` (a model's tool call)."""
    return OPERATOR if via == "owner" else via
