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


def test_the_person_is_the_operator_in_every_face():
    """Issue 28 item 23: the person was `owner` (`main → main [owner]`, `owner → …`) or `main`;
    it is `operator` in the dashboard, the command line and the backend's words alike (the stored
    and wire value `via: "owner"` stays)."""
    from sessions_tui.backend.contract.types import Capability, not_on
    from sessions_tui.backend.toolkit.operator import OPERATOR, via_shown
    from sessions_tui.cli.parser import build_parser
    from sessions_tui.tools.requester.explain import CHAIN_NOTE

    assert OPERATOR == "operator" and via_shown("owner") == "operator" and via_shown("agent") == "agent"
    assert "the operator's /send" in not_on("http://x", Capability.CONTROL)
    assert "the operator's calls" in CHAIN_NOTE
    assert "as the operator" in build_parser().format_help()
