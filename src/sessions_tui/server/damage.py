"""A state database found damaged while the server runs: nothing more is written to it, and the
server says so once in its log and to every client whose request would write.

A request that would write is answered `503` with `error.type` `store_damaged` and, as its
message, the one line that names the file and what to do (restore it, or `sqlite3 .recover`);
a remote dashboard shows that line as its own. Reads go on.
"""

from __future__ import annotations

import logging

from starlette.responses import Response

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.server.invoke import error

log = logging.getLogger("sessions_tui.server")


class DamageReport:
    """The server's one report of a damaged state database: logged once, answered every time."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.logged = False

    def noticed(self, notice: str | None) -> None:
        """The damage, when there is any, in the server's log: the first time only."""
        if notice is not None and not self.logged:
            self.logged = True
            log.error("%s; nothing more is written to it, reads go on", self.backend.redact(notice))

    def refused(self, exc: Exception) -> Response:
        """The answer to a request whose write the damaged database refused."""
        self.noticed(self.backend.store_damage or str(exc))
        return error(503, "store_damaged", self.backend.redact(str(exc)))
