"""The shape of the code at run time: neither the engine nor the tools (nor the command line
before it starts the dashboard) import Textual. Which module may import which is held by the
import-linter contracts in pyproject.toml (`lint-imports`)."""

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
