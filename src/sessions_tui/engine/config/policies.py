"""What the config alone decides about sessions: how a key is spelled, which sessions are
sandboxed, what a requester may see. No store, no runs: a remote face computes the same answers
from the server's public config as the engine does from its own.
"""

from __future__ import annotations

from sessions_tui.engine.config.document import Config
from sessions_tui.engine.redaction.redact import Redactor
from sessions_tui.engine.sessions.keys import (
    DEFAULT_AGENT_ID,
    MainAlias,
    agent_id_of,
    canonical_key,
    display_key,
    parse_agent_session_key,
)
from sessions_tui.engine.sessions.policy import AgentToAgentPolicy


class ConfigPolicies:
    """The config's key spellings and access policies (the `Engine` is one, with state besides)."""

    def __init__(self, config: Config, redactor: Redactor | None = None) -> None:
        self.config = config
        session = config.session
        self.alias = MainAlias.of(session.main_key, session.scope)
        logging = config.logging
        self.redactor = redactor or Redactor(mode=logging.redact_sensitive, patterns=logging.redact_patterns)

    # -- keys ---------------------------------------------------------------------------------

    def canonical(self, key: str, agent_id: str = DEFAULT_AGENT_ID) -> str:
        return canonical_key(key, self.alias, agent_id)

    def display(self, key: str, requester_agent_id: str = DEFAULT_AGENT_ID) -> str:
        return display_key(key, self.alias, requester_agent_id)

    def shown_key(self, key: str, requester_agent_id: str = DEFAULT_AGENT_ID) -> str:
        """A key as a person or a client reads it: spelled for the requester (`display`) and
        redacted. A key is user data (a channel id, a label a token was pasted into): every face
        shows one through this, never as stored. The stored key stays the reference."""
        return self.redactor.redact(self.display(key, requester_agent_id))

    def main_session_key(self, agent_id: str = DEFAULT_AGENT_ID) -> str:
        return self.alias.main_session_key(agent_id)

    # -- policies -----------------------------------------------------------------------------

    def a2a_policy(self) -> AgentToAgentPolicy:
        a2a = self.config.tools.agent_to_agent
        return AgentToAgentPolicy(enabled=a2a.enabled is True, allow=tuple(a2a.allow or ()))

    def visibility(self, sandboxed: bool) -> str:
        """OpenClaw's effective visibility: a sandbox clamp of `spawned` turns anything but `tree` to `tree`."""
        value = self.config.tools.sessions.visibility
        if sandboxed and self.sandbox_visibility() == "spawned" and value != "tree":
            return "tree"
        return value

    def sandbox_visibility(self) -> str:
        return self.config.agents.defaults.sandbox.session_tools_visibility

    def is_sandboxed(self, key: str) -> bool:
        """Whether a session's agent runs it sandboxed (`sandbox.mode`: off, non-main, all)."""
        mode = self.config.sandbox_mode(agent_id_of(key))
        if mode == "all":
            return True
        if mode == "non-main":
            parsed = parse_agent_session_key(key)
            is_main = key == "global" or bool(parsed and parsed.rest == self.alias.main_key)
            return not is_main
        return False
