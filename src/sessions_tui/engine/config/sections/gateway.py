"""The `gateway` section: how `sessions-tui serve` answers over HTTP, and the gateway a followed
OpenClaw's sends go through.

The keys are OpenClaw's own (`gateway.auth.token`, `gateway.tools.allow`/`deny`,
`gateway.remote.url`/`token`), so an `openclaw.json` configures both alike. Tokens are secrets:
held as `SecretStr`, masked in every output (`config_secrets`).
"""

from pydantic import Field, SecretStr

from sessions_tui.engine.config.model.base import ConfigModel

__all__ = ["GatewayAuthConfig", "GatewayConfig", "GatewayRemoteConfig", "GatewayToolsConfig"]


class GatewayAuthConfig(ConfigModel):
    """`gateway.auth`: the bearer token HTTP clients must present."""

    token: SecretStr | None = Field(
        default=None,
        description='The bearer token of `serve`: a string or "${VAR}" (an environment variable); '
        "default: SESSIONS_TUI_TOKEN, else none (then `serve` binds loopback only). Never shown.",
    )


class GatewayToolsConfig(ConfigModel):
    """`gateway.tools`: which tools `POST /tools/invoke` offers beyond the default HTTP deny list."""

    allow: list[str] = Field(
        default_factory=list,
        description="Tools taken off the default HTTP deny list (e.g. sessions_send, sessions_spawn); default [].",
    )
    deny: list[str] = Field(
        default_factory=list,
        description="Tools refused over HTTP besides the default list; wins over allow; default [].",
    )


class GatewayRemoteConfig(ConfigModel):
    """`gateway.remote`: the gateway that sessions followed from OpenClaw send through."""

    url: str | None = Field(default=None, description="The gateway's base URL (http:// or ws://); default: none.")
    token: SecretStr | None = Field(
        default=None, description='Its bearer token: a string or "${VAR}"; default: none. Never shown.'
    )


class GatewayConfig(ConfigModel):
    """`gateway`: the HTTP face's settings (OpenClaw's section; other keys are ignored)."""

    port: int | None = Field(default=None, description="The port `serve` listens on; default 18789.")
    auth: GatewayAuthConfig = Field(default_factory=GatewayAuthConfig, description="Bearer auth of `serve`.")
    tools: GatewayToolsConfig = Field(default_factory=GatewayToolsConfig, description="The HTTP tool allow/deny lists.")
    remote: GatewayRemoteConfig = Field(
        default_factory=GatewayRemoteConfig, description="Where followed OpenClaw sessions send."
    )
