"""Pilot tests of the composer: its tab order, what sends, and what it says about a send."""

import random

from openai_server import Reply
from secret_corpus import LEAK_WINDOW, leaks, secret
from sessions_tui.backend.values.vocabulary import RunEnded
from ui_support import SIZE, demo_app, select, settle, text_of, until

DEV = "agent:main:discord:group:dev"


async def test_tab_goes_message_then_wait_then_send_then_out_of_the_composer(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.main_screen
        await pilot.press("enter")
        assert app.focused.id == "message"
        order = []
        for _ in range(3):
            await pilot.press("tab")
            order.append(app.focused.id)
        assert order[:2] == ["timeout", "send-button"]
        assert app.focused not in screen.query_one("#composer").query("*")
        screen.query_one("#message").focus()
        await pilot.press("shift+tab")
        assert app.focused not in screen.query_one("#composer").query("*")
        screen.query_one("#send-button").focus()
        await pilot.press("shift+tab", "shift+tab")
        assert app.focused.id == "message"


async def test_the_composer_says_that_enter_sends_one_line_and_enter_does(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        message = app.main_screen.query_one("#message")
        assert "enter sends (one line)" in message.placeholder
        assert "wait" in [text_of(label) for label in app.main_screen.query_one("#composer-head").query("Label")]
        await pilot.press("enter", *"hi", "enter")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith("ok"), "the send's outcome")


async def test_a_reply_after_the_timeout_is_said_with_its_run_id(tmp_path):
    app = demo_app(tmp_path / "s", latency_ms=1500)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        app.main_screen.query_one("#timeout").value = "1"
        await pilot.press("enter", *"count the words in: one two", "ctrl+s")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith("timeout"), "the timeout")
        run_id = app.main_screen.query_one("#composer").run_id
        await until(pilot, lambda: "reply arrived after the timeout" in text_of(outcome), "the late reply")
        assert text_of(outcome) == f"reply arrived after the timeout · run {run_id[:8]} · see the transcript"


async def test_a_late_reply_for_a_send_no_longer_shown_is_a_toast(tmp_path):
    app = demo_app(tmp_path / "s", latency_ms=4000)  # the run ends well after the move to another session
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        app.main_screen.query_one("#timeout").value = "1"
        await pilot.press("enter", *"count the words in: one two", "ctrl+s")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith("timeout"), "the timeout")
        run_id = app.main_screen.query_one("#composer").run_id
        await pilot.press("escape", "down")  # the composer now shows another session
        await until(pilot, lambda: app.main_screen.query_one("#composer").key != DEV, "another session to open")
        await until(
            pilot,
            lambda: any("reply arrived after the timeout" in n.message for n in app._notifications),
            "the late reply's toast",
        )
        toast = next(n for n in app._notifications if "reply arrived after the timeout" in n.message)
        assert toast.message == f"{DEV}: reply arrived after the timeout · run {run_id[:8]} · see the transcript"
        assert text_of(outcome) == ""


async def test_an_idle_composer_takes_two_rows_and_grows_for_a_sends_news(tmp_path):
    """Head and message only until there is something to say: the outcome and the log rows were
    empty lines under the message (two of 24 rows at 80x24)."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        composer = app.main_screen.query_one("#composer")
        rows = composer.content_region.height
        assert rows == 2
        await pilot.press("enter", *"hi", "enter")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith("ok"), "the send's outcome")
        await until(
            pilot, lambda: composer.content_region.height > rows and outcome.region.height >= 1, "the outcome's row"
        )


async def test_the_owners_send_command_answers_in_the_outcome(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        await pilot.press("enter", *"/send off", "enter")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: "Send policy set to off." in text_of(outcome), "the command's reply")
        table = app.main_screen.query_one("#sessions")
        await until(pilot, lambda: str(table.cell(DEV, "send")) == "deny*", "the override in the table")


def _model_config(url: str) -> dict:
    """Every session's model on the scripted OpenAI-compatible server (what it says, said raw)."""
    return {
        "models": {"providers": {"local": {"baseUrl": url, "apiKey": "test-key"}}},
        "agents": {"defaults": {"model": "local/test-model"}},
    }


def _saying_secrets(seed: str, cuts: tuple[int, ...]) -> tuple[str, list[str]]:
    """A reply with one secret whole near its head and one whose core the cut at each of `cuts`
    splits (were the text cut before it is redacted); and the secrets' cores."""
    rng = random.Random(seed)
    head, core = secret("aws secret bare", rng)
    text, cores = f"{head} then", [core]
    for cut, kind in zip(cuts, ("github", "gitlab"), strict=False):
        planted, core = secret(kind, rng)
        middle = planted.index(core[:LEAK_WINDOW]) + len(core) // 2
        text += " " + "w" * max(1, cut - len(text) - 2 - middle) + " " + planted
        cores.append(core)
    return text + " and the end.", cores


async def test_no_fragment_of_a_secret_a_run_says_is_ever_in_the_composer(tmp_path, openai_server):
    """The send log quotes the engine's events, which carry what the agents wrote: the reply, each
    ping-pong turn (cut at 160) and the announce (cut at 200) show redacted, then cut."""
    said, cores = _saying_secrets("composer", (159, 199))
    openai_server.default = Reply(text=said)
    app = demo_app(tmp_path / "s", _model_config(openai_server.url))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.main_screen
        log, outcome = screen.query_one("#send-log"), screen.query_one("#outcome")
        shown: list[str] = []

        def seen(condition):
            def check():
                shown.append(f"{text_of(outcome)}\n{text_of(log)}")
                return condition()

            return check

        await select(pilot, DEV)
        for wait in ("0", "30"):  # accepted: the reply is a log line; ok: the outcome quotes it
            screen.query_one("#timeout").value = wait
            await pilot.press("enter", *"hi", "ctrl+s")
            await until(pilot, seen(lambda: "announce (" in text_of(log)), "the announce in the send log")
            assert leaks("\n".join(shown), cores) == [], shown[-1]
            lines = text_of(log).splitlines()
            assert [line.split(" · ")[0] for line in lines] == [
                *(["reply"] if wait == "0" else []),
                "↔ turn 1 of 2",
                "↔ turn 2 of 2",
                "announce (recorded in the outbox)",
            ], lines
            assert all(f"{cores[0][:6]}…{cores[0][-4:]}" in line for line in lines)  # quoted, masked
            await app.engine.drain()
            await pilot.press("escape")
        assert text_of(outcome).startswith("ok")  # the second send waited for its reply


async def test_a_run_that_ends_in_error_after_the_timeout_says_its_error_redacted(tmp_path):
    """The late outcome quotes the run's error, which may quote a secret (a provider's answer, a
    tool's failure): it shows redacted, as every text from the engine does."""
    planted, core = secret("github", random.Random("late-error"))
    app = demo_app(tmp_path / "s", latency_ms=4000)  # the run goes on well past the timeout
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        app.main_screen.query_one("#timeout").value = "1"
        await pilot.press("enter", *"count the words in: one two", "ctrl+s")
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: text_of(outcome).startswith("timeout"), "the timeout")
        composer = app.main_screen.query_one("#composer")
        composer.on_engine_event(
            RunEnded(run_id=composer.run_id, session_key=DEV, status="error", error=f"HTTP 401: {planted}")
        )
        await until(pilot, lambda: "ended after the timeout" in text_of(outcome), "the late error")
        assert "HTTP 401: " in text_of(outcome) and leaks(text_of(outcome), [core]) == [], text_of(outcome)
