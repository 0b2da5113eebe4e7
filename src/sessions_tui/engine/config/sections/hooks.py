"""The `hooks` section: OpenClaw's inbound hooks (`POST /hooks/agent`, `POST /hooks/wake` on `serve`).

The keys are OpenClaw's own (docs/gateway/config-hooks.md), so an `openclaw.json` configures both
alike, and its checks are OpenClaw's `resolveHooksConfig`: enabled hooks need a token, the path
is never `/`, a `defaultSessionKey` must match `allowedSessionKeyPrefixes`, and without one the
prefixes must admit the generated `hook:<uuid>` keys. `mappings`, `presets`, `transformsDir` and
`gmail` are not used here (a request to `/hooks/<name>` finds no mapping: 404). The token is a
secret: held as `SecretStr`, masked in every output (`config_secrets`).
"""

from __future__ import annotations

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_core import PydanticCustomError

from sessions_tui.engine.config.model.base import ConfigModel, FlooredInt
from sessions_tui.engine.config.model.secret_refs import secret_text

__all__ = ["DEFAULT_HOOKS_MAX_BODY_BYTES", "DEFAULT_HOOKS_PATH", "HooksConfig", "key_allowed"]

DEFAULT_HOOKS_PATH = "/hooks"
DEFAULT_HOOKS_MAX_BODY_BYTES = 256 * 1024
"""OpenClaw's hook body limit (`DEFAULT_HOOKS_MAX_BODY_BYTES`)."""


def key_allowed(key: str, prefixes: list[str] | None) -> bool:
    """OpenClaw's `isSessionKeyAllowedByPrefix`: the key, lower-cased, starts with one of the
    prefixes (which are lower-cased already); no prefixes: every key."""
    if not prefixes:
        return True
    text = key.strip().lower()
    return bool(text) and any(text.startswith(prefix) for prefix in prefixes)


class HooksConfig(ConfigModel):
    """`hooks`: who may start agent runs from outside, at which path, into which sessions."""

    enabled: bool = Field(
        default=False,
        description="Answer `POST <path>/agent` and `<path>/wake` on `serve`; needs a token. Default false.",
    )
    token: SecretStr | None = Field(
        default=None,
        description="The hook token (Bearer or `x-openclaw-token`), distinct from the gateway's: a string or "
        '"${VAR}"; default: none. Never shown.',
    )
    path: str = Field(
        default=DEFAULT_HOOKS_PATH,
        description='The base path: a leading slash added, trailing ones removed; "/" is refused. Default "/hooks".',
    )
    max_body_bytes: FlooredInt = Field(
        default=DEFAULT_HOOKS_MAX_BODY_BYTES,
        alias="maxBodyBytes",
        ge=1,
        description="A hook request's body limit in bytes (413 past it); default 262144 (256 KiB), OpenClaw's fixed "
        "limit. sessions-tui's own key: OpenClaw's config refuses it.",
    )
    allowed_agent_ids: list[str] | None = Field(
        default=None,
        alias="allowedAgentIds",
        description='The agents a hook may run (normalised); omitted or holding "*": any; [] none. Default: any.',
    )
    default_session_key: str | None = Field(
        default=None,
        alias="defaultSessionKey",
        description="The session of a hook that names none; default: none, a fresh `hook:<uuid>` each time.",
    )
    allow_request_session_key: bool = Field(
        default=False,
        alias="allowRequestSessionKey",
        description="Whether a request may name its session (`sessionKey`); default false.",
    )
    allowed_session_key_prefixes: list[str] | None = Field(
        default=None,
        alias="allowedSessionKeyPrefixes",
        description="Prefixes (any case) every hook session key must start with; blank ones are dropped; none or "
        'only blank ones: no restriction. Without `defaultSessionKey` they must admit "hook:". Default: none.',
    )

    @field_validator("path")
    @classmethod
    def _normalize_path(cls, value: str) -> str:
        text = value.strip() or DEFAULT_HOOKS_PATH
        text = text if text.startswith("/") else f"/{text}"
        text = text.rstrip("/") if len(text) > 1 else text
        if not text or text == "/":
            raise PydanticCustomError("hooks_path", "may not be '/'")
        return text

    @field_validator("default_session_key")
    @classmethod
    def _trim_key(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None

    @field_validator("allowed_session_key_prefixes")
    @classmethod
    def _prefixes(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        kept = list(dict.fromkeys(p.strip().lower() for p in value if p.strip()))
        return kept or None

    @field_validator("allowed_agent_ids")
    @classmethod
    def _agents(cls, value: list[str] | None) -> list[str] | None:
        from sessions_tui.engine.sessions.keys import normalize_agent_id

        if value is None or any(v.strip() == "*" for v in value):
            return None
        return list(dict.fromkeys(normalize_agent_id(v) for v in value if v.strip()))

    @model_validator(mode="after")
    def _policy_holds(self) -> HooksConfig:
        if self.enabled and not secret_text(self.token):
            raise PydanticCustomError("hooks_token", "hooks.enabled requires hooks.token")
        prefixes = self.allowed_session_key_prefixes
        if self.default_session_key and not key_allowed(self.default_session_key, prefixes):
            raise PydanticCustomError(
                "hooks_default_key", "hooks.defaultSessionKey must match hooks.allowedSessionKeyPrefixes"
            )
        if not self.default_session_key and not key_allowed("hook:example", prefixes):
            raise PydanticCustomError(
                "hooks_prefixes",
                "hooks.allowedSessionKeyPrefixes must include 'hook:' when hooks.defaultSessionKey is unset",
            )
        return self

    def secret(self) -> str | None:
        """The token the hooks need, resolved (`"${VAR}"` read from the environment)."""
        return secret_text(self.token)
