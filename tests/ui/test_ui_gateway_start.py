"""The dashboard on gateways' sockets starts its screens while they connect (`--remote ws://…`):
rows appear once a gateway has answered; a gateway that refuses ends the dashboard with its one line
(the command line then says it and exits 2), as a refusal before the screens did."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_support import as_on_a_terminal
from gateway_replay import ReplayGateway, replaying
from scenes import until
from sessions_tui.backend.gateway.live import GatewaySocketBackend
from sessions_tui.ui.app import SessionsApp
from ui_support import ordered_keys


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


async def test_the_screens_start_while_a_gateway_connects_and_show_its_rows() -> None:
    async with replaying(ReplayGateway()) as gateway:
        backend = GatewaySocketBackend(gateway.url, "shared")
        backend.connect_in_background()
        app = SessionsApp(backend, watch_store=False, steady=True)
        try:
            async with app.run_test(size=(160, 48)) as pilot:
                await until(pilot, lambda: len(ordered_keys(app)) == len(gateway.rows), "the gateway's rows")
                assert app.start_refused is None
                assert set(ordered_keys(app)) == {backend.display(r["key"]) for r in gateway.rows}
        finally:
            backend.close()


async def test_a_gateway_that_refuses_while_the_screens_start_ends_the_dashboard_with_its_line() -> None:
    async with replaying(ReplayGateway(outcomes=["mismatch"])) as gateway:
        backend = GatewaySocketBackend(gateway.url, "wrong")
        backend.connect_in_background()
        app = SessionsApp(backend, watch_store=False, steady=True)
        try:
            async with app.run_test(size=(80, 24)):
                pass
        finally:
            backend.close()
        assert app.return_code == 2
        assert app.start_refused is not None and "token" in app.start_refused.lower()


def test_the_dashboard_command_over_ws_starts_at_once_and_says_a_refusal_in_one_line(monkeypatch, capsys) -> None:
    """`sessions-tui --remote ws://…`: the backend comes unconnected (no wait before the screens);
    the refusal the app met when it started the backend is one line and exit 2."""
    import threading

    from sessions_tui import cli
    from sessions_tui.backend.remote.io_thread import IoThread

    io = IoThread("replayed gateway")
    gateway = ReplayGateway(outcomes=["mismatch"])
    serving = replaying(gateway)
    io.call(serving.__aenter__(), 10)
    opened: list[SessionsApp] = []

    def run(self: SessionsApp, *args: object, **kwargs: object) -> None:
        opened.append(self)
        assert threading.current_thread() is threading.main_thread()
        self.start_refused = "gateway refused: the token does not match"

    monkeypatch.setattr(SessionsApp, "run", run)
    as_on_a_terminal(monkeypatch)
    try:
        assert cli.main(["--remote", gateway.url, "--token", "wrong"]) == 2
    finally:
        io.call(serving.__aexit__(None, None, None), 10)
        io.stop()
    assert isinstance(opened[0].backend, GatewaySocketBackend) and opened[0].openclaw is None
    assert capsys.readouterr().err.strip().endswith("gateway refused: the token does not match")
