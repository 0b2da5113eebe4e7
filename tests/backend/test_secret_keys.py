"""A session key is user data and may hold a secret (a channel id, a label a token was pasted into):
every face shows it redacted — `search` and `sends` (text and --json, here and over `--remote`), the
operator API's answers and events — and a key shown redacted still names its session when a face
passes it back. Errors that repeat what was typed repeat it redacted (the command line and HTTP)."""

from __future__ import annotations

import random

import httpx
import pytest

from conftest import FAST_DEMO, add_session
from secret_corpus import KINDS, leaks, secret
from server_support import TOKEN, local_backend, served
from sessions_tui.backend.local.backend import LocalBackend
from sessions_tui.cli import main

AUTH = {"authorization": f"Bearer {TOKEN}"}
OPS = "/sessions-tui/v1"
# Keys are stored lower case (canonical), so a secret whose case is part of it is no longer that
# secret there, nor recognisable: a bare 40-character AWS secret, a private key's body.
CASE_BOUND = {"aws secret bare", "pem", "pem without end"}
SLACK = "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"
SLACK_KEY = f"agent:main:slack:channel:{SLACK}"
CORE_OF_SLACK = SLACK.rsplit("-", 1)[1]


def _plant(backend: LocalBackend) -> tuple[list[str], list[str]]:
    """A session per kind of secret, its key holding the secret, each with a message and a send in
    the ledger (the secret one's by its sessionId, as the owner). Returns the keys and the cores."""
    engine, rng = backend.engine, random.Random(25)
    keys, cores = [], []
    for kind in sorted(set(KINDS) - CASE_BOUND):
        text, core = secret(kind, rng)
        key = add_session(engine, f"agent:main:slack:channel:{text}", [{"role": "user", "content": "rollback now"}])
        keys.append(key)
        cores.append(core.lower())
        me = engine.main_session_key()
        engine.ledger.open(run_id=f"run-{kind}", requester=me, target=key, message="hi", via="owner", chain=[me, key])
    add_session(engine, SLACK_KEY, [{"role": "user", "content": "rollback there"}])
    keys.append(SLACK_KEY)
    cores.append(CORE_OF_SLACK)
    engine.ledger.flush()
    return keys, cores


@pytest.fixture
def planted(tmp_path, capsys):
    state = tmp_path / "state"
    backend = local_backend(state, {**FAST_DEMO})
    keys, cores = _plant(backend)
    session_id = backend.engine.store.sessions.session_id_of(SLACK_KEY) or ""
    assert main(["--state", str(state), "send", session_id, "hi", "--timeout", "5"]) == 0  # named by its sessionId
    assert CORE_OF_SLACK not in capsys.readouterr().out
    return backend, state, keys, cores


def _cli(capsys, *args: str) -> str:
    code = main(list(args))
    said = capsys.readouterr()
    assert code == 0, said.err
    return said.out + said.err


COMMANDS = [("search", "rollback", "--limit", "500"), ("search", "--json", "rollback", "--limit", "500")]
COMMANDS += [("sends", "--limit", "500"), ("sends", "--json", "--limit", "500")]


def test_search_and_sends_show_no_secret_of_a_key_here_or_over_a_server(planted, capsys):
    backend, state, keys, cores = planted
    outputs = [_cli(capsys, "--state", str(state), *command) for command in COMMANDS]
    with served(backend) as url:
        outputs += [_cli(capsys, "--remote", url, "--token", TOKEN, *command) for command in COMMANDS]
    for command, out in zip(COMMANDS * 2, outputs, strict=True):
        assert not leaks(out, cores), (command, leaks(out, cores))
        assert "agent:main:slack:channel:xoxb-1…uvwx" in out, command  # the sessions are there, masked
    assert all(out.count("agent:main:slack:channel:") >= len(keys) for out in outputs)


def _op(url: str, op: str, body: dict[str, object]) -> str:
    answer = httpx.post(f"{url}{OPS}/{op}", json=body, headers=AUTH, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.text


def test_the_operator_api_shows_no_secret_of_a_key_and_takes_its_masked_keys_back(planted):
    backend, _, _, cores = planted
    me = {"key": None, "sandboxed": False}
    with served(backend) as url:
        page = httpx.post(f"{url}{OPS}/browse", json={"requester": me, "query": {}}, headers=AUTH).json()
        shown = [row["_key"] for row in page["rows"]]
        masked = next(key for key in shown if key.startswith("agent:main:slack:channel:xoxb-1…"))
        answers = {
            "browse": str(page),
            "browse_rows": _op(url, "browse_rows", {"requester": me, "keys": shown}),
            "operator_sessions": _op(url, "operator_sessions", {}),
            "sends": _op(url, "sends", {}),
            "sends of one": _op(url, "sends", {"session": masked}),
            "search": _op(url, "search", {"requester": me, "query": "rollback", "limit": 500}),
            "owner_key": _op(url, "owner_key", {"key": backend.engine.store.sessions.session_id_of(SLACK_KEY) or ""}),
            "owner_key masked": _op(url, "owner_key", {"key": masked}),
            "explain": _op(url, "explain", {"requester": me, "target": masked}),
            "export": _op(url, "export", {"key": masked}),
            "history": httpx.post(
                f"{url}/tools/invoke", json={"tool": "sessions_history", "args": {"sessionKey": masked}}, headers=AUTH
            ).text,
        }
    for op, text in answers.items():
        assert not leaks(text, cores), (op, leaks(text, cores))
    rows = httpx.Response(200, text=answers["browse_rows"]).json()["rows"]
    assert set(rows) == set(shown)  # every row under the key it was asked by
    sends = httpx.Response(200, text=answers["sends of one"]).json()["sends"]
    assert sends and all(entry["target"] == masked for entry in sends)  # the masked key filtered the ledger
    assert masked in answers["owner_key"] and masked in answers["owner_key masked"]
    assert '"ok":true' in answers["history"] and "rollback there" in answers["history"]
    assert "rollback there" in answers["export"] and '"verdicts"' in answers["explain"]


def test_a_masked_key_names_its_session_only_when_one_session_masks_so(tmp_path):
    backend = local_backend(tmp_path / "state")
    engine = backend.engine
    one = add_session(engine, "agent:main:slack:channel:xoxb-123456789012-1234567890123-aaaaaaaaaaaaaaaaaaaauvwx")
    masked = engine.shown_key(one)
    assert masked == "agent:main:slack:channel:xoxb-1…uvwx"
    assert engine.canonical(masked) == one
    add_session(engine, "agent:main:slack:channel:xoxb-123456789012-1234567890123-bbbbbbbbbbbbbbbbbbbbuvwx")
    assert engine.canonical(masked) == masked  # two sessions show so: it names neither


def test_the_event_stream_shows_a_key_redacted():
    from sessions_tui.backend.values.vocabulary import MessageAppended
    from sessions_tui.engine.redaction.redact import default_redactor
    from sessions_tui.server.events import wire_event

    data = wire_event(MessageAppended(session_key=SLACK_KEY, role="user"), default_redactor().redact)
    assert data["session_key"] == "agent:main:slack:channel:xoxb-1…uvwx"


TYPED = "xoxb-123456789012-1234567890123-zzzzzzzzzzzzzzzzzzzzzzzz"
CORE = "zzzzzzzzzzzzzzzzzzzzzzzz"


@pytest.mark.parametrize(
    "args",
    [
        ("export", TYPED),
        ("export", f"agent:main:slack:channel:{TYPED}"),
        ("explain", "main", f"agent:main:slack:channel:{TYPED}"),
        ("explain", TYPED, "main"),
        ("tool", "--as", f"{TYPED} x", "sessions_list"),
        ("tool", f"sessions_{TYPED}"),
        ("sends", "--session", f"{TYPED} x"),
    ],
)
def test_a_command_lines_error_repeats_what_was_typed_redacted(tmp_path, capsys, args):
    code = main(["--state", str(tmp_path / "state"), *args])
    said = capsys.readouterr()
    assert code == 2 and "xoxb-1…zzzz" in said.err and CORE not in said.err + said.out, said


def test_searching_or_sending_to_an_unknown_session_repeats_it_redacted(tmp_path, capsys):
    state = str(tmp_path / "state")
    assert main(["--state", state, "search", "--session", TYPED, "anything"]) == 1
    assert main(["--state", state, "send", TYPED, "hi", "--timeout", "0"]) == 1
    out = capsys.readouterr().out
    assert "refused: Session not found: xoxb-1…zzzz" in out and "→ xoxb-1…zzzz" in out
    assert "error · Session not found: xoxb-1…zzzz" in out and CORE not in out


def test_http_errors_repeat_what_was_asked_redacted(tmp_path):
    backend = local_backend(tmp_path / "state")
    me = {"key": None, "sandboxed": False}
    with served(backend) as url:
        answers = [
            httpx.post(f"{url}/tools/invoke", json={"tool": f"x_{TYPED}"}, headers=AUTH),
            httpx.post(f"{url}/tools/invoke", json={"tool": "sessions_list", "sessionKey": TYPED}, headers=AUTH),
            httpx.post(f"{url}{OPS}/x_{TYPED}", json={}, headers=AUTH),
            httpx.post(f"{url}{OPS}/browse", json={"requester": me, "query": {}, TYPED: 1}, headers=AUTH),
            httpx.post(f"{url}{OPS}/explain", json={"requester": me, "target": TYPED}, headers=AUTH),
            httpx.post(f"{url}{OPS}/search", json={"requester": me, "query": "x", "session": TYPED}, headers=AUTH),
        ]
    texts = [answer.text for answer in answers]
    assert [answer.status_code for answer in answers[:4]] == [404, 200, 404, 400], texts
    assert "Tool not available: x_xoxb-1…zzzz" in texts[0] and "Unknown operation: x_xoxb-1…zzzz" in texts[2]
    assert all(CORE not in text for text in texts), texts
    assert "xoxb-1…zzzz" in texts[3] and "xoxb-1…zzzz" in texts[4] and "xoxb-1…zzzz" in texts[5]


def test_following_openclaw_names_a_changed_session_redacted(tmp_path):
    import io

    from sessions_tui.cli.commands.import_openclaw import FollowPrinter
    from sessions_tui.engine.openclaw.follow import FollowTick
    from sessions_tui.engine.openclaw.mirror import ImportReport

    out = io.StringIO()
    backend = local_backend(tmp_path / "state")
    FollowPrinter(out, io.StringIO(), show_key=backend.display).tick(
        FollowTick(report=ImportReport(changed={SLACK_KEY: 2}), first=False)
    )
    assert "agent:main:slack:channel:xoxb-1…uvwx  +2 lines" in out.getvalue() and CORE_OF_SLACK not in out.getvalue()


AGENT = "ghp_zq8lm3np7rt2vx6bz1cd5fg9hj4kk0ll2mm3"  # a valid agent id that is a token
CORE_OF_AGENT = "zq8lm3np7rt2vx6bz1cd5fg9hj4kk0ll"


def test_explain_names_the_agent_it_was_asked_about_redacted(tmp_path, capsys):
    state = tmp_path / "state"
    backend = local_backend(state)
    add_session(backend.engine, "agent:main:main", [{"role": "user", "content": "hi"}])
    asked = ("explain", "main", "main", "--agent", AGENT.upper())
    outputs = [_cli(capsys, "--state", str(state), *asked), _cli(capsys, "--state", str(state), *asked, "--json")]
    me = {"key": None, "sandboxed": False}
    with served(backend) as url:
        outputs += [_cli(capsys, "--remote", url, "--token", TOKEN, *asked)]
        outputs += [_op(url, "explain", {"requester": me, "target": "main", "agent": AGENT})]
    assert "spawn under agent ghp_zq…2mm3" in outputs[0]
    assert '"spawn_agent": "ghp_zq…2mm3"' in outputs[1]
    for out in outputs:
        assert CORE_OF_AGENT not in out.lower() and "ghp_zq…2mm3" in out, out


def test_browse_rows_answers_under_redacted_keys_and_a_remote_face_gets_them_back(planted):
    import asyncio

    from sessions_tui.backend.contract.types import Requester
    from sessions_tui.backend.remote.backend import RemoteBackend
    from sessions_tui.backend.values.views import BrowseQuery

    backend, _, keys, cores = planted
    me = {"key": None, "sandboxed": False}

    async def ask(remote: RemoteBackend) -> tuple[list[str], dict[str, object], dict[str, object]]:
        try:
            page = await remote.browse(Requester(), BrowseQuery(), offset=0, limit=500)
            shown = [row["_key"] for row in page.rows]
            return (
                shown,
                await remote.browse_rows(Requester(), shown),
                await remote.browse_rows(Requester(), [SLACK_KEY]),
            )
        finally:
            await remote.aclose()

    with served(backend) as url:
        raw = _op(url, "browse_rows", {"requester": me, "keys": keys})
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()
        shown, by_shown, by_raw = asyncio.run(ask(remote))
    assert not leaks(raw, cores), leaks(raw, cores)
    assert "agent:main:slack:channel:xoxb-1…uvwx" in httpx.Response(200, text=raw).json()["rows"]
    assert set(by_shown) == set(shown) and set(by_raw) == {SLACK_KEY}  # each row under the key asked by


def test_the_info_op_sends_no_redaction_pattern_and_its_texts_redacted(tmp_path):
    from sessions_tui.backend.remote.backend import RemoteBackend

    literal = "HunterPassw0rd77xyz"
    config = {
        "logging": {"redactPatterns": [literal, "pin=(\\d+)"]},
        "agents": {"list": [{"id": "ops", "name": f"ops {AGENT}"}]},
    }
    backend = local_backend(tmp_path / "state", config)
    with served(backend) as url:
        info = _op(url, "info", {})
        remote = RemoteBackend(url, TOKEN)
        remote.connect_blocking()  # the config it is given still reads as one
        remote.close()
    assert literal not in info and "redactPatterns" not in info and "pin=" not in info, info
    assert CORE_OF_AGENT not in info and "ops ghp_zq…2mm3" in info, info
