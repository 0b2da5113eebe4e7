"""A secret written in the config as `"${VAR}"`: the value of the environment variable VAR.

One rule for every secret the config may hold (provider API keys, gateway tokens), so that a
token can stay out of the file the same way an API key can.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from functools import cache

from pydantic import SecretStr

__all__ = ["secret_text"]


@cache
def _env_ref_re() -> re.Pattern[str]:
    return re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")


def secret_text(value: SecretStr | str | None, env: Mapping[str, str] | None = None) -> str | None:
    """The secret a config value stands for: `"${VAR}"` -> VAR's value (None when unset or empty),
    another non-blank string -> itself stripped, blank or None -> None."""
    raw = value.get_secret_value() if isinstance(value, SecretStr) else value
    if not isinstance(raw, str) or not raw.strip():
        return None
    text = raw.strip()
    found = _env_ref_re().match(text)
    if found is None:
        return text
    resolved = (os.environ if env is None else env).get(found.group(1))
    return resolved or None
