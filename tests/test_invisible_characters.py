"""Characters that hide or reorder text (bidi controls, zero-width and other format characters,
line and paragraph separators) are shown as their code points, `⟨U+202E⟩`, wherever a person
reads agent text: the CLI's text outputs, the `send` report, the Markdown and HTML exports, JSON
written to a terminal and the dashboard. JSON written into a pipe stays as it was (issue 25)."""

from __future__ import annotations

import io
import json
import sys
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from conftest import add_session
from sessions_tui.cli import main
from sessions_tui.engine.engine import Engine
from sessions_tui.engine.export import SessionExport, render_export
from sessions_tui.terminal_text import FORMAT_CHARACTERS, json_lines_for_terminal, json_text, visible, visible_line
from sessions_tui.ui.widgets.transcript import MessageView
from ui_support import SIZE, demo_app, select, settle, until

BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
ZERO_WIDTH = [0x200B, 0x200C, 0x200D, *range(0x2060, 0x2065), 0xFEFF, 0x180E, 0x00AD]
SEPARATORS = [0x2028, 0x2029]
TAGS = [0xE0001, 0xE0041, 0xE007F]  # invisible ASCII look-alikes past U+FFFF
PLANTED = [*BIDI, *ZERO_WIDTH, *SEPARATORS, *TAGS]
# Every planted character between letters: `a\u202eb…`; what it must show as, and what it must not.
HIDDEN = "".join(f"{chr(0x61 + i % 26)}{chr(c)}" for i, c in enumerate(PLANTED)) + "z"
SHOWN = [f"⟨U+{c:04X}⟩" for c in PLANTED]
GROUP = "agent:main:discord:group:dev"
HIDDEN_KEY = f"agent:main:discord:group:{HIDDEN}"
FAST = "{ models: { demo: { latencyMs: 0, chunkMs: 0 } } }"


def shows_every_one(text: str, planted: list[int] = PLANTED) -> None:
    """`text` holds none of the planted characters raw, and each of them as its code point."""
    raw = sorted({f"U+{ord(c):04X}" for c in text if ord(c) in FORMAT_CHARACTERS})
    assert not raw, f"raw in the output: {raw}"
    for c in planted:
        assert f"⟨U+{c:04X}⟩" in text, f"U+{c:04X} not shown"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


# --- the one character set -----------------------------------------------------------------------


def test_the_set_is_unicodes_format_characters_and_separators():
    """Category Cf, Zl and Zp as this Python's Unicode data has them, and nothing else assigned
    (the list is Unicode 15's: a newer Python may know more, never fewer)."""
    wanted = {c for c in range(0x110000) if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")}
    assert wanted <= FORMAT_CHARACTERS
    assert {unicodedata.category(chr(c)) for c in FORMAT_CHARACTERS - wanted} <= {"Cn"}


@pytest.mark.parametrize("code", PLANTED, ids=[f"U+{c:04X}" for c in PLANTED])
def test_visible_shows_each_as_its_code_point(code):
    text = f"key{chr(code)}:main\nnext"
    assert visible(text) == f"key⟨U+{code:04X}⟩:main\nnext"
    assert visible_line(text) == f"key⟨U+{code:04X}⟩:main␊next"


def test_variation_selectors_and_emoji_stay_as_they_are():
    """U+FE0F only picks a glyph (it follows most emoji); an emoji joined by U+200D shows its
    joiner, as the issue asks."""
    assert visible("❤\ufe0f 🙂 é") == "❤\ufe0f 🙂 é"
    assert visible("👩\u200d💻") == "👩⟨U+200D⟩💻"


@pytest.mark.parametrize("code", PLANTED, ids=[f"U+{c:04X}" for c in PLANTED])
def test_json_for_a_terminal_escapes_each_and_keeps_the_value(code):
    value = {f"k{chr(code)}": f"v{chr(code)} é"}
    shown = json_text(value, terminal=True)
    assert not FORMAT_CHARACTERS & {ord(c) for c in shown} and "é" in shown
    assert json.loads(shown) == value
    assert json.loads(json_lines_for_terminal(json.dumps(value, ensure_ascii=False))) == value


def test_json_into_a_pipe_is_as_before():
    """Only C0/C1, DEL, U+2028/U+2029 and lone surrogates are escaped: the rest byte for byte."""
    value = {"text": HIDDEN, "n": 1}
    piped = json_text(value)
    expected = json.dumps(value, indent=2, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    assert piped == expected and "\u202e" in piped and "\u200b" in piped


# --- the command line ------------------------------------------------------------------------------


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state with the hidden text in a message, a label and a key."""
    monkeypatch.delenv("SESSIONS_TUI_HOME", raising=False)
    monkeypatch.delenv("SESSIONS_TUI_CONFIG", raising=False)
    state = tmp_path / "state"
    engine = Engine(state)
    add_session(engine, GROUP, [{"role": "user", "content": f"needle {HIDDEN}"}], label=f"label {HIDDEN}")
    add_session(engine, HIDDEN_KEY)
    engine.close()
    (state / "config.json5").write_text(FAST)
    return state


def run(state: Path, *args: str, monkeypatch: pytest.MonkeyPatch, terminal: bool = False) -> str:
    out = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["--state", str(state), *args]) == 0
    return out.getvalue()


def test_search_shows_them_in_text_and_in_json_on_a_terminal(state, monkeypatch):
    shown = run(state, "search", "needle", monkeypatch=monkeypatch)
    shows_every_one(shown.splitlines()[1])  # the snippet
    on_terminal = run(state, "search", "needle", "--json", monkeypatch=monkeypatch, terminal=True)
    assert not FORMAT_CHARACTERS & {ord(c) for c in on_terminal}
    piped = run(state, "search", "needle", "--json", monkeypatch=monkeypatch)
    assert json.loads(on_terminal) == json.loads(piped)
    assert "\u202e" in piped


def test_tool_json_on_a_terminal_escapes_them_and_into_a_pipe_is_byte_for_byte(state, monkeypatch):
    args = ("tool", "sessions_history", json.dumps({"sessionKey": GROUP}))
    piped = run(state, *args, monkeypatch=monkeypatch)
    on_terminal = run(state, *args, monkeypatch=monkeypatch, terminal=True)
    value = json.loads(piped)
    assert piped == json_text(value) + "\n" and f"needle {HIDDEN}".replace("\u2028", "\\u2028") in piped.replace(
        "\\u2029", "\u2029"
    )
    assert not FORMAT_CHARACTERS & {ord(c) for c in on_terminal}
    assert "\\u202e" in on_terminal and "\\udb40\\udc41" in on_terminal  # U+E0041 as JSON spells it
    assert json.loads(on_terminal) == value


def test_explain_shows_them_in_the_key_it_names_and_escapes_them_in_json_on_a_terminal(state, monkeypatch):
    shows_every_one(run(state, "explain", "main", HIDDEN_KEY, monkeypatch=monkeypatch).splitlines()[0])
    on_terminal = run(state, "explain", "main", HIDDEN_KEY, "--json", monkeypatch=monkeypatch, terminal=True)
    assert not FORMAT_CHARACTERS & {ord(c) for c in on_terminal}
    assert json.loads(on_terminal)["target"] == HIDDEN_KEY


def test_send_and_sends_show_them(state, monkeypatch):
    """The send report's header names the key and its lines carry the reply (the demo model
    repeats the message, cut at 200 characters); the ledger shows the message's head."""
    report = run(state, "send", HIDDEN_KEY, f"hello {HIDDEN}", "--timeout", "5", monkeypatch=monkeypatch)
    shows_every_one(report.splitlines()[0])
    assert report.splitlines()[0].startswith("→ agent:main:discord:group:a⟨U+061C⟩b")
    reply = report.splitlines()[2]
    assert "Received from another session: hello a⟨U+061C⟩b⟨U+200E⟩c" in reply
    shows_every_one(report, planted=PLANTED[:10])
    shows_every_one(run(state, "sends", monkeypatch=monkeypatch), planted=PLANTED[:8])
    sends_json = run(state, "sends", "--json", monkeypatch=monkeypatch, terminal=True)
    assert not FORMAT_CHARACTERS & {ord(c) for c in sends_json}
    assert json.loads(sends_json)[0]["message"] == f"hello {HIDDEN}"


def hidden_export() -> SessionExport:
    message = {"role": "assistant", "content": [{"type": "text", "text": f"said {HIDDEN}"}]}
    call = {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": f"t{HIDDEN}", "arguments": {}}]}
    return SessionExport(
        key=f"agent:main:discord:group:{HIDDEN}",
        session_id="s-1",
        agent_id="main",
        channel="discord",
        created_at=0,
        updated_at=0,
        entry={"label": f"label {HIDDEN}"},
        lines=[json.dumps({"type": "message", "id": f"e{i}", "message": m}) for i, m in enumerate((message, call))],
        redacted=True,
    )


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_markdown_and_html_exports_show_them_in_text_key_label_and_tool_name(fmt):
    text = render_export(hidden_export(), fmt)
    shows_every_one(text)
    assert text.count("⟨U+202E⟩") >= 4  # the key (twice in html: title and heading), label, text, tool name


def test_jsonl_export_on_a_terminal_escapes_them_and_into_a_pipe_keeps_them(state, monkeypatch):
    piped = run(state, "export", GROUP, "--format", "jsonl", monkeypatch=monkeypatch)
    on_terminal = run(state, "export", GROUP, "--format", "jsonl", monkeypatch=monkeypatch, terminal=True)
    assert "\u202e" in piped and not FORMAT_CHARACTERS & {ord(c) for c in on_terminal}
    lines = on_terminal.split("\n"), piped.split("\n")  # not splitlines: U+2028 is a line break to it
    assert [json.loads(line) for line in lines[0] if line] == [json.loads(line) for line in lines[1] if line]


# --- the dashboard -------------------------------------------------------------------------------------


async def test_the_dashboard_shows_them_in_the_transcript_table_preview_and_toasts(tmp_path):
    app = demo_app(tmp_path / "s")
    key = add_session(
        app.engine,
        "agent:main:discord:group:hidden",
        [{"role": f"user{HIDDEN}", "content": f"said {HIDDEN}"}],
        label=f"label {HIDDEN}",
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await select(pilot, key)
        pane = app.main_screen.query_one("#transcript")
        await until(pilot, lambda: any("said" in v.plain for v in pane.query(MessageView)), "the message")
        shown = next(v.plain for v in pane.query(MessageView) if "said" in v.plain)
        shows_every_one(shown)
        assert shown.splitlines()[0].startswith("usera⟨U+061C⟩b")  # the role, in the message's header
        shows_every_one(app.main_screen.query_one("#sessions").cell(key, "label").plain)
        preview = pane.query_one("#stream-preview")
        preview.add("thinking", f"plan {HIDDEN}")
        preview.add("text", f"reply {HIDDEN}")
        assert preview.plain.count("⟨U+202E⟩") == 2
        shows_every_one(preview.plain)
        app.notify(f"{key}: {HIDDEN}", title=f"t{chr(0x202E)}", markup=False)
        await until(pilot, lambda: bool(app._notifications), "the toast")
        toast: Any = list(app._notifications)[-1]
        shows_every_one(toast.message)
        assert toast.title == "t⟨U+202E⟩"
        await settle(pilot)
        screenshot = app.export_screenshot()
        assert not FORMAT_CHARACTERS & {ord(c) for c in screenshot}


async def test_the_acting_as_picker_shows_a_label_redacted_and_them_as_code_points(tmp_path):
    token = "ghp_Zq8Lm3Np7Rt2Vx6Bz1Cd5Fg9Hj4Kk0Ll2Mm3"
    app = demo_app(tmp_path / "s")
    add_session(app.engine, "agent:main:discord:group:labelled", label=f"ops {token} {HIDDEN}")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        options = app.screen.query_one("#acting-options")
        await until(pilot, lambda: any("ops" in str(o.prompt) for o in options.options), "the labelled session")
        shown = next(o.prompt.plain for o in options.options if "ops" in str(o.prompt))
        shows_every_one(shown)
        assert "ghp_Zq…2Mm3" in shown and "Lm3Np7Rt2Vx6Bz1Cd5Fg9" not in shown
