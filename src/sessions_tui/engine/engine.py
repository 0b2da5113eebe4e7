"""The embedded engine: one state directory's store with its config, as the tools see it.

This plays the part of OpenClaw's gateway, in process: it owns the state and answers the
questions the tools ask (which sessions, which messages, which agents). It does not know who
calls it; the tools apply the requester's point of view.
"""

from __future__ import annotations

from pathlib import Path

from sessions_tui.config import Config, LoadedConfig, load_config
from sessions_tui.engine.clock import Clock
from sessions_tui.engine.keys import (
    DEFAULT_AGENT_ID,
    MainAlias,
    agent_id_of,
    canonical_key,
    display_key,
    parse_agent_session_key,
)
from sessions_tui.engine.policy import AgentToAgentPolicy
from sessions_tui.engine.redact import Redactor
from sessions_tui.engine.store import Store

VISIBILITIES = ("self", "tree", "agent", "all")


class Engine:
    """State, config and the derived policies of one state directory."""

    def __init__(
        self,
        state_dir: Path | str,
        config: Config | None = None,
        *,
        clock: Clock | None = None,
        config_path: Path | None = None,
    ) -> None:
        self.state_dir = Path(state_dir).expanduser()
        self.config = config or Config()
        self.config_path = config_path
        self.clock = clock or Clock()
        self.store = Store(self.state_dir, self.clock)
        session = self.config.session
        self.alias = MainAlias.of(session.main_key, session.scope)
        self.redactor = Redactor(
            mode=self.config.logging.redact_sensitive,
            patterns=self.config.logging.redact_patterns,
        )

    @classmethod
    def open(
        cls, state_dir: Path | str, config_path: Path, *, clock: Clock | None = None
    ) -> tuple["Engine", LoadedConfig]:
        """Load the config (raising `ConfigError`) and open the store."""
        loaded = load_config(config_path)
        return cls(state_dir, loaded.config, clock=clock, config_path=config_path), loaded

    def close(self) -> None:
        self.store.close()

    def now(self) -> int:
        return self.clock.now_ms()

    # -- keys ---------------------------------------------------------------------------------

    def canonical(self, key: str, agent_id: str = DEFAULT_AGENT_ID) -> str:
        return canonical_key(key, self.alias, agent_id)

    def display(self, key: str, requester_agent_id: str = DEFAULT_AGENT_ID) -> str:
        return display_key(key, self.alias, requester_agent_id)

    def main_session_key(self, agent_id: str = DEFAULT_AGENT_ID) -> str:
        return self.alias.main_session_key(agent_id)

    # -- policies -----------------------------------------------------------------------------

    def a2a_policy(self) -> AgentToAgentPolicy:
        a2a = self.config.tools.agent_to_agent
        return AgentToAgentPolicy(enabled=a2a.enabled is True, allow=tuple(a2a.allow or ()))

    def visibility(self, sandboxed: bool) -> str:
        """REF's effective visibility: a sandbox clamp of `spawned` turns anything but `tree` to `tree`."""
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
