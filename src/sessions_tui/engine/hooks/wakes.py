"""Wakes from outside (`POST /hooks/wake`): system events queued for a session, and the run that takes them.

As OpenClaw's: the text joins the session's queue of system events (the agent's main session, or
one the wake names when the hook policy lets it), unless it is the same as the newest one pending
(`coalesced`); `now` asks for a run at once. OpenClaw's run is its next heartbeat; sessions-tui has
no heartbeat, so a `now` wake starts a run in that session with every event pending, one
`System: <text>` line each (trusted text, not wrapped: a wake is a notification its sender
controls), and a `next-heartbeat` one waits for the next `now`. The queue is this process's own,
as OpenClaw's is in memory.
"""

from __future__ import annotations

from sessions_tui.engine.events import HookReceived
from sessions_tui.engine.hooks.hook_runs import HookConflict, HooksHost
from sessions_tui.engine.hooks.policy import hook_agent, logical_key
from sessions_tui.engine.hooks.values import HookWake, WakeOutcome
from sessions_tui.engine.runs.runs import RunRequest
from sessions_tui.engine.sessions.keys import canonical_key, parse_agent_session_key

WAKE_NAME = "Wake"


class Wakes:
    """The pending system events of each session, per process."""

    def __init__(self, engine: HooksHost) -> None:
        self.engine = engine
        self._pending: dict[str, list[str]] = {}

    def target(self, wake: HookWake) -> str:
        """The session a wake is for (`HookRefused` with the gateway's words): the one it names,
        checked as a hook's key is, else its agent's main session."""
        hooks = self.engine.config.hooks
        agent = hook_agent(wake.agent_id, self.engine.config.agent_ids(), hooks.allowed_agent_ids)
        if not wake.session_key:
            return self.engine.alias.main_session_key(agent)
        key = logical_key(hooks, wake.session_key)
        parsed = parse_agent_session_key(key)
        return canonical_key(f"agent:{agent}:{parsed.rest if parsed else key.strip()}", self.engine.alias, agent)

    def wake(self, wake: HookWake) -> tuple[WakeOutcome, RunRequest | None]:
        """Queue the wake's text (any thread); with `now`, the run that takes every pending event."""
        key = self.target(wake)
        if self.engine.owner_of(key) is not None:
            raise HookConflict("hook agent run was rejected because the target session changed")
        pending = self._pending.setdefault(key, [])
        text = wake.text.strip()
        outcome: WakeOutcome = "coalesced" if pending and pending[-1] == text else "queued"
        if outcome == "queued":
            pending.append(text)
        self.engine.events.publish(HookReceived(ts=self.engine.now(), session_key=key, name=WAKE_NAME, kind="wake"))
        if wake.mode != "now":
            return outcome, None
        events = self._pending.pop(key, [])
        message = "\n".join(f"System: {line}" for line in events)
        request = RunRequest(
            session_key=key, message=message, provenance={"kind": "hook_wake"}, lane="hook", label=WAKE_NAME
        )
        return outcome, request
