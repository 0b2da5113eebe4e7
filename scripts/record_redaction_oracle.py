"""Record how the real OpenClaw gateway masks secrets, for tests/engine/redaction/test_redaction_oracle.py.

    scripts/openclaw-gateway.sh install                 # once: node 24 + openclaw (~650 MB)
    .venv/bin/python scripts/record_redaction_oracle.py

The corpus (tests/oracle_corpus.py, shared with the tests) goes text by text through OpenClaw's own
`redactToolPayloadText` (`openclaw-gateway.sh redact`, built-in rules only) and the results are
written to tests/fixtures/redaction/openclaw-<version>.json: a list of {kind, input, core,
openclaw} in corpus order, where `core` is the random part a leak would show.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # scripts may use the tests' helpers, never the reverse

from oracle_corpus import OPENCLAW_VERSION, corpus, dump, entries, fixture_path, openclaw_redact  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the fixture instead of writing it")
    args = parser.parse_args(argv)
    version = os.environ.get("OPENCLAW_VERSION", OPENCLAW_VERSION)
    cases = corpus()
    text = dump(entries(cases, openclaw_redact([c.input for c in cases])))
    path = fixture_path(version)
    if args.check:
        same = path.is_file() and path.read_text(encoding="utf-8") == text
        print(f"{path.relative_to(ROOT)}: {'unchanged' if same else 'DIFFERS from the live gateway'}")
        return 0 if same else 1
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {len(cases)} entries to {path.relative_to(ROOT)} (openclaw {version})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
