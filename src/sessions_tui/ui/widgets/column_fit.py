"""Which columns of a table fit a width: the session table and the spawn panel's runs list both drop
columns in a set order until the rest fit, then let one column take what is left."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


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
    """The columns shown in `width` cells (in the order of `widths`) and each one's width.

    A column costs its width plus `per_column` (a cell's padding), and `between` separates two
    columns; columns drop in `drop` order until the rest fit, then `flexible` grows into what is
    left, up to `flexible_max`.
    """
    shown = dict(widths)

    def total() -> int:
        return sum(shown.values()) + per_column * len(shown) + between * (len(shown) - 1)

    for key in drop:
        if total() <= width:
            break
        del shown[key]
    shown[flexible] = max(shown[flexible], min(flexible_max, shown[flexible] + width - total()))
    return shown
