"""The loop guard (docs/decisions.md D19): a message passed from agent to agent stops at a limit.

Each run a `sessions_send` starts carries its chain: the sessions the message passed through,
canonical keys, oldest first, the run's own session last. A send made inside that run extends it
by its target. Agents that answer every message by sending it on (A → B → C → A …) would keep
each other busy forever; the guard refuses the send that would make the chain longer than
`session.agentToAgent.maxChainHops` (hops are the chain's edges; 0 = no limit), or that would
return to a session the chain already passed through twice (a cycle then stops even with no limit).
A refused send starts no run; it is recorded in the audit log as the send policy's refusals are,
and in the send ledger as `forbidden` with the chain it would have made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol

from sessions_tui.engine.hosts import EngineFloor
from sessions_tui.engine.messaging.audit import record_refusal
from sessions_tui.engine.messaging.ledger import SendLedger
from sessions_tui.engine.sessions.ids import new_uuid

CONFIG_KEY = "session.agentToAgent.maxChainHops"
MAX_VISITS = 2  # a chain passes through one session at most this often
ARROW = " → "

Broken = Literal["hops", "return"]


class ChainGuardHost(EngineFloor, Protocol):
    """What the guard needs of the engine, besides its floor: display keys and the send ledger."""

    @property
    def ledger(self) -> SendLedger: ...

    def display(self, key: str, requester_agent_id: str) -> str: ...


def next_chain(caller_chain: Sequence[str], requester: str | None, target: str) -> list[str]:
    """The chain of a send into `target`: the caller's run's chain, or the requester alone when it
    is in no run (nothing for the owner without a requester key), then the target."""
    base = list(caller_chain) if caller_chain else ([requester] if requester else [])
    return [*base, target]


def hops(chain: Sequence[str]) -> int:
    """The sends a chain is made of (its edges)."""
    return max(0, len(chain) - 1)


def broken_rule(chain: Sequence[str], max_hops: int) -> Broken | None:
    """Which rule a would-be chain breaks, if any: too many hops (`max_hops` > 0), or a return to
    a session it already passed through `MAX_VISITS` times."""
    if max_hops > 0 and hops(chain) > max_hops:
        return "hops"
    if chain and list(chain[:-1]).count(chain[-1]) >= MAX_VISITS:
        return "return"
    return None


def chain_error(shown: Sequence[str], max_hops: int) -> str:
    """The refusal's text, with the would-be chain as the requester sees its keys."""
    return f"agent-to-agent chain limit reached: {ARROW.join(shown)} ({CONFIG_KEY}={max_hops})"


def guard_send(
    engine: ChainGuardHost,
    chain: Sequence[str],
    *,
    requester: str | None,
    requester_agent_id: str,
    target_display: str,
    message: str,
    via: str,
) -> dict[str, Any] | None:
    """None when the send may go on; else its refusal (the tool's answer), recorded in the audit
    log and as a `forbidden` entry of the send ledger, with the would-be chain."""
    max_hops = engine.config.session.agent_to_agent.max_chain_hops
    rule = broken_rule(chain, max_hops)
    if rule is None:
        return None
    run_id = new_uuid()
    target = chain[-1]
    shown = [engine.display(key, requester_agent_id) for key in chain]
    error = chain_error(shown, max_hops)
    record_refusal(
        engine,
        target,
        via="sessions_send",
        reason=error,
        requester=requester,
        data={"chain": list(chain), "rule": rule},
    )
    engine.ledger.open(
        run_id=run_id,
        requester=requester,
        target=target,
        message=message,
        via=via,
        chain=list(chain),
        state="forbidden",
        detail={"error": error, "chain": list(chain)},
    )
    return {"runId": run_id, "status": "forbidden", "error": error, "sessionKey": target_display}
