"""What checking the state database whole costs (store/disk/integrity.py), and so which stores are.

`PRAGMA quick_check` reads every page of the file. A store of at most `WHOLE_CHECK_BYTES` is
checked so whenever it is opened; a bigger one only when SQLite meets damage. This times the
check of a store of about that size, and of one of search_bench.py's 100,000 sessions of 10
messages (its search index built), which shows why a big one is not checked at every start.

Requirement: the check of a store of `WHOLE_CHECK_BYTES` takes under 20 ms at the median (a
command's whole start is held to 0.12 s by startup_bench.py).

Run: .venv/bin/python bench/integrity_bench.py [--sessions N]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import in_temp_dir, verdict  # noqa: E402
from search_bench import build_store  # noqa: E402

from sessions_tui.engine.store.disk import integrity  # noqa: E402
from sessions_tui.engine.store.schema import DB_NAME  # noqa: E402

BIG = 100_000
LIMIT_MS = 20.0
RUNS = 5


def built(state: Path, sessions: int) -> Path:
    """A closed store of `sessions` sessions of 10 messages, its search index caught up."""
    engine, _ = build_store(state, sessions, random.Random(15))
    caught = engine.store.text_index.catch_up_text_index()
    while caught.indexing:
        caught = engine.store.text_index.catch_up_text_index()
    engine.close()
    return state / DB_NAME


def time_check(db: Path, runs: int) -> tuple[float, float]:
    """(the first check, the median of the next `runs`), in ms, on a fresh connection."""
    conn = sqlite3.connect(db)
    try:
        times = []
        for _ in range(runs + 1):
            t0 = time.perf_counter()
            found = integrity.quick_check(conn)
            times.append((time.perf_counter() - t0) * 1000)
            if found is not None:
                print(f"FAIL: sanity check: {db} is damaged: {found}")
                raise SystemExit(1)
    finally:
        conn.close()
    return times[0], statistics.median(times[1:])


def bench(tmp: Path, sessions: int) -> int:
    # about WHOLE_CHECK_BYTES: a session of 10 messages and its index take about 10.4 KB
    small = built(tmp / "small", max(1, integrity.WHOLE_CHECK_BYTES // 10_400))
    first, median = time_check(small, RUNS)
    size = small.stat().st_size / 1e6
    print(f"store of {size:.1f} MB (WHOLE_CHECK_BYTES {integrity.WHOLE_CHECK_BYTES / 1e6:.1f} MB): ", end="")
    print(f"first check {first:.1f} ms, then median {median:.1f} ms")
    t0 = time.perf_counter()
    big = built(tmp / "big", sessions)
    print(f"built {sessions:,} sessions in {time.perf_counter() - t0:.0f} s")
    big_first, big_median = time_check(big, 2)
    print(
        f"store of {big.stat().st_size / 1e6:.0f} MB: first check {big_first / 1000:.2f} s, "
        f"then median {big_median / 1000:.2f} s ({big_median / (big.stat().st_size / 1e6):.2f} ms/MB)"
    )
    said = f"a whole check of a {size:.1f} MB store takes {median:.1f} ms < {LIMIT_MS:.0f} ms"
    return verdict(median < LIMIT_MS, said)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=BIG)
    opts = parser.parse_args()
    return in_temp_dir("integrity-bench-", lambda tmp: bench(tmp, opts.sessions))


if __name__ == "__main__":
    sys.exit(main())
