"""Export over `--remote`: the operator API's export op sends the server's redacted export, the
command renders it as locally; among several servers the key's server answers."""

from __future__ import annotations

import asyncio
import json

from server_support import TOKEN, local_backend, served
from sessions_tui.backend.remote.backend import RemoteBackend
from sessions_tui.backend.several import SeveralBackends
from sessions_tui.cli import main
from sessions_tui.engine.export import SessionExport, render_html, render_jsonl, render_markdown, write_layout

SECRET = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"
MAIN = "agent:main:main"


def _connected(url: str) -> RemoteBackend:
    remote = RemoteBackend(url, TOKEN)
    remote.connect_blocking()
    return remote


def test_a_remote_export_is_the_servers_redacted_export(tmp_path, capsys):
    backend = local_backend(tmp_path / "s", seed=True)
    local = asyncio.run(backend.export_session("main"))
    assert local is not None and local.redacted and SECRET not in "".join(local.lines)

    async def ask(url: str) -> tuple[object, object, object]:
        remote = _connected(url)
        try:
            found = await remote.export_session("main")
            missing = await remote.export_session("agent:main:nope")
            by_id = await remote.export_session("11111111-1111-4111-8111-111111111111")
        finally:
            await remote.aclose()
        return found, missing, by_id

    with served(backend) as url:
        found, missing, by_id = asyncio.run(ask(url))
        code = main(["--remote", url, "--token", TOKEN, "export", "main", "--format", "jsonl"])
    out = capsys.readouterr().out
    assert found == local and by_id == local and missing is None
    assert code == 0 and out == render_jsonl(local) and SECRET not in out


def test_among_several_servers_the_keys_server_exports_it(tmp_path):
    one = local_backend(tmp_path / "one", seed=True)
    two = local_backend(tmp_path / "two")

    async def ask(url_one: str, url_two: str) -> object:
        both = SeveralBackends([_connected(url_one), _connected(url_two)])
        try:
            return await both.export_session(f"{url_one.removeprefix('http://')}/{MAIN}")
        finally:
            await both.aclose()

    with served(one) as url_one, served(two) as url_two:
        found = asyncio.run(ask(url_one, url_two))
    label = url_one.removeprefix("http://")
    assert isinstance(found, SessionExport)
    # The key is the server's own (a JSONL export imports back as that session); the server is named apart.
    assert found.key == MAIN and found.server == label
    assert f"- **Server:** {label}" in render_markdown(found)
    assert f"<dt>Server</dt><dd>{label}</dd>" in render_html(found)
    layout = write_layout(found, tmp_path / "out")
    assert MAIN in json.loads((layout.parent / "sessions.json").read_text())
