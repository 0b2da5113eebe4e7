"""The recorded redaction of the REAL OpenClaw gateway (tests/fixtures/redaction/openclaw-2026.9.6.json)
still holds: the recorder's corpus goes through `scripts/openclaw-gateway.sh redact` (OpenClaw's own
`redactToolPayloadText`, run by its node; no gateway started) and must come out as recorded.

`make test-openclaw` runs it (marker `openclaw`). With OPENCLAW_VERSION set to another release the
comparison is still with the 2026.9.6 recording, so a newer gateway's changes show as drift; after
checking them, record that release (`scripts/record_redaction_oracle.py`) and update the lists in
tests/engine/redaction/test_redaction_oracle.py.
"""

from __future__ import annotations

import importlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.openclaw

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "openclaw-gateway.sh"
FIXTURE = ROOT / "tests" / "fixtures" / "redaction" / "openclaw-2026.9.6.json"
INSTALL_TIMEOUT = 1800  # first use downloads ~650 MB


def test_the_gateway_still_masks_the_corpus_as_recorded() -> None:
    done = subprocess.run(["bash", str(SCRIPT), "install"], capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
    assert done.returncode == 0, f"openclaw-gateway.sh install failed:\n{done.stdout}\n{done.stderr}"
    recorder: Any = importlib.import_module("oracle_corpus")  # tests/oracle_corpus.py
    recorded: list[dict[str, str]] = json.loads(FIXTURE.read_text(encoding="utf-8"))
    cases = recorder.corpus()
    assert [c.input for c in cases] == [e["input"] for e in recorded], "the corpus changed: re-record the fixture"

    live: list[str] = recorder.openclaw_redact([c.input for c in cases])

    drift = [
        f"{e['kind']}:\n  input:    {e['input']!r}\n  recorded: {e['openclaw']!r}\n  now:      {now!r}"
        for e, now in zip(recorded, live, strict=True)
        if now != e["openclaw"]
    ]
    assert not drift, f"{len(drift)} of {len(recorded)} entries mask differently now:\n" + "\n".join(drift)
