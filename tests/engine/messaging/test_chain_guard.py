"""The loop guard's rule and its config key (docs/decisions.md D19): hops are a chain's edges, a
chain may pass through a session at most twice, and maxChainHops 0 lifts the hop limit only."""

import pytest

from conftest import add_session, call_tool
from sessions_tui.engine.config import VALUE_RULES, IntRange, parse_config
from sessions_tui.engine.messaging.chain_guard import broken_rule, chain_error, hops, next_chain
from sessions_tui.tools.calling.base import ToolCall
from sessions_tui.tools.calling.registry import invoke

A, B, C, D = "agent:a:chat", "agent:b:chat", "agent:c:chat", "agent:d:chat"


def test_hops_are_the_chains_edges():
    assert [hops(c) for c in ([], [A], [A, B], [A, B, C, A])] == [0, 0, 1, 3]


def test_next_chain_extends_the_callers_chain_or_starts_at_the_requester():
    assert next_chain((A, B), B, C) == [A, B, C]  # a model's call inside a run: the run's chain
    assert next_chain((), A, B) == [A, B]  # a requester in no run
    assert next_chain((), None, A) == [A]  # the owner with no requester key


@pytest.mark.parametrize(
    ("chain", "max_hops", "rule"),
    [
        ([A, B, C, D, A, B, C], 6, None),  # 6 hops: at the limit, allowed
        ([A, B, C, D, A, B, C, D], 6, "hops"),  # 7 hops
        ([A, B, C, D], 3, None),
        ([A, B, C, D, A], 3, "hops"),
        ([A, B, A], 6, None),  # a second visit is allowed
        ([A, B, A, B, A], 6, "return"),  # a third is not
        ([A, B, C, A, B, C, A], 0, "return"),  # no hop limit, the return rule still holds
        ([A, B, C, D, A, B, C, D], 0, None),  # 7 hops, no session a third time
        ([A], 1, None),
        ([A, B], 1, None),
        ([A, B, C], 1, "hops"),
    ],
)
def test_broken_rule(chain, max_hops, rule):
    assert broken_rule(chain, max_hops) == rule


def test_the_error_names_the_chain_and_the_key():
    assert chain_error(["a", "b", "c", "a"], 6) == (
        "agent-to-agent chain limit reached: a → b → c → a (session.agentToAgent.maxChainHops=6)"
    )


def test_config_key_defaults_to_six_and_reads_zero():
    cfg, warnings = parse_config({})
    assert cfg.session.agent_to_agent.max_chain_hops == 6 and warnings == []
    cfg, warnings = parse_config({"session": {"agentToAgent": {"maxChainHops": 0}}})
    assert cfg.session.agent_to_agent.max_chain_hops == 0 and warnings == []
    cfg, _ = parse_config({"session": {"agent_to_agent": {"max_chain_hops": 3.7}}})
    assert cfg.session.agent_to_agent.max_chain_hops == 3


@pytest.mark.parametrize(
    ("value", "used", "why"),
    [(-2, 6, "-2 is below the minimum 0; using 6"), (1000, 100, "1000 is above the maximum 100; using 100")],
)
def test_config_key_out_of_range_is_clamped_with_a_warning(value, used, why):
    """A negative value is a mistake: it keeps the default limit rather than lifting it (0)."""
    rule = VALUE_RULES["session.agentToAgent.maxChainHops"]
    assert rule == IntRange(default=6, min=0, max=100, below_min_is_default=True)
    cfg, warnings = parse_config({"session": {"agentToAgent": {"maxChainHops": value}}})
    assert cfg.session.agent_to_agent.max_chain_hops == used
    assert len(warnings) == 1 and "session.agentToAgent.maxChainHops" in warnings[0] and why in warnings[0]


A2A = {"tools": {"agentToAgent": {"enabled": True, "allow": ["*"]}, "sessions": {"visibility": "all"}}}


async def _send_in_run(engine, chain, target, message="go on"):
    """sessions_send as a model's tool call inside a run whose chain is `chain` (its session last)."""
    call = ToolCall(engine=engine, agent_session_key=chain[-1], chain=tuple(chain))
    return await invoke(call, "sessions_send", {"sessionKey": target, "message": message, "timeoutSeconds": 0})


async def test_a_refused_send_starts_no_run_and_is_audited(live_engine):
    engine = live_engine({**A2A, "session": {"agentToAgent": {"maxChainHops": 3}}})
    for key in (A, B, C, D):
        add_session(engine, key)
    result = await _send_in_run(engine, [A, B, C, D], A, "once more")
    assert result["status"] == "forbidden" and result["sessionKey"] == A and result["runId"]
    assert result["error"] == (
        f"agent-to-agent chain limit reached: {A} → {B} → {C} → {D} → {A} (session.agentToAgent.maxChainHops=3)"
    )
    assert engine.store.runs.get_run(result["runId"]) is None
    assert engine.store.transcripts.history(A).messages == []
    (entry,) = engine.store.audit.audit_rows(10)
    assert (entry.kind, entry.session_key, entry.requester, entry.via) == ("send_refused", A, D, "sessions_send")
    assert entry.reason == result["error"] and entry.data["chain"] == [A, B, C, D, A]
    sent = engine.ledger.entry(result["runId"])
    assert sent is not None and (sent.requester, sent.target, sent.message, sent.via) == (D, A, "once more", "agent")
    assert sent.chain == [A, B, C, D, A] and [s.state for s in sent.states] == ["forbidden"]
    assert sent.states[0].detail == {"error": result["error"], "chain": [A, B, C, D, A]}
    await engine.drain()


async def test_an_allowed_send_starts_a_run_carrying_the_chain(live_engine):
    engine = live_engine(A2A)
    for key in (A, B, C):
        add_session(engine, key)
    result = await _send_in_run(engine, [A, B], C)
    assert result["status"] == "accepted"
    await engine.drain()
    with engine.store.read() as conn:
        (data,) = conn.execute("SELECT data FROM runs WHERE run_id = ?", (result["runId"],)).fetchone()
    assert '"chain": ["agent:a:chat", "agent:b:chat", "agent:c:chat"]' in data
    assert engine.store.audit.audit_rows(10) == []


async def test_the_owners_sends_start_a_chain_of_their_own(live_engine):
    """Sends from outside a run never inherit anything: each starts at its requester (or target)."""
    engine = live_engine({**A2A, "session": {"agentToAgent": {"maxChainHops": 1}}})
    for key in (A, B):
        add_session(engine, key)
    for _ in range(3):
        assert (await call_tool(engine, "sessions_send", {"sessionKey": B, "message": "hi", "timeoutSeconds": 0}))[
            "status"
        ] == "accepted"
        result = await call_tool(
            engine, "sessions_send", {"sessionKey": B, "message": "hi", "timeoutSeconds": 0}, as_key=A
        )
        assert result["status"] == "accepted"
    await engine.drain()
    assert engine.store.audit.audit_rows(10) == []


async def test_a_spawned_sub_agent_continues_the_chain_that_spawned_it(live_engine):
    engine = live_engine({**A2A, "agents": {"defaults": {"subagents": {"allowAgents": ["*"]}}}})
    call = ToolCall(engine=engine, agent_session_key="agent:main:main", chain=("agent:main:x", "agent:main:main"))
    result = await invoke(call, "sessions_spawn", {"task": "count the words in: a b"})
    assert result["status"] == "accepted"
    with engine.store.read() as conn:
        row = conn.execute("SELECT data FROM runs WHERE run_id = ?", (result["runId"],)).fetchone()
    import json

    chain = json.loads(row[0])["request"]["chain"]
    assert chain == ["agent:main:x", "agent:main:main", result["childSessionKey"]]
    await engine.drain()
