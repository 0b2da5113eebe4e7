"""The real OpenClaw gateway for the benchmarks that measure against it (not a benchmark itself).

`scripts/openclaw-gateway.sh` starts it on loopback (installed by `scripts/openclaw-gateway.sh
install`, ~650 MB on first use); a benchmark without it reports the comparison as not run.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

from _common import ROOT

LEGACY = ROOT / "tests" / "fixtures" / "openclaw-2026.9.6" / "legacy-state"
GATEWAY_SCRIPT = ROOT / "scripts" / "openclaw-gateway.sh"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def gateway_installed() -> bool:
    peer = Path(os.environ.get("OPENCLAW_PEER_DIR", Path.home() / ".cache" / "sessions-tui-openclaw"))
    return (peer / "oc" / "node_modules" / "openclaw" / "openclaw.mjs").is_file()


def start_gateway(state: Path, token: str, *, seed: bool = True) -> tuple[str, float, int]:
    """A gateway on a free loopback port with `state` as its state directory (seeded from the
    fixture's legacy store): its http URL, the seconds from start to ready, and its pid."""
    port = free_port()
    t0 = time.perf_counter()
    args = ["bash", str(GATEWAY_SCRIPT), "start", "--state", str(state), "--port", str(port), "--token", token]
    if seed:
        args += ["--seed-from", str(LEGACY)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise SystemExit(f"FAIL: the gateway did not start: {done.stderr[-500:]}")
    return f"http://127.0.0.1:{port}", time.perf_counter() - t0, int(done.stdout.strip().splitlines()[-1])


def stop_gateway(state: Path) -> None:
    subprocess.run(["bash", str(GATEWAY_SCRIPT), "stop", "--state", str(state)], capture_output=True, timeout=60)


def gateway_call(state: Path, method: str, params: str) -> str:
    """One RPC through OpenClaw's own CLI (`openclaw gateway call`); its stdout."""
    done = subprocess.run(
        ["bash", str(GATEWAY_SCRIPT), "call", "--state", str(state), method, params],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode != 0:
        raise SystemExit(f"FAIL: openclaw gateway call {method}: {done.stderr[-500:]}")
    return done.stdout
