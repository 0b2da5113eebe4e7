"""The session key model: OpenClaw's key shapes and helpers, with docs/decisions.md D9–D10.

Every session is stored under one canonical key (`agent:<agentId>:<rest>`, or the reserved
`global` / `unknown`). Bare spellings such as `cron:job1` or `discord:group:dev` belong to agent
`main` and name the same session as their `agent:main:` spelling. What a requester sees (the
display key) depends on who asks: its own agent's main session is `main`, and agent main's cron,
hook and node sessions keep the bare shapes of the tools' design notes (`cron:<job>`, `hook:<uuid>`).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, NamedTuple

from sessions_tui.engine.sessions.entry import SessionEntry

DEFAULT_AGENT_ID = "main"
DEFAULT_MAIN_KEY = "main"
SESSION_KINDS = ("main", "group", "cron", "hook", "node", "other")
RESERVED_KEYS = ("global", "unknown")
SESSION_LABEL_MAX_LENGTH = 512

VALID_AGENT_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$", re.IGNORECASE)
_INVALID_AGENT_CHARS_RE = re.compile(r"[^a-z0-9_-]+")
SESSION_ID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)
SAFE_SESSION_ID_RE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,127}$", re.IGNORECASE)
_CRON_RUN_RE = re.compile(r"^cron:[^:]+:run:[^:]+$")
_BARE_PREFIXES = ("cron:", "hook:", "node-", "node:")


def normalize_main_key(value: object) -> str:
    """`session.mainKey` lower-cased and trimmed, `main` when empty."""
    text = js_trim(value).lower() if isinstance(value, str) else ""
    return text or DEFAULT_MAIN_KEY


def is_valid_agent_id(value: object) -> bool:
    return isinstance(value, str) and bool(VALID_AGENT_ID_RE.match(value.strip()))


def normalize_agent_id(value: object) -> str:
    """OpenClaw's agent id normalisation: lower-case, unsafe runs become `-`, at most 64 chars."""
    text = value.strip() if isinstance(value, str) else ""
    if not text:
        return DEFAULT_AGENT_ID
    if VALID_AGENT_ID_RE.match(text):
        return text.lower()
    cleaned = _INVALID_AGENT_CHARS_RE.sub("-", text.lower()).strip("-")[:64]
    return cleaned or DEFAULT_AGENT_ID


class ParsedAgentKey(NamedTuple):
    agent_id: str
    rest: str


def parse_agent_session_key(key: object) -> ParsedAgentKey | None:
    """Split `agent:<id>:<rest>`; None for any other shape."""
    return _parse_agent_key(key) if isinstance(key, str) else None


@lru_cache(maxsize=4096)
def _parse_agent_key(key: str) -> ParsedAgentKey | None:
    """Memoised: a session's key is parsed several times per write (its agent, kind, channel…)."""
    parts = [p for p in key.strip().lower().split(":") if p]
    if len(parts) < 3 or parts[0] != "agent":
        return None
    return ParsedAgentKey(parts[1], ":".join(parts[2:]))


def agent_id_of(key: object) -> str:
    """The agent a key belongs to; every non-`agent:` key belongs to agent `main`."""
    parsed = parse_agent_session_key(key)
    return normalize_agent_id(parsed.agent_id if parsed else DEFAULT_AGENT_ID)


def strip_agent_prefix(key: str) -> str:
    parsed = parse_agent_session_key(key)
    return parsed.rest if parsed else key.strip().lower()


def is_subagent_session_key(key: object) -> bool:
    if not isinstance(key, str):
        return False
    if key.strip().lower().startswith("subagent:"):
        return True
    parsed = parse_agent_session_key(key)
    return bool(parsed and parsed.rest.startswith("subagent:"))


def is_cron_session_key(key: object) -> bool:
    parsed = parse_agent_session_key(key)
    return bool(parsed and parsed.rest.startswith("cron:"))


def is_cron_run_session_key(key: object) -> bool:
    parsed = parse_agent_session_key(key)
    return bool(parsed and _CRON_RUN_RE.match(parsed.rest))


def is_acp_session_key(key: object) -> bool:
    if not isinstance(key, str):
        return False
    if key.strip().lower().startswith("acp:"):
        return True
    parsed = parse_agent_session_key(key)
    return bool(parsed and parsed.rest.startswith("acp:"))


def subagent_depth(key: object) -> int:
    return key.lower().count(":subagent:") if isinstance(key, str) else 0


def looks_like_session_id(value: object) -> bool:
    return isinstance(value, str) and bool(SESSION_ID_RE.match(value.strip()))


def looks_like_session_key(value: object) -> bool:
    if not isinstance(value, str):
        return False
    text = value.strip()
    if not text:
        return False
    if text in ("main", "global", "unknown", "current"):
        return True
    if is_acp_session_key(text):
        return True
    if text.startswith(("agent:", "cron:", "hook:", "node-", "node:")):
        return True
    return ":group:" in text or ":channel:" in text


def should_resolve_session_id_input(value: str) -> bool:
    return looks_like_session_id(value) or not looks_like_session_key(value)


def parse_session_label(raw: object) -> str:
    """A label as OpenClaw validates it; raises ValueError with OpenClaw's texts."""
    if not isinstance(raw, str):
        raise ValueError("invalid label: must be a string")
    text = js_trim(raw)
    if not text:
        raise ValueError("invalid label: empty")
    if js_length(text) > SESSION_LABEL_MAX_LENGTH:
        raise ValueError(f"invalid label: too long (max {SESSION_LABEL_MAX_LENGTH})")
    return text


# What JavaScript's `String.prototype.trim` removes (ECMAScript WhiteSpace and LineTerminator):
# unlike Python's `str.strip()`, U+FEFF but not the separators U+001C–U+001F nor U+0085.
JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """JavaScript's `text.trim()`: OpenClaw trims its inputs so, and a label's 512 counts after it."""
    return text.strip(JS_WHITESPACE)


def js_length(text: str) -> int:
    """JavaScript's `text.length`: UTF-16 code units, so a character beyond U+FFFF (an emoji) counts 2."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class MainAlias(NamedTuple):
    """`session.mainKey` / `session.scope` as the tools see them (OpenClaw's `resolveMainSessionAlias`)."""

    main_key: str = DEFAULT_MAIN_KEY
    alias: str = DEFAULT_MAIN_KEY
    scope: str = "per-sender"

    @classmethod
    def of(cls, main_key: object = None, scope: object = None) -> MainAlias:
        mk = normalize_main_key(main_key)
        sc = "global" if scope == "global" else "per-sender"
        return cls(main_key=mk, alias="global" if sc == "global" else mk, scope=sc)

    def main_session_key(self, agent_id: str = DEFAULT_AGENT_ID) -> str:
        """The canonical key of an agent's main session."""
        if self.scope == "global":
            return "global"
        return f"agent:{normalize_agent_id(agent_id)}:{self.main_key}"


def canonical_key(key: str, alias: MainAlias, agent_id: str = DEFAULT_AGENT_ID) -> str:
    """The stored spelling of a key (the gateway's `resolveSessionStoreKey` plus docs/decisions.md D9).

    `main` (or the configured main key) names `agent_id`'s main session; other bare keys belong
    to agent `main`.
    """
    text = key.strip().lower()
    if text in RESERVED_KEYS:
        return text
    if text in ("main", alias.main_key):
        return alias.main_session_key(agent_id)
    parsed = parse_agent_session_key(text)
    if parsed:
        aid = normalize_agent_id(parsed.agent_id)
        if parsed.rest in ("main", alias.main_key):
            return alias.main_session_key(aid)
        return f"agent:{aid}:{parsed.rest}"
    return f"agent:{DEFAULT_AGENT_ID}:{text}"


def display_key(key: str, alias: MainAlias, requester_agent_id: str = DEFAULT_AGENT_ID) -> str:
    """How a canonical key is shown to a requester of `requester_agent_id` (docs/decisions.md D9)."""
    if key in (alias.alias, alias.main_key):
        return "main"
    if key == "global":
        return key
    if key == alias.main_session_key(requester_agent_id):
        return "main"
    parsed = parse_agent_session_key(key)
    if parsed and parsed.agent_id == DEFAULT_AGENT_ID and parsed.rest.startswith(_BARE_PREFIXES):
        return parsed.rest
    return key


def internal_key(raw: str, alias: MainAlias, requester_internal_key: str | None = None) -> str:
    """OpenClaw's `resolveInternalSessionKey`: `current` is the requester, `main` the alias."""
    if raw == "current":
        return requester_internal_key or "current"
    if raw == "main":
        return alias.alias
    return raw


def classify_session_kind(key: str, gateway_kind: str | None, alias: MainAlias) -> str:
    """`main|group|cron|hook|node|other`, judged on the part after `agent:<id>:` (docs/decisions.md D9)."""
    if key in (alias.alias, alias.main_key):
        return "main"
    rest = strip_agent_prefix(key)
    if parse_agent_session_key(key) and rest == alias.main_key:
        return "main"
    if rest.startswith("cron:"):
        return "cron"
    if rest.startswith("hook:"):
        return "hook"
    if rest.startswith(("node-", "node:")):
        return "node"
    if gateway_kind == "group" or ":group:" in key or ":channel:" in key:
        return "group"
    if rest.startswith(("group:", "channel:")):
        return "group"
    return "other"


def channel_from_key(key: str) -> str | None:
    """`discord` from `agent:main:discord:group:1` or `discord:group:1` (docs/decisions.md D10)."""
    parts = [p for p in strip_agent_prefix(key).split(":") if p]
    if len(parts) >= 3 and parts[1] in ("group", "channel", "direct", "dm"):
        return parts[0]
    if len(parts) >= 4 and parts[2] in ("direct", "dm"):
        return parts[0]  # `<channel>:<accountId>:direct:<peer>`
    return None


def derive_channel(key: str, kind: str, channel: object, last_channel: object) -> str:
    """The row's `channel` (docs/decisions.md D10): internal kinds, recorded channel, last channel, key."""
    if kind in ("cron", "hook", "node"):
        return "internal"
    for value in (channel, last_channel):
        if isinstance(value, str) and value.strip():
            return value.strip()
    return channel_from_key(key) or "unknown"


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def entry_channel(key: str, kind: str, entry: SessionEntry) -> str:
    """`derive_channel` fed from a stored session entry, with OpenClaw's row fallbacks:
    the entry's `channel` (else `origin.provider`), then `deliveryContext.channel` (else
    `lastChannel`, else OpenClaw 2026.9's `delivery.context` / `delivery.route` channel).
    """
    origin = _dict(entry.get("origin"))
    delivery = _dict(entry.get("deliveryContext"))
    routed = _dict(entry.get("delivery"))
    return derive_channel(
        key,
        kind,
        _text_or_none(entry.get("channel")) or _text_or_none(origin.get("provider")),
        _text_or_none(delivery.get("channel"))
        or _text_or_none(entry.get("lastChannel"))
        or _text_or_none(_dict(routed.get("context")).get("channel"))
        or _text_or_none(_dict(routed.get("route")).get("channel")),
    )


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
