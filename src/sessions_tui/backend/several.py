"""One backend over several servers: a dashboard that watches and answers many gateways at once.

Every key this backend hands out carries its server's label in front, `LABEL/KEY` (the label is
the server's host:port), so two gateways' `agent:main:main` stay two sessions, each marked with
its gateway. A call goes to the server its target key names (a tool's `sessionKey`, else the
requester's key, else the first server), with the label taken off; keys in what comes back get it
put on. Pages are read from every server with the same filter and sort, and merged.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import (
    AbortOutcome,
    BackendUnavailable,
    Capability,
    EventCallback,
    ImportSummary,
    NewSession,
    Requester,
    RequesterView,
    SessionOpOutcome,
    not_on,
)
from sessions_tui.backend.row_sort import row_sort_key

if TYPE_CHECKING:
    from sessions_tui.engine.config.sections.ui import NotifyConfig
    from sessions_tui.engine.cron.jobs import CronJob, CronRun
    from sessions_tui.engine.events import EngineEvent
    from sessions_tui.engine.export import SessionExport
    from sessions_tui.engine.hooks.values import HookAdmitted, HookCompletion, HookRun, HookWake, WakeOutcome
    from sessions_tui.engine.messaging.ledger import LedgerEntry
    from sessions_tui.engine.openclaw.follow import FollowTick
    from sessions_tui.engine.sessions.live_status import Activity
    from sessions_tui.engine.subagents.records import AnnouncementView, ChildView
    from sessions_tui.engine.usage import UsageQuery, UsageReport
    from sessions_tui.tools.reading.browse import BrowsePage, BrowseQuery, BrowseRow
    from sessions_tui.tools.reading.sessions_search import SearchOutcome
    from sessions_tui.tools.requester.explain import Explanation

KEY_FIELDS = frozenset(
    {"key", "_key", "sessionKey", "childSessionKey", "requesterSessionKey", "parentSessionKey", "spawnedBy"}
)
"""Result fields that hold a session key."""

EVENT_KEY_FIELDS = ("session_key", "target_key", "child_session_key", "speaker")


def label_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.netloc or url


class SeveralBackends:
    """A `Backend` over several (remote) backends, each with a label."""

    def __init__(self, backends: Iterable[Backend]) -> None:
        self.backends: dict[str, Backend] = {}
        for backend in backends:
            label = label_of(backend.location)
            n = 2
            while label in self.backends:
                label, n = f"{label_of(backend.location)}#{n}", n + 1
            self.backends[label] = backend
        self.first = next(iter(self.backends))

    # -- labels ----------------------------------------------------------------------------------

    def split(self, key: str | None) -> tuple[str, str | None]:
        """(label, the server's own key) of a key of ours; a key with no known label is the first server's."""
        if key:
            label, sep, rest = key.partition("/")
            if sep and label in self.backends:
                return label, rest
        return self.first, key

    def _mark(self, label: str, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: (f"{label}/{v}" if k in KEY_FIELDS and isinstance(v, str) and v else self._mark(label, v))
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [self._mark(label, v) for v in value]
        return value

    def _marked_row(self, label: str, row: BrowseRow) -> BrowseRow:
        """A server's table row, its keys marked with the server, which it names (`gateway`)."""
        marked: BrowseRow = self._mark(label, row)  # a new dict
        marked["gateway"] = label
        return marked

    def _requester_on(self, label: str, requester: Requester) -> Requester:
        owner, bare = self.split(requester.key)
        return Requester(key=bare if owner == label else None, sandboxed=requester.sandboxed)

    # -- where, and the config a face shows ------------------------------------------------------

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What any of them has (a call for a key on one that has it not refuses as that one
        does), but importing or following an OpenClaw, done on a server's machine, and managing cron
        jobs, which are one server's each; usage is every server's that has it, summed."""
        every = frozenset().union(*(b.capabilities for b in self.backends.values()))
        return every - {Capability.IMPORT, Capability.CRON}

    def not_offered(self, capability: Capability) -> str:
        if capability is Capability.IMPORT:
            return "importing an OpenClaw state directory is done on a server's machine"
        if capability is Capability.CRON:
            return f"{self.location}: cron jobs are one server's each: manage them with --remote naming that one"
        lacking = [b for b in self.backends.values() if capability not in b.capabilities]
        return lacking[0].not_offered(capability) if lacking else not_on(self.location, capability)

    @property
    def location(self) -> str:
        return ", ".join(b.location for b in self.backends.values())

    @property
    def config_warnings(self) -> list[str]:
        return [f"{label}: {w}" for label, b in self.backends.items() for w in b.config_warnings]

    @property
    def store_damage(self) -> str | None:
        damaged = [f"{label}: {b.store_damage}" for label, b in self.backends.items() if b.store_damage is not None]
        return "; ".join(damaged) or None

    @property
    def keybindings(self) -> dict[str, str]:
        return self.backends[self.first].keybindings

    @property
    def theme(self) -> str | None:
        return self.backends[self.first].theme

    @property
    def send_wait(self) -> int:
        return self.backends[self.first].send_wait

    @property
    def stuck_after_minutes(self) -> int:
        return self.backends[self.first].stuck_after_minutes

    @property
    def notify(self) -> NotifyConfig:
        return self.backends[self.first].notify

    def public_config(self) -> dict[str, Any]:
        return self.backends[self.first].public_config()

    # -- keys and identity -----------------------------------------------------------------------

    def now(self) -> int:
        return self.backends[self.first].now()

    def canonical(self, key: str) -> str:
        label, bare = self.split(key)
        return f"{label}/{self.backends[label].canonical(bare or '')}"

    def display(self, key: str, viewer_agent_id: str | None = None) -> str:
        label, bare = self.split(key)
        return f"{label}/{self.backends[label].display(bare or '', viewer_agent_id)}"

    def main_session_key(self) -> str:
        return f"{self.first}/{self.backends[self.first].main_session_key()}"

    def is_sandboxed(self, key: str) -> bool:
        label, bare = self.split(key)
        return self.backends[label].is_sandboxed(bare or "")

    def describe_requester(self, requester: Requester) -> RequesterView:
        label, bare = self.split(requester.key)
        return self.backends[label].describe_requester(Requester(key=bare, sandboxed=requester.sandboxed))

    def redact(self, text: str) -> str:
        for backend in self.backends.values():
            text = backend.redact(text)
        return text

    def stream_redaction(self) -> None:
        return None  # each server passes on only what its redaction of the text so far shows

    # -- tools -----------------------------------------------------------------------------------

    def tools_for(self, requester: Requester) -> list[str]:
        label, bare = self.split(requester.key)
        return self.backends[label].tools_for(Requester(key=bare, sandboxed=requester.sandboxed))

    async def call_tool(self, name: str, args: dict[str, Any], requester: Requester) -> dict[str, Any]:
        target = args.get("sessionKey")
        label, bare = self.split(target if isinstance(target, str) and target else requester.key)
        if isinstance(target, str) and target:
            args = {**args, "sessionKey": bare}
        result = await self.backends[label].call_tool(name, args, self._requester_on(label, requester))
        marked: dict[str, Any] = self._mark(label, result)
        return marked

    async def browse(
        self,
        requester: Requester,
        query: BrowseQuery,
        *,
        offset: int,
        limit: int,
        after: tuple[Any, str] | None = None,
        before: tuple[Any, str] | None = None,
        count: bool = True,
    ) -> BrowsePage:
        from sessions_tui.tools.reading.browse import BrowsePage

        async def page_of(label: str, backend: Backend) -> tuple[str, BrowsePage]:
            on = self._requester_on(label, requester)
            asked = self._query_on(label, query)
            return label, await backend.browse(on, asked, offset=0, limit=offset + limit, count=count)

        pages = await asyncio.gather(*(page_of(label, b) for label, b in self.backends.items()))
        rows = [self._marked_row(label, row) for label, page in pages for row in page.rows]
        rows.sort(key=row_sort_key(query.order_by), reverse=query.descending)
        total = sum(page.total for _, page in pages) if all(page.total >= 0 for _, page in pages) else -1
        return BrowsePage(rows=rows[offset : offset + limit], total=total, offset=offset)

    async def browse_count(
        self, requester: Requester, query: BrowseQuery, cancelled: Callable[[], bool] | None = None
    ) -> int:
        counts = await asyncio.gather(
            *(
                b.browse_count(self._requester_on(label, requester), self._query_on(label, query), cancelled)
                for label, b in self.backends.items()
            )
        )
        return -1 if any(c < 0 for c in counts) else sum(counts)

    async def browse_rows(self, requester: Requester, keys: list[str]) -> dict[str, dict[str, Any]]:
        by_label: dict[str, list[str]] = {}
        for key in keys:
            label, bare = self.split(key)
            by_label.setdefault(label, []).append(bare or "")
        out: dict[str, dict[str, Any]] = {}
        for label, bare_keys in by_label.items():
            rows = await self.backends[label].browse_rows(self._requester_on(label, requester), bare_keys)
            out.update({f"{label}/{k}": {**self._mark(label, row), "gateway": label} for k, row in rows.items()})
        return out

    def _query_on(self, label: str, query: BrowseQuery) -> BrowseQuery:
        """The query as the server `label` reads it: of the keys it names, that server's own."""
        if query.keys is None and query.except_keys is None:
            return query
        from dataclasses import replace

        def own(keys: list[str] | None) -> list[str] | None:
            return None if keys is None else [bare or "" for k in keys for on, bare in [self.split(k)] if on == label]

        return replace(query, keys=own(query.keys), except_keys=own(query.except_keys))

    async def activity(self, requester: Requester, keys: list[str] | None = None) -> dict[str, Activity]:
        by_label: dict[str, list[str] | None] = dict.fromkeys(self.backends) if keys is None else {}
        for key in keys or ():
            label, bare = self.split(key)
            asked = by_label.setdefault(label, [])
            assert asked is not None
            asked.append(bare or "")
        found = await asyncio.gather(
            *(
                self.backends[label].activity(self._requester_on(label, requester), asked)
                for label, asked in by_label.items()
            )
        )
        return {f"{label}/{k}": facts for label, one in zip(by_label, found, strict=True) for k, facts in one.items()}

    async def mark_seen(self, key: str) -> None:
        label, bare = self.split(key)
        await self.backends[label].mark_seen(bare or "")

    async def state_is_empty(self) -> bool:
        return all(await asyncio.gather(*(b.state_is_empty() for b in self.backends.values())))

    # -- the operator's reads and commands -------------------------------------------------------

    async def operator_sessions(self, search: str | None, limit: int) -> list[tuple[str, str]]:
        found = await asyncio.gather(*(b.operator_sessions(search, limit) for b in self.backends.values()))
        return [
            (f"{label}/{key}", text) for label, rows in zip(self.backends, found, strict=True) for key, text in rows
        ][:limit]

    async def children(self, requester_key: str) -> list[ChildView]:
        label, bare = self.split(requester_key)
        views = await self.backends[label].children(bare or "")
        return [
            v.model_copy(
                update={
                    "child_key": f"{label}/{v.child_key}",
                    "parent_key": f"{label}/{v.parent_key}" if v.parent_key else None,
                }
            )
            for v in views
        ]

    async def announcements(self, requester_key: str) -> list[AnnouncementView]:
        label, bare = self.split(requester_key)
        if Capability.ANNOUNCES not in self.backends[label].capabilities:
            return []  # that server reports none: the others' still show
        views = await self.backends[label].announcements(bare or "")
        return [v.model_copy(update={"child_key": f"{label}/{v.child_key}"}) for v in views]

    async def sends(self, session: str | None, state: str | None, limit: int) -> list[LedgerEntry]:
        """One server's sends when `session` names it, else every server's, newest first."""
        labels = [self.split(session)[0]] if session else list(self.backends)
        bare = self.split(session)[1] if session else None
        found = await asyncio.gather(*(self.backends[label].sends(bare, state, limit) for label in labels))
        marked = [
            entry.model_copy(
                update={
                    "requester": f"{label}/{entry.requester}" if entry.requester else None,
                    "target": f"{label}/{entry.target}",
                    "chain": [f"{label}/{key}" for key in entry.chain],
                }
            )
            for label, entries in zip(labels, found, strict=True)
            for entry in entries
        ]
        marked.sort(key=lambda entry: entry.created_at, reverse=True)
        return marked[:limit]

    async def run_label(self, run_id: str) -> str | None:
        for backend in self.backends.values():
            if Capability.ANNOUNCES not in backend.capabilities:
                continue
            found = await backend.run_label(run_id)
            if found is not None:
                return found
        return None

    async def owner_key(self, key: str) -> str | None:
        label, bare = self.split(key)
        found = await self.backends[label].owner_key(bare or "")
        return f"{label}/{found}" if found else None

    async def owner_command(self, key: str, text: str) -> str | None:
        label, bare = self.split(key)
        return await self.backends[label].owner_command(bare or "", text)

    def _as_on(self, label: str, requester: Requester | None) -> Requester | None:
        """The requester as the server `label` knows it (None, the operator, everywhere)."""
        return None if requester is None else self._requester_on(label, requester)

    async def abort_run(
        self, key: str, *, clear_queued: bool = False, requester: Requester | None = None
    ) -> AbortOutcome:
        label, bare = self.split(key)
        as_on = self._as_on(label, requester)
        done = await self.backends[label].abort_run(bare or "", clear_queued=clear_queued, requester=as_on)
        return done.model_copy(update={"session_key": f"{label}/{done.session_key}"})

    def _marked(self, label: str, done: SessionOpOutcome) -> SessionOpOutcome:
        return done.model_copy(update={"session_key": f"{label}/{done.session_key}"})

    async def create_session(self, request: NewSession, *, requester: Requester | None = None) -> SessionOpOutcome:
        """On the server the key names (`label/key`)."""
        label, bare = self.split(request.key)
        bare_request = request.model_copy(update={"key": bare or ""})
        done = await self.backends[label].create_session(bare_request, requester=self._as_on(label, requester))
        return self._marked(label, done)

    async def reset_session(self, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        label, bare = self.split(key)
        done = await self.backends[label].reset_session(bare or "", requester=self._as_on(label, requester))
        return self._marked(label, done)

    async def rename_session(
        self, key: str, label: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        server, bare = self.split(key)
        as_on = self._as_on(server, requester)
        return self._marked(server, await self.backends[server].rename_session(bare or "", label, requester=as_on))

    async def set_session_model(
        self, key: str, model: str | None, thinking: str | None, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        label, bare = self.split(key)
        as_on = self._as_on(label, requester)
        done = await self.backends[label].set_session_model(bare or "", model, thinking, requester=as_on)
        return self._marked(label, done)

    async def archive_session(
        self, key: str, archived: bool, *, requester: Requester | None = None
    ) -> SessionOpOutcome:
        label, bare = self.split(key)
        as_on = self._as_on(label, requester)
        return self._marked(label, await self.backends[label].archive_session(bare or "", archived, requester=as_on))

    async def delete_session(self, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        label, bare = self.split(key)
        done = await self.backends[label].delete_session(bare or "", requester=self._as_on(label, requester))
        return self._marked(label, done)

    async def compact_session(self, key: str, *, requester: Requester | None = None) -> SessionOpOutcome:
        """On the server the key names, if it compacts (else its refusal)."""
        label, bare = self.split(key)
        done = await self.backends[label].compact_session(bare or "", requester=self._as_on(label, requester))
        return self._marked(label, done)

    # -- cron jobs: one server's each (`not_offered`), but a session's job is its server's --------

    def _no_cron(self) -> BackendUnavailable:
        return BackendUnavailable(self.not_offered(Capability.CRON))

    async def cron_jobs(self) -> list[CronJob]:
        raise self._no_cron()

    async def cron_job(self, job_id: str) -> CronJob:
        raise self._no_cron()

    async def add_cron_job(self, job: dict[str, Any]) -> CronJob:
        raise self._no_cron()

    async def edit_cron_job(self, job_id: str, patch: dict[str, Any]) -> CronJob:
        raise self._no_cron()

    async def remove_cron_job(self, job_id: str) -> CronJob:
        raise self._no_cron()

    async def enable_cron_job(self, job_id: str, enabled: bool) -> CronJob:
        raise self._no_cron()

    async def run_cron_job(self, job_id: str) -> CronRun:
        raise self._no_cron()

    async def cron_runs(self, job_id: str, limit: int) -> list[CronRun]:
        raise self._no_cron()

    async def cron_job_of(self, session_key: str) -> CronJob | None:
        """The job of a session, asked of the session's server."""
        label, bare = self.split(session_key)
        backend = self.backends[label]
        return await backend.cron_job_of(bare or "") if Capability.CRON in backend.capabilities else None

    async def serve_cron_jobs(self) -> None:
        return None  # each server runs its own

    async def usage(self, query: UsageQuery) -> UsageReport:
        """Every server's that has usage, summed (several_usage.py: agents and sessions marked with
        their server, models summed across them)."""
        from sessions_tui.backend.several_usage import several_usage

        return await several_usage(self.backends, query, self.split)

    async def explain(self, requester: Requester, target: str, agent: str | None) -> Explanation:
        """The server of `target` explains, for the requester as that server knows it."""
        label, bare = self.split(target)
        found = await self.backends[label].explain(self._requester_on(label, requester), bare or "", agent)
        return found.model_copy(update={"requester": f"{label}/{found.requester}", "target": f"{label}/{found.target}"})

    async def export_session(self, key: str) -> SessionExport | None:
        """The server of `key` exports it, under the key that server has (a JSONL export imports
        back as that session), naming the server apart."""
        label, bare = self.split(key)
        found = await self.backends[label].export_session(bare or "")
        return found.model_copy(update={"server": label}) if found else None

    async def search_index_behind(self) -> int:
        return sum(await asyncio.gather(*(b.search_index_behind() for b in self.backends.values())))

    async def catch_up_search_index(self) -> None:
        await asyncio.gather(*(b.catch_up_search_index() for b in self.backends.values()))

    async def search(
        self, requester: Requester, query: str, *, session: str | None = None, limit: int = 100
    ) -> SearchOutcome:
        """The server of `session` searches it; else every server, the best hits of all first."""
        labels = [self.split(session)[0]] if session else list(self.backends)
        bare = self.split(session)[1] if session else None
        found = await asyncio.gather(
            *(
                self.backends[label].search(self._requester_on(label, requester), query, session=bare, limit=limit)
                for label in labels
            )
        )
        hits = [
            hit.model_copy(update={"key": f"{label}/{hit.key}", "session_key": f"{label}/{hit.session_key}"})
            for label, outcome in zip(labels, found, strict=True)
            for hit in outcome.hits
        ]
        from sessions_tui.tools.reading.sessions_search import best_first

        hits.sort(key=best_first)
        refused = next((o.refused for o in found if o.refused), None)
        return found[0].model_copy(
            update={
                "hits": hits[:limit],
                "indexing": any(o.indexing for o in found),
                "truncated": len(hits) > limit or any(o.truncated for o in found),
                "refused": refused,
            }
        )

    # -- events ----------------------------------------------------------------------------------

    def subscribe(self, callback: EventCallback) -> Callable[[], None]:
        stops = [b.subscribe(self._marking(label, callback)) for label, b in self.backends.items()]

        def unsubscribe() -> None:
            for stop in stops:
                stop()

        return unsubscribe

    @staticmethod
    def _marking(label: str, callback: EventCallback) -> EventCallback:
        def deliver(event: EngineEvent) -> None:
            update = {
                name: f"{label}/{getattr(event, name)}"
                for name in EVENT_KEY_FIELDS
                if isinstance(getattr(event, name, None), str) and getattr(event, name)
            }
            callback(event.model_copy(update=update) if update else event)

        return deliver

    @property
    def pushes_events(self) -> bool:
        return all(b.pushes_events for b in self.backends.values())

    async def watch_store_changes(self, wake: Callable[[], None]) -> bool:
        return False  # its events say every change (`pushes_events`)

    async def data_version(self) -> int:
        return sum(await asyncio.gather(*(b.data_version() for b in self.backends.values())))

    # -- OpenClaw --------------------------------------------------------------------------------

    async def import_openclaw(self, root: Path, *, adopt: bool = False) -> ImportSummary:
        raise BackendUnavailable(self.not_offered(Capability.IMPORT))

    async def run_hook(self, hook: HookRun) -> HookAdmitted:
        raise BackendUnavailable(self.not_offered(Capability.HOOKS))

    async def hook_completion(self, run_id: str) -> HookCompletion:
        raise BackendUnavailable(self.not_offered(Capability.HOOKS))

    async def wake_hook(self, wake: HookWake) -> WakeOutcome:
        raise BackendUnavailable(self.not_offered(Capability.HOOKS))

    async def follow_openclaw(
        self, root: Path, stop: asyncio.Event, on_tick: Callable[[FollowTick], None], *, own_connection: bool
    ) -> None:
        raise BackendUnavailable("following an OpenClaw is done on a server's machine (serve --openclaw)")

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        await asyncio.gather(*(b.start() for b in self.backends.values()))

    async def sweep(self) -> int:
        return sum(await asyncio.gather(*(b.sweep() for b in self.backends.values())))

    async def drain(self) -> None:
        await asyncio.gather(*(b.drain() for b in self.backends.values()))

    def left_pending_line(self) -> str | None:
        lines = [line for b in self.backends.values() if (line := b.left_pending_line())]
        return "\n".join(lines) or None

    async def aclose(self) -> None:
        await asyncio.gather(*(b.aclose() for b in self.backends.values()), return_exceptions=True)

    def close(self) -> None:
        for backend in self.backends.values():
            backend.close()
