"""The shape of the code (ARCHITECTURE.md): the engine never imports Textual."""

import pkgutil
import subprocess
import sys

import sessions_tui.engine


def test_engine_never_imports_textual():
    modules = [f"sessions_tui.engine.{m.name}" for m in pkgutil.iter_modules(sessions_tui.engine.__path__)]
    assert "sessions_tui.engine.store" in modules
    code = (
        "import sys\n"
        f"for name in {modules!r}:\n"
        "    __import__(name)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


def test_tools_never_import_textual():
    code = (
        "import sys, sessions_tui.tools.registry, sessions_tui.cli; "
        "print(any(m.startswith('textual') for m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False", proc.stderr


def test_the_ui_never_reaches_into_the_store():
    """ARCHITECTURE.md: the UI calls the tools, or the engine's small read API, and listens to events."""
    from pathlib import Path

    import sessions_tui.ui

    ui = Path(sessions_tui.ui.__file__).parent
    offenders = [
        str(p.relative_to(ui))
        for p in ui.rglob("*.py")
        if ".store." in p.read_text() or "engine.store import" in p.read_text()
    ]
    assert offenders == []
