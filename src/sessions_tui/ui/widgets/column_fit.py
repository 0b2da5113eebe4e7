"""Which columns of a table fit a width: the session table and the spawn panel's runs list both drop
columns in a set order until the rest fit, then let columns take what is left."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def _total(shown: Mapping[str, int], per_column: int, between: int) -> int:
    return sum(shown.values()) + per_column * len(shown) + between * (len(shown) - 1)


def drop_to_fit(
    widths: Mapping[str, int], drop: Sequence[str], width: int, *, per_column: int = 0, between: int = 0
) -> dict[str, int]:
    """The columns of `widths` (in its order) left once those of `drop` go, in that order, until the
    rest fit `width` cells. A column costs its width plus `per_column` (a cell's padding), and
    `between` separates two columns."""
    shown = dict(widths)
    for key in drop:
        if _total(shown, per_column, between) <= width:
            break
        del shown[key]
    return shown


def grow_into(
    shown: Mapping[str, int],
    width: int,
    steps: Sequence[tuple[str, int]],
    *,
    per_column: int = 0,
    between: int = 0,
) -> dict[str, int]:
    """The shown columns grown into what is left of `width`, step by step: each step's column (when
    shown) up to its bound, as far as the room left goes. None shrinks."""
    grown = dict(shown)
    for key, bound in steps:
        if key in grown:
            room = width - _total(grown, per_column, between)
            grown[key] = max(grown[key], min(bound, grown[key] + room))
    return grown


def fit_widths(
    widths: Mapping[str, int],
    drop: Sequence[str],
    width: int,
    *,
    flexible: str,
    flexible_max: int,
    per_column: int = 0,
    between: int = 0,
) -> dict[str, int]:
    """The columns shown in `width` cells (in the order of `widths`) and each one's width: columns
    drop in `drop` order until the rest fit, then `flexible` grows into what is left, up to
    `flexible_max`."""
    shown = drop_to_fit(widths, drop, width, per_column=per_column, between=between)
    return grow_into(shown, width, [(flexible, flexible_max)], per_column=per_column, between=between)
