"""`sessions-tui watch --notify` (issue 31): the dashboard's notification rules without the dashboard,
one line per notice: a reply to the operator's send made by another process, a watched session's
status, a hook, a cron run; `--session` keeps one session's; nothing else is printed."""

from __future__ import annotations

import signal

import pytest
from test_watch import DEV, SECRET, sessions_tui, state, watching  # noqa: F401  (state: a fixture)

from sessions_tui.backend.contract.types import Requester
from sessions_tui.backend.local.backend import open_local
from sessions_tui.backend.values.vocabulary import CronRunStarted, HookReceived, RunEnded, StatusChanged
from sessions_tui.cli.commands.watch import Watcher
from sessions_tui.cli.watching.notices import status_board


class Out:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, text: str) -> None:
        self.lines.append(text)

    def flush(self) -> None:
        pass


def test_watch_notify_prints_the_reply_to_another_process_s_send_and_nothing_else(state):  # noqa: F811
    with watching("--state", str(state), "watch", "--notify", "--json") as watch:
        sent = sessions_tui("--state", str(state), "send", DEV, f"status? {SECRET}")
        assert sent.returncode == 0, sent.stderr
        records = watch.until(lambda records: any(r.get("kind") == "reply" for r in records))
        status, err = watch.stop(signal.SIGINT)
    assert status == 0 and "Traceback" not in err
    # The send's session is watched ("sends"): its run finishing is a `done` notice too (the status
    # board's), before or after the reply's; nothing else.
    assert {r["kind"] for r in records} <= {"reply", "done"} and all(r["session"] == DEV for r in records)
    [notice] = [r for r in records if r["kind"] == "reply"]
    assert notice["type"] == "notice" and notice["session"] == DEV
    assert notice["title"] == f"Reply from {DEV}" and notice["body"]
    assert SECRET not in "".join(watch.seen)


@pytest.fixture
async def backend(tmp_path):
    config = tmp_path / "config.json5"
    config.write_text("{ ui: { notify: { watch: 'all', desktop: false } } }")
    backend = open_local(tmp_path / "state", config)
    yield backend
    await backend.aclose()


async def _lines(backend, events, target=None, *, as_json=False):
    out = Out()
    watcher = Watcher(backend, Requester(), target, out, as_json=as_json, notify=True)  # type: ignore[arg-type]
    await watcher.notices.baseline()
    for event in events:
        for record in await watcher.records_of(event):
            watcher.emit(record)
    return [line.rstrip("\n") for line in out.lines]


EVENTS = [
    StatusChanged(ts=1_000, session_key=DEV, status="working", previous="idle"),
    StatusChanged(ts=2_000, session_key=DEV, status="failed", previous="working"),
    RunEnded(ts=3_000, run_id="r", session_key=DEV, status="ok"),
    HookReceived(ts=4_000, session_key="agent:main:hook:x", name=f"Import \x1b]0;t\x07{SECRET}"),
    CronRunStarted(ts=5_000, session_key=DEV, job_id="digest", job_name="Digest", run_id="r2", trigger="due"),
]


async def test_watch_notify_says_a_status_a_hook_and_a_cron_run_one_clean_line_each(backend):
    lines = await _lines(backend, EVENTS)
    assert len(lines) == 3
    assert lines[0].endswith(f"notice    {DEV}  failed  Failed: {DEV}: its last run failed")
    hook = backend.display("agent:main:hook:x")
    assert lines[1].endswith(f"notice    {hook}  hook  Hook received: Import ]0;tsk-abc…3456 → {hook}")
    assert lines[2].endswith(f"cron  Cron run started: Digest → {DEV}")
    assert not any("\x1b" in line or "\x07" in line or SECRET in line for line in lines)


async def test_watch_notify_session_keeps_one_session_s_notices_as_json(backend):
    lines = await _lines(backend, EVENTS, DEV, as_json=True)
    assert [line.count('"type": "notice"') for line in lines] == [1, 1]
    assert '"kind": "failed"' in lines[0] and '"kind": "cron"' in lines[1]


def test_watch_notify_says_a_watched_session_finished_in_another_process(state):  # noqa: F811
    """The status board runs in `watch --notify`: another process's run ends (the state polled),
    the board's seed read again says DEV went from idle to done: a `done` notice."""
    config = "{ models: { demo: { latencyMs: 0, chunkMs: 0 } }, ui: { notify: { watch: 'all', desktop: false } } }"
    (state / "config.json5").write_text(config)
    with watching("--state", str(state), "watch", "--notify", "--json") as watch:
        sent = sessions_tui("--state", str(state), "send", DEV, "status?")
        assert sent.returncode == 0, sent.stderr
        records = watch.until(lambda records: any(r.get("kind") == "done" for r in records))
        status, err = watch.stop(signal.SIGINT)
    assert status == 0 and "Traceback" not in err
    done = next(r for r in records if r.get("kind") == "done")
    assert done["session"] == DEV and done["title"] == "Finished"


async def test_the_status_board_seam_delivers_the_board_s_changes(backend):
    said: list[StatusChanged] = []
    board = status_board(backend, said.append)
    await board.start(listen=False)
    assert said == [] and board.counts() == {}  # a fresh state: nothing but idle
    board.close()


def test_watch_help_names_notify():
    said = sessions_tui("watch", "--help")
    assert said.returncode == 0 and "--notify" in said.stdout
