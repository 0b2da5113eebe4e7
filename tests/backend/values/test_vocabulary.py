"""The seam's vocabulary: every name it lists is the engine's own object, read from the module it
names, and only when first read."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys

from sessions_tui.backend.values import vocabulary


def _type_checking_imports() -> dict[str, tuple[str, ...]]:
    """The `if TYPE_CHECKING:` imports of the vocabulary's source: module → names."""
    tree = ast.parse(inspect.getsource(vocabulary))
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    return {
        str(node.module): tuple(alias.name for alias in node.names)
        for node in block.body
        if isinstance(node, ast.ImportFrom)
    }


def test_the_homes_are_the_imports_the_type_checker_reads_and_all_lists_them() -> None:
    homes = vocabulary._HOMES
    assert _type_checking_imports() == homes
    named = [name for names in homes.values() for name in names]
    assert sorted(vocabulary.__all__) == sorted(named)
    assert len(set(named)) == len(named)


def test_every_name_is_its_home_modules_object() -> None:
    for module, names in vocabulary._HOMES.items():
        home = importlib.import_module(module)
        for name in names:
            assert getattr(vocabulary, name) is getattr(home, name), name


def test_a_name_it_does_not_list_is_an_attribute_error_naming_it() -> None:
    try:
        vocabulary.NotAName  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "NotAName" in str(exc)
    else:
        raise AssertionError("an unknown name was found")


def test_reading_one_name_loads_that_names_home_alone() -> None:
    code = (
        "import sys\n"
        "from sessions_tui.backend.values.vocabulary import LazyModel\n"
        "print(sorted(m for m in sys.modules if m.startswith('sessions_tui.engine.')))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded = ast.literal_eval(proc.stdout.strip())
    assert "sessions_tui.engine.lazy_model" in loaded
    assert not {"sessions_tui.engine.events", "sessions_tui.engine.hooks.values", "sessions_tui.engine.store"} & set(
        loaded
    )
