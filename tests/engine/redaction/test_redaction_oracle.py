"""Our redaction against the real OpenClaw gateway's, as recorded (no node needed here).

tests/fixtures/redaction/openclaw-2026.9.6.json holds the corpus of oracle_corpus.py
(every kind of secret_corpus.py and hand-written hard cases, random generated secrets) with what
OpenClaw 2026.9.6's `redactToolPayloadText` made of each. For every entry: we never leak the
secret; where the gateway does not leak it either, our output is the gateway's, character for
character, unless the kind is a listed known difference; and the cases where the gateway leaks
are listed too. Both lists are checked against the recording, so neither can go stale. Re-record
with `scripts/openclaw-gateway.sh install && .venv/bin/python scripts/record_redaction_oracle.py`;
`make test-openclaw` tells when a gateway no longer matches the recording.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from oracle_corpus import corpus
from secret_corpus import leaks
from sessions_tui.engine.redaction.redact import default_redactor

FIXTURE = Path(__file__).parents[2] / "fixtures" / "redaction" / "openclaw-2026.9.6.json"
ENTRIES: list[dict[str, str]] = json.loads(FIXTURE.read_text(encoding="utf-8"))

# Kinds where the gateway does not leak but masks differently from us, and why. We keep ours.
_NO_PASSWORD_HINT = "a password in a URL becomes `***` with us; the gateway keeps a hint (first 6 + last 4)"
_MASKED_TWICE = (
    "the gateway masks the value twice (a first rule leaves a hint, a second one sees the 11-character hint and "
    "masks it as `***`); we mask once and keep the hint, as for `DATABASE_PASSWORD=`"
)
KNOWN_DIFFERENCES: dict[str, str] = {
    "url password": _NO_PASSWORD_HINT,
    "URL password (wss)": _NO_PASSWORD_HINT,
    "database url": _NO_PASSWORD_HINT + " (connection strings too)",
    "postgres connection string": _NO_PASSWORD_HINT + " (connection strings too)",
    "assignment": "`api_key=…`: " + _MASKED_TWICE,
    "PASSWORD= (long)": "`PASSWORD=…`: " + _MASKED_TWICE,
}

# Kinds where the gateway shows the secret and we do not.
_PEM_WITHOUT_END = (
    "the gateway's private-key rule needs the END line; without it the key is shown (we hide all after BEGIN)"
)
GATEWAY_LEAKS: dict[str, str] = {
    "pem without end": _PEM_WITHOUT_END,
    "PEM without END, mid-log": _PEM_WITHOUT_END,
    "SSH_KEY=<PEM>": (
        "the gateway's env rule masks `-----BEGIN` as SSH_KEY's value first, so its private-key rule no longer "
        "finds the block and the key body is shown"
    ),
}


def _ours(entry: dict[str, str]) -> str:
    return default_redactor().redact(entry["input"])


def _gateway_leaks(entry: dict[str, str]) -> bool:
    return bool(leaks(entry["openclaw"], [entry["core"]]))


def _ids(entries: list[dict[str, str]]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for entry in entries:
        seen[entry["kind"]] = seen.get(entry["kind"], 0) + 1
        out.append(f"{entry['kind']} #{seen[entry['kind']]}")
    return out


def test_the_fixture_is_the_recorders_corpus() -> None:
    expected = [{"kind": c.kind, "input": c.input, "core": c.core} for c in corpus()]
    assert [{k: e[k] for k in ("kind", "input", "core")} for e in ENTRIES] == expected
    kinds = {e["kind"] for e in ENTRIES}
    assert set(KNOWN_DIFFERENCES) <= kinds and set(GATEWAY_LEAKS) <= kinds
    assert not set(KNOWN_DIFFERENCES) & set(GATEWAY_LEAKS)


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_we_never_leak_the_secret(entry: dict[str, str]) -> None:
    ours = _ours(entry)
    assert leaks(entry["input"], [entry["core"]])  # the input does hold it
    assert not leaks(ours, [entry["core"]]), ours


_COMPARED = [e for e in ENTRIES if not _gateway_leaks(e) and e["kind"] not in KNOWN_DIFFERENCES]


@pytest.mark.parametrize("entry", _COMPARED, ids=_ids(_COMPARED))
def test_where_the_gateway_does_not_leak_we_mask_exactly_as_it_does(entry: dict[str, str]) -> None:
    assert _ours(entry) == entry["openclaw"]


@pytest.mark.parametrize("kind", sorted(KNOWN_DIFFERENCES))
def test_every_known_difference_still_differs(kind: str) -> None:
    entries = [e for e in ENTRIES if e["kind"] == kind and not _gateway_leaks(e)]
    assert entries, f"{kind}: no entry where the gateway does not leak"
    assert all(_ours(e) != e["openclaw"] for e in entries), f"{kind} now matches the gateway: drop it from the list"


def test_the_cases_where_the_gateway_leaks_and_we_do_not() -> None:
    leaking = {e["kind"] for e in ENTRIES if _gateway_leaks(e)}
    assert leaking == set(GATEWAY_LEAKS)
