"""Where a finished run's reply goes (`delivery.mode`): nowhere, announced to a channel, or POSTed to a webhook.

- `announce`: the reply is announced as sends and sub-agents announce (messaging/announce_route.py):
  subject to the session's send policy, through the outbox to the job's `channel` and `to` (else the
  session's own route), with the channel's webhook delivering it. Only a run that ended ok with a
  reply is announced (`NO_REPLY` is a reply that says nothing should go).
- `webhook`: the finished run, as OpenClaw's scheduler describes one (`action: finished`, `jobId`,
  `runId`, `runAtMs`, `durationMs`, `status`, `error`, `summary`: the reply, `sessionKey`), POSTed
  as JSON to `delivery.to`, with `Authorization: Bearer <cron.webhookToken>` when one is set; connection
  errors, timeouts, 429 and 5xx are retried (`MAX_ATTEMPTS` in all).

Returns OpenClaw's delivery status: `delivered`, `not-delivered` (with why), `unknown` (the outbox
still delivering), or `not-requested`.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol

from sessions_tui.engine.backoff import retry_delay
from sessions_tui.engine.cron.jobs import CronJob
from sessions_tui.engine.messaging.announce_route import (
    AnnounceHost,
    AnnounceTarget,
    queue_announce,
    resolve_announce_target,
)
from sessions_tui.engine.redaction.cut import redact_then_cut
from sessions_tui.engine.redaction.redact import Redactor

if TYPE_CHECKING:
    from sessions_tui.engine.store.tables.cron import CronRunRow

MAX_ATTEMPTS = 3
ATTEMPT_TIMEOUT_S = 10.0
NO_REPLY = "NO_REPLY"


class DeliveryHost(AnnounceHost, Protocol):
    """An announce's needs, and the redactor (a webhook's answer, kept cut, is redacted first)."""

    @property
    def redactor(self) -> Redactor: ...


async def deliver(
    engine: DeliveryHost,
    job: CronJob,
    *,
    session_key: str | None,
    status: str,
    error: str | None,
    text: str | None,
    run: CronRunRow,
    ended: int,
    run_id: str | None,
    webhook_token: str | None,
) -> tuple[str, str | None]:
    """Deliver a finished run as its job says; (delivery status, why it was not delivered)."""
    delivery = job.delivery
    if delivery is None or delivery.mode == "none":
        return "not-requested", None
    if delivery.mode == "webhook":
        body = {
            "action": "finished",
            "jobId": job.id,
            "jobName": job.name,
            "runId": run.id,
            "runAtMs": run.started_at,
            "durationMs": max(0, ended - run.started_at),
            "status": status,
            "error": error,
            "summary": text,
            "sessionKey": session_key,
            "agentRunId": run_id,
        }
        return await post_webhook(engine, delivery.to or "", body, webhook_token)
    if status != "ok" or session_key is None:
        return "not-delivered", "the run did not end ok"
    if not text or text.strip() == NO_REPLY:
        return "not-requested", None
    if delivery.channel and delivery.to:
        target: AnnounceTarget | None = AnnounceTarget(
            channel=delivery.channel, to=delivery.to, account_id=delivery.account_id, thread_id=delivery.thread_id
        )
    else:
        target = resolve_announce_target(engine, session_key)
    queued = queue_announce(
        engine,
        kind="cron",
        session_key=session_key,
        text=text,
        target=target,
        via="cron",
        event={"run_id": run_id, "status": status},
    )
    if queued.state in ("delivered", "recorded"):
        return "delivered", None
    if queued.state == "pending":
        return "unknown", None
    if queued.state == "forbidden":
        return "not-delivered", queued.refusal
    return "not-delivered", "no channel to announce to: give the job a channel and target (--channel, --to)"


async def post_webhook(
    engine: DeliveryHost, url: str, body: dict[str, object], token: str | None
) -> tuple[str, str | None]:
    """POST `body` to `url`, retrying what may pass on a second try; (delivery status, the last error)."""
    import httpx  # only a process that delivers to a webhook loads it

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    error = "not attempted"
    async with httpx.AsyncClient(timeout=ATTEMPT_TIMEOUT_S) as client:
        for attempt in range(MAX_ATTEMPTS):
            if attempt:
                await asyncio.sleep(retry_delay(attempt - 1, base=1.0, cap=8.0))
            try:
                response = await client.post(url, json=body, headers=headers)
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}".rstrip(": ")
                continue
            if response.status_code < 300:
                return "delivered", None
            said = redact_then_cut(response.text.strip(), 200, engine.redactor.redact, mark="")
            error = f"HTTP {response.status_code}: {said.strip()}".rstrip(": ")
            if response.status_code != 429 and response.status_code < 500:
                break
    return "not-delivered", error
