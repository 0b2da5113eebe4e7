"""The `session` section: how session keys are formed and who may send into which session.

These settings shape every session key the tools see (`mainKey`, `scope`) and the send policy
that `sessions_send` checks (docs/decisions.md D6).
"""

from typing import Literal

from pydantic import AliasChoices, Field, field_validator

from sessions_tui.engine.config.model.base import ConfigModel, FlooredInt
from sessions_tui.engine.sessions.keys import DEFAULT_MAIN_KEY

__all__ = [
    "SendPolicyConfig",
    "SendPolicyMatch",
    "SendPolicyRule",
    "SessionAgentToAgentConfig",
    "SessionConfig",
]


class SendPolicyMatch(ConfigModel):
    """`session.sendPolicy.rules[].match`; `surface` (the seeds' name) is an alias of `channel`."""

    channel: str | None = Field(
        default=None,
        validation_alias=AliasChoices("channel", "surface"),
        description="The session's channel must be this one (lower-cased); default: any channel.",
    )
    chat_type: str | None = Field(
        default=None,
        alias="chatType",
        description='The session\'s chat type must be this one ("dm" reads as "direct"); default: any.',
    )
    key_prefix: str | None = Field(
        default=None,
        alias="keyPrefix",
        description="The session key, with or without its `agent:<id>:` prefix, starts with this; default: any.",
    )
    raw_key_prefix: str | None = Field(
        default=None,
        alias="rawKeyPrefix",
        description="The whole session key (lower-cased) starts with this; default: any.",
    )

    @field_validator("channel", "chat_type")
    @classmethod
    def _lower_trim(cls, value: str | None) -> str | None:
        if value is None:
            return None
        text = value.strip().lower()
        return "direct" if text == "dm" else text

    @field_validator("key_prefix", "raw_key_prefix")
    @classmethod
    def _lower(cls, value: str | None) -> str | None:
        return value.lower() if value is not None else None


class SendPolicyRule(ConfigModel):
    """One rule of `session.sendPolicy.rules`: the first matching deny rule refuses the send."""

    action: Literal["allow", "deny"] = Field(
        default="allow", description='"allow" or "deny" a send into a matching session; default "allow".'
    )
    match: SendPolicyMatch = Field(
        default_factory=SendPolicyMatch,
        description="Which sessions the rule is for (every condition given must hold); default: all.",
    )


class SendPolicyConfig(ConfigModel):
    """`session.sendPolicy`: a session's own override wins, then the rules, then `default`."""

    default: Literal["allow", "deny"] | None = Field(
        default=None, description='What happens when no rule matches: "allow" or "deny"; default: allow.'
    )
    rules: list[SendPolicyRule] = Field(
        default_factory=list, description="Rules, in order; a matching deny rule refuses the send. Default []."
    )


class SessionAgentToAgentConfig(ConfigModel):
    """`session.agentToAgent`: the back-and-forth after one agent sends to another."""

    max_ping_pong_turns: FlooredInt = Field(
        default=5,
        alias="maxPingPongTurns",
        description="How many reply turns two agents may trade after a send, 0–5; default 5.",
    )
    max_chain_hops: FlooredInt = Field(
        default=6,
        alias="maxChainHops",
        description="How many sends a message may pass through, agent to agent, before the next is refused, "
        "0–100 (0: no limit); default 6.",
    )


class SessionConfig(ConfigModel):
    """`session`: session keys and the send policy."""

    scope: Literal["per-sender", "global"] = Field(
        default="per-sender",
        description='"per-sender" (a main session per agent) or "global" (one shared session, shown as the '
        'main key); default "per-sender".',
    )
    main_key: str = Field(
        default=DEFAULT_MAIN_KEY,
        alias="mainKey",
        description='The main session\'s key (trimmed, lower-cased; empty means "main"); default "main".',
    )
    dm_scope: Literal["main", "per-peer", "per-channel-peer", "per-account-channel-peer"] = Field(
        default="main",
        alias="dmScope",
        description='How direct chats map to sessions in OpenClaw (read and checked, not used here); default "main".',
    )
    send_policy: SendPolicyConfig | None = Field(
        default=None,
        alias="sendPolicy",
        description="Which sessions may be sent into; default: none, every send is allowed.",
    )
    agent_to_agent: SessionAgentToAgentConfig = Field(
        default_factory=SessionAgentToAgentConfig,
        alias="agentToAgent",
        description="Limits of agent-to-agent exchanges; default: up to 5 ping-pong turns, chains of up to 6 sends.",
    )

    @field_validator("main_key")
    @classmethod
    def _normalize_main_key(cls, value: str) -> str:
        return value.strip().lower() or DEFAULT_MAIN_KEY
