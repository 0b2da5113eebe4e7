"""The secrets sessions-tui masks: every kind OpenClaw 2026.9.6 masks (docs/decisions.md D16), as rules that
find spans in a text.

Each rule reports *where* a secret is (an `Edit`: a span and how to mask it); nothing is
replaced here. All rules look at the same original text, so one rule's mask can never hide a
secret from another (`SSH_KEY=<PEM>`, `token: Bearer <JWT>`). Rules run only when one of their
anchors (a literal, searched for in the lower-cased text) is present, and every pattern is shaped
to run in linear time: unbounded runs are bounded where a terminator must follow, and PEM blocks
are found by a scanner, not a lazy regex.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Literal, NamedTuple

from sessions_tui.engine.redaction.vendors import VENDOR_TOKENS

Style = Literal["hint", "stars", "pem"]
"""`hint`: first 6 + `…` + last 4 (`***` when short); `stars`: `***`; `pem`: first and last line."""


class Edit(NamedTuple):
    start: int
    end: int
    style: Style


@dataclass(frozen=True)
class Rule:
    """A regex whose capture `group` (or last non-empty group when None) is the secret.

    The regex is compiled when the rule first runs: a process that redacts nothing (most `tool`
    calls) does not pay for compiling some hundred patterns, and one that does compiles only the
    rules whose anchors its text contains. `needs`: characters the pattern cannot match without
    (one of them at least), so a text with an anchor but none of them is passed over uncompiled
    (`sessions` names no secret: `session=…` may).
    """

    name: str
    source: str | re.Pattern[str]
    anchors: tuple[str, ...]
    style: Style = "hint"
    group: int | None = None
    keep: Callable[[re.Match[str]], bool] | None = None  # a match it must leave alone
    flags: int = 0
    needs: tuple[str, ...] = ()

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return self.source if isinstance(self.source, re.Pattern) else re.compile(self.source, self.flags)

    def edits(self, text: str) -> Iterator[Edit]:
        if self.needs and not any(character in text for character in self.needs):
            return
        for match in self.pattern.finditer(text):
            index = self.group if self.group is not None else _last_group(match)
            start, end = match.span(index) if index else match.span()
            if (
                end > start
                and not _masked(text[start:end])
                and not _part_of_mask(text, start, end)
                and not (self.keep and self.keep(match))
            ):
                yield Edit(start, end, self.style)


@cache
def _masked_re() -> re.Pattern[str]:
    return re.compile(r"[\"'`]?(?:\*\*\*|[^…\s]{0,6}…[^…\s]{0,4})[\"'`,;)}\]]*")


def _part_of_mask(text: str, start: int, end: int) -> bool:
    """The 6 characters before a mask's `…` or the 4 after it (a pattern that stops at the `…`)."""
    return (text[end : end + 1] == "…" and end - start <= 6) or (text[start - 1 : start] == "…" and end - start <= 4)


def _masked(value: str) -> bool:
    """A value that is already a mask (`***`, `abcdef…wxyz`): redacting twice changes nothing."""
    return len(value) <= 16 and _masked_re().fullmatch(value) is not None


def _last_group(match: re.Match[str]) -> int:
    for index in range(len(match.groups()), 0, -1):
        if match.group(index):
            return index
    return 0


_CI = re.ASCII | re.IGNORECASE
_CS = re.ASCII

_PAYMENT_ENV = (
    r"CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|PAYMENT[_-]?CREDENTIAL|"
    r"SHARED[_-]?PAYMENT[_-]?TOKEN"
)
_PAYMENT_QUERY = _PAYMENT_ENV.lower().replace("[_-]", "[-_]")
_PAYMENT_JSON = (
    "cardNumber|card_number|cardCvc|card_cvc|cardCvv|card_cvv|cvc|cvv|securityCode|security_code|"
    "paymentCredential|payment_credential|sharedPaymentToken|shared_payment_token"
)
_AWS_FIELD = r"aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey"
_CLI_KEYS = (
    rf"{_AWS_FIELD}|api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token|secret|"
    rf"password|passwd|credential|private[-_]?key|client[-_]?secret|{_PAYMENT_QUERY}"
)
_STANDALONE_KEYS = (
    r"access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|api[-_]?key|client[-_]?secret|"
    rf"app[-_]?secret|private[-_]?key|authorization|jwt|token|secret|password|pass|passwd|credential|{_PAYMENT_QUERY}"
)
_CONFIG_KEYS = (
    r"access[-_]?token|refresh[-_]?token|id[-_]?token|auth[-_]?token|hook[-_]?token|api[-_]?(?:key|secret)|"
    r"client[-_]?secret|app[-_]?secret|private[-_]?key|secret[-_]?key|key[-_]?material|authorization|jwt|token|"
    rf"secret|password|passphrase|pass|passwd|credential|{_PAYMENT_QUERY}"
)
_AUTH_QUERY_KEYS = (
    r"access[-_]?token|auth[-_]?token|hook[-_]?token|refresh[-_]?token|id[-_]?token|api[-_]?key|apikey|"
    rf"client[-_]?secret|app[-_]?secret|private[-_]?key|{_AWS_FIELD}|credential|authorization|token|key|secret|"
    r"password|pass|passwd|auth|jwt|session|code|signature|sig|x[-_]?amz[-_]?(?:signature|security[-_]?token)"
)
# JSON fields whose values OpenClaw shows as `***`, and those it shows with a hint.
_JSON_STARS = (
    rf"apiKey|api_key|apiToken|api_token|bearerToken|bearer_token|{_AWS_FIELD}|credential|authorization|"
    r"proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|access_token|refresh_token|idToken|id_token|"
    r"authToken|auth_token|clientSecret|client_secret|privateKey|private_key|secret_value|raw_secret|"
    rf"secret_input|key_material|{_PAYMENT_JSON}"
)
_JSON_HINT = r"token|secret|password|passwd|accessToken|refreshToken"
_VALUE = r"[^\s#\"'`<>]{1,4096}"  # an unquoted value: bounded, so a failed match costs little
_QUOTED = r"([\"'`])((?:(?!\{q})[^\r\n]){{1,4096}})\{q}"

_SECRET_WORDS = (
    "key",
    "token",
    "secret",
    "passw",
    "pass",
    "auth",
    "credential",
    "jwt",
    "cookie",
    "card",
    "cvc",
    "cvv",
    "security",
    "payment",
    "session",
    "code",
    "sig",
)


def _shell_reference(match: re.Match[str]) -> bool:
    """`API_KEY=$API_KEY` or `${API_KEY}` names a variable, it does not hold a secret."""
    key = re.match(r"\s*([A-Z_][A-Z0-9_]*)", match.group(0))
    value = match.group(match.lastindex or 0)
    ref = re.fullmatch(r"\$\{?([A-Z_][A-Z0-9_]*)(?::[-=?+][^}]*)?\}?", value)
    return bool(key and ref and ref.group(1) == key.group(1))


_AUTH_SCHEMES = frozenset({"bearer", "basic", "bot", "token", "digest", "negotiate", "ntlm"})


def _auth_scheme(match: re.Match[str]) -> bool:
    """`Authorization: Basic <credentials>`: the scheme word is not the secret (the token after it is)."""
    value = match.group(match.lastindex or 0).strip("\"'`")
    return value.lower() in _AUTH_SCHEMES and "auth" in match.group(0).lower()


def _rule(
    name: str,
    source: str,
    anchors: tuple[str, ...],
    *,
    style: Style = "hint",
    group: int | None = None,
    flags: int = _CI,
    keep: Callable[[re.Match[str]], bool] | None = None,
    needs: tuple[str, ...] = (),
) -> Rule:
    return Rule(name, source, anchors, style, group, keep, flags, needs)


_ENV_KEY = rf"[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{_PAYMENT_ENV})\b"
_ENV_ANCHORS = ("key", "token", "secret", "passw", "card", "cvc", "cvv", "security", "payment")

FIELD_RULES: tuple[Rule, ...] = (
    _rule(
        "env assignment",
        rf"(?<![?&])\b{_ENV_KEY}\s*[=:]\s*([\"']?)([^\s\"'\\]{{1,4096}})\1",
        _ENV_ANCHORS,
        group=2,
        keep=_shell_reference,
    ),
    # The same name as a URL query parameter (`?access_token=…&page=2`): its value ends at the next
    # `&` or `#`, as OpenClaw's URL-query masking does, so the mask does not swallow the parameters after it.
    _rule(
        "env assignment",
        rf"(?<=[?&]){_ENV_KEY}\s*[=:]\s*([\"']?)([^\s\"'\\&#]{{1,4096}})",
        _ENV_ANCHORS,
        group=2,
        keep=_shell_reference,
    ),
    _rule(
        "escaped env assignment",
        rf"\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{_PAYMENT_ENV})\b\s*[=:]\s*"
        r"\\+([\"'])([^\s\"'\\]{1,4096})\\+\1",
        ("key", "token", "secret", "passw"),
        group=2,
        flags=_CS,
    ),
    _rule(
        "JSON secret field",
        rf"\"(?:{_JSON_STARS})\"\s*:\s*\"((?:[^\"\\]|\\.){{1,4096}})(?:\"|\Z)",
        (
            "key",
            "token",
            "secret",
            "credential",
            "auth",
            "cookie",
            "card",
            "cvc",
            "cvv",
            "security",
            "payment",
            "material",
        ),
        style="stars",
        group=1,
    ),
    _rule(
        "JSON secret field",
        rf"\"(?:{_JSON_HINT})\"\s*:\s*\"((?:[^\"\\]|\\.){{1,4096}})(?:\"|\Z)",
        ("token", "secret", "passw"),
        group=1,
    ),
    _rule(
        "quoted secret field",
        r"(^|[\s,{])[\"']?(?:api[-_]key|access[-_]token|refresh[-_]token|id[-_]token|"
        r"authToken|auth[-_]token|clientSecret|client[-_]secret|appSecret|app[-_]secret|private[-_]key|credential|"
        r"authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token|secret[-_]value|raw[-_]secret|"
        r"secret[-_]input|key[-_]material)[\"']?\s*[:=]\s*([\"'])([^\"'\r\n]{1,4096})\2",
        ("key", "token", "secret", "credential", "auth", "cookie", "material"),
        group=3,
    ),
    _rule("CLI secret flag", rf"--(?:{_CLI_KEYS})=([^\s\"']{{1,4096}})", ("--",)),
    _rule(
        "CLI secret flag",
        rf"--(?:{_CLI_KEYS})\s+(?!(?:or|and)\b(?=\s+--))([\"']?)([^\s\"']{{1,4096}})\1",
        ("--",),
        group=2,
    ),
    _rule(
        "Authorization header",
        r"(?:Proxy-)?Authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?:(?:Bearer|Basic|Bot|Token|Digest|Negotiate|NTLM|AWS4-HMAC-SHA256|ApiKey|[A-Za-z][A-Za-z0-9_-]{0,31})"
        r"[ \t]+)?([^\s\"',;]{1,8192})",
        ("authorization",),
        keep=lambda m: m.group(1).lower() in _AUTH_SCHEMES,
    ),
    _rule(
        "credential header",
        r"(?:^|[^A-Za-z0-9_?&-])(?:x-goog-api-key|api-key|apikey|x-api-token|x-access-token|"
        r"X-OpenClaw-Token|x-pomerium-jwt-assertion|X-Api-Key|X-Auth-Token)[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"([^\s\\\"',;]{1,8192})",
        ("key", "token", "jwt"),
    ),
    _rule("Bearer token", r"\bBearer\s+([-A-Za-z0-9._~+/=]{18,})(?![-A-Za-z0-9._~+/=])", ("bearer",)),
    _rule("password in URL", r"\b(?:https?|wss?|ftp)://[^/\s:@]{0,256}:([^/\s@]{1,1024})@", ("://",), style="stars"),
    _rule(
        "password in connection string",
        r"\b(?:postgres(?:ql)?|mysql|mariadb|mssql|sqlserver|mongodb(?:\+srv)?|"
        r"rediss?|amqps?|ldaps?|smtps?|imaps?)://[^:\s/@]{0,256}:([^@\s]{1,1024})@",
        ("://",),
        style="stars",
    ),
    _rule("secret in URL query", rf"[?&](?:{_AUTH_QUERY_KEYS})=([^&#\s<>\"']{{1,4096}})", ("=",)),
    _rule(
        "secret assignment",
        rf"(^|[\s,;({{\[\"])(?:{_STANDALONE_KEYS})=" + _QUOTED.format(q=2),
        _SECRET_WORDS,
        group=3,
        needs=("=",),
    ),
    _rule(
        "secret assignment",
        rf"(^|[\s,;({{\[\"])(?:{_STANDALONE_KEYS})=([\"'`]?[^\s&#\"'`<>]{{1,4096}})",
        _SECRET_WORDS,
        group=2,
        keep=lambda m: _shell_reference(m) or _auth_scheme(m),
        needs=("=",),
    ),
    _rule(
        "config secret",
        rf"(^|[\s,{{])(?:{_CONFIG_KEYS})(?:\s*:\s*|\s+=\s*|=\s*)" + _QUOTED.format(q=2),
        _SECRET_WORDS,
        group=3,
        needs=(":", "="),
    ),
    _rule(
        "config secret",
        rf"(^|[\s,{{])(?:{_CONFIG_KEYS})(?:\s*:\s*|\s+=\s*|=\s+)({_VALUE})",
        _SECRET_WORDS,
        group=2,
        keep=_auth_scheme,
        needs=(":", "="),
    ),
    _rule(
        "config secret",
        r"(^|[\s,{])[a-z0-9][a-z0-9._-]{0,79}[-_](?:password|passphrase|pass|passwd)\s*[:=]\s*"
        rf"({_VALUE})",
        ("pass",),
        group=2,
    ),
    _rule(
        "config secret",
        rf"(^|[\s,{{])[a-z0-9_.-]{{1,80}}\.(?:{_CONFIG_KEYS})\s*[:=]\s*({_VALUE})",
        _SECRET_WORDS,
        group=2,
        needs=(":", "="),
    ),
    _rule(
        "AWS secret access key field",
        rf"(^|[\s,{{])[\"']?(?:{_AWS_FIELD})[\"']?\s*[:=]\s*([\"']?)"
        r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])\2",
        ("secret",),
        group=3,
    ),
)


VENDOR_RULES: tuple[Rule, ...] = tuple(_rule("token", source, (anchor,)) for anchor, source in VENDOR_TOKENS)


# An AWS secret access key: exactly 40 characters of base64 with upper, lower and a digit or
# symbol, not part of a longer run.
@cache
def _aws_secret_re() -> re.Pattern[str]:
    return re.compile(
        r"(?<![A-Za-z0-9/+=_])((?=[A-Za-z0-9/+=]{0,39}[A-Z])(?=[A-Za-z0-9/+=]{0,39}[a-z])"
        r"(?=[A-Za-z0-9/+=]{0,39}[0-9/+=])(?=[A-Za-z0-9/+=]{0,39}[G-Zg-z/+=])[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=_])",
        re.ASCII,
    )


@cache
def _aws_run_re() -> re.Pattern[str]:
    return re.compile(r"[A-Za-z0-9/+=]{40}", re.ASCII)


def aws_secret_edits(text: str) -> Iterator[Edit]:
    if len(text) < 40 or not _aws_run_re().search(text):
        return
    for match in _aws_secret_re().finditer(text):
        yield Edit(match.start(1), match.end(1), "hint")


@cache
def pem_begin_re() -> re.Pattern[str]:
    return re.compile(r"-----BEGIN ([A-Z0-9 ]{0,64})PRIVATE KEY( BLOCK)?-----", re.ASCII)


@cache
def pem_end_re() -> re.Pattern[str]:
    return re.compile(r"-----END [A-Z0-9 ]{0,64}PRIVATE KEY( BLOCK)?-----", re.ASCII)


def pem_edits(text: str) -> Iterator[Edit]:
    """Private-key blocks: BEGIN through the next END (`pem`); a BEGIN with no END hides the rest
    of the text after its line. One pass over each marker list: linear in the text."""
    if "PRIVATE KEY" not in text:
        return
    ends = [m.span() for m in pem_end_re().finditer(text)]
    position, end_index = 0, 0
    for begin in pem_begin_re().finditer(text):
        if begin.start() < position:
            continue  # inside the block just masked
        while end_index < len(ends) and ends[end_index][0] < begin.end():
            end_index += 1
        if end_index == len(ends):
            yield Edit(begin.start(), len(text), "pem")  # no END: everything after the BEGIN line
            return
        yield Edit(begin.start(), ends[end_index][1], "pem")
        position = ends[end_index][1]


SCANNERS: tuple[Callable[[str], Iterator[Edit]], ...] = (aws_secret_edits,)
"""The scanners besides the private keys' (`pem_edits`), which `Redactor.find` runs first: a key with
no END hides the rest of the text from every other rule and scanner."""
BUILT_IN_RULES: tuple[Rule, ...] = FIELD_RULES + VENDOR_RULES
