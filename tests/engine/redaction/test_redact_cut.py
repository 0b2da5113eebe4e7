"""A cut never leaves part of a secret: every place that shortens text cuts its redaction.

Each cut site gets every secret kind planted at every offset around its cut, so the cut falls
before the secret, at each character inside it and after it; no `LEAK_WINDOW` characters of the
secret's core may come out (a cut secret matches no rule: redacting after the cut is too late).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from conftest import add_session, call_tool
from openai_server import Reply
from secret_corpus import KINDS, LEAK_WINDOW, leaks, secret
from sessions_tui.engine.llm.demo import DemoModel
from sessions_tui.engine.llm.wire import provider_error_message, snippet
from sessions_tui.engine.openclaw.mirror import _shown
from sessions_tui.engine.redaction.cut import REDACT_WINDOW_MARGIN, redact_then_cut
from sessions_tui.engine.redaction.redact import Redactor
from sessions_tui.engine.redaction.sanitize import HISTORY_TEXT_MAX_CHARS, truncate_history_text
from sessions_tui.tools.reading.sessions_search import _cut

REDACTOR = Redactor()
DEMO = DemoModel(latency_ms=0, chunk_ms=0, redact=REDACTOR.redact)

# (where the cut falls in the text, how the site shortens a text)
CUT_SITES: dict[str, tuple[int, Callable[[str], str]]] = {
    "redact_then_cut": (120, lambda t: redact_then_cut(t, 120, REDACTOR.redact)),
    "one line": (80, lambda t: redact_then_cut(t, 80, REDACTOR.redact, flat=True)),
    "demo model quote": (160, lambda t: DEMO._short(t, 160)),
    "demo model label": (24, lambda t: DEMO._short(t, 24)),
    "history text": (HISTORY_TEXT_MAX_CHARS, lambda t: truncate_history_text(t, REDACTOR)[0]),
    "search snippet": (500, lambda t: _cut(t, 500, REDACTOR.redact)),
    "model server snippet": (200, snippet),
    "model server error body": (500, provider_error_message),
    "import problem value": (39, _shown),  # repr's opening quote comes first
}


def _middle(text: str, core: str) -> int:
    """Where the middle of a secret's core is in its text (a private key's core skips its line breaks)."""
    return text.index(core[:LEAK_WINDOW]) + len(core) // 2


def _filler(length: int) -> str:
    """`length` characters of text before a secret, ending in a space (no rule reads it as part of it)."""
    return "." * (length - 1) + " " if length else ""


@pytest.mark.parametrize("site", list(CUT_SITES))
def test_a_secret_at_every_offset_around_a_cut_never_leaves_a_fragment(site):
    cut_at, shorten = CUT_SITES[site]
    rng = random.Random(f"cuts {site}")
    checked = 0
    for kind in KINDS:
        text, core = secret(kind, rng)
        for before in range(max(0, cut_at - len(text) - 2), cut_at + 2):
            out = shorten(f"{_filler(before)}{text} and more words after it")
            assert leaks(out, [core]) == [], (kind, before, out[-80:])
            checked += 1
    assert checked > 35 * 20


def test_a_naive_cut_does_leave_a_fragment():
    """The check above sees a leak where there is one: cut first, redact after."""
    text, core = secret("aws secret bare", random.Random(5))
    cut = REDACTOR.redact(text[: len(text) - 6])
    assert leaks(cut, [core]) == [core]


@pytest.mark.parametrize("kind", ["aws secret bare", "github", "stripe", "database url", "jwt", "telegram"])
def test_a_history_text_whose_masks_shrink_it_is_redacted_past_the_window(kind):
    """Masks shorten the window a long text is redacted in (a private key becomes its two marker
    lines): a secret the window's end splits must not come into the 4000 units shown."""
    rng = random.Random(f"window {kind}")
    text, core = secret(kind, rng)
    body = "\n".join("A" * 64 for _ in range(150))
    key = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"  # masked to 2 lines
    window = HISTORY_TEXT_MAX_CHARS + REDACT_WINDOW_MARGIN  # where the text is first cut
    starts = range(window - len(key) - len(text) - 2, window - len(key) + 2)
    assert starts.start > 0
    for before in starts:
        out, truncated, redacted = truncate_history_text(f"{key}{_filler(before)}{text} and on" + "x" * 9000, REDACTOR)
        assert truncated and redacted
        assert leaks(out, [core]) == [], (before, out[-80:])


DEV = "agent:main:discord:group:dev"


async def test_the_demo_models_reply_to_a_send_quotes_no_fragment(live_engine):
    """`send agent:main:discord:group:dev "<100 × a> AKIAQWERTYUIOPASDFGH"` got back
    `… AKIAQWERTYUIOPASDF…`: the reply quotes the message cut at 120 characters."""
    engine = live_engine({"tools": {"agentToAgent": {"enabled": True}}})
    key = add_session(engine, DEV, [{"role": "user", "content": "hi"}])
    message = "a" * 100 + " AKIAQWERTYUIOPASDFGH"
    result = await call_tool(engine, "sessions_send", {"sessionKey": key, "message": message, "timeoutSeconds": 30})
    assert result["status"] == "ok" and "AKIAQW…DFGH" in result["reply"], result
    assert "QWERTYUIOP" not in json.dumps(result)

    rng = random.Random(25)
    cores = []
    for kind in KINDS:  # each kind with the cut inside its core
        text, core = secret(kind, rng)
        cores.append(core)
        message = "b" * max(1, 118 - _middle(text, core)) + " " + text
        result = await call_tool(engine, "sessions_send", {"sessionKey": key, "message": message, "timeoutSeconds": 30})
        assert result["status"] == "ok", result
        assert leaks(json.dumps(result, ensure_ascii=False), [core]) == [], (kind, result["reply"])
    await engine.drain()
    history = await call_tool(engine, "sessions_history", {"sessionKey": key, "limit": 200, "includeTools": True})
    assert leaks(json.dumps(history, ensure_ascii=False), cores) == []


async def test_a_spawned_tasks_secret_stays_whole_in_every_reply_label_and_announce(live_engine):
    """A sub-agent's task quoting an AWS secret key: the child's reply (`Done: <task cut at 160>`),
    its announce (`Result: <reply cut at 300>`), its label and the subagents list (task cut at 72)."""
    engine = live_engine()
    requester = add_session(engine, "agent:main:discord:group:req", [{"role": "user", "content": "hi"}])
    rng = random.Random(27)
    cores, children = [], []
    for kind in ("aws secret", "aws secret bare", "openai", "pem"):
        text, core = secret(kind, rng)
        cores.append(core)
        for cut in (24, 72, 160):  # the label's, the list's and the reply's cut, inside the core
            task = "c" * max(1, cut - 2 - _middle(text, core)) + " " + text
            spawned = await call_tool(engine, "sessions_spawn", {"task": task}, as_key=requester)
            assert spawned["status"] == "accepted", spawned
            children.append(spawned["childSessionKey"])
        await engine.drain()  # at most 5 children at once
    outputs = [await call_tool(engine, "subagents", {"action": "list"}, as_key=requester)]
    for key in [requester, *children]:
        outputs.append(await call_tool(engine, "sessions_history", {"sessionKey": key, "limit": 200}))
    text = json.dumps(outputs, ensure_ascii=False)
    assert "Result: " in text and "Done: " in text  # the children replied and announced
    assert leaks(text, cores) == []


API_KEY = "k3y0f7his1ocal5erver8only9a4b2c6d"  # no built-in rule knows it: only the config's own secrets


# How a server answers (status, the body around what it says at `@`), where its quote is cut;
# status None: a streamed reply with the body as its one event.
ECHOES = {
    "error body": (401, "@", 500),
    "error object": (401, json.dumps({"error": {"code": "auth", "said": "@"}}), 500),
    "not JSON": (200, "<html>@</html>", 200),
    "streamed error chunk": (None, json.dumps({"error": {"code": "auth", "said": "@"}}), 500),
}


@pytest.mark.parametrize("shape", list(ECHOES))
async def test_a_model_server_echoing_the_configured_key_leaves_no_fragment(engine_for, openai_server, shape):
    """A provider that quotes the `apiKey` it was sent back in its error, where the error's quote
    is cut: the run's errorMessage, the send's result and its ledger entry hold no part of it."""
    assert Redactor().redact(API_KEY) == API_KEY
    engine = engine_for({"models": {"providers": {"local": {"baseUrl": openai_server.url, "apiKey": API_KEY}}}})
    key = add_session(engine, DEV, [{"role": "user", "content": "hi"}])
    status, body, cut_at = ECHOES[shape]
    outputs = []
    for split in (8, len(API_KEY) // 2, len(API_KEY) - 8):  # the cut leaves this much of the key
        said = f"{_filler(cut_at - split - body.index('@'))}{API_KEY} was refused"
        answer = body.replace("@", said)
        openai_server.script(Reply(raw_events=[answer]) if status is None else Reply(status=status, raw_body=answer))
        result = await call_tool(engine, "sessions_send", {"sessionKey": key, "message": "go", "timeoutSeconds": 30})
        assert result["status"] == "error", result
        outputs.append(result)
    await engine.drain()
    history = await call_tool(engine, "sessions_history", {"sessionKey": key, "limit": 50, "includeTools": True})
    errors = [m["errorMessage"] for m in history["messages"] if m.get("errorMessage")]
    sends = engine.ledger.entries(session=key, state=None, limit=50)  # as stored, before a face redacts it
    outputs += [errors, [entry.model_dump(mode="json") for entry in sends]]
    outputs.append(engine.store.transcripts.history(key, limit=50).messages)  # as stored
    assert leaks(json.dumps(outputs, ensure_ascii=False), [API_KEY]) == []
    assert len(sends) == len(errors) == 3 and all(f"{API_KEY[:6]}…" in e for e in errors), errors  # masked, cut
