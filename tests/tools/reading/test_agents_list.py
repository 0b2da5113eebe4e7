"""`agents_list`: the requester's own agent first, then the agents its `subagents.allowAgents` names."""

from conftest import run_tool


def ids(result):
    return [a["id"] for a in result["agents"]]


def test_defaults_list_only_the_requester(engine):
    result = run_tool(engine, "agents_list")
    assert result == {"requester": "main", "allowAny": False, "agents": [{"id": "main", "configured": False}]}


def test_agent_allow_list(make_engine):
    engine = make_engine(
        {
            "agents": {
                "list": [
                    {"id": "main", "subagents": {"allowAgents": ["research"]}},
                    {"id": "research", "name": " Research "},
                ]
            }
        }
    )
    result = run_tool(engine, "agents_list")
    assert ids(result) == ["main", "research"]
    assert result["agents"][1] == {"id": "research", "name": "Research", "configured": True}


def test_defaults_allow_list_used_when_the_agent_omits_it(make_engine):
    engine = make_engine(
        {"agents": {"defaults": {"subagents": {"allowAgents": ["Research"]}}, "list": [{"id": "main"}]}}
    )
    assert ids(run_tool(engine, "agents_list")) == ["main", "research"]


def test_star_allows_every_configured_agent_requester_first(make_engine):
    engine = make_engine(
        {
            "agents": {
                "defaults": {"subagents": {"allowAgents": ["*"]}},
                "list": [{"id": "main"}, {"id": "research"}, {"id": "coder"}],
            }
        }
    )
    result = run_tool(engine, "agents_list")
    assert result["allowAny"] is True and ids(result) == ["main", "coder", "research"]


def test_allow_listed_but_unconfigured_agent(make_engine):
    engine = make_engine({"agents": {"defaults": {"subagents": {"allowAgents": ["ghost"]}}}})
    assert run_tool(engine, "agents_list")["agents"][1] == {"id": "ghost", "configured": False}


def test_requester_agent_comes_from_the_requester_key(make_engine):
    engine = make_engine({"agents": {"list": [{"id": "research", "subagents": {"allowAgents": ["main"]}}]}})
    result = run_tool(engine, "agents_list", as_key="agent:research:main")
    assert result["requester"] == "research" and ids(result) == ["research", "main"]
