"""The redaction oracle's corpus, and OpenClaw's masking of it: what tests/engine/redaction/test_redaction_oracle.py
checks the recording against, what tests/interop re-runs on a live gateway, and what
scripts/record_redaction_oracle.py records.

The corpus is deterministic (a fixed seed per kind): every kind of secret_corpus.py and a few
hand-written hard cases (a key inside a key, a PEM block without END, a URL or connection string
password, an AWS key pair...), `SAMPLES` of each; `core` is the random part a leak would show.
The secrets are random, generated here; none is real.
"""

from __future__ import annotations

import base64
import json
import random
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from secret_corpus import KINDS, secret

ROOT = Path(__file__).resolve().parent.parent
Maker = Callable[[random.Random], tuple[str, str]]

SCRIPT = ROOT / "scripts" / "openclaw-gateway.sh"
FIXTURES = ROOT / "tests" / "fixtures" / "redaction"
OPENCLAW_VERSION = "2026.9.6"
SEED = 20260906
SAMPLES = 3
REDACT_TIMEOUT = 120.0
_AN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_URL64 = _AN + "-_"


@dataclass(frozen=True)
class Case:
    kind: str
    input: str
    core: str


def fixture_path(version: str = OPENCLAW_VERSION) -> Path:
    return FIXTURES / f"openclaw-{version}.json"


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _jwt(rng: random.Random) -> tuple[str, str]:
    signature = _pick(rng, _URL64, 43)
    return f"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJvcGVyYXRvciJ9.{signature}", signature


def _bearer_jwt(rng: random.Random) -> tuple[str, str]:
    jwt, core = _jwt(rng)
    return f"token: Bearer {jwt}", core


def _in_text(fmt: str, kind: str) -> Maker:
    def make(rng: random.Random) -> tuple[str, str]:
        text, core = secret(kind, rng)
        return fmt.format(text), core

    return make


def _random_core(fmt: str, n: int) -> Maker:
    def make(rng: random.Random) -> tuple[str, str]:
        core = _pick(rng, _AN, n)
        return fmt.format(core), core

    return make


def _aws_pair(rng: random.Random) -> tuple[str, str, str]:
    key_id = _pick(rng, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)
    _, secret_key = secret("aws secret", rng)
    text = f"AWS_ACCESS_KEY_ID=AKIA{key_id}\nAWS_SECRET_ACCESS_KEY={secret_key}\nAWS_REGION=eu-west-1"
    return text, key_id, secret_key


def _basic_curl(rng: random.Random) -> tuple[str, str]:
    credentials = base64.b64encode(f"admin:{_pick(rng, _AN, 24)}".encode()).decode()
    return f"curl -H 'Authorization: Basic {credentials}' https://api.example.com/v1/me", credentials.rstrip("=")


# Hand-written hard cases: a secret inside another secret's syntax, blocks, URLs, pairs.
HARD_CASES: dict[str, Maker] = {
    "token: Bearer <JWT>": _bearer_jwt,
    "SSH_KEY=<PEM>": _in_text("SSH_KEY={}", "pem"),
    "key:<PEM>": _in_text("key:{}", "pem"),
    "PEM without END, mid-log": _in_text("$ cat ~/.ssh/id_ed25519\n{}\n$ echo done\ndone", "pem without end"),
    "PASSWORD= (long)": _random_core("PASSWORD={}", 24),
    "PASSWORD= (short)": _random_core("PASSWORD={}", 12),
    "URL password (wss)": _random_core("connecting to wss://bot:{}@chat.example.com/socket", 24),
    "postgres connection string": _random_core(
        "DATABASE_URL=postgresql://app:{}@db.example.com:5432/app?sslmode=require", 24
    ),
    '"apiKey": "..." (pretty JSON)': _random_core('{{\n  "provider": "openai",\n  "apiKey": "{}"\n}}', 32),
    "--api-key=X": _random_core("openclaw onboard --api-key={} --non-interactive", 32),
    "--api-key X (quoted)": _random_core('openclaw onboard --api-key "{}"', 32),
    "Basic auth (curl -H)": _basic_curl,
}
AWS_PAIR = ("AWS key id + secret: the id", "AWS key id + secret: the secret")


def corpus() -> list[Case]:
    """The recorded texts, in a stable order: secret_corpus's kinds, then the hard cases."""
    cases: list[Case] = []
    for kind in KINDS:
        rng = random.Random(f"{SEED}:{kind}")
        cases.extend(Case(kind, *secret(kind, rng)) for _ in range(SAMPLES))
    for kind, make in HARD_CASES.items():
        rng = random.Random(f"{SEED}:{kind}")
        cases.extend(Case(kind, *make(rng)) for _ in range(SAMPLES))
    rng = random.Random(f"{SEED}:aws pair")
    for _ in range(SAMPLES):
        text, key_id, secret_key = _aws_pair(rng)
        cases += [Case(AWS_PAIR[0], text, key_id), Case(AWS_PAIR[1], text, secret_key)]
    return cases


def openclaw_redact(texts: list[str], timeout: float = REDACT_TIMEOUT) -> list[str]:
    """OpenClaw's `redactToolPayloadText` of each text (`openclaw-gateway.sh redact`)."""
    done = subprocess.run(
        ["bash", str(SCRIPT), "redact"], input=json.dumps(texts), capture_output=True, text=True, timeout=timeout
    )
    if done.returncode != 0:
        raise RuntimeError(f"openclaw-gateway.sh redact failed ({done.returncode}):\n{done.stderr.strip()}")
    out = json.loads(done.stdout)
    if not isinstance(out, list) or len(out) != len(texts) or not all(isinstance(s, str) for s in out):
        raise RuntimeError(f"openclaw-gateway.sh redact: expected {len(texts)} strings, got {done.stdout[:200]!r}")
    return out


def entries(cases: list[Case], masked: list[str]) -> list[dict[str, str]]:
    return [
        {"kind": c.kind, "input": c.input, "core": c.core, "openclaw": m} for c, m in zip(cases, masked, strict=True)
    ]


def dump(records: list[dict[str, str]]) -> str:
    return json.dumps(records, indent=2, ensure_ascii=False) + "\n"
