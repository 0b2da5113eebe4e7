"""The rules that turn a happening into a notice, the same in the dashboard and in `watch --notify`.

What notifies: a watched session becoming `done`, `failed`, `stuck` or `looping` (`StatusChanged`,
not the first status a watcher says: that is no change); a reply landing for a send the operator made
(the send ledger's `replied` or `late_reply` of an entry made `via` the owner: the dashboard's composer,
`sessions-tui send`, `tool`, the HTTP API); an inbound hook (`HookReceived`); a cron run starting
(`CronRunStarted`). Never about the session on screen: the caller says which key is shown. A send's
reply needs its ledger entry, which the face reads (send_notices.py): the rule stays pure.
Texts are redacted here (the backend's redactor) and cleaned by `notice.notice`.
"""

from __future__ import annotations

from collections.abc import Callable

from sessions_tui.backend.toolkit.notices.notice import Notice, NoticeKind, notice
from sessions_tui.backend.toolkit.notices.watch_set import WatchSet
from sessions_tui.backend.values.vocabulary import (
    CronRunStarted,
    EngineEvent,
    HookReceived,
    LedgerEntry,
    StatusChanged,
)

STATUS_NOTICES: dict[str, tuple[NoticeKind, str, str, str]] = {
    "done": ("done", "Finished", "{name} finished its run", "finished its run"),
    "failed": ("failed", "Failed", "{name}: its last run failed", "its last run failed"),
    "stuck": ("stuck", "Stuck", "{name} has made no progress for a while", "no progress for a while"),
    "looping": (
        "looping",
        "Looping",
        "{name} keeps bouncing: the chain guard refused a hop",
        "keeps bouncing: the chain guard refused a hop",
    ),
}
"""A status that notifies: the notice's kind, title, body, and gist (the body without the session's name)."""
REPLY_STATES = frozenset({"replied", "late_reply"})
"""The ledger states in which a reply landed."""
ENTRY_STATES = REPLY_STATES | {"accepted"}
"""The ledger states whose entry the rules read: a reply, and a send begun (its target watched under `sends`)."""


def is_operator_send(entry: LedgerEntry) -> bool:
    """A send the operator made (not a model's tool call)."""
    return entry.via == "owner"


class NoticeRules:
    """The rules over one `WatchSet`; `display` names a key as the face shows it (redacted), `redact`
    masks agent text."""

    def __init__(self, watch: WatchSet, display: Callable[[str], str], redact: Callable[[str], str]) -> None:
        self.watch = watch
        self.display = display
        self.redact = redact
        self._replied: set[str] = set()  # run ids whose reply was said: one notice a send

    def notice_of(self, event: EngineEvent, shown: str | None) -> Notice | None:
        """The notice an event makes, if any; `shown`: the key on screen (None: none)."""
        key = getattr(event, "session_key", None)
        if key is None or key == shown:
            return None
        name = self.display(key)
        if isinstance(event, StatusChanged):
            said = STATUS_NOTICES.get(event.status)
            if said is None or event.previous is None or event.previous == event.status:
                return None
            if not self.watch.watched(key):
                return None
            kind, title, body, gist = said
            return notice(title, body.format(name=name), session_key=key, kind=kind, at=event.ts, gist=gist)
        if isinstance(event, HookReceived) and self.watch.happens_to(key):
            title = "Wake received" if event.kind == "wake" else "Hook received"
            hook = self.redact(event.name)
            return notice(title, f"{hook} → {name}", session_key=key, kind="hook", at=event.ts, gist=hook)
        if isinstance(event, CronRunStarted) and self.watch.happens_to(key):
            job = self.redact(event.job_name or event.job_id)
            return notice("Cron run started", f"{job} → {name}", session_key=key, kind="cron", at=event.ts, gist=job)
        return None

    def entry_notice(self, entry: LedgerEntry, state: str, at: int, shown: str | None) -> Notice | None:
        """What a send's entry in `state` makes: the operator's send watches its target (`sends`);
        its reply is a notice, once, unless its target is on screen."""
        if not is_operator_send(entry):
            return None
        target = entry.target
        self.watch.sent_to(target)
        if state not in REPLY_STATES or entry.run_id in self._replied:
            return None
        self._replied.add(entry.run_id)
        if target == shown or not self.watch.happens_to(target):
            return None
        text = ""
        for step in reversed(entry.states):
            if step.state in REPLY_STATES and step.detail and isinstance(step.detail.get("text"), str):
                text = step.detail["text"]
                break
        body = self.redact(text) if text else "replied"
        return notice(f"Reply from {self.display(target)}", body, session_key=target, kind="reply", at=at)
