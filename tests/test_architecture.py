"""The shape of the code: neither the engine nor the tools (nor the command line
before it starts the dashboard) import Textual. Which module may import which is held by the
import-linter contracts in pyproject.toml (`lint-imports`). The tests stand on their own: none
imports from scripts/ (the scripts may use the tests' helpers)."""

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import sessions_tui.engine


def test_engine_never_imports_textual():
    modules = [m.name for m in pkgutil.walk_packages(sessions_tui.engine.__path__, "sessions_tui.engine.")]
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
        "import sys, sessions_tui.tools.calling.registry, sessions_tui.cli; "
        "print(any(m.startswith('textual') for m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "False", proc.stderr


TESTS = Path(__file__).resolve().parent
SCRIPTS = TESTS.parent / "scripts"


def _scripts_reached(path: Path) -> list[str]:
    """Where the test module `path` imports a module of scripts/ or puts scripts/ on sys.path."""
    scripts = {p.stem for p in SCRIPTS.glob("*.py")}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "import_module" and node.args and isinstance(node.args[0], ast.Constant):
                names = [str(node.args[0].value)]
            target = ast.unparse(node.func.value)
            if target == "sys.path" and "scripts" in ast.unparse(node):
                found.append(f"{path.name}:{node.lineno}: scripts/ on sys.path")
        elif isinstance(node, ast.AugAssign) and ast.unparse(node.target) == "sys.path":
            if "scripts" in ast.unparse(node.value):
                found.append(f"{path.name}:{node.lineno}: scripts/ on sys.path")
        found += [f"{path.name}:{node.lineno}: imports {n}" for n in names if n.split(".")[0] in scripts | {"scripts"}]
    return found


def test_tests_never_reach_into_scripts():
    """Tests stand on their own: scripts may use the tests' helpers (the scenes), never the reverse."""
    assert {"screenshots", "record_redaction_oracle"} <= {p.stem for p in SCRIPTS.glob("*.py")}
    found = [hit for path in sorted(TESTS.rglob("*.py")) for hit in _scripts_reached(path)]
    assert found == []


def test_the_check_sees_both_ways_of_reaching_scripts(tmp_path):
    bad = tmp_path / "test_bad.py"
    bad.write_text(
        "import sys\nsys.path.insert(0, str(ROOT / 'scripts'))\nfrom screenshots import main\n"
        "import importlib\nimportlib.import_module('record_redaction_oracle')\n",
        encoding="utf-8",
    )
    assert sorted(_scripts_reached(bad)) == [
        "test_bad.py:2: scripts/ on sys.path",
        "test_bad.py:3: imports screenshots",
        "test_bad.py:5: imports record_redaction_oracle",
    ]


MODULE_LINES_MAX = 600
"""A module holds one concept; one may pass 400 lines when its concept needs it, never 600."""


def test_no_module_is_over_the_size_one_concept_may_take():
    src = Path(sessions_tui.engine.__file__).resolve().parents[1]
    sizes = {path.relative_to(src).as_posix(): len(path.read_text().splitlines()) for path in src.rglob("*.py")}
    assert len(sizes) > 100  # the whole package was read
    assert {name: n for name, n in sizes.items() if n > MODULE_LINES_MAX} == {}
