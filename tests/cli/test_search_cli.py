"""`sessions-tui search` (cli/commands/search.py) and `Backend.search`: text and JSON output, the requester's
visibility, a refusal, bad input, hostile text, and the same search over a server and several."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import FAST_DEMO, add_session, state_cli
from server_support import TOKEN, local_backend, served
from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.several import SeveralBackends
from sessions_tui.cli.commands.search import snippet_line
from sessions_tui.engine.store.tables.text_index import HIT_END, HIT_START
from sessions_tui.tools.calling.base import ToolInputError

LEGACY = Path(__file__).parents[1] / "fixtures" / "openclaw-2026.9.6" / "legacy-state"
SUB = "agent:main:subagent:9a1f0c2e-0000-4000-8000-00000000abcd"
SECRET = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"


cli = state_cli


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    state = tmp_path_factory.mktemp("search")
    source = tmp_path_factory.mktemp("openclaw") / "state"
    shutil.copytree(LEGACY, source)
    assert cli("import-openclaw", str(source), state=state).returncode == 0
    return state


def test_text_output_two_lines_per_hit_best_first(state):
    proc = cli("search", "README", state=state)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"{SUB}  #4  assistant  2026-11-21 23:12:46Z  score 4.6")
    assert lines[1] == "  README.md has 3 words."
    assert lines[2].startswith("main  #4  assistant") and len(lines) == 6


def test_json_output_and_the_session_option(state):
    proc = cli("search", "weather", "--session", "agent:main:discord:group:123", "--json", state=state)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)["results"]
    assert [(r["role"], r["msgSeq"], r["messageId"]) for r in results] == [
        ("user", 3, "22220003"),
        ("assistant", 4, "22220004"),
    ]
    fields = {"sessionKey", "timestamp", "role", "snippet", "score", "sessionId", "messageId", "msgSeq"}
    assert set(results[0]) == fields


def test_a_secret_is_not_found_and_not_printed(state):
    proc = cli("search", SECRET, state=state)
    assert proc.returncode == 0 and proc.stdout == "no message matches\n"
    shown = cli("search", "credentials", state=state)
    assert SECRET not in shown.stdout and "sk-pro…EFGH" in shown.stdout


def test_a_refusal_exits_1_with_the_tools_words(state):
    proc = cli("search", "pong", "--session", "agent:main:discord:group:123", "--as", SUB, "--sandboxed", state=state)
    assert proc.returncode == 1
    assert proc.stdout == (  # a sandboxed sub-agent's visibility is clamped to its tree
        "refused: Session search visibility is restricted to the current session tree "
        "(tools.sessions.visibility=tree).\n"
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [(("search", "   "), "QUERY: query must not be empty"), (("search", "x", "--limit", "0"), "--limit")],
)
def test_bad_input_exits_2_with_one_line(state, args, words):
    proc = cli(*args, state=state)
    assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr


def test_fts5_syntax_and_a_nul_in_a_query_are_text(state):
    for query in ('"weather*', "^weather:", "(weather)", "weather\x01", "-weather"):
        proc = cli("search", "--json", "--", query, state=state)
        assert proc.returncode == 0, (query, proc.stderr)
        assert json.loads(proc.stdout)["results"], query
    nothing = cli("search", "weather", "NEAR(", "--json", state=state)
    assert nothing.returncode == 0 and json.loads(nothing.stdout)["results"] == []  # `(` is a word no message has
    tool = cli("tool", "sessions_search", '{"query": "weather\\u0000report"}', state=state)
    assert tool.returncode == 0, tool.stderr
    assert json.loads(tool.stdout)["results"] == []  # both words, as the index splits them
    alone = cli("tool", "sessions_search", '{"query": "weather\\u0000"}', state=state)
    assert alone.returncode == 0 and json.loads(alone.stdout)["results"], alone.stderr


def test_a_snippet_is_one_line_with_control_characters_visible():
    line = snippet_line(f"a\x1b[31m {HIT_START}red{HIT_END}\nnext\x07", bold=True)
    assert line == "a␛[31m \x1b[1mred\x1b[0m next␇"
    assert snippet_line(f"{HIT_START}x{HIT_END}", bold=False) == "x"


async def test_the_same_search_over_a_server_and_several(tmp_path):
    one = local_backend(tmp_path / "one", FAST_DEMO)
    two = local_backend(tmp_path / "two", FAST_DEMO)
    add_session(one.engine, "agent:main:discord:group:a", [{"role": "user", "content": f"rollback now {SECRET}"}])
    add_session(two.engine, "agent:main:discord:group:b", [{"role": "assistant", "content": "rollback done"}])
    local = await one.search(Requester(), "rollback")
    with served(one) as url_one, served(two) as url_two:
        remote = RemoteBackend(url_one, TOKEN)
        remote.connect_blocking()
        remotes = [RemoteBackend(url, TOKEN) for url in (url_one, url_two)]
        for each in remotes:
            each.connect_blocking()
        several = SeveralBackends(remotes)
        try:
            over = await remote.search(Requester(), "rollback")
            assert over.model_dump() == local.model_dump()
            assert SECRET not in over.model_dump_json() and f"{HIT_START}rollback{HIT_END}" in over.hits[0].snippet
            with pytest.raises(ToolInputError, match="query must not be empty"):
                await remote.search(Requester(), " ")
            merged = await several.search(Requester(), "rollback")
            assert sorted(h.session_key.split("/", 1)[1] for h in merged.hits) == [
                "agent:main:discord:group:a",
                "agent:main:discord:group:b",
            ]
            assert all(h.key.partition("/")[0] in several.backends for h in merged.hits)
        finally:
            await remote.aclose()
            for each in remotes:
                await each.aclose()
