"""Reading a config file: bytes → JSON5 → validated `Config`, with every failure a one-line `ConfigError`.

Only a regular file of at most 1 MiB is read (a FIFO would hang the start, a device never end,
50 MB of JSON5 take minutes to parse); a missing file gives the defaults unless it was asked for;
JSON5 that does not parse names the line and column; values of the wrong type are errors,
out-of-range ones warnings (docs/decisions.md D14). What a warning or an error repeats of the file
(a value, a name) is redacted where it is made (it may be a pasted token), by the built-in rules and
the file's own `logging.redactPatterns`.
"""

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sessions_tui.engine.config.document import Config
from sessions_tui.engine.config.file.errors import ConfigError, format_validation_error
from sessions_tui.engine.config.model.base import defaults_of
from sessions_tui.engine.config.model.rules import json_type
from sessions_tui.engine.config.sections.redaction import redaction_warnings
from sessions_tui.engine.inputs.files import FileTooLarge, NotRegularFile, read_regular_bytes
from sessions_tui.engine.inputs.json_depth import MAX_JSON_DEPTH
from sessions_tui.engine.redaction.redact import Redactor, default_redactor

__all__ = ["MAX_CONFIG_BYTES", "LoadedConfig", "load_config", "parse_config"]

MAX_CONFIG_BYTES = 1024 * 1024
"""A config file larger than this is refused before it is read: JSON5 parses a few seconds a megabyte."""


@dataclass
class LoadedConfig:
    """A loaded config, its warnings, the path it came from and whether that file exists."""

    config: Config
    warnings: list[str]
    path: Path
    exists: bool


def parse_config(data: Any, *, source: str = "<config>") -> tuple[Config, list[str]]:
    """Validate already-parsed config data: `(config, warnings)`, or `ConfigError`.

    `source` names the file in messages. Clamps and fallbacks of `VALUE_RULES` apply.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: top level must be an object, got {json_type(data)}")
    redact = _redactor(data).redact
    warnings: list[str] = []
    try:
        config = Config.model_validate(data, context={"warnings": warnings, "source": source, "redact": redact})
    except ValidationError as err:
        raise ConfigError(format_validation_error(source, err, redact)) from None
    warnings.extend(redaction_warnings(config.logging, source))
    return config, warnings


def _redactor(data: dict[str, Any]) -> Redactor:
    """What a config's warnings and errors are redacted by: the built-in rules, and the patterns
    the file lists (those that are text; unusable ones are left out by the redactor)."""
    logging = data.get("logging")
    listed = None
    if isinstance(logging, dict):
        listed = logging.get("redactPatterns", logging.get("redact_patterns"))
    patterns = [p for p in listed if isinstance(p, str)] if isinstance(listed, list) else []
    return Redactor(patterns=patterns) if patterns else default_redactor()


@cache
def _json5_error_re() -> re.Pattern[str]:
    return re.compile(r"^<string>:(\d+) (.*) at column (\d+)$", re.DOTALL)


# A JSON5 string (either quote, escapes included), a comment, or a bracket: what the depth scan sees.
@cache
def _json5_token_re() -> re.Pattern[str]:
    return re.compile(r""""[^"\\]*(?:\\.[^"\\]*)*"|'[^'\\]*(?:\\.[^'\\]*)*'|//[^\n]*|/\*.*?\*/|[\[\]{}]""", re.DOTALL)


def _too_deep(text: str) -> str | None:
    """`line:column` of the first array or object nested more than `MAX_JSON_DEPTH` levels deep
    (the parser recurses, and would fail with Python's own words far deeper), else None."""
    depth = 0
    for token in _json5_token_re().finditer(text):
        kind = token.group()
        if kind in ("[", "{"):
            depth += 1
            if depth > MAX_JSON_DEPTH:
                at = token.start()
                return f"{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}"
        elif kind in ("]", "}"):
            depth = max(0, depth - 1)
    return None


def _parse_json5(text: str, source: str) -> Any:
    if not text.strip():
        raise ConfigError(f"{source}: invalid JSON5: empty file")
    deep = f"nested too deeply (more than {MAX_JSON_DEPTH} levels)"
    where = _too_deep(text)
    if where is not None:
        raise ConfigError(f"{source}:{where}: invalid JSON5: {deep}")
    import json5  # only when there is a file to read

    try:
        return json5.loads(text)
    except RecursionError:
        raise ConfigError(f"{source}: invalid JSON5: {deep}") from None
    except ValueError as err:
        why = str(err) or type(err).__name__
        found = _json5_error_re().match(why)
        if found:
            line, reason, col = found.group(1), found.group(2), found.group(3)
            raise ConfigError(f"{source}:{line}:{col}: invalid JSON5: {reason}") from None
        raise ConfigError(f"{source}: invalid JSON5: {why}") from None


def load_config(path: Path, *, required: bool = False) -> LoadedConfig:
    """Load the JSON5 config file at `path`.

    A missing file gives the defaults (`exists=False`), or `ConfigError` when `required`.
    Unparseable JSON5, a non-object top level, an unreadable file, one that is not a regular file
    (a FIFO or a device: never opened to wait or read forever) or a value of the wrong type
    raise `ConfigError`; out-of-range numbers and unknown enum values become `warnings`.
    """
    path = Path(path)
    source = str(path)
    try:
        # Only a regular file is read: a FIFO would hang the start, a device never end.
        data_bytes = read_regular_bytes(path, MAX_CONFIG_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        if required:
            raise ConfigError(f"{source}: config file not found") from None
        return LoadedConfig(config=defaults_of(Config), warnings=[], path=path, exists=False)
    except NotRegularFile as err:
        raise ConfigError(f"{source}: is {err.kind}, not a config file") from None
    except FileTooLarge as err:
        raise ConfigError(f"{source}: {err.size} bytes, over the 1 MiB a config file may hold") from None
    except OSError as err:
        raise ConfigError(f"{source}: cannot read: {err.strerror or err}") from None
    try:
        text = data_bytes.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(f"{source}: not UTF-8 text (byte {err.start})") from None
    text = text.removeprefix("\ufeff")
    data = _parse_json5(text, source)
    config, warnings = parse_config(data, source=source)
    return LoadedConfig(config=config, warnings=warnings, path=path, exists=True)
