"""The `channels` section: where announcements for a channel are delivered.

A channel with a `webhookUrl` gets each announcement as an HTTP POST; the URL is checked when
the config loads, so a bad one is a config error rather than a failed delivery later.
"""

from pydantic import Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from sessions_tui.engine.config.model.base import ConfigModel

__all__ = ["ChannelConfig"]


class ChannelConfig(ConfigModel):
    """`channels.<name>`: one delivery channel."""

    webhook_url: str | None = Field(
        default=None,
        alias="webhookUrl",
        description="An http(s) URL that announcements for this channel are POSTed to; default: none.",
    )

    @field_validator("webhook_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        """An absolute http(s) URL with a host, as both URL parsers (pydantic's, and httpx's, which
        POSTs to it) read it; an empty string is no webhook."""
        import httpx  # only when a webhook URL is configured
        from pydantic import HttpUrl, TypeAdapter

        text = (value or "").strip()
        if not text:
            return None
        try:
            TypeAdapter(HttpUrl).validate_python(text)
            usable = httpx.URL(text).scheme in ("http", "https") and bool(httpx.URL(text).host)
        except (ValidationError, httpx.InvalidURL):
            usable = False
        if not usable:
            raise PydanticCustomError("webhook_url", "must be an http(s) URL")
        return text
