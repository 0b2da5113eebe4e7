"""The demo's config file, written into the demo's state directory on first use.

Its price for the demo model is `DEMO_PRICE`, which the seeded sessions' costs use too: one
number, so the seeded costs and the ones runs add cannot disagree.
"""

from __future__ import annotations

DEMO_PRICE = (3, 15)
"""The demo model's made-up price: dollars per million input, output tokens."""

_TEMPLATE = """\
// sessions-tui demo configuration (JSON5, OpenClaw's key names). Edit freely.
{
  session: {
    agentToAgent: { maxPingPongTurns: 2 },
    sendPolicy: {
      default: "allow",
      rules: [
        // Nobody posts into WhatsApp groups from here.
        { action: "deny", match: { channel: "whatsapp", chatType: "group" } },
      ],
    },
  },
  tools: {
    sessions: { visibility: "all" },
    agentToAgent: { enabled: true, allow: ["main", "research", "helper"] },
  },
  agents: {
    defaults: {
      model: "demo",
      // maxSpawnDepth 2: a sub-agent may spawn sub-agents of its own (a two-level tree).
      subagents: { allowAgents: ["research"], archiveAfterMinutes: 60, maxSpawnDepth: 2 },
    },
    list: [
      { id: "main", name: "Main", default: true },
      { id: "research", name: "Research" },
      // Sandboxed: its sessions see only what they spawned, and spawn only under helper
      // (a sandboxed requester cannot spawn unsandboxed sub-agents).
      { id: "helper", name: "Sandboxed helper", sandbox: { mode: "all" }, subagents: { allowAgents: [] } },
    ],
  },
  // The demo model's made-up price (US dollars per million tokens), so costs add up in the demo.
  models: { demo: { cost: { input: @INPUT@, output: @OUTPUT@ } } },
  // `sessions-tui serve --demo`: a remote dashboard (`--remote`) may send and spawn too.
  gateway: { tools: { allow: ["sessions_send", "sessions_spawn"] } },
}
"""

DEMO_CONFIG = _TEMPLATE.replace("@INPUT@", str(DEMO_PRICE[0])).replace("@OUTPUT@", str(DEMO_PRICE[1]))
