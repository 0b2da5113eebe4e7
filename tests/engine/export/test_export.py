"""`sessions-tui export` (engine/export, cli/commands/export.py): Markdown and HTML that agent text cannot
break out of, redaction by default in every format, `--no-redact` for the owner only, the JSONL
round trip through `import-openclaw` (byte for byte), and the command's exit codes."""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from secret_corpus import KINDS, leaks, secret
from sessions_tui.cli import main
from sessions_tui.cli.commands import export as cli_export
from sessions_tui.engine.export import SessionExport, default_file_name, render_html, render_markdown
from sessions_tui.engine.redaction.redact import Redactor

FIXTURES = Path(__file__).parents[2] / "fixtures" / "openclaw-2026.9.6"
LEGACY = FIXTURES / "legacy-state"
SECRET = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"  # in the legacy fixture's main session
SECRET_HEAD = "sk-proj-AbCdEfGh"
KEYS = list(json.loads((LEGACY / "agents/main/sessions/sessions.json").read_text()))


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state directory holding the legacy fixture's ten sessions."""
    where = tmp_path_factory.mktemp("export") / "state"
    assert main(["--state", str(where), "import-openclaw", str(LEGACY)]) == 0
    return where


def _line(text: Any, role: str = "assistant", line_id: str = "e1") -> str:
    message = {"role": role, "content": [{"type": "text", "text": text}] if isinstance(text, str) else text}
    return json.dumps({"type": "message", "id": line_id, "parentId": None, "message": message})


HOSTILE = "```\n# not a heading\n<script>alert(1)</script>\n````\n[x](javascript:alert(1)) \x1b]52;c;aGk=\x07 \x1b[2J"


def _hostile_export() -> SessionExport:
    lines = [
        _line(HOSTILE),
        _line([{"type": "toolCall", "id": "c1", "name": "<b>ls</b>", "arguments": {"p": "```</pre><script>"}}]),
        '{"type":"message","id":"e3","message":{"role":"user","content":"lone \\ud800 surrogate"}}',
        _line([{"type": "image", "data": "AAAA"}, {"type": "thinking", "thinking": "secret plan"}], role="user"),
    ]
    return SessionExport(
        key="agent:main:<script>x</script>",
        session_id="s-1",
        agent_id="main",
        channel="discord",
        created_at=0,
        updated_at=0,
        entry={"label": "# *label* <img src=x onerror=alert(1)> \x1b[31m"},
        lines=lines,
        redacted=True,
    )


def _shown(inline: Any) -> str:
    """The text an inline token renders to (escapes undone)."""
    return "".join(child.content for child in inline.children or [])


def test_markdown_keeps_agent_text_inside_its_fences():
    text = render_markdown(_hostile_export())
    tokens = MarkdownIt("commonmark").parse(text)
    assert not [t for t in tokens if t.type in ("html_block", "html_inline")]
    headings = [_shown(tokens[i + 1]) for i, t in enumerate(tokens) if t.type == "heading_open"]
    assert headings[0].startswith("Session agent:main:")
    assert [h.split(" · ")[0] for h in headings[1:]] == ["1. assistant", "2. assistant", "3. user", "4. user"]
    fences = [t for t in tokens if t.type == "fence"]
    assert fences[0].content.rstrip("\n") == HOSTILE.replace("\x1b", "␛").replace("\x07", "␇")
    assert '"p": "```</pre><script>"' in fences[1].content
    assert "\x1b" not in text and "\x07" not in text
    assert "lone \ufffd surrogate" in text
    text.encode("utf-8")  # no lone surrogate left
    assert "\\[image\\]" in text and "*(thinking omitted)*" in text and "secret plan" not in text
    shown = "".join(_shown(t) for t in tokens if t.type == "inline")
    assert "<img src=x" in shown and "\\<img" in text  # shown as text, escaped in the source
    assert "**Tool call** \\<b\\>ls\\</b\\>" in text


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attrs: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.attrs.update(name for name, _ in attrs)


def test_html_is_self_contained_and_escapes_every_agent_text():
    page = render_html(_hostile_export())
    parser = _Tags()
    parser.feed(page)
    assert parser.tags <= {"html", "head", "meta", "title", "style", "body", "h1", "dl", "dt", "dd", "p", "section"} | {
        "h2",
        "pre",
    }
    assert parser.attrs <= {"lang", "charset", "http-equiv", "content", "name", "class"}
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;img src=x" in page
    assert "<script" not in page and "url(" not in page and "@import" not in page
    assert "prefers-color-scheme: dark" in page and "default-src 'none'" in page
    assert "\x1b" not in page and "\x07" not in page and "lone \ufffd surrogate" in page
    assert "[image]" in page and "(thinking omitted)" in page and "secret plan" not in page


def test_default_file_name_is_the_key_made_safe():
    redact = Redactor().redact
    assert default_file_name("agent:main:discord:group:dev", "md", redact) == "agent_main_discord_group_dev.md"
    assert default_file_name("../../etc/passwd", "html", redact) == "etc_passwd.html"
    assert default_file_name("::", "jsonl", redact) == "session.jsonl"
    assert default_file_name("agent:main:hook:" + "x" * 200, "md", redact) == f"agent_main_hook_{'x' * 104}.md"


def test_a_secret_in_a_key_is_masked_in_the_file_name_never_cut_into_a_fragment():
    """The name is the key cut at 120 characters: cut first, a secret across the cut would leave
    its head in the name (`…_AKIAQWERTYUIOPASDF.md`), a fragment no rule finds."""
    redactor = Redactor(known_secrets=["k3y0f7his1ocal5erver8only9a4b2c6d"])
    assert default_file_name("agent:main:hook:k3y0f7his1ocal5erver8only9a4b2c6d", "md", redactor.redact) == (
        "agent_main_hook_k3y0f7_2c6d.md"
    )
    rng = random.Random("export file name")
    checked = 0
    for kind in KINDS:
        text, core = secret(kind, rng)
        safe_core = re.sub(r"[^A-Za-z0-9._-]+", "_", core)  # as the name spells it
        for before in range(max(1, 120 - len(text) - 2), 122):  # the cut before, inside and after it
            name = default_file_name(f"{'x' * (before - 1)}:{text}:tail", "md", redactor.redact)
            assert len(name) <= 123 and leaks(name, [safe_core]) == [], (kind, before, name[-60:])
            checked += 1
    assert checked > 35 * 20


@pytest.mark.parametrize("fmt", ["md", "html", "jsonl"])
def test_every_format_is_redacted_by_default(state, capsys, fmt):
    code, out, err = _run(capsys, "--state", str(state), "export", "main", "--format", fmt)
    assert code == 0, err
    assert SECRET_HEAD not in out and "ghp_1234567890abcdef" not in out and "sk-ant-api03-ZYX" not in out
    assert "sk-pro…EFGH" in out and err == ""


def test_redacted_jsonl_keeps_every_line_valid_with_its_ids_and_order(state, capsys):
    _, redacted, _ = _run(capsys, "--state", str(state), "export", "main", "--format", "jsonl")
    code, raw, err = _run(capsys, "--state", str(state), "export", "main", "--format", "jsonl", "--no-redact")
    assert code == 0 and SECRET in raw
    assert "NOT redacted" in err
    old, new = [json.loads(x) for x in raw.splitlines()], [json.loads(x) for x in redacted.splitlines()]
    assert [(x.get("type"), x.get("id"), x.get("parentId")) for x in old] == [
        (x.get("type"), x.get("id"), x.get("parentId")) for x in new
    ]
    assert old[0] == new[0] and old[0]["type"] == "session"
    changed = [i for i, (a, b) in enumerate(zip(raw.splitlines(), redacted.splitlines(), strict=True)) if a != b]
    assert changed and all(SECRET in raw.splitlines()[i] or "ghp_" in raw.splitlines()[i] for i in changed)


def test_a_secret_in_the_sqlite_fixture_never_leaves(tmp_path, capsys):
    state = tmp_path / "state"
    assert main(["--state", str(state), "import-openclaw", str(FIXTURES / "sqlite-state")]) == 0
    capsys.readouterr()
    store = FIXTURES / "sqlite-state" / "agents" / "main" / "agent" / "openclaw-agent.sqlite"
    assert SECRET.encode() in store.read_bytes()
    for fmt in ("md", "html", "jsonl"):
        for key in ("main", "agent:main:discord:group:123"):
            code, out, err = _run(capsys, "--state", str(state), "export", key, "--format", fmt)
            assert code == 0, err
            assert SECRET_HEAD not in out


def _round_trip(state: Path, tmp: Path, capsys: pytest.CaptureFixture[str], extra: tuple[str, ...]) -> None:
    first, again = tmp / "first", tmp / "again"
    for key in KEYS:
        code, _, err = _run(
            capsys, "--state", str(state), "export", key, "--format", "jsonl", "-o", f"{first}/", *extra
        )
        assert code == 0, err
    fresh = tmp / "fresh"
    code, out, err = _run(capsys, "--state", str(fresh), "import-openclaw", str(first))
    assert code == 0 and "imported 10 sessions" in out and "0 problems" in out, (out, err)
    for key in KEYS:
        code, _, err = _run(
            capsys, "--state", str(fresh), "export", key, "--format", "jsonl", "-o", f"{again}/", *extra
        )
        assert code == 0, err
    sessions = Path("agents/main/sessions")
    names = sorted(p.name for p in (first / sessions).iterdir())
    assert len(names) == 11 and names == sorted(p.name for p in (again / sessions).iterdir())
    for name in names:
        assert (first / sessions / name).read_bytes() == (again / sessions / name).read_bytes(), name


def test_jsonl_round_trip_through_import_openclaw_is_byte_identical(state, tmp_path, capsys):
    _round_trip(state, tmp_path / "redacted", capsys, ())
    assert SECRET not in (tmp_path / "redacted/first/agents/main/sessions/sessions.json").read_text() + "".join(
        p.read_text() for p in (tmp_path / "redacted/first/agents/main/sessions").glob("*.jsonl")
    )


def test_jsonl_round_trip_unredacted_keeps_every_stored_line(state, tmp_path, capsys):
    _round_trip(state, tmp_path / "raw", capsys, ("--no-redact",))
    exported = (tmp_path / "raw/first/agents/main/sessions/11111111-1111-4111-8111-111111111111.jsonl").read_text()
    source = (LEGACY / "agents/main/sessions/11111111-1111-4111-8111-111111111111.jsonl").read_text()
    assert exported.splitlines()[1:] == source.splitlines()[1:]  # every line verbatim; only the header is ours


def test_stdout_and_the_layout_hold_the_same_transcript(state, tmp_path, capsys):
    _, out, _ = _run(capsys, "--state", str(state), "export", "main", "--format", "jsonl")
    code, said, _ = _run(capsys, "--state", str(state), "export", "main", "--format", "jsonl", "-o", str(tmp_path))
    assert code == 0 and "import-openclaw" in said
    written = tmp_path / "agents/main/sessions/11111111-1111-4111-8111-111111111111.jsonl"
    assert written.read_text() == out


def test_no_redact_is_refused_to_whoever_does_not_own_the_state(state, capsys, monkeypatch):
    monkeypatch.setattr(os, "getuid", lambda: os.stat(state).st_uid + 1)
    code, out, err = _run(capsys, "--state", str(state), "export", "main", "--no-redact")
    assert code == 2 and out == ""
    assert "--no-redact: only the owner of the local state directory" in err and "Traceback" not in err


def test_no_redact_is_refused_over_remote_before_any_server_is_asked(capsys):
    code, out, err = _run(capsys, "--remote", "http://127.0.0.1:9", "export", "main", "--no-redact")
    assert code == 2 and out == ""
    assert err.strip() == "sessions-tui: --no-redact: not over --remote; a server only ever sends a redacted export"


def test_no_redact_for_the_owner_warns_on_stderr(state, tmp_path, capsys):
    target = tmp_path / "main.md"
    code, out, err = _run(capsys, "--state", str(state), "export", "main", "--no-redact", "-o", str(target))
    assert code == 0 and out == f"wrote {target}\n"
    assert err.startswith("warning: --no-redact: this export is NOT redacted")
    assert SECRET in target.read_text() and "**Not redacted:** this file may hold secrets" in target.read_text()


@pytest.fixture
def umask_022():
    """The usual umask, whatever the test runner's: new files 644 unless asked otherwise."""
    before = os.umask(0o022)
    yield
    os.umask(before)


@pytest.mark.parametrize("fmt", ["md", "html", "jsonl"])
def test_an_unredacted_export_is_written_readable_by_its_owner_only(state, tmp_path, capsys, umask_022, fmt):
    """It holds every secret of the transcript: 600, and a file from before is tightened to it."""
    new, old = tmp_path / f"new.{fmt}", tmp_path / f"old.{fmt}"
    old.write_text("from before\n")
    old.chmod(0o644)
    for target in (new, old):
        code, _, _ = _run(
            capsys, "--state", str(state), "export", "main", "--format", fmt, "--no-redact", "-o", str(target)
        )
        assert code == 0
        assert SECRET in target.read_text()
        assert target.stat().st_mode & 0o777 == 0o600, target


def test_a_redacted_export_takes_the_umask_and_an_unredacted_layout_is_private_too(state, tmp_path, capsys, umask_022):
    target = tmp_path / "main.md"
    assert _run(capsys, "--state", str(state), "export", "main", "-o", str(target))[0] == 0
    assert target.stat().st_mode & 0o777 == 0o644
    code, _, _ = _run(
        capsys,
        "--state",
        str(state),
        "export",
        "main",
        "--format",
        "jsonl",
        "--no-redact",
        "-o",
        f"{tmp_path / 'raw'}/",
    )
    assert code == 0
    written = [p for p in (tmp_path / "raw").rglob("*") if p.is_file()]
    assert written and all(p.stat().st_mode & 0o777 == 0o600 for p in written)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("agent:main:nope",), "sessions-tui: KEY: no session 'agent:main:nope'"),
        (("current",), "sessions-tui: KEY: 'current' names no session here; give a key"),
        (("main", "-o", "/nonexistent-dir/x.md"), "sessions-tui: -o /nonexistent-dir/x.md: cannot write: No such file"),
        (("main", "-o", "/tmp/"), "sessions-tui: -o /tmp/: is a directory (only --format jsonl writes a directory)"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(state, capsys, args, said):
    code, out, err = _run(capsys, "--state", str(state), "export", *args)
    assert code == 2 and out == ""
    assert err.startswith(said) and len(err.splitlines()) == 1


def test_a_session_id_names_its_session(state, capsys):
    code, out, _ = _run(capsys, "--state", str(state), "export", "22222222-2222-4222-8222-222222222222")
    assert code == 0 and out.startswith("# Session agent:main:discord:group:123\n")
    assert "- **Label:** discord:g-test-guild-general\n" in out


def test_an_unwritable_layout_directory_exits_2(state, tmp_path, capsys):
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "agents").write_text("a file where the layout needs a directory")
    code, out, err = _run(capsys, "--state", str(state), "export", "main", "--format", "jsonl", "-o", f"{blocked}/")
    assert code == 2 and out == "" and err.startswith(f"sessions-tui: -o {blocked}/: cannot write")


def test_redacting_a_line_keeps_its_shape_and_redacting_again_changes_nothing():
    from sessions_tui.engine.export.redaction import redact_line
    from sessions_tui.engine.redaction.redact import default_redactor

    redactor = default_redactor()
    text = json.dumps(
        {
            "type": "message",
            "id": "a1b2c3d4",
            "parentId": "00ff00ff",
            "timestamp": "2026-11-21T22:52:43.875Z",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": f"lone \ud800 and {SECRET}"},
                    {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"apiKey": 12345, "cmd": "ls"}},
                ],
            },
        }
    )
    once = redact_line(text, redactor)
    line = json.loads(once)
    assert SECRET_HEAD not in once and "\\ud800" in once  # the lone surrogate stays an ASCII escape
    assert (line["id"], line["parentId"], line["timestamp"]) == ("a1b2c3d4", "00ff00ff", "2026-11-21T22:52:43.875Z")
    assert line["message"]["content"][1]["arguments"] == {"apiKey": "***", "cmd": "ls"}
    assert redact_line(once, redactor) == once
    untouched = '{"type": "message", "id": "x", "message": {"role": "user", "content": "hi"}}'
    assert redact_line(untouched, redactor) is untouched  # kept byte for byte
    assert SECRET_HEAD not in redact_line(f"not json {SECRET}", redactor)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_jsonl_on_a_terminal_escapes_its_controls_and_keeps_each_value():
    """A stored line may hold raw C1 controls (CSI is U+009B) and U+2028, valid in JSON strings:
    on a terminal they are written as `\\uXXXX` escapes, each line still parsing to the same value;
    into a pipe or a file every line goes verbatim (the round trip stays byte for byte)."""
    raw = json.dumps(
        {"type": "message", "id": "e1", "message": {"role": "assistant", "content": "a\x9b2Jb\u2028c\x85d"}},
        ensure_ascii=False,
    )
    assert "\x9b" in raw
    export = _hostile_export().model_copy(update={"key": "main", "entry": {}, "lines": [raw]})
    opts = argparse.Namespace(output=None, format="jsonl")
    shown, piped = _Terminal(), io.StringIO()
    cli_export._write(opts, export, shown)
    cli_export._write(opts, export, piped)
    assert piped.getvalue().split("\n")[-2] == raw
    last = shown.getvalue().split("\n")[-2]
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]", shown.getvalue())
    assert "\\u009b2Jb\\u2028c\\u0085d" in last
    assert json.loads(last) == json.loads(raw)
