"""Counted words (issue 28 item 9): `1 session`, `0 sessions`, `2 sessions` wherever a count is
printed: the helper, the dashboard's header and page notes, and the command line's lines."""

import pytest

from sessions_tui.cli.watching.lines import Record
from sessions_tui.counting import counted, plural
from sessions_tui.engine.openclaw.mirror import ImportReport
from sessions_tui.ui.screens.main.table_count import no_page_note
from ui_support import demo_app, settle, text_of, until

WORDS = [(0, "0 sessions"), (1, "1 session"), (2, "2 sessions")]


@pytest.mark.parametrize(("n", "said"), WORDS)
def test_plural_says_the_word_the_count_wants(n, said):
    assert plural(n, "session") == said
    assert counted(n, "child") == ("child" if n == 1 else "children")
    assert counted(n, "match") == ("match" if n == 1 else "matches")
    assert plural(1204, "message") == "1,204 messages"


@pytest.mark.parametrize(("n", "said"), WORDS)
async def test_the_header_counts_sessions_in_words(tmp_path, n, said):
    app = demo_app(tmp_path / "s")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        header = app.main_screen.query_one("#status-header")
        header.total = n
        await until(pilot, lambda: f"  {said} (" in text_of(header), f"the header to say {said}")


@pytest.mark.parametrize(
    ("n", "said"),
    [(0, "no session to show"), (1, "the one session is shown"), (2, "all 2 sessions shown")],
)
def test_the_table_says_its_count_when_no_page_turns(n, said):
    assert no_page_note(1, 0, n, n, 100) == f"No next page: {said}."


@pytest.mark.parametrize("n", [0, 1, 2])
def test_command_line_reports_count_in_words(n):
    """`import-openclaw`'s summary and `watch`'s follow line."""
    report = ImportReport(sessions_imported=n, lines_imported=n, problems=[f"p{i}" for i in range(n)])
    s = "" if n == 1 else "s"
    assert report.summary() == (
        f"imported {n} session{s}, updated 0, unchanged 0; {n} transcript line{s}; {n} problem{s}"
    )
    line = Record(0, "follow_status", None, {"root": "/oc", "changed": n}).text_line()
    assert line.endswith(f"following /oc ({n} session{s} brought up to date)" if n else "following /oc")
