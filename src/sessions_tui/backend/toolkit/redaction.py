"""Secrets kept out of what a face prints: the default redactor, and a config secret's text.

`default_redactor` masks secrets in a line a face says before any config is loaded (an error);
`secret_text` reads a secret reference from the config (`serve`'s token).
"""

from __future__ import annotations

from sessions_tui.engine.config.model.secret_refs import secret_text
from sessions_tui.engine.redaction.redact import default_redactor

__all__ = ["default_redactor", "secret_text"]
