"""The loop guard end to end (docs/decisions.md D19): agents that answer every message by sending
it on to the next (A → B → C → A …) over the scripted OpenAI-compatible server stop exactly at
`session.agentToAgent.maxChainHops`, and a send elsewhere in the same engine is untouched.

Nothing is mocked: the engine's runs stream from `openai_server` (tests/openai_server.py) and the
agents' `sessions_send` calls are real tool calls made inside their runs.
"""

import json
import re

import pytest

from conftest import add_session, call_tool
from openai_server import Reply, system_text

OPS = "agent:main:discord:group:ops"  # the session the owner acts as
A, B, C = "agent:a:chat", "agent:b:chat", "agent:c:chat"
NEXT = {"a": B, "b": C, "c": A}
U, V = "agent:main:discord:group:u", "agent:main:discord:group:v"  # an unrelated pair
MESSAGE = "pass it round"


@pytest.fixture
def cycle_engine(live_engine, openai_server):
    """An engine whose agents a, b, c each forward any message to the next (fire and forget),
    answer the tool's result in a line, and skip the announce and (unless told to forward from
    there too) the ping-pong."""

    forward_in_steps = False

    def rule(request):
        system = system_text(request)
        agent = re.search(r"\(agent id ([\w-]+)\)", system)
        ours = agent is not None and agent.group(1) in NEXT
        if "Agent-to-agent reply step" in system and not (ours and forward_in_steps):
            return Reply(text="REPLY_SKIP")
        if "Agent-to-agent announce step" in system:
            return Reply(text="ANNOUNCE_SKIP")
        if agent is None or not ours:
            return None  # anyone else: the server's default reply
        last = request["messages"][-1]
        if last["role"] == "tool":
            return Reply(text=f"passed on: {json.loads(last['content'])['status']}")
        args = {"sessionKey": NEXT[agent.group(1)], "message": last["content"], "timeoutSeconds": 0}
        return Reply(tool_calls=[("sessions_send", args)])

    openai_server.on(rule)
    openai_server.default = Reply(text="fine")

    def make(max_hops, *, ping_pong_turns=5, forward_from_ping_pong=False):
        nonlocal forward_in_steps
        forward_in_steps = forward_from_ping_pong
        engine = live_engine(
            {
                "models": {"providers": {"local": {"baseUrl": openai_server.url, "apiKey": "test-key"}}},
                "agents": {"defaults": {"model": "local/test-model"}},
                "tools": {"agentToAgent": {"enabled": True, "allow": ["*"]}, "sessions": {"visibility": "all"}},
                "session": {"agentToAgent": {"maxChainHops": max_hops, "maxPingPongTurns": ping_pong_turns}},
            }
        )
        for key in (OPS, A, B, C, U, V):
            add_session(engine, key)
        return engine

    return make


def tool_results(engine, key):
    """The `sessions_send` results in a session's transcript, oldest first."""
    messages = engine.store.transcripts.history(key, limit=500).messages
    return [m["details"] for m in messages if m.get("role") == "toolResult" and m.get("toolName") == "sessions_send"]


def received(engine, key):
    """How often the forwarded message arrived in a session (its user turns carrying it)."""
    messages = engine.store.transcripts.history(key, limit=500).messages
    return sum(1 for m in messages if m.get("role") == "user" and MESSAGE in json.dumps(m.get("content")))


@pytest.mark.parametrize(
    ("max_hops", "results", "shown"),
    [
        # OPS → A → B → C → A → B → C: 6 hops; the 7th (C → A) is refused.
        (6, {A: ["accepted", "accepted"], B: ["accepted", "accepted"], C: ["accepted", "forbidden"]}, 7),
        # OPS → A → B → C: 3 hops; the 4th is refused (by the limit: A was visited once).
        (3, {A: ["accepted"], B: ["accepted"], C: ["forbidden"]}, 4),
        # No hop limit: the cycle still stops when it would enter A a third time.
        (0, {A: ["accepted", "accepted"], B: ["accepted", "accepted"], C: ["accepted", "forbidden"]}, 7),
    ],
)
async def test_a_cycle_of_agents_stops_at_the_limit(cycle_engine, max_hops, results, shown):
    engine = cycle_engine(max_hops)
    first = await call_tool(
        engine, "sessions_send", {"sessionKey": A, "message": MESSAGE, "timeoutSeconds": 0}, as_key=OPS
    )
    unrelated = await call_tool(engine, "sessions_send", {"sessionKey": V, "message": "status?"}, as_key=U)
    assert first["status"] == "accepted"
    assert unrelated["status"] == "ok" and unrelated["reply"] == "fine"
    await engine.drain()

    assert {key: [r["status"] for r in tool_results(engine, key)] for key in (A, B, C)} == results
    refusal = tool_results(engine, C)[-1]
    chain = [OPS, A, B, C, A, B, C, A][: shown + 1]  # the would-be chain, the refused hop last
    assert refusal["error"] == (
        f"agent-to-agent chain limit reached: {' → '.join(chain)} (session.agentToAgent.maxChainHops={max_hops})"
    )
    assert refusal["sessionKey"] == A and engine.store.runs.get_run(refusal["runId"]) is None
    # Every session's transcript: each forwarded message arrived once per hop into it, and each
    # agent said what became of its send.
    assert {key: received(engine, key) for key in (A, B, C)} == {key: len(r) for key, r in results.items()}
    for key, statuses in results.items():
        texts = [
            m["content"][0]["text"]
            for m in engine.store.transcripts.history(key, limit=500).messages
            if m.get("role") == "assistant" and str(m["content"][0].get("text", "")).startswith("passed on:")
        ]
        assert texts == [f"passed on: {s}" for s in statuses]
    # The refusal is the only one, and the unrelated pair is as it would be alone.
    (audit,) = engine.store.audit.audit_rows(10)
    assert (audit.session_key, audit.requester, audit.reason) == (A, C, refusal["error"])
    assert audit.data["chain"] == chain
    (sent,) = engine.ledger.entries(state="forbidden")
    assert (sent.run_id, sent.requester, sent.target, sent.via, sent.chain) == (refusal["runId"], C, A, "agent", chain)
    assert sent.states[-1].detail == {"error": refusal["error"], "chain": chain}
    first_two = engine.store.transcripts.history(V, limit=500).messages[:2]
    assert [(m["role"], json.dumps(m["content"])) for m in first_two][0] == ("user", json.dumps("status?"))
    assert first_two[1]["content"][0]["text"] == "fine"


def run_chains(engine):
    """(session, internal, chain) of every run, in the order they were recorded."""
    with engine.store.read() as conn:
        rows = conn.execute("SELECT session_key, data FROM runs ORDER BY created_at, rowid").fetchall()
    out = []
    for key, data in rows:
        request = json.loads(data)["request"]
        out.append((key, bool(request.get("internal")), request.get("chain", [])))
    return out


async def test_the_ping_pong_and_announce_steps_keep_the_sends_chain(cycle_engine, openai_server):
    """They are the same exchange, not new hops: a send made in one continues the chain."""
    engine = cycle_engine(6)
    result = await call_tool(engine, "sessions_send", {"sessionKey": V, "message": "status?"}, as_key=U)
    assert result["status"] == "ok"
    await engine.drain()
    assert run_chains(engine) == [(V, False, [U, V]), (U, True, [U, V]), (V, True, [U, V])]


async def test_agents_that_forward_in_every_step_still_stop(cycle_engine):
    """Agents that also forward from their ping-pong turns: every send's chain continues the one
    before it, so the whole exchange ends within the limit."""
    engine = cycle_engine(3, ping_pong_turns=1, forward_from_ping_pong=True)
    await call_tool(engine, "sessions_send", {"sessionKey": A, "message": MESSAGE, "timeoutSeconds": 0}, as_key=OPS)
    await engine.drain()
    sends = engine.ledger.entries(limit=1000)
    assert all(len(entry.chain) <= 4 for entry in sends if entry.last_state != "forbidden")
    assert {len(entry.chain) for entry in sends if entry.states[0].state == "forbidden"} == {5}
    assert all(chain[0] == OPS for _, _, chain in run_chains(engine))
