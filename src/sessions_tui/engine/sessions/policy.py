"""Who may talk to whom: OpenClaw's agent-to-agent policy (`tools.agentToAgent`) and
send policy (`session.sendPolicy`, docs/decisions.md D6)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from sessions_tui.engine.sessions.entry import SessionEntry
from sessions_tui.engine.sessions.keys import channel_from_key, strip_agent_prefix

SendDecision = Literal["allow", "deny"]


class AgentToAgentPolicy(NamedTuple):
    """`tools.agentToAgent`: off by default; an empty allow list means everyone."""

    enabled: bool = False
    allow: tuple[str, ...] = ()

    def matches_allow(self, agent_id: str) -> bool:
        if not self.allow:
            return True
        for raw in self.allow:
            pattern = str(raw).strip()
            if not pattern:
                continue
            if pattern == "*":
                return True
            if "*" not in pattern:
                if pattern == agent_id:
                    return True
                continue
            regex = "^" + ".*".join(re.escape(p) for p in pattern.split("*")) + "$"
            if re.match(regex, agent_id, re.IGNORECASE):
                return True
        return False

    def is_allowed(self, requester_agent_id: str, target_agent_id: str) -> bool:
        if requester_agent_id == target_agent_id:
            return True
        if not self.enabled:
            return False
        return self.matches_allow(requester_agent_id) and self.matches_allow(target_agent_id)


_GROUP_KEY_RES = (
    (re.compile(r"^group:[^:]+$"), "group"),
    (re.compile(r"^[0-9]+(?:-[0-9]+)*@g\.us$"), "group"),
    (re.compile(r"^whatsapp:(?!.*:group:).+@g\.us$"), "group"),
    (re.compile(r"^discord:(?:[^:]+:)?guild-[^:]+:channel-[^:]+$"), "channel"),
)


def normalize_chat_type(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    if text in ("direct", "dm"):
        return "direct"
    if text in ("group", "channel"):
        return text
    return None


def chat_type_from_key(key: str) -> str | None:
    """OpenClaw's chat-type derivation from a key's tokens (agent prefix stripped)."""
    stripped = strip_agent_prefix(key)
    tokens = set(stripped.split(":"))
    if "group" in tokens:
        return "group"
    if "channel" in tokens:
        return "channel"
    if "direct" in tokens or "dm" in tokens:
        return "direct"
    for regex, kind in _GROUP_KEY_RES:
        if regex.match(stripped):
            return kind
    return None


@dataclass(frozen=True)
class SendPolicyVerdict:
    """The decision and, for a denial, which rule or override made it (docs/decisions.md D6);
    `why` says what decided either way (for `explain`), and takes no part in comparing verdicts."""

    decision: SendDecision
    reason: str = ""
    why: str = field(default="", compare=False)

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"


def _first_str(*values: object) -> str | None:
    for value in values:
        if isinstance(value, str) and value.strip():
            return value.strip().lower()
    return None


def _describe_match(match: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in match.items() if isinstance(v, str) and v)


def resolve_send_policy(
    policy: Any,
    *,
    entry: SessionEntry | None = None,
    session_key: str | None = None,
    channel: str | None = None,
    chat_type: str | None = None,
) -> SendPolicyVerdict:
    """OpenClaw's `resolveSendPolicy`: the override wins, then the first matching deny rule.

    `policy` is the config's `session.sendPolicy` model (or None); its rules carry `action` and
    a `match` with `channel`, `chat_type`, `key_prefix`, `raw_key_prefix`.
    """
    entry = entry or {}
    override = entry.get("sendPolicy")
    if isinstance(override, str) and override.strip().lower() in ("allow", "deny"):
        decision = override.strip().lower()
        how = "/send on" if decision == "allow" else "/send off"
        return SendPolicyVerdict(
            decision,  # type: ignore[arg-type]
            f"session override ({decision})",
            f"the session's override ({how}): {decision}",
        )
    if policy is None:
        return SendPolicyVerdict("allow", why="no session.sendPolicy: allow")
    key = session_key or ""
    facts_channel = _first_str(channel, entry.get("channel"), entry.get("lastChannel"))
    if facts_channel is None and key:
        facts_channel = channel_from_key(key)
    facts_chat = normalize_chat_type(chat_type) or normalize_chat_type(entry.get("chatType"))
    if facts_chat is None and key:
        facts_chat = chat_type_from_key(key)
    raw_key = key.lower()
    stripped = strip_agent_prefix(key) if key else ""
    allow_matched = ""
    for index, rule in enumerate(_rules_of(policy), start=1):
        match = rule.get("match") or {}
        m_channel = _first_str(match.get("channel"))
        m_chat = normalize_chat_type(match.get("chatType"))
        m_raw = _first_str(match.get("rawKeyPrefix"))
        m_key = _first_str(match.get("keyPrefix"))
        if m_channel and m_channel != facts_channel:
            continue
        if match.get("chatType") and m_chat != facts_chat:
            continue
        if m_raw and not raw_key.startswith(m_raw):
            continue
        if m_key and not (raw_key.startswith(m_key) or stripped.startswith(m_key)):
            continue
        detail = _describe_match(match)
        named = f"rule {index}" + (f" ({detail})" if detail else "")
        if rule.get("action") == "deny":
            return SendPolicyVerdict("deny", named, f"send policy {named}: deny")
        allow_matched = allow_matched or named
    if allow_matched:
        return SendPolicyVerdict("allow", why=f"send policy {allow_matched}: allow")
    default = _policy_default(policy)
    if default == "deny":
        return SendPolicyVerdict("deny", "default deny", "send policy: no rule matched, default deny")
    return SendPolicyVerdict("allow", why="send policy: no rule matched, default allow")


def _rules_of(policy: Any) -> Sequence[dict[str, Any]]:
    """Rules as plain dicts with OpenClaw's key names, from a model or a dict."""
    if isinstance(policy, dict):
        rules = policy.get("rules") or []
    else:
        rules = getattr(policy, "rules", None) or []
    out = []
    for rule in rules:
        if hasattr(rule, "model_dump"):
            rule = rule.model_dump(by_alias=True, exclude_none=True)
        if isinstance(rule, dict):
            match = rule.get("match") or {}
            if hasattr(match, "model_dump"):
                match = match.model_dump(by_alias=True, exclude_none=True)
            if "surface" in match and "channel" not in match:
                match = {**match, "channel": match["surface"]}
            action = str(rule.get("action", "allow")).strip().lower()
            out.append({"action": "deny" if action == "deny" else "allow", "match": match})
    return out


def _policy_default(policy: Any) -> str | None:
    value = policy.get("default") if isinstance(policy, dict) else getattr(policy, "default", None)
    return value.strip().lower() if isinstance(value, str) else None
