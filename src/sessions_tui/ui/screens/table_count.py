"""The size of the table's filtered set, which arrives after its page: the page is painted first,
then counted in a worker that a newer page gives up (a count over a large store takes longer than
a page)."""

from __future__ import annotations

from textual.message import Message


class TableCounted(Message):
    """The count of the filter that page `generation` was read with."""

    def __init__(self, total: int, generation: int) -> None:
        super().__init__()
        self.total = total
        self.generation = generation
