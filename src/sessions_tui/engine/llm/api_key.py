"""Which API key a configured model provider uses.

Kept apart from the HTTP client so that reading the configuration (masking secrets, listing
providers) does not load the HTTP stack: only a run that talks to a provider needs it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import cache

from pydantic import SecretStr

from sessions_tui.engine.config import ProviderConfig
from sessions_tui.engine.config.model.secret_refs import secret_text

__all__ = ["resolve_api_key"]


@cache
def _non_alnum_re() -> re.Pattern[str]:
    return re.compile(r"[^A-Za-z0-9]")


def _env_value(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name)
    return value if value else None


def resolve_api_key(provider_name: str, provider: ProviderConfig, env: Mapping[str, str] | None = None) -> str | None:
    """The API key of a provider, or None when it has none.

    * `"${VAR}"` → the environment variable `VAR`;
    * any other non-empty string → itself;
    * `{"source": "env", "id": "VAR"}` (or `"name": "VAR"`) → the environment variable `VAR`;
    * absent (or an empty string) → `<PROVIDER_NAME>_API_KEY` (upper-cased, every
      non-alphanumeric character → `_`), else None.

    A reference to an unset variable, or a secret reference of another source, gives None.
    """
    env = os.environ if env is None else env
    secret = provider.api_key
    raw = secret.get_secret_value() if isinstance(secret, SecretStr) else secret
    if isinstance(raw, str) and raw.strip():
        return secret_text(raw, env)
    if isinstance(raw, dict):
        source = str(raw.get("source", "env")).strip().lower()
        var = raw.get("id") or raw.get("name")
        if source == "env" and isinstance(var, str) and var.strip():
            return _env_value(env, var.strip())
        return None
    fallback = _non_alnum_re().sub("_", provider_name.upper()) + "_API_KEY"
    return _env_value(env, fallback)
