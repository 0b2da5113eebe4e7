"""A separate process that appends to a session: used by the multi-process and kill tests.

Usage: python store_worker.py STATE KEY COUNT TAG   (COUNT 0 = until killed)
"""

import sys

from sessions_tui.engine.store.store import Store


def main() -> None:
    state, key, count, tag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    store = Store(state)
    store.sessions.ensure(key)
    print("ready", flush=True)
    i = 0
    while count == 0 or i < count:
        i += 1
        # Large enough that a kill often lands in the middle of a write.
        store.transcripts.append(key, {"role": "user", "content": f"{tag}-{i} " + "x" * 20000})
    store.close()


if __name__ == "__main__":
    main()
