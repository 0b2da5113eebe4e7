"""Generated secrets of every kind sessions-tui masks, each with the random core a leak would show.

`secret(kind, rng)` gives `(text, core)`: `text` is how the secret appears in what an agent writes
(with its key name, header or URL around it), `core` is its random part. A mask may show the
first 6 and last 4 characters of a token, so a leak is any `LEAK_WINDOW` characters of a core
appearing in an output (`leaks`).
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable

LEAK_WINDOW = 8
_AN = string.ascii_letters + string.digits
_UP = string.ascii_uppercase + string.digits
_B64 = string.ascii_letters + string.digits + "+/"
_URL64 = string.ascii_letters + string.digits + "-_"


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _aws_secret(rng: random.Random) -> str:
    while True:
        value = _pick(rng, _B64, 40)
        if any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value):
            return value


def _pem(rng: random.Random, end: bool) -> tuple[str, str]:
    body = [_pick(rng, _B64, 64) for _ in range(3)]
    kind = rng.choice(["", "RSA ", "EC ", "OPENSSH "])
    text = f"-----BEGIN {kind}PRIVATE KEY-----\n" + "\n".join(body)
    if end:
        text += f"\n-----END {kind}PRIVATE KEY-----"
    return text, "".join(body)


Maker = Callable[[random.Random], tuple[str, str]]


def _token(prefix: str, alphabet: str, n: int, fmt: str = "{}") -> Maker:
    def make(rng: random.Random) -> tuple[str, str]:
        core = _pick(rng, alphabet, n)
        return fmt.format(prefix + core), core

    return make


def _core(fmt: str, alphabet: str, n: int) -> Maker:
    def make(rng: random.Random) -> tuple[str, str]:
        core = _pick(rng, alphabet, n)
        return fmt.format(core), core

    return make


KINDS: dict[str, Maker] = {
    "openai": _token("sk-proj-", _AN, 40, "OPENAI_API_KEY={}"),
    "anthropic": _token("sk-ant-api03-", _URL64, 60),
    "github": _token("ghp_", _AN, 36, "github token {}"),
    "github fine-grained": _token("github_pat_", _AN, 60),
    "gitlab": _token("glpat-", _AN, 20),
    "slack": _core("xoxb-123456789012-1234567890123-{}", _AN, 24),
    "slack webhook": _core("https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/{}", _AN, 24),
    "google": _token("AIza", _AN, 35),
    "groq": _token("gsk_", _AN, 52),
    "huggingface": _token("hf_", _AN, 34),
    "stripe": _token("sk_live_", _AN, 24),
    "npm": _token("npm_", _AN, 36, "//registry.npmjs.org/:_authToken={}"),
    "xai": _token("xai-", _AN, 40),
    "digitalocean": _token("dop_v1_", "0123456789abcdef", 64),
    "docker": _token("dckr_pat_", _AN, 27),
    "aws key id": _token("AKIA", _UP, 16, "aws_access_key_id = {}"),
    "aws secret": lambda rng: (lambda v: (f"aws_secret_access_key={v}", v))(_aws_secret(rng)),
    "aws secret bare": lambda rng: (lambda v: (f"secret {v} here", v))(_aws_secret(rng)),
    "jwt": _core("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.{}", _URL64, 43),
    "bearer": _core("Authorization: Bearer {}", _AN, 32),
    "basic": _core("Authorization: Basic {}==", _B64, 30),
    "telegram": _core("123456789:{}", _URL64, 35),
    "url password": _core("https://deploy:{}@git.example.com/repo.git", _AN, 20),
    "database url": _core("postgres://admin:{}@db.internal:5432/app", _AN, 20),
    "env": _core("DATABASE_PASSWORD={}", _AN, 24),
    "json field": _core('{{"apiKey": "{}"}}', _AN, 24),
    "json token": _core('{{"token": "{}"}}', _AN, 24),
    "cli flag": _core("deploy --api-key {} --force", _AN, 24),
    "cli password": _core("mysql --password={}", _AN, 20),
    "snake_case field": _core("client_secret: {}", _AN, 24),
    "assignment": _core("api_key={}", _AN, 24),
    "header": _core("X-Api-Key: {}", _AN, 32),
    "url query": _core("https://api.example.io/v1/items?access_token={}&page=2", _AN, 28),
    "pem": lambda rng: _pem(rng, True),
    "pem without end": lambda rng: _pem(rng, False),
}


def secret(kind: str, rng: random.Random) -> tuple[str, str]:
    return KINDS[kind](rng)


def leaks(output: str, cores: list[str]) -> list[str]:
    """The cores of which some `LEAK_WINDOW` characters appear in `output` (one pass over it)."""
    windows: dict[str, list[int]] = {}
    for index, core in enumerate(cores):
        for i in range(len(core) - LEAK_WINDOW + 1):
            windows.setdefault(core[i : i + LEAK_WINDOW], []).append(index)
    found: set[int] = set()
    for i in range(len(output) - LEAK_WINDOW + 1):
        hit = windows.get(output[i : i + LEAK_WINDOW])
        if hit:
            found.update(hit)
    return [cores[i] for i in sorted(found)]
