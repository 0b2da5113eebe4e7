"""`POST /sessions-tui/v1/<op>`: the operator's reads and commands, for a remote dashboard.

The tools alone do not make a dashboard: it pages through sessions filtered and sorted, counts
them, lists a session's sub-agents and announces, carries out the owner's `/send` command and
stops a session's running turn.
Each op is a `Backend` method; its request and answer are the models of backend/remote/wire.py. A body
is read as `/tools/invoke` reads one (2 MB at most, within the body timeout, `NaN` is not JSON, bytes
that are not UTF-8 and lone surrogates read as U+FFFD: `loads_body`) and
validated by its op's model: a 400 `invalid_request` says `op: field: what is wrong`, redacted. Text
that may hold agent output is redacted before it leaves, as the tools' results are, and so is every
session key (a key is user data: a channel id, a label a token was pasted into). A redacted key
names its session when it comes back (`Engine.canonical`), so a remote face acts on what it shows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from starlette.requests import Request
from starlette.responses import Response

from sessions_tui.backend.contract.protocols import Backend
from sessions_tui.backend.contract.types import OperationRefused, SessionOpOutcome
from sessions_tui.backend.remote import wire as w
from sessions_tui.backend.toolkit.inputs import json_problem, loads_body
from sessions_tui.backend.values.vocabulary import StoreDamaged
from sessions_tui.server.invoke import body_or_refusal, error, json_response
from sessions_tui.server.settings import ServerSettings

if TYPE_CHECKING:
    from sessions_tui.backend.values.views import BrowseQuery

Handler = Callable[[Any], Awaitable[w.WireModel]]


class FieldError(Exception):
    """A request that validates but names what is not there (a session key of no session): a 400."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _invalid(op: str, where: str, message: str, redact: Callable[[str], str]) -> Response:
    """The 400 of a bad request: `op: field: what is wrong`, the field and what is wrong redacted
    apart (they may repeat what was sent; together, `key: No …` would read as a secret field)."""
    return error(400, "invalid_request", f"{op}: {redact(where)}: {redact(message)}")


def _package_version() -> str:
    try:
        return version("sessions-tui")
    except PackageNotFoundError:
        return "0"


class OperatorApi:
    """The ops by name, each with its request model and the backend call that answers it."""

    def __init__(
        self,
        backend: Backend,
        public_config: dict[str, Any],
        settings: ServerSettings,
        refused: Callable[[Exception], Response],
    ) -> None:
        """`refused`: the answer to an op whose write the damaged state database refused (503)."""
        self.backend = backend
        self.settings = settings
        self.refused = refused
        self.public_config = public_config
        redact = backend.redact
        self.ops: dict[str, tuple[type[w.WireModel], Handler]] = {
            "info": (w.Empty, self._info),
            "browse": (w.BrowseRequest, self._browse),
            "browse_count": (w.CountRequest, self._count),
            "browse_rows": (w.RowsRequest, self._rows),
            "activity": (w.ActivityRequest, self._activity),
            "mark_seen": (w.KeyRequest, self._mark_seen),
            "state_is_empty": (w.Empty, self._empty),
            "operator_sessions": (w.SessionsRequest, self._sessions),
            "children": (w.KeyRequest, self._children),
            "announcements": (w.KeyRequest, self._announcements),
            "run_label": (w.RunRequest, self._run_label),
            "owner_key": (w.KeyRequest, self._owner_key),
            "owner_command": (w.CommandRequest, self._owner_command),
            "abort_run": (w.AbortRequest, self._abort_run),
            "create_session": (w.NewSessionRequest, self._create_session),
            "reset_session": (w.OperationRequest, self._reset_session),
            "rename_session": (w.LabelRequest, self._rename_session),
            "set_session_model": (w.ModelRequest, self._set_session_model),
            "archive_session": (w.ArchiveRequest, self._archive_session),
            "delete_session": (w.OperationRequest, self._delete_session),
            "data_version": (w.Empty, self._data_version),
            "sends": (w.SendsRequest, self._sends),
            "explain": (w.ExplainRequest, self._explain),
            "export": (w.KeyRequest, self._export),
            "search": (w.SearchRequest, self._search),
            "cron": (w.CronRequest, self._cron),
            "usage": (w.UsageRequest, self._usage),
        }
        self._redact = redact

    async def handle(self, request: Request) -> Response:
        """The op's body validated by its model (400 naming the field it faults), then its handler.
        An input error the handler finds is a 400 too; anything else it raises is a bug, answered
        with a bare 500 (app.py's failures.py)."""
        op = request.path_params["op"]
        if op not in self.ops:
            return error(404, "not_found", f"Unknown operation: {self._redact(op)}")
        model, handler = self.ops[op]
        raw = await body_or_refusal(request, self.settings)
        if isinstance(raw, Response):
            return raw
        try:
            data = loads_body(raw, blank={})
        except (ValueError, RecursionError) as exc:
            return _invalid(op, "body", f"invalid JSON: {json_problem(exc)}", self._redact)
        try:
            args = model.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            return _invalid(op, ".".join(str(p) for p in first["loc"]) or "body", first["msg"], self._redact)
        try:
            answer = await handler(args)
        except FieldError as exc:
            return _invalid(op, exc.field, str(exc), self._redact)
        except StoreDamaged as exc:  # the owner's `/send` command, or a read that writes (`sends`)
            return self.refused(exc)
        return json_response(200, answer.model_dump(mode="json"))

    async def _info(self, _: w.Empty) -> w.Info:
        warnings = [self._redact(line) for line in self.backend.config_warnings]
        return w.Info(
            version=_package_version(),
            now=self.backend.now(),
            config=self.public_config,
            config_warnings=warnings,
            ops=sorted(self.ops),
        )

    def _cursor_in(self, cursor: tuple[Any, str] | None) -> tuple[Any, str] | None:
        return None if cursor is None else (cursor[0], self.backend.canonical(cursor[1]))

    def _cursor_out(self, cursor: tuple[Any, str] | None) -> tuple[Any, str] | None:
        return None if cursor is None else (cursor[0], self._redact(cursor[1]))

    def _row(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """A row as it leaves: its shown fields are redacted already, its key for acting now too."""
        return {**row, "_key": self._redact(row["_key"])} if isinstance(row.get("_key"), str) else dict(row)

    def _query(self, query: w.Query) -> BrowseQuery:
        """A query as the backend reads it: the keys it names (a status filter's) canonical."""
        from sessions_tui.backend.values.views import BrowseQuery

        data = query.model_dump()
        for name in ("keys", "except_keys"):
            if data[name] is not None:
                data[name] = [self.backend.canonical(key) for key in data[name]]
        return BrowseQuery(**data)

    async def _browse(self, req: w.BrowseRequest) -> w.BrowseAnswer:
        page = await self.backend.browse(
            req.requester,
            self._query(req.query),
            offset=req.offset,
            limit=req.limit,
            after=self._cursor_in(req.after),
            before=self._cursor_in(req.before),
            count=req.count,
        )
        rows = [self._row(row) for row in page.rows]
        first, last = self._cursor_out(page.first), self._cursor_out(page.last)
        return w.BrowseAnswer(rows=rows, total=page.total, offset=page.offset, first=first, last=last)

    async def _count(self, req: w.CountRequest) -> w.Count:
        return w.Count(count=await self.backend.browse_count(req.requester, self._query(req.query)))

    async def _rows(self, req: w.RowsRequest) -> w.Rows:
        asked = {self.backend.canonical(key): key for key in req.keys}
        found = await self.backend.browse_rows(req.requester, list(asked))
        # Each row under the key it was asked by, redacted: a face asks by the keys it was shown
        # (their redaction is themselves), and a key asked in full is not repeated in full.
        return w.Rows(rows={self._redact(asked.get(key, key)): self._row(row) for key, row in found.items()})

    async def _activity(self, req: w.ActivityRequest) -> w.ActivityAnswer:
        asked = None if req.keys is None else {self.backend.canonical(key): key for key in req.keys}
        found = await self.backend.activity(req.requester, None if asked is None else list(asked))
        # Under the key asked by (or redacted, for the seed), as `browse_rows` answers.
        shown = asked or {}
        return w.ActivityAnswer(facts={self._redact(shown.get(key, key)): facts for key, facts in found.items()})

    async def _mark_seen(self, req: w.KeyRequest) -> w.Empty:
        await self.backend.mark_seen(self.backend.canonical(req.key))
        return w.Empty()

    async def _empty(self, _: w.Empty) -> w.Flag:
        return w.Flag(value=await self.backend.state_is_empty())

    async def _sessions(self, req: w.SessionsRequest) -> w.SessionsAnswer:
        found = await self.backend.operator_sessions(req.search, req.limit)
        return w.SessionsAnswer(sessions=[(self._redact(key), label) for key, label in found])  # labels redacted

    async def _children(self, req: w.KeyRequest) -> w.ChildViews:
        children = []
        for child in await self.backend.children(self.backend.canonical(req.key)):
            data = child.model_dump(mode="json")
            data["task"] = self._redact(child.task)
            data["label"] = self._redact(child.label) if child.label else child.label
            data["child_key"] = self._redact(child.child_key)
            data["parent_key"] = self._redact(child.parent_key) if child.parent_key else child.parent_key
            children.append(data)
        return w.ChildViews(children=children)

    async def _announcements(self, req: w.KeyRequest) -> w.AnnouncementViews:
        out = []
        for one in await self.backend.announcements(self.backend.canonical(req.key)):
            data = one.model_dump(mode="json")
            data["child_key"] = self._redact(one.child_key)
            data["text"] = self._redact(one.text)
            data["label"] = self._redact(one.label) if one.label else one.label
            out.append(data)
        return w.AnnouncementViews(announcements=out)

    async def _run_label(self, req: w.RunRequest) -> w.Text:
        label = await self.backend.run_label(req.run_id)
        return w.Text(value=self._redact(label) if label else label)

    async def _owner_key(self, req: w.KeyRequest) -> w.Text:
        found = await self.backend.owner_key(req.key)
        return w.Text(value=self._redact(found) if found else found)

    async def _owner_command(self, req: w.CommandRequest) -> w.Text:
        from sessions_tui.backend.values.vocabulary import ToolInputError

        try:
            return w.Text(value=await self.backend.owner_command(self.backend.canonical(req.key), req.text))
        except ToolInputError as exc:  # a key that names no session
            raise FieldError("key", str(exc)) from None

    async def _abort_run(self, req: w.AbortRequest) -> w.AbortAnswer:
        from sessions_tui.backend.values.vocabulary import ToolInputError

        key = self.backend.canonical(req.key)
        try:
            done = await self.backend.abort_run(key, clear_queued=req.clear_queued, requester=req.requester)
        except ToolInputError as exc:  # a key that names no session
            raise FieldError("key", str(exc)) from None
        except OperationRefused as exc:
            return w.AbortAnswer(refused=self._redact(str(exc)))
        return w.AbortAnswer.model_validate({**done.model_dump(), "session_key": self._redact(done.session_key)})

    # -- the operator's operations on a session -------------------------------------------------

    async def _operated(self, operation: Awaitable[SessionOpOutcome]) -> w.SessionOpAnswer:
        """An operation's outcome (its key redacted); bad input a 400 on `key` (the client's
        `ToolInputError`), what the state forbids a `refused` answer (the client's `OperationRefused`)."""
        from sessions_tui.backend.values.vocabulary import ToolInputError

        try:
            done = await operation
        except ToolInputError as exc:
            raise FieldError("key", str(exc)) from None
        except OperationRefused as exc:
            return w.SessionOpAnswer(refused=self._redact(str(exc)))
        return w.SessionOpAnswer(
            outcome={**done.model_dump(mode="json"), "session_key": self._redact(done.session_key)}
        )

    async def _create_session(self, req: w.NewSessionRequest) -> w.SessionOpAnswer:
        return await self._operated(self.backend.create_session(req.session, requester=req.requester))

    async def _reset_session(self, req: w.OperationRequest) -> w.SessionOpAnswer:
        key = self.backend.canonical(req.key)
        return await self._operated(self.backend.reset_session(key, requester=req.requester))

    async def _rename_session(self, req: w.LabelRequest) -> w.SessionOpAnswer:
        key = self.backend.canonical(req.key)
        return await self._operated(self.backend.rename_session(key, req.label, requester=req.requester))

    async def _set_session_model(self, req: w.ModelRequest) -> w.SessionOpAnswer:
        key = self.backend.canonical(req.key)
        return await self._operated(
            self.backend.set_session_model(key, req.model, req.thinking, requester=req.requester)
        )

    async def _archive_session(self, req: w.ArchiveRequest) -> w.SessionOpAnswer:
        key = self.backend.canonical(req.key)
        return await self._operated(self.backend.archive_session(key, req.archived, requester=req.requester))

    async def _delete_session(self, req: w.OperationRequest) -> w.SessionOpAnswer:
        key = self.backend.canonical(req.key)
        return await self._operated(self.backend.delete_session(key, requester=req.requester))

    async def _sends(self, req: w.SendsRequest) -> w.SendsAnswer:
        session = self.backend.canonical(req.session) if req.session else req.session
        entries = await self.backend.sends(session, req.state, req.limit)  # texts redacted by the backend
        redact = self._redact
        shown = [
            e.model_copy(
                update={
                    "requester": redact(e.requester) if e.requester else e.requester,
                    "target": redact(e.target),
                    "chain": [redact(key) for key in e.chain],
                }
            )
            for e in entries
        ]
        return w.SendsAnswer(sends=[entry.model_dump(mode="json") for entry in shown])

    async def _explain(self, req: w.ExplainRequest) -> w.ExplainAnswer:
        from sessions_tui.backend.values.vocabulary import ToolInputError

        try:
            found = await self.backend.explain(req.requester, req.target, req.agent)
        except ToolInputError as exc:
            return w.ExplainAnswer(error=self._redact(str(exc)))
        return w.ExplainAnswer(explanation=found.model_dump(mode="json"))

    async def _export(self, req: w.KeyRequest) -> w.ExportAnswer:
        return w.ExportAnswer(export=await self.backend.export_session(req.key))  # redacted by the backend

    async def _search(self, req: w.SearchRequest) -> w.SearchAnswer:
        from sessions_tui.backend.values.vocabulary import ToolInputError

        try:
            found = await self.backend.search(req.requester, req.query, session=req.session, limit=req.limit)
        except ToolInputError as exc:
            return w.SearchAnswer(error=self._redact(str(exc)))
        hits = [hit.model_copy(update={"key": self._redact(hit.key)}) for hit in found.hits]
        return w.SearchAnswer(outcome=found.model_copy(update={"hits": hits}).model_dump(mode="json", by_alias=True))

    async def _data_version(self, _: w.Empty) -> w.Number:
        return w.Number(value=await self.backend.data_version())

    async def _cron(self, req: w.CronRequest) -> w.CronAnswer:
        """A cron call (`Scheduling`): bad input a 400 on `job`, a refusal a `refused` answer; every
        text of the answer redacted."""
        from sessions_tui.backend.values.vocabulary import ToolInputError

        backend, job_id = self.backend, req.job_id or ""
        try:
            if req.action == "jobs":
                answer = w.CronAnswer(jobs=[job.public() for job in await backend.cron_jobs()])
            elif req.action == "runs":
                answer = w.CronAnswer(
                    runs=[
                        run.model_dump(mode="json", by_alias=True) for run in await backend.cron_runs(job_id, req.limit)
                    ]
                )
            elif req.action == "run":
                answer = w.CronAnswer(run=(await backend.run_cron_job(job_id)).model_dump(mode="json", by_alias=True))
            elif req.action == "job_of":
                found = await backend.cron_job_of(backend.canonical(req.session_key or ""))
                answer = w.CronAnswer(job=None if found is None else found.public())
            else:
                calls = {
                    "job": lambda: backend.cron_job(job_id),
                    "add": lambda: backend.add_cron_job(req.job or {}),
                    "edit": lambda: backend.edit_cron_job(job_id, req.job or {}),
                    "remove": lambda: backend.remove_cron_job(job_id),
                    "enable": lambda: backend.enable_cron_job(job_id, True),
                    "disable": lambda: backend.enable_cron_job(job_id, False),
                }
                answer = w.CronAnswer(job=(await calls[req.action]()).public())
        except ToolInputError as exc:
            raise FieldError("job", str(exc)) from None
        except OperationRefused as exc:
            return w.CronAnswer(refused=self._redact(str(exc)))
        return w.CronAnswer.model_validate(w.redacted_strings(answer.model_dump(mode="json"), self._redact))

    async def _usage(self, req: w.UsageRequest) -> w.UsageAnswer:
        """Usage (`Metering`): the query's session keys (its sessions, the tree's root, the requester) read
        as the sessions they name, every text of the report redacted (by session, its groups are keys)."""
        from dataclasses import replace

        query = req.query
        canonical = self.backend.canonical
        query = replace(
            query,
            keys=None if query.keys is None else tuple(canonical(key) for key in query.keys),
            tree_of=None if query.tree_of is None else canonical(query.tree_of),
            requester=None if query.requester is None else canonical(query.requester),
        )
        answer = w.UsageAnswer(report=await self.backend.usage(query))
        return w.UsageAnswer.model_validate(w.redacted_strings(answer.model_dump(mode="json"), self._redact))
