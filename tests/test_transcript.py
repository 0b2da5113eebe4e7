"""The transcript pane: it follows the end across sessions of any length, keeps the reader's place
when older messages arrive above, jumps on home/end, and keeps streaming thinking apart."""

import subprocess
import sys

from sessions_tui.engine.events import RunStreamed
from sessions_tui.ui.widgets.transcript import FIRST_BATCH, MessageView
from ui_support import demo_app, select, settle, text_of, until

DEV = "agent:main:discord:group:dev"
CRON = "agent:main:cron:nightly-report"
LONG = "agent:main:discord:group:long"
SIZE = (160, 30)


def pane_of(app):
    return app.main_screen.query_one("#transcript")


def newest_shown(app, text: str) -> bool:
    """Whether the last message holds `text` and lies inside the scrolled view."""
    scroll = app.main_screen.query_one("#messages")
    views = list(scroll.query(MessageView))
    if not views or text not in str(views[-1].message.get("content")):
        return False
    last = views[-1].virtual_region
    return last.height > 0 and scroll.scroll_y <= last.y and last.bottom <= scroll.scroll_y + scroll.size.height


def long_session(app, count: int) -> None:
    engine = app.engine
    engine.store.create(LONG, {"updatedAt": 1_900_000_000_000})
    for i in range(count):
        engine.store.append(LONG, {"role": "user", "content": f"m{i}"}, touch=False)


def append_from_another_process(state, key: str, text: str) -> None:
    code = ("import sys; from sessions_tui.engine.store import Store; "
            f"Store(sys.argv[1]).append({key!r}, {{'role': 'user', 'content': {text!r}}})")
    subprocess.run([sys.executable, "-c", code, str(state)], check=True, timeout=30)


async def test_after_a_long_transcript_a_shorter_one_still_follows_new_messages(tmp_path):
    state = tmp_path / "s"
    app = demo_app(state)
    long_session(app, 40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, LONG)
        await until(pilot, lambda: len(pane_of(app).query(MessageView)) == 40, "the long group's messages")
        await select(pilot, CRON)
        await until(pilot, lambda: pane_of(app).key == CRON and pane_of(app).query(MessageView), "the cron job")
        append_from_another_process(state, CRON, "written elsewhere")
        await until(pilot, lambda: newest_shown(app, "written elsewhere"), "the new message in view")


async def test_a_reply_from_the_composer_is_followed_too(tmp_path):
    app = demo_app(tmp_path / "s", {"models": {"demo": {"latencyMs": 0}}})
    long_session(app, 40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, LONG)
        await select(pilot, CRON)
        await pilot.press("enter", *"status please", "ctrl+s")
        await app.engine.drain()
        outcome = app.main_screen.query_one("#outcome")
        await until(pilot, lambda: "ok" in text_of(outcome), "the reply")
        scroll = app.main_screen.query_one("#messages")
        await until(pilot, lambda: len(scroll.query(MessageView)) > 2 and scroll.is_vertical_scroll_end
                    and scroll.max_scroll_y > 0, "the reply in view")
        last = scroll.query(MessageView)[-1]
        assert last.message["role"] == "assistant"
        assert last.virtual_region.bottom <= scroll.scroll_y + scroll.size.height


async def test_a_reader_who_scrolled_up_stays_put(tmp_path):
    state = tmp_path / "s"
    app = demo_app(state)
    long_session(app, 40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, LONG)
        scroll = app.main_screen.query_one("#messages")
        await until(pilot, lambda: scroll.max_scroll_y > 10, "a scrollable transcript")
        scroll.scroll_to(y=5, animate=False)
        await settle(pilot)
        append_from_another_process(state, LONG, "while reading")
        await until(pilot, lambda: "while reading" in str(pane_of(app).query(MessageView)[-1].message["content"]),
                    "the new message")
        await settle(pilot)
        assert scroll.scroll_y == 5
        scroll.action_scroll_end()  # what `end` does in the pane
        await settle(pilot)
        append_from_another_process(state, LONG, "and after")
        await until(pilot, lambda: newest_shown(app, "and after"), "following again once back at the end")


async def test_a_big_transcript_shows_its_newest_message_first_then_the_rest_above(tmp_path):
    app = demo_app(tmp_path / "s")
    long_session(app, 450)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, LONG)
        await until(pilot, lambda: newest_shown(app, "m449"), "the newest message")
        await until(pilot, lambda: len(pane_of(app).query(MessageView)) == 200, "the whole page")
        assert FIRST_BATCH < 200
        assert newest_shown(app, "m449")  # the older part went in above without moving the view


async def test_older_messages_keep_the_readers_place_and_home_end_jump(tmp_path):
    app = demo_app(tmp_path / "s")
    long_session(app, 450)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, LONG)
        scroll = app.main_screen.query_one("#messages")
        await until(pilot, lambda: len(pane_of(app).query(MessageView)) == 200, "the page")
        scroll.action_scroll_home()
        assert scroll.scroll_y == 0 and not app.animator.is_being_animated(scroll, "scroll_y")
        await settle(pilot)
        top = scroll.query(MessageView)[0]
        assert top.message["content"] == "m250"
        row = top.virtual_region.y - scroll.scroll_y
        await pilot.press("m")
        await until(pilot, lambda: len(pane_of(app).query(MessageView)) == 400, "the older page")
        await settle(pilot)
        assert top.virtual_region.y - scroll.scroll_y == row  # m250 stays on the same screen row
        assert scroll.scroll_y > 0
        scroll.action_scroll_end()
        assert scroll.scroll_y == scroll.max_scroll_y and not app.animator.is_being_animated(scroll, "scroll_y")


async def test_streaming_shows_thinking_apart_from_the_reply(tmp_path):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        pane = pane_of(app)
        now = app.engine.now()
        for kind, delta in (("thinking", "weighing "), ("text", "Hello "), ("thinking", "options"), ("text", "there")):
            app.engine.events.publish(RunStreamed(ts=now, session_key=pane.key, run_id="r1", kind=kind, delta=delta))
        preview = pane.query_one("#streaming")
        await until(pilot, lambda: "there" in text_of(preview), "the streamed reply")
        lines = text_of(preview).splitlines()
        assert lines[1] == "thinking · weighing options"
        assert lines[2] == "Hello there"


async def test_the_title_counts_one_message_in_the_singular(tmp_path):
    app = demo_app(tmp_path / "s")
    app.engine.store.create("agent:main:discord:group:one", {"updatedAt": 1_900_000_000_000})
    app.engine.store.append("agent:main:discord:group:one", {"role": "user", "content": "hi"}, touch=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, "agent:main:discord:group:one")
        title = pane_of(app).query_one("#transcript-title")
        await until(pilot, lambda: "message" in text_of(title), "the title")
        assert "   1 message" in text_of(title) and "1 messages" not in text_of(title)
