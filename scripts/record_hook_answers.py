"""Record what a real OpenClaw gateway answers to the hook requests of tests/hook_cases.py.

Start two gateways, one per profile, each with an openclaw.json holding `agents:
hook_cases.AGENTS` and `hooks: hook_cases.PROFILES[profile]` (`--print-config PROFILE PORT` prints
it), e.g.:

    .venv/bin/python scripts/record_hook_answers.py --print-config open 18941 > /tmp/open.json
    scripts/openclaw-gateway.sh start --state /tmp/gw-open --port 18941 --config /tmp/open.json
    (the same for `closed` on another port), then
    .venv/bin/python scripts/record_hook_answers.py --open http://127.0.0.1:18941 --closed http://127.0.0.1:18942

writes tests/fixtures/openclaw-2026.9.6/hook_answers.json (case name -> the answers, in order).
Each gateway must be fresh: the cases of a profile run in order, and its last one locks the
recording client out for a minute.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from hook_cases import AGENTS, ANSWERS, CASES, PROFILES, send  # noqa: E402


def gateway_config(profile: str, port: int) -> dict[str, object]:
    gateway = {"mode": "local", "bind": "loopback", "port": port, "auth": {"mode": "token"}}
    return {"gateway": gateway, "agents": AGENTS, "hooks": PROFILES[profile]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--print-config", nargs=2, metavar=("PROFILE", "PORT"))
    parser.add_argument("--open", help="a gateway with hook_cases.PROFILES['open']")
    parser.add_argument("--closed", help="a gateway with hook_cases.PROFILES['closed']")
    opts = parser.parse_args()
    if opts.print_config:
        profile, port = opts.print_config
        print(json.dumps(gateway_config(profile, int(port)), indent=2))
        return 0
    if not (opts.open and opts.closed):
        parser.error("--open and --closed are required")
    urls = {"open": opts.open, "closed": opts.closed}
    recorded = {}
    for case in CASES:
        with httpx.Client(base_url=urls[case.profile], timeout=60) as client:
            recorded[case.name] = send(client, case)
        print(case.name, [a["status"] for a in recorded[case.name]])
    ANSWERS.write_text(json.dumps(recorded, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {ANSWERS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
