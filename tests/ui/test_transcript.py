"""The transcript pane: it follows the end across sessions of any length (new messages from another
process or from the engine, streamed text), leaves a reader who scrolled up where they are, opens
a big session at its newest messages and puts the rest above without moving the view, keeps the
reader's place when `m` adds older messages, jumps on home/end, streams thinking apart from the
reply, and counts messages in words."""

import subprocess
import sys

import pytest

from secret_corpus import leaks
from sessions_tui.engine.events import RunStarted, RunStreamed
from sessions_tui.ui.widgets.message_view import MessageView, StreamView
from sessions_tui.ui.widgets.transcript import FIRST_BATCH, TranscriptPane, message_count
from ui_support import demo_app, select, settle, text_of, until

DEV = "agent:main:discord:group:dev"
CRON = "agent:main:cron:nightly-report"
LONG = "agent:main:discord:group:long"
NODE = "agent:main:node-macbook"
SIZE = (160, 30)


def pane_of(app):
    return app.main_screen.query_one(TranscriptPane)


@pytest.fixture
def instant_stream(monkeypatch):
    """The preview redacts each delta at once (not at most five times a second)."""
    monkeypatch.setattr("sessions_tui.engine.redaction.stream.EVERY_S", 0.0)


def run_started(app, key: str, run_id: str = "r1") -> None:
    """A run's start, as the engine publishes it before the run streams."""
    app.engine.events.publish(RunStarted(ts=app.engine.now(), run_id=run_id, session_key=key))


def scroll_of(app):
    return app.main_screen.query_one("#messages")


def in_view(app, widget) -> bool:
    """Whether `widget` lies wholly inside the visible part of the messages, as laid out now."""
    region = widget.region
    return region.height > 0 and scroll_of(app).scrollable_content_region.contains_region(region)


def newest_in_view(app, text: str) -> bool:
    views = list(scroll_of(app).query(MessageView))
    return bool(views) and text in views[-1].plain and in_view(app, views[-1])


def pad(app, key: str, count: int) -> None:
    """Give `key` `count` messages shown with tools off (the demo's own, then chat lines)."""
    store = app.engine.store
    shown = [m for m in store.transcripts.history(key, limit=1000).messages if m.get("role") in ("user", "assistant")]
    for i in range(count - len(shown)):
        store.transcripts.append(
            key, {"role": "user" if i % 2 == 0 else "assistant", "content": f"{key} line {i}"}, touch=False
        )


def long_session(app, count: int) -> None:
    app.engine.store.sessions.create(LONG, {"updatedAt": 1_900_000_000_000})
    for i in range(count):
        app.engine.store.transcripts.append(LONG, {"role": "user", "content": f"m{i}"}, touch=False)


def append_from_another_process(state, key: str, *texts: str) -> None:
    code = (
        "import sys; from sessions_tui.engine.store.store import Store; s = Store(sys.argv[1]); "
        f"[s.transcripts.append({key!r}, {{'role': 'user', 'content': t}}) for t in {list(texts)!r}]"
    )
    subprocess.run([sys.executable, "-c", code, str(state)], check=True, timeout=30)


async def open_dev_then_cron(app, pilot) -> None:
    """The issue's steps: the dev group (40 messages), then the nightly report (18)."""
    await settle(pilot)
    await select(pilot, DEV)
    await until(pilot, lambda: pane_of(app).key == DEV and len(pane_of(app).query(MessageView)) == 40, "the dev group")
    await select(pilot, CRON)
    await until(pilot, lambda: pane_of(app).key == CRON and len(pane_of(app).query(MessageView)) == 18, "the cron job")
    await until(pilot, lambda: scroll_of(app).max_scroll_y > 0, "a transcript longer than the pane")


def demo_with_long_dev_and_cron(state, config=None):
    app = demo_app(state, config)
    pad(app, DEV, 40)
    pad(app, CRON, 18)
    return app


async def test_after_a_longer_transcript_a_message_from_another_process_is_followed(tmp_path):
    state = tmp_path / "s"
    app = demo_with_long_dev_and_cron(state)
    async with app.run_test(size=SIZE) as pilot:
        await open_dev_then_cron(app, pilot)
        append_from_another_process(state, CRON, "written elsewhere")
        await until(pilot, lambda: newest_in_view(app, "written elsewhere"), "the new message in view")


async def test_after_a_longer_transcript_a_reply_through_the_engine_is_followed(tmp_path):
    app = demo_with_long_dev_and_cron(tmp_path / "s", {"models": {"demo": {"latencyMs": 0}}})
    async with app.run_test(size=SIZE) as pilot:
        await open_dev_then_cron(app, pilot)
        await pilot.press("enter", *"status please", "ctrl+s")
        await app.engine.drain()
        await until(pilot, lambda: "ok" in text_of(app.main_screen.query_one("#outcome")), "the reply")
        await app.engine.drain()  # the ping-pong turns and the announce too
        await settle(pilot)
        views = scroll_of(app).query(MessageView)
        assert len(views) > 20 and views[-1].message["role"] == "assistant"
        await until(pilot, lambda: in_view(app, scroll_of(app).query(MessageView)[-1]), "the newest reply in view")


async def test_streamed_text_keeps_the_end_in_view(tmp_path, instant_stream):
    app = demo_with_long_dev_and_cron(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await open_dev_then_cron(app, pilot)
        preview = scroll_of(app).query_one(StreamView)
        run_started(app, CRON)
        for i in range(12):
            app.engine.events.publish(
                RunStreamed(
                    ts=app.engine.now(), session_key=CRON, run_id="r1", kind="text", delta=f"line {i} of a long reply\n"
                )
            )
        await until(pilot, lambda: "line 11" in preview.plain and in_view(app, preview), "the streamed text in view")
        assert preview.size.height == len(preview.plain.split("\n"))  # all of it, the newest line too


async def test_a_reader_who_scrolled_up_stays_put_whoever_writes(tmp_path, instant_stream):
    state = tmp_path / "s"
    app = demo_with_long_dev_and_cron(state)
    async with app.run_test(size=SIZE) as pilot:
        await open_dev_then_cron(app, pilot)
        await select(pilot, DEV)
        await until(pilot, lambda: len(pane_of(app).query(MessageView)) == 40, "the dev group")
        scroll = scroll_of(app)
        scroll.scroll_to(y=5, animate=False)
        await settle(pilot)
        append_from_another_process(state, DEV, "while reading")
        await until(pilot, lambda: "while reading" in scroll.query(MessageView)[-1].plain, "the new message")
        run_started(app, DEV)
        app.engine.events.publish(
            RunStreamed(
                ts=app.engine.now(), session_key=DEV, run_id="r1", kind="text", delta="streaming meanwhile\n" * 5
            )
        )
        await until(pilot, lambda: "streaming meanwhile" in scroll.query_one(StreamView).plain, "the stream")
        await settle(pilot)
        assert scroll.scroll_y == 5
        scroll.focus()
        await pilot.press("end")
        append_from_another_process(state, DEV, "and after")
        await until(pilot, lambda: newest_in_view(app, "and after"), "following again once back at the end")


async def test_a_scroll_that_goes_nowhere_keeps_following(tmp_path):
    """A page-down at the end, or any scroll of a transcript shorter than the pane, is not the
    reader leaving the end."""
    state = tmp_path / "s"
    app = demo_with_long_dev_and_cron(state)
    async with app.run_test(size=SIZE) as pilot:
        await open_dev_then_cron(app, pilot)
        scroll = scroll_of(app)
        scroll.focus()
        await pilot.press("pagedown")
        append_from_another_process(state, CRON, "after a page-down at the end")
        await until(pilot, lambda: newest_in_view(app, "after a page-down at the end"), "the new message in view")
        await select(pilot, NODE)  # a transcript shorter than the pane
        await until(pilot, lambda: pane_of(app).key == NODE and scroll.max_scroll_y == 0, "a short one")
        scroll.focus()
        await pilot.press("up", "pageup")
        append_from_another_process(state, NODE, *(f"growing {i}" for i in range(30)))
        await until(pilot, lambda: newest_in_view(app, "growing 29"), "the newest message in view")


async def test_a_big_transcript_shows_its_newest_messages_first_then_the_rest_above(tmp_path, monkeypatch):
    app = demo_app(tmp_path / "s")
    long_session(app, 450)
    held = []
    monkeypatch.setattr(TranscriptPane, "_fetch_page", lambda self, *args: held.append((self, args)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, whole_page=False)
        await select(pilot, LONG, whole_page=False)
        await until(pilot, lambda: newest_in_view(app, "m449"), "the newest message")
        assert len(pane_of(app).query(MessageView)) == FIRST_BATCH < 200
        pane, args = held.pop()
        monkeypatch.undo()
        pane._fetch_page(*args)
        await until(pilot, lambda: len(pane_of(app).query(MessageView)) == 200, "the whole page")
        await settle(pilot)
        assert newest_in_view(app, "m449")  # the older part went in above without moving the view
        assert scroll_of(app).query(MessageView)[0].plain.endswith("m250")


async def test_the_rest_of_the_page_keeps_a_reader_who_scrolled_up_in_place(tmp_path, monkeypatch):
    app = demo_app(tmp_path / "s")
    long_session(app, 450)
    held = []
    monkeypatch.setattr(TranscriptPane, "_fetch_page", lambda self, *args: held.append((self, args)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, whole_page=False)
        await select(pilot, LONG, whole_page=False)
        await until(pilot, lambda: held and newest_in_view(app, "m449"), "the newest messages")
        scroll = scroll_of(app)
        scroll.scroll_to(y=3, animate=False)
        await settle(pilot, whole_page=False)
        top = scroll.first_visible()
        row = top.region.y
        rows = []  # the top message's row in every layout the compositor paints from
        arrange = scroll.arrange

        def noting_arrange(size, optimal=False):
            result = arrange(size, optimal)
            rows.extend(p.region.y - scroll.scroll_y for p in result.placements if p.widget is top)
            return result

        scroll.arrange = noting_arrange
        pane, args = held.pop()
        monkeypatch.undo()
        pane._fetch_page(*args)
        await until(pilot, lambda: len(pane_of(app).query(MessageView)) == 200, "the whole page")
        await settle(pilot)
        assert top.region.y == row and scroll.first_visible() is top
        assert scroll.scroll_y > 100
        assert rows and set(rows) == {rows[0]}  # no frame showed the view jumped


async def test_older_messages_keep_the_readers_place_and_home_end_jump(tmp_path):
    app = demo_app(tmp_path / "s")
    long_session(app, 450)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, LONG)
        scroll = scroll_of(app)
        await until(pilot, lambda: len(pane_of(app).query(MessageView)) == 200, "the page")
        animated = []
        animate = scroll.animate
        scroll.animate = lambda attribute, *args, **kwargs: (
            animated.append(attribute),
            animate(attribute, *args, **kwargs),
        )[1]
        scroll.focus()
        await pilot.press("home")
        assert scroll.scroll_y == 0
        top = scroll.first_visible()
        assert top.message["content"] == "m250"
        row = top.region.y
        await pilot.press("m")
        await until(pilot, lambda: len(pane_of(app).query(MessageView)) == 400, "the older page")
        await settle(pilot)
        assert top.region.y == row and scroll.first_visible() is top  # m250 stays on the same screen row
        assert scroll.scroll_y > 0
        await pilot.press("end")
        assert scroll.scroll_y == scroll.max_scroll_y
        assert not app.animator.is_being_animated(scroll, "scroll_y")
        await pilot.press("home")
        assert scroll.scroll_y == 0
        assert not app.animator.is_being_animated(scroll, "scroll_y")
        assert "scroll_y" not in animated  # jumps, never an animation


async def test_streaming_shows_thinking_apart_from_the_reply(tmp_path, instant_stream):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = pane_of(app)
        now = app.engine.now()
        run_started(app, pane.key)
        for kind, delta in (
            ("thinking", "weighing "),
            ("text", "Hello "),
            ("thinking", "options "),
            ("text", "there "),
        ):
            app.engine.events.publish(RunStreamed(ts=now, session_key=pane.key, run_id="r1", kind=kind, delta=delta))
        preview = pane.query_one(StreamView)
        await until(pilot, lambda: "there" in preview.plain, "the streamed reply")
        lines = [line.rstrip() for line in preview.plain.splitlines()]
        assert lines == ["assistant  streaming…", "thinking", "weighing options", "Hello there"]
        _, thought = preview.parts()[2]
        assert {str(s.style) for s in thought.spans} == {"italic dim"}
        assert in_view(app, preview)


async def test_thinking_opens_and_closes_on_a_click(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, DEV)
        view = next(v for v in pane_of(app).query(MessageView) if v.thinking_blocks())
        assert "▶ thinking · 39 chars" in view.plain and not view.open_thinking
        height = view.size.height
        await pilot.click(view, offset=(4, 1))  # the line under the header
        await until(pilot, lambda: view.open_thinking and view.size.height > height, "the thinking open")
        assert "▼ thinking · 39 chars" in view.plain
        await pilot.click(view, offset=(4, 1))
        await until(pilot, lambda: not view.open_thinking and view.size.height == height, "the thinking closed")


async def test_the_title_counts_messages_in_words(tmp_path):
    assert (message_count(0), message_count(1), message_count(2), message_count(1234)) == (
        "0 messages",
        "1 message",
        "2 messages",
        "1,234 messages",
    )
    app = demo_app(tmp_path / "s")
    app.engine.store.sessions.create("agent:main:discord:group:one", {"updatedAt": 1_900_000_000_000})
    app.engine.store.transcripts.append("agent:main:discord:group:one", {"role": "user", "content": "hi"}, touch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "agent:main:discord:group:one")
        title = pane_of(app).query_one("#transcript-title")
        await until(pilot, lambda: "message" in text_of(title), "the title")
        assert "   1 message" in text_of(title) and "1 messages" not in text_of(title)


async def test_a_transcript_that_just_fits_is_laid_out_alike_however_the_pane_got_its_size(tmp_path):
    """A transcript exactly as tall as the pane, whose last line fills its width, fits with no
    scrollbar and does not fit with one: it must show the same whether the pane last had a row more
    or a row less (the order of layouts also made the first frame of the dashboard vary)."""
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        scroll = scroll_of(app)
        width, height = scroll.size
        lines = ["x"] * (height - 3) + ["y" * (width - 2)]  # under a header line, above the margin
        app.engine.store.sessions.create(LONG, {"updatedAt": 1_900_000_000_000})
        app.engine.store.transcripts.append(LONG, {"role": "user", "content": "\n".join(lines)}, touch=False)
        await pilot.press("r")  # written in this process: no change of data_version to notice
        await until(pilot, lambda: LONG in app.main_screen.query_one("#sessions").rows_by_key, "the session listed")
        await select(pilot, LONG)
        await until(pilot, lambda: pane_of(app).key == LONG and len(scroll.query(MessageView)) == 1, "the session")
        await settle(pilot)

        def layout():
            view = scroll.query_one(MessageView)
            return scroll.show_vertical_scrollbar, scroll.scroll_y, view.region, view.size

        after = {}
        for rows in (SIZE[1] + 1, SIZE[1] - 1):  # room for all of it, then too little
            await pilot.resize_terminal(SIZE[0], rows)
            await settle(pilot)
            await pilot.resize_terminal(*SIZE)
            await settle(pilot)
            after[rows] = layout()
        assert after[SIZE[1] + 1] == after[SIZE[1] - 1]


async def test_a_hit_with_only_its_line_id_opens_at_that_message(tmp_path):
    """An OpenClaw gateway's search hits name the message by its line id alone (no number): `enter`
    on one still opens its session at that message, paging back to it, and marks it."""
    app = demo_app(tmp_path / "s")
    long_session(app, 450)
    wanted = app.engine.store.transcripts.history(LONG, limit=1000).messages[30]
    assert wanted["content"] == "m30"
    entry_id = wanted["__openclaw"]["id"]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main_screen.show_session(LONG, None, entry_id)
        pane = pane_of(app)
        await until(pilot, lambda: bool(pane.query(".found")), "the message marked")
        found = list(pane.query(".found"))
        assert [v.message["content"] for v in found] == ["m30"]
        assert len(pane.query(MessageView)) == 450  # the older pages came in until it was shown
        await until(pilot, lambda: in_view(app, found[0]), "the message scrolled into view")


async def test_a_hit_stays_in_view_when_the_messages_above_it_are_laid_out_again(tmp_path):
    """The hit is kept at the top through every layout until the reader scrolls: messages above
    it laid out again taller (a narrower terminal wraps them to more lines) do not push it out."""
    app = demo_app(tmp_path / "s")
    app.engine.store.sessions.create(LONG, {"updatedAt": 1_900_000_000_000})
    for i in range(60):
        app.engine.store.transcripts.append(LONG, {"role": "user", "content": f"m{i} " + "word " * 40}, touch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main_screen.show_session(LONG, 40)
        pane = pane_of(app)
        await until(pilot, lambda: bool(pane.query(".found")), "the message marked")
        [found] = pane.query(".found")
        assert found.seq == 40
        await until(pilot, lambda: in_view(app, found), "the message scrolled into view")

        def from_top() -> int:  # lines below the top of the messages (the panes above may change height)
            return found.region.y - scroll_of(app).region.y

        top = from_top()
        await pilot.resize_terminal(SIZE[0] - 50, SIZE[1])  # every message above it wraps to more lines
        await until(pilot, lambda: in_view(app, found) and from_top() == top, "the message kept at the top")
        scroll_of(app).scroll_relative(y=-3, animate=False)  # the reader scrolls: the view is theirs again
        await until(pilot, lambda: from_top() == top + 3, "the message moved down three lines")


async def test_a_line_id_that_is_not_there_says_so(tmp_path):
    app = demo_app(tmp_path / "s")
    long_session(app, 30)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.main_screen.show_session(LONG, None, "no-such-line")
        await until(
            pilot,
            lambda: any("The message is not shown" in n.message for n in app._notifications),
            "the note that it is not shown",
        )
        assert not pane_of(app).query(".found")


async def test_the_preview_never_shows_a_secret_being_written(tmp_path, instant_stream):
    """A reply that writes out a key shows a word at a time, as far as the redaction of the text so
    far shows it: the key appears masked, never a piece of it while it is coming."""
    app = demo_app(tmp_path / "s")
    key = "sk-proj-" + "Q7vLm2pRt9sKw4nBz8cYd1fXa3eHj6uGo5iNl0bV"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = pane_of(app)
        preview = pane.query_one(StreamView)
        run_started(app, pane.key)
        reply = f"Your new key is {key} so keep it safe. "
        shown = []
        for i in range(0, len(reply), 3):
            delta = reply[i : i + 3]
            app.engine.events.publish(
                RunStreamed(ts=app.engine.now(), session_key=pane.key, run_id="r1", kind="text", delta=delta)
            )
            await pilot.pause()
            shown.append(preview.plain)
        await until(pilot, lambda: "safe." in preview.plain, "the whole reply")
        assert all(leaks(text, [key[8:]]) == [] for text in [*shown, preview.plain])
        assert "sk-pro…" in preview.plain and "Your new key is" in preview.plain


def test_a_reset_line_says_where_the_earlier_transcript_is(make_engine):
    """The Reset line a reset opens the new transcript with names the sessionId it replaced."""
    from conftest import add_session, run_tool
    from sessions_tui.engine import session_operations as ops

    engine = make_engine()
    add_session(engine, "discord:group:ops", [{"role": "user", "content": "before"}])
    old = ops.reset_session(engine, "discord:group:ops").previous_session_id
    [reset] = run_tool(engine, "sessions_history", {"sessionKey": "discord:group:ops"})["messages"]
    shown = MessageView(reset, False, str).plain
    assert shown.startswith("system  ") and f"earlier transcript {old} (export it by that id)" in shown
    assert shown.endswith("\nReset")
