"""The session entry's accessors: what a session is called, and what counts as a number."""

from __future__ import annotations

import math

import pytest

from sessions_tui.engine.sessions.entry import display_name, is_int, is_number, title, updated_at


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"label": "L", "displayName": "D"}, "L"),
        ({"displayName": "D"}, "D"),
        ({"label": "", "displayName": "D"}, "D"),  # an empty label does not count
        ({"label": None, "displayName": "D"}, "D"),
        ({"label": "L"}, "L"),
        ({"subject": "S"}, ""),  # a group's subject is the export's title only
        ({}, ""),
        ({"label": " ", "displayName": "D"}, " "),  # blank is not empty: shown as it is
        ({"label": 5}, "5"),  # not a string (a hand-edited entry): shown as its str
    ],
)
def test_display_name_is_label_else_display_name(fields: dict[str, object], expected: str) -> None:
    assert display_name(fields) == expected


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"label": "L", "displayName": "D", "subject": "S"}, "L"),
        ({"label": " ", "displayName": "D"}, "D"),  # only text counts
        ({"label": 5, "subject": "S"}, "S"),
        ({"subject": "S"}, "S"),
        ({"label": ""}, None),
        ({}, None),
    ],
)
def test_title_takes_text_only_and_the_subject_last(entry: dict[str, object], expected: str | None) -> None:
    assert title(entry) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, True),
        (-3, True),
        (10**30, True),
        (1.5, True),
        (math.nan, True),  # a float: callers that want finite numbers check apart
        (math.inf, True),
        (True, False),
        (False, False),
        (None, False),
        ("1", False),
        ([1], False),
    ],
)
def test_is_number_never_a_bool(value: object, expected: bool) -> None:
    assert is_number(value) is expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, True), (7, True), (1.0, False), (math.nan, False), (True, False), (False, False), ("3", False)],
)
def test_is_int_never_a_bool_nor_a_float(value: object, expected: bool) -> None:
    assert is_int(value) is expected


def test_updated_at_only_a_number() -> None:
    assert updated_at({"updatedAt": 12}) == 12
    assert updated_at({"updatedAt": 1.5}) == 1.5
    assert updated_at({"updatedAt": True}) is None
    assert updated_at({"updatedAt": "12"}) is None
    assert updated_at({}) is None
