"""`serve` and hostile input: every operator op validates its body and answers 400 naming the
field, `NaN` is not JSON, every method but the route's own gets 405, and a bug of the server's is a
bare 500 whose traceback only the server's log holds, redacted."""

from __future__ import annotations

import json
import logging

import httpx
import pytest
from pydantic import SecretStr

from conftest import add_session
from server_support import TOKEN, local_backend, served
from sessions_tui.server.app import build_app
from sessions_tui.server.settings import ServerSettings

AUTH = {"authorization": f"Bearer {TOKEN}"}
SECRET = "sk-1234567890abcdef1234"
OPS = "/sessions-tui/v1/"


@pytest.fixture
def backend(tmp_path):
    backend = local_backend(tmp_path / "state")
    add_session(backend.engine, "agent:main:main", [{"role": "user", "content": "hello"}])
    yield backend
    backend.close()


@pytest.fixture
def client(backend):
    app = build_app(backend, ServerSettings(token=SecretStr(TOKEN)), manage_backend=False)
    transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))  # an exception escaping fails the test
    return httpx.AsyncClient(transport=transport, base_url="http://sessions-tui.test", headers=AUTH)


async def test_owner_command_takes_main_and_any_spelling(client, backend):
    async with client:
        off = await client.post(OPS + "owner_command", json={"key": "main", "text": "/send off"})
        assert off.status_code == 200 and off.json() == {"value": "⚙️ Send policy set to off."}
        assert backend.engine.store.sessions.get("agent:main:main").entry["sendPolicy"] == "deny"
        on = await client.post(OPS + "owner_command", json={"key": "AGENT:MAIN:MAIN", "text": "/send on"})
        assert (
            on.status_code == 200
            and backend.engine.store.sessions.get("agent:main:main").entry["sendPolicy"] == "allow"
        )
        other = await client.post(OPS + "owner_command", json={"key": "nope", "text": "hello"})
        assert other.status_code == 200 and other.json() == {"value": None}  # not a command: nothing done


BAD_BODIES = [
    ("owner_command", b'{"key":"agent:main:nope","text":"/send off"}', "key: No session found: agent:main:nope"),
    ("owner_command", b'{"key":"main"}', "text: Field required"),
    ("owner_command", b'{"key":5,"text":"/send off"}', "key: Input should be a valid string"),
    ("abort_run", b'{"key":"agent:main:nope"}', "key: No session found: agent:main:nope"),
    ("abort_run", b'{"key":"main","clear_queued":"all"}', "clear_queued: Input should be a valid boolean"),
    ("browse", b'{"requester":{},"query":{},"after":[{"x":1},"k"]}', "after.0."),
    ("browse", b'{"requester":{},"query":{},"before":[[1],"k"]}', "before.0."),
    ("browse", b'{"requester":{},"query":{},"after":[1e400,"k"]}', "after.0."),
    ("browse", b'{"requester":{},"query":{},"offset":1' + b"0" * 30 + b"}", "offset: "),
    ("browse", b'{"requester":{},"query":{},"limit":NaN}', "body: invalid JSON: NaN is not a JSON number"),
    ("browse_count", b'{"requester":{},"query":{"active_minutes":Infinity}}', "body: invalid JSON: Infinity is"),
    ("operator_sessions", b'{"limit":-Infinity}', "body: invalid JSON: -Infinity is not a JSON number"),
    ("browse_rows", b'{"requester":{},"keys":"k"}', "keys: "),
    ("children", b"[1,2]", "body: Input should be a valid dictionary"),
    ("search", b'{"requester":{},"query":"x","limit":"many"}', "limit: "),
    ("sends", b'{"limit":0}', "limit: "),
    ("explain", b'{"requester":{},"target":"main","extra":1}', "extra: Extra inputs are not permitted"),
    ("info", b"{", "body: invalid JSON: Expecting property name"),
    ("data_version", b"[" * 100_000, "body: invalid JSON: JSON nested too deeply"),
]


@pytest.mark.parametrize("op, body, where", BAD_BODIES, ids=[f"{op}-{i}" for i, (op, _, _) in enumerate(BAD_BODIES)])
async def test_a_bad_body_is_a_400_naming_the_field_and_logs_nothing(client, caplog, op, body, where):
    caplog.set_level(logging.DEBUG)
    async with client:
        answer = await client.post(OPS + op, content=body)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["type"] == "invalid_request" and error["message"].startswith(f"{op}: {where}")
    assert "\n" not in error["message"]
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_cursor_of_another_type_than_its_column_pages_on(client, backend):
    add_session(backend.engine, "agent:main:cron:a", updatedAt=5)
    page = {"requester": {}, "query": {"order_by": "key"}, "limit": 1}
    async with client:
        for cursor in ([5, "k"], [None, "k"], [1.5, "main"], ["zzz", "agent:main:cron:a"]):
            answer = await client.post(OPS + "browse", json={**page, "after": cursor})
            assert answer.status_code == 200, (cursor, answer.text)


@pytest.mark.parametrize("word", ["NaN", "Infinity", "-Infinity"])
async def test_nan_and_infinity_in_a_tools_invoke_body_are_json_that_does_not_parse(client, word):
    async with client:
        answer = await client.post("/tools/invoke", content=f'{{"tool":"sessions_list","args":{{"limit":{word}}}}}')
    assert answer.status_code == 400
    assert answer.json() == {"error": {"message": f"{word} is not a JSON number", "type": "invalid_request_error"}}


@pytest.mark.parametrize("method", ["TRACE", "PROPFIND", "PATCH"])
def test_every_method_but_the_routes_own_gets_405_naming_it(tmp_path, method):
    with served(local_backend(tmp_path / "s")) as url, httpx.Client(base_url=url, headers=AUTH, timeout=30) as http:
        for path, allow in [("/tools/invoke", "POST"), ("/events", "GET"), (OPS + "info", "POST")]:
            answer = http.request(method, path)
            assert (answer.status_code, answer.headers["allow"]) == (405, allow), path


def test_a_bug_of_the_server_is_a_bare_500_its_traceback_redacted_in_the_log(tmp_path, caplog, capfd):
    backend = local_backend(tmp_path / "s")

    async def broken(run_id: str) -> str:
        raise RuntimeError(f"lost {SECRET} on the way")

    backend.run_label = broken  # type: ignore[method-assign]
    caplog.set_level(logging.INFO, logger="sessions_tui.server")
    with served(backend) as url, httpx.Client(base_url=url, headers=AUTH, timeout=30) as http:
        answer = http.post(OPS + "run_label", json={"run_id": "r1"})
        again = http.post(OPS + "info", json={})  # the server, and the connection, carry on
    assert (answer.status_code, answer.text) == (500, "Internal Server Error")
    assert again.status_code == 200
    [record] = [r for r in caplog.records if r.name == "sessions_tui.server"]
    logged = record.getMessage()
    assert "Traceback" in logged and "RuntimeError: lost sk-123" in logged and SECRET not in logged
    assert "Exception in ASGI application" not in capfd.readouterr().err


# Every search path's text: a NUL (which ended FTS5's reading of a quoted word), other control
# characters, and FTS5's own syntax, all read as words (or as nothing) and answered.
HOSTILE_SEARCHES = [
    "deploy\x00failed",
    "\x00",
    "deploy\x01failed",
    'deploy "failed',
    "deploy*",
    "^deploy",
    "NEAR(deploy)",
]
HOSTILE_SEARCHES += ["deploy -failed", "(deploy", "text:deploy", "sid:deploy", "deploy AND", "OR", "\x00\x00 \t"]


def _search_bodies(text: str) -> list[tuple[str, dict[str, object]]]:
    return [
        (OPS + "search", {"requester": {}, "query": text}),
        (OPS + "browse", {"requester": {}, "query": {"search": text}}),
        (OPS + "browse", {"requester": {}, "query": {"search": "~" + text}}),
        (OPS + "browse_count", {"requester": {}, "query": {"search": "~" + text}}),
        (OPS + "browse_count", {"requester": {}, "query": {"search": text}}),
        (OPS + "operator_sessions", {"search": text}),
        ("/tools/invoke", {"tool": "sessions_search", "args": {"query": text}}),
    ]


@pytest.mark.parametrize("text", HOSTILE_SEARCHES, ids=[repr(t) for t in HOSTILE_SEARCHES])
async def test_a_search_of_any_text_is_answered_on_every_path(client, backend, caplog, text):
    add_session(backend.engine, "agent:main:ops", [{"role": "user", "content": "the deploy failed again"}])
    caplog.set_level(logging.DEBUG)
    async with client:
        for path, body in _search_bodies(text):
            answer = await client.post(path, json=body)
            assert answer.status_code in (200, 400), (path, body, answer.text)
            if path == "/tools/invoke" and text.strip("\x00 \t") == "":
                assert answer.status_code == 200 or answer.json()["error"]["type"] == "tool_error"
            else:
                assert answer.status_code == 200, (path, body, answer.text)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_nul_between_words_separates_them_as_the_index_does(client, backend):
    add_session(backend.engine, "agent:main:ops", [{"role": "user", "content": "the deploy failed again"}])
    async with client:
        found = await client.post(OPS + "search", json={"requester": {}, "query": "deploy\x00failed"})
        assert [hit["sessionKey"] for hit in found.json()["outcome"]["hits"]] == ["agent:main:ops"]
        tool = await client.post("/tools/invoke", json={"tool": "sessions_search", "args": {"query": "failed\x00dep"}})
        assert tool.json()["result"]["details"]["results"] == []  # whole words, as the gateway's
        saying = await client.post(OPS + "browse", json={"requester": {}, "query": {"search": "~deploy\x00fail"}})
        assert [row["_key"] for row in saying.json()["rows"]] == ["agent:main:ops"]
        named = await client.post(OPS + "browse_count", json={"requester": {}, "query": {"search": "in\x00zz"}})
        assert named.json() == {"count": 0}  # no key, label or channel holds a NUL


# A lone surrogate spelled in a body's JSON (`"\ud800"`), in every op's text fields: read as U+FFFD,
# as `/tools/invoke` reads it, never the 500 of a string SQLite or the answer cannot encode.
SURROGATE_BODIES = [
    ("search", {"requester": {}, "query": "\ud800"}),
    ("search", {"requester": {}, "query": "x", "session": "\udfff"}),
    ("browse", {"requester": {"key": "\ud800"}, "query": {"search": "\ud800"}}),
    ("browse_count", {"requester": {}, "query": {"search": "~\ud800"}}),
    ("operator_sessions", {"search": "\ud800"}),
    ("owner_key", {"key": "\ud800"}),
    ("owner_command", {"key": "main", "text": "\ud800"}),
    ("browse_rows", {"requester": {}, "keys": ["\ud800"]}),
    ("children", {"key": "\ud800"}),
    ("announcements", {"key": "\ud800"}),
    ("run_label", {"run_id": "\ud800"}),
    ("sends", {"session": "\ud800"}),
    ("explain", {"requester": {}, "target": "\ud800", "agent": "\ud800"}),
    ("export", {"key": "\ud800"}),
]


def _spelled(body: dict[str, object]) -> bytes:
    """The body's JSON, ASCII: each lone surrogate the `\\udXXX` escape that spells it."""
    return json.dumps(body).encode()


@pytest.mark.parametrize("op, body", SURROGATE_BODIES, ids=[op for op, _ in SURROGATE_BODIES])
async def test_a_lone_surrogate_in_any_op_is_read_as_a_replacement_character(client, caplog, op, body):
    caplog.set_level(logging.DEBUG)
    raw = _spelled(body)
    assert b"\\ud" in raw
    async with client:
        answer = await client.post(OPS + op, content=raw)
    assert answer.status_code in (200, 400), answer.text
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_lone_surrogate_reads_as_the_replacement_character_it_is_stored_as(client, backend):
    add_session(backend.engine, "agent:main:ops", [{"role": "user", "content": "broken \ufffd text"}])
    async with client:
        found = await client.post(OPS + "search", content=b'{"requester":{},"query":"\\ud800broken"}')
        assert [hit["sessionKey"] for hit in found.json()["outcome"]["hits"]] == ["agent:main:ops"]


@pytest.mark.parametrize("op", ["owner_key", "export", "operator_sessions", "search"])
async def test_bytes_that_are_not_utf8_in_a_body_read_as_replacement_characters(client, caplog, op):
    caplog.set_level(logging.DEBUG)
    field = {"owner_key": "key", "export": "key", "operator_sessions": "search", "search": "query"}[op]
    requester = b'"requester":{},' if op == "search" else b""
    async with client:
        answer = await client.post(OPS + op, content=b"{" + requester + b'"' + field.encode() + b'":"a\xc3\xffb"}')
        tool = await client.post("/tools/invoke", content=b'{"tool":"sessions_search","args":{"query":"a\xc3b"}}')
    assert answer.status_code == 200, answer.text
    assert tool.status_code == 200, tool.text
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_json_problem_says_what_is_wrong_not_always_a_number_too_large():
    from sessions_tui.backend.toolkit.inputs import json_problem, loads_json

    with pytest.raises(ValueError) as big:
        loads_json("1" * 5000)
    assert json_problem(big.value) == "JSON number too large"
    with pytest.raises(ValueError) as undecodable:
        loads_json(b'{"key":"\xc3"}')
    assert json_problem(undecodable.value) == "not UTF-8 text (byte 8)"
