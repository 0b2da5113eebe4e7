"""A requester's spawn tree: grandchildren under their parent, tokens and cost rolled up."""

from __future__ import annotations

import pytest

from conftest import call_tool
from openai_server import Reply
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.engine.subagents.records import ChildView, session_cost
from sessions_tui.engine.subagents.tree import spawn_tree
from sessions_tui.ui.widgets.spawn_runs import cost_text, tree_label

PRICED_DEMO = {
    "models": {"demo": {"cost": {"input": 3, "output": 15}}},
    "agents": {"defaults": {"subagents": {"maxSpawnDepth": 2}}},
}


def view(key: str, tokens: int | None, entry: dict | None = None) -> ChildView:
    """A child as the registry lists it: its session's cost read from its entry."""
    return ChildView(
        run_id=f"r-{key}",
        child_key=key,
        label=key,
        task=key,
        status="done",
        started_at=0,
        ended_at=1,
        total_tokens=tokens,
        cost_usd=session_cost({**(entry or {}), "totalTokens": tokens}),
    )


def test_rolls_up_tokens_and_cost_and_an_unpriced_part_makes_the_total_unknown():
    entries = {
        "a": {"estimatedCostUsd": 0.5},
        "a1": {"estimatedCostUsd": 0.25},
        "b": {"estimatedCostUsd": 0.1},
        "b1": {},
    }
    tree = {
        "main": [view("a", 100, entries["a"]), view("b", 50, entries["b"])],
        "a": [view("a1", 10, entries["a1"])],
        "b": [view("b1", 5, entries["b1"])],
    }
    rows = spawn_tree(lambda k: tree.get(k, []), "main")
    assert [(r.child_key, r.depth, r.parent_key) for r in rows] == [
        ("a", 1, "main"),
        ("a1", 2, "a"),
        ("b", 1, "main"),
        ("b1", 2, "b"),
    ]
    a, a1, b, b1 = rows
    assert (a.tree_tokens, a.tree_cost_usd) == (110, pytest.approx(0.75))
    assert (a1.tree_tokens, a1.cost_usd) == (10, 0.25)
    assert b1.cost_usd is None and b.tree_cost_usd is None  # b1 has tokens and no price: n/a up the tree
    assert cost_text(b.tree_cost_usd) == "n/a" and cost_text(0.75) == "$0.7500" and cost_text(2.5) == "$2.50"


def test_a_child_that_has_not_run_costs_nothing_and_a_cycle_is_cut():
    tree = {"main": [view("a", None)], "a": [view("main", 1), view("a", 1)]}
    rows = spawn_tree(lambda k: tree.get(k, []), "main")
    assert [(r.child_key, r.tree_cost_usd) for r in rows] == [("a", 0.0)]


def test_labels_indent_under_their_parent():
    assert tree_label("x", 1) == "x" and tree_label("x", 2) == "└ x" and tree_label("x", 3) == "  └ x"


async def test_a_two_level_tree_in_the_demo_model_adds_up(live_engine):
    engine = live_engine(PRICED_DEMO)
    first = await call_tool(engine, "sessions_spawn", {"task": "count the words in: one two three", "label": "top"})
    child = first["childSessionKey"]
    second = await call_tool(
        engine, "sessions_spawn", {"task": "count the words in: four five", "label": "leaf"}, as_key=child
    )
    assert second["status"] == "accepted"
    await engine.drain()
    rows = await LocalBackend(engine).children(engine.main_session_key())
    assert [(r.label, r.depth) for r in rows] == [("top", 1), ("leaf", 2)]
    top, leaf = rows
    assert leaf.cost_usd and top.cost_usd and top.tree_cost_usd == pytest.approx(top.cost_usd + leaf.cost_usd)
    assert top.tree_tokens == (top.total_tokens or 0) + (leaf.total_tokens or 0)


async def test_a_two_level_tree_over_the_scripted_model_rolls_up_its_priced_cost(live_engine, openai_server):
    """A child whose model spawns a grandchild: the tree and its cost at the configured price."""
    engine = live_engine(
        {
            "models": {
                "providers": {
                    "local": {
                        "baseUrl": openai_server.url,
                        "apiKey": "k",
                        "models": [{"id": "m", "cost": {"input": 1, "output": 2}}],
                    }
                }
            },
            "agents": {"defaults": {"model": "local/m", "subagents": {"maxSpawnDepth": 2}}},
        }
    )
    spawned = {"done": False}

    def rule(request):
        last = request["messages"][-1]
        text = last.get("content") if isinstance(last.get("content"), str) else ""
        if "plan the release" in text and not spawned["done"] and last.get("role") == "user":
            spawned["done"] = True
            return Reply(
                tool_calls=[("sessions_spawn", {"task": "list merged PRs", "label": "prs"})], usage=(1000, 100)
            )
        return Reply(text="done.", usage=(500, 50))

    openai_server.on(rule)
    top = await call_tool(engine, "sessions_spawn", {"task": "plan the release", "label": "release"})
    assert top["status"] == "accepted"
    await engine.drain()
    rows = await LocalBackend(engine).children(engine.main_session_key())
    assert [(r.label, r.depth) for r in rows] == [("release", 1), ("prs", 2)]
    release, prs = rows
    assert prs.cost_usd and release.cost_usd
    assert release.tree_cost_usd == pytest.approx(release.cost_usd + prs.cost_usd)
    assert prs.parent_key == release.child_key
