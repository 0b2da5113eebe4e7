"""The words the program says to its user (issue 28 items 19 and 23): every string in the source that
is not a docstring is text a user may read, so none cites a decision of docs/decisions.md by number."""

from __future__ import annotations

import ast
import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src" / "sessions_tui"
DECISION = re.compile(r"decisions\.md|\bD\d+\b")


def _texts(path: Path) -> list[tuple[int, str]]:
    """The string constants of a module that are not docstrings (a bare string statement)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bare = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in bare
    ]


def test_no_user_text_cites_a_decision_number():
    cited = [
        f"{path.relative_to(SOURCE)}:{line}: {text[:80]!r}"
        for path in sorted(SOURCE.rglob("*.py"))
        for line, text in _texts(path)
        if DECISION.search(text)
    ]
    assert not cited, cited
