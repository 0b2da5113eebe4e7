"""The send ledger's cost (issue 13): on the sends themselves, and reading it at 100,000 entries.

(a) Overhead: `send_bench.py`'s workload (1,000 `sessions_send` with `timeoutSeconds: 0` over 100
    sessions on the zero-latency demo model, then every run and announce step they start) with the
    ledger recording, and with a ledger that records nothing (`SendLedger.recording = False`, a
    switch only this bench uses: the hooks still run, nothing is stored or published). Rounds
    alternate on/off, each in a fresh state directory; the medians are compared.
    Requirement: the ledger adds **< 5 %** (wall clock; this process's CPU time shown beside it).
(b) Reads: 100,000 entries written through the store API in one batch (1,000 sessions; every entry
    accepted/started/replied, half with ping-pong turns and an announce, some timeouts with late
    replies, failed deliveries, refusals), then `engine.ledger.entries()` (limit 200): the newest
    page, one session's, one common state's, one rare state's, a session and a state together,
    and the page before the 50,000th entry; 3 warm-up and 30 timed calls of each, interleaved.
    Requirement: p50 and max of each **< 100 ms**.

    .venv/bin/python bench/ledger_bench.py
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import check, in_temp_dir, time_interleaved, verdict  # noqa: E402

from sessions_tui.engine.clock import FrozenClock
from sessions_tui.engine.config import parse_config
from sessions_tui.engine.engine import Engine
from sessions_tui.tools.calling.base import ToolCall
from sessions_tui.tools.calling.host import EngineToolHost
from sessions_tui.tools.calling.registry import invoke

SESSIONS = 100
SENDS = 1000
ROUNDS = 5  # of each, alternated
ENTRIES = 100_000
LEDGER_SESSIONS = 1000
READ_RUNS = 30


async def send_round(state: Path, record: bool) -> tuple[float, float]:
    """Seconds (wall clock, and this process's CPU) for 1,000 fire-and-forget sends and all the
    work they start (send_bench's workload)."""
    config, _ = parse_config({"models": {"demo": {"latencyMs": 0, "chunkMs": 0}}})
    engine = Engine(state, config)
    engine.ledger.recording = record
    EngineToolHost(engine)
    keys = [f"agent:main:bench:group:{i:03d}" for i in range(SESSIONS)]
    for key in keys:
        engine.store.sessions.create(key)
    call = ToolCall(engine=engine)
    start, cpu = time.perf_counter(), time.process_time()
    for i in range(SENDS):
        args = {"sessionKey": keys[i % SESSIONS], "message": f"bench message {i}", "timeoutSeconds": 0}
        result = await invoke(call, "sessions_send", args)
        assert result["status"] == "accepted", result
        if i % 50 == 0:
            await asyncio.sleep(0)
    await engine.drain()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    entries = engine.ledger.entries(limit=SENDS + 1)
    if record:
        check(len(entries) == SENDS, f"{len(entries)} ledger entries for {SENDS} sends")
        check(all(e.last_state == "announce" for e in entries), "every send ends announced")
    else:
        check(entries == [], "the ledger that records nothing stayed empty")
    await engine.aclose()
    return seconds, cpu


def overhead(tmp: Path) -> tuple[bool, str]:
    times: dict[bool, list[float]] = {True: [], False: []}
    cpus: dict[bool, list[float]] = {True: [], False: []}
    for i in range(ROUNDS):
        for record in (False, True) if i % 2 else (True, False):
            seconds, cpu = asyncio.run(send_round(tmp / f"send-{i}-{record}", record))
            times[record].append(seconds)
            cpus[record].append(cpu)
    print(f"(a) {SENDS} sends + their work, {ROUNDS} rounds each, alternated")
    extra = {}
    for what, values in (("wall", times), ("CPU", cpus)):
        on, off = statistics.median(values[True]), statistics.median(values[False])
        extra[what] = (on - off) / off * 100
        print(f"    {what:<4} ledger on:  median {on:.3f} s  ({', '.join(f'{t:.3f}' for t in values[True])})")
        print(f"    {what:<4} ledger off: median {off:.3f} s  ({', '.join(f'{t:.3f}' for t in values[False])})")
        print(f"    {what:<4} overhead:   {extra[what]:+.1f} %")
    text = f"overhead {extra['wall']:+.1f} % wall, {extra['CPU']:+.1f} % CPU (< 5 %)"
    return extra["wall"] < 5, text


def fill(engine: Engine) -> None:
    """100,000 entries through the store API, in one batch."""
    store = engine.store
    sessions = [f"agent:main:bench:group:{i:04d}" for i in range(LEDGER_SESSIONS)]
    t = 1_700_000_000_000
    with store.batch(seconds=3600):
        for i in range(ENTRIES):
            t += 1000
            requester = sessions[(i * 7) % LEDGER_SESSIONS] if i % 3 else None
            target = sessions[i % LEDGER_SESSIONS]
            run_id = f"run-{i:06d}"
            chain = [k for k in (requester, target) if k]
            if i % 97 == 0:
                detail = {"error": "send blocked by session policy: rule 1 (channel=bench)", "rule": "rule 1"}
                store.ledger.open_send(
                    run_id=run_id, requester=requester, target=target, message=f"message {i}", via="owner",
                    chain=chain, created_at=t, state="forbidden", detail=detail,
                )  # fmt: skip
                continue
            store.ledger.open_send(
                run_id=run_id, requester=requester, target=target, message=f"message {i} " + "x" * 200,
                via="agent" if requester else "owner", chain=chain, created_at=t, state="accepted", detail=None,
            )  # fmt: skip
            store.ledger.add_send_state(run_id, "started", t + 5, None)
            if i % 50 == 1:
                store.ledger.add_send_state(run_id, "timeout", t + 30_000, {"waitedMs": 30_000})
                store.ledger.add_send_state(run_id, "late_reply", t + 95_000, {"text": "a late answer " * 10})
                continue
            store.ledger.add_send_state(run_id, "replied", t + 400, {"text": "the reply " * 20})
            if i % 2:
                for turn in (1, 2):
                    text = "REPLY_SKIP" if turn == 2 else "a turn " * 10
                    store.ledger.add_send_state(
                        run_id, "pingpong", t + 500 + turn, {"turn": turn, "speaker": target, "text": text}
                    )
                store.ledger.add_send_state(
                    run_id, "announce", t + 600, {"text": "announced " * 10, "delivery": "pending", "outboxId": i},
                    outbox_id=i,
                )  # fmt: skip
                outcome = "delivery_failed" if i % 101 == 3 else "delivered"
                store.ledger.add_send_state(run_id, outcome, t + 900, {"outboxId": i})
            else:
                store.ledger.add_send_state(run_id, "announce_skipped", t + 600, {"text": "ANNOUNCE_SKIP"})


def reads(tmp: Path) -> tuple[bool, str]:
    engine = Engine(tmp / "reads", clock=FrozenClock(1_800_000_000_000))
    t0 = time.perf_counter()
    fill(engine)
    print(f"(b) {ENTRIES:,} entries written in {time.perf_counter() - t0:.1f} s (one batch)")
    ledger = engine.ledger
    session = "agent:main:bench:group:0001"  # a target of late replies too
    middle = ledger.entries(limit=1, before=1_700_000_000_000 + 50_000 * 1000 + 1)[0].created_at
    calls = {
        "newest page": lambda: ledger.entries(),
        "by session": lambda: ledger.entries(session=session),
        "by state (replied)": lambda: ledger.entries(state="replied"),
        "by state (delivery_failed)": lambda: ledger.entries(state="delivery_failed"),
        "session + state (late_reply)": lambda: ledger.entries(session=session, state="late_reply"),
        "page before #50,000": lambda: ledger.entries(before=middle),
    }
    counts = {name: len(fn()) for name, fn in calls.items()}
    check(counts["newest page"] == 200 and counts["by state (replied)"] == 200, f"full pages: {counts}")
    rare = ("by state (delivery_failed)", "by session", "session + state (late_reply)")
    check(all(0 < counts[name] <= 200 for name in rare), f"rare ones found: {counts}")
    samples = time_interleaved(calls, warmup=3, runs=READ_RUNS)
    ok = True
    for name, values in samples.items():
        p50, worst = statistics.median(values) * 1000, max(values) * 1000
        ok = ok and p50 < 100 and worst < 100
        print(f"    {name:<30} {counts[name]:>3} entries   p50 {p50:6.2f} ms   max {worst:6.2f} ms")
    engine.close()
    return ok, "every read p50 and max < 100 ms"


def main() -> int:
    def bench(tmp: Path) -> int:
        ok_a, text_a = overhead(tmp)
        ok_b, text_b = reads(tmp)
        return verdict(ok_a and ok_b, f"{text_a}; {text_b}")

    return in_temp_dir("ledger-bench-", bench)


if __name__ == "__main__":
    sys.exit(main())
