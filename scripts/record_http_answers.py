"""Record what a real OpenClaw gateway answers to the `POST /tools/invoke` cases of tests/http_cases.py.

Start two gateways on the same seed, one per config profile (scripts/openclaw-gateway.sh start
--seed-from tests/fixtures/openclaw-2026.9.6/legacy-state [--config FILE] …), then:

    .venv/bin/python scripts/record_http_answers.py --default URL --allow URL --token TOKEN

writes tests/fixtures/openclaw-2026.9.6/http_answers.json (case name -> the answers, in order).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from http_cases import ANSWERS, CASES, send  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--default", required=True, help="a gateway with no gateway.tools section")
    parser.add_argument("--allow", required=True, help="a gateway with http_cases.PROFILES['allow'] as gateway.tools")
    parser.add_argument("--token", required=True)
    opts = parser.parse_args()
    urls = {"default": opts.default, "allow": opts.allow}
    recorded = {}
    for case in CASES:
        with httpx.Client(base_url=urls[case.profile], timeout=30) as client:
            recorded[case.name] = send(client, case, opts.token)
        print(case.name, [a["status"] for a in recorded[case.name]])
    ANSWERS.write_text(json.dumps(recorded, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {ANSWERS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
