"""`serve`'s `usage` op: the engine's query and report as they are, a session's key in the report
redacted and read back as the session it names, a bad query a 400 naming its field; `info` lists the op."""

from __future__ import annotations

import httpx

from conftest import FAST_DEMO, NOW_MS, add_session
from server_support import TOKEN, local_backend, served

AUTH = {"authorization": f"Bearer {TOKEN}"}
SECRET = "sk-1234567890abcdef1234"
SECRET_KEY = f"agent:main:discord:group:{SECRET}"
OPS = "/sessions-tui/v1/"


def _turn(input_: int, output: int, model: str = "m1") -> dict:
    usage = {"input": input_, "output": output, "totalTokens": input_ + output, "cost": {"total": 0.5}}
    return {"role": "assistant", "content": [], "provider": "acme", "model": model, "usage": usage, "timestamp": NOW_MS}


def test_usage_by_session_over_the_operator_api_redacts_keys_and_reads_them_back(tmp_path):
    backend = local_backend(tmp_path / "s", FAST_DEMO)
    add_session(backend.engine, SECRET_KEY, [_turn(100, 10)])
    add_session(backend.engine, "agent:ops:main", [_turn(5, 1, model="m2"), _turn(5, 1, model="m2")])
    with served(backend) as url, httpx.Client(base_url=url, timeout=30, headers=AUTH) as client:
        info = client.post(OPS + "info", json={}).json()
        by_session = client.post(OPS + "usage", json={"query": {"since": 0, "by": "session"}})
        shown = next(g["name"] for g in by_session.json()["report"]["groups"] if g["name"] != "agent:ops:main")
        only = client.post(OPS + "usage", json={"query": {"since": 0, "by": "model", "keys": [shown]}})
        hourly = client.post(OPS + "usage", json={"query": {"since": 0, "by": "agent", "every": "hour"}})
        bad = client.post(OPS + "usage", json={"query": {"since": 0, "by": "planet"}})
    assert "usage" in info["ops"] and "cron" in info["ops"]
    assert by_session.status_code == 200 and SECRET not in by_session.text
    report = by_session.json()["report"]
    assert report["total"]["turns"] == 3 and report["total"]["cost_usd"] == 1.5
    assert shown.startswith("agent:main:discord:group:") and shown != SECRET_KEY
    groups = only.json()["report"]["groups"]  # the redacted key named the session it was shown for
    assert [(g["name"], g["totals"]["input"]) for g in groups] == [("acme/m1", 100)]
    assert [p["start"] for p in hourly.json()["report"]["series"]] == [NOW_MS // 3_600_000 * 3_600_000]
    assert {g["name"] for g in hourly.json()["report"]["groups"]} == {"main", "ops"}
    assert bad.status_code == 400 and bad.json()["error"]["message"].startswith("usage: query.by:")
