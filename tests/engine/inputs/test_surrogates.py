"""Lone surrogates found however they come: as code points, or spelled as JSON escapes."""

from __future__ import annotations

import pytest

from sessions_tui.engine.inputs.surrogates import REPLACEMENT_CHARACTER, has_surrogates, loads, scrub_json


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("plain ascii", False),
        ("café ☕ 日本", False),
        ("lone \ud800 here", True),
        ("pair \ud83d\ude00", True),
        ("", False),
    ],
)
def test_surrogate_code_points_are_found(text, found):
    assert has_surrogates(text) is found


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"t": "a\\ud800b"}', {"t": f"a{REPLACEMENT_CHARACTER}b"}),
        ('{"t": "a\\uDC00b"}', {"t": f"a{REPLACEMENT_CHARACTER}b"}),
        ('{"t": "\\ud83d\\ude00"}', {"t": "😀"}),
        ('{"t": "\\u00e9 \\\\ud800 literally"}', {"t": "é \\ud800 literally"}),
        ('{"t": "ok"}', {"t": "ok"}),
    ],
)
def test_loads_scrubs_what_json_spells(line, expected):
    assert loads(line) == expected


def test_scrub_json_leaves_a_clean_value_itself():
    value = {"a": ["ünïcode", 1, None]}
    assert scrub_json(value) is value
    assert scrub_json({"a": "x\udfffy"}) == {"a": f"x{REPLACEMENT_CHARACTER}y"}
