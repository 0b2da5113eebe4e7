"""Keyset paging of the session table: pages read after a row's sort value and key (or before it)
are exactly the pages by position, for every sort column in both directions, across runs of equal
sort values, each read from the column's one index; and store files of schema 2 and 4 migrate to
the indexed schema."""

import sqlite3

import pytest

from sessions_tui.engine.store.browse_schema import SORTED
from sessions_tui.engine.store.browsing.browse import SORT_COLUMNS, SessionFilter
from sessions_tui.engine.store.schema import _SCHEMA, SCHEMA_VERSION
from sessions_tui.engine.store.store import Store

AGENTS = ["main", "ops"]


def _fill(store):
    """Sessions with few distinct values per sort column, so pages split runs of ties."""
    kinds = ["main", "discord:group:g{}", "cron:job-{}", "subagent:s{}", "hook:h{}", "node-{}", "telegram:direct:{}"]
    for i in range(47):
        agent = AGENTS[i % 2]
        rest = kinds[i % len(kinds)].format(i) if i >= 2 or i % len(kinds) else "main"
        rest = f"slack:channel:c{i}" if rest == "main" and i >= 2 else rest
        entry = {
            "updatedAt": 1_000 + (i % 5) * 10,  # five distinct times
            "model": ["gpt-5", "", "claude"][i % 3],
            "totalTokens": [100, 0, 5000, 100][i % 4],
            "label": ["alpha", "beta", None][i % 3],
        }
        if i % 6 == 0:
            entry["status"] = ["done", "failed"][i % 2]
        if i % 4 == 1:
            entry["displayName"] = f"Room {i % 3}"
        store.sessions.create(f"agent:{agent}:{rest}", {k: v for k, v in entry.items() if v is not None})


def _flt(**kw):
    return SessionFilter(agent_ids=AGENTS, shown_as_main="agent:main:main", **kw)


def _walk(store, flt, order_by, descending, size):
    """Every page forward by keyset, then every page backward from the last one."""
    forward, page, cursors = [], *store.browse.keyset(flt, order_by=order_by, descending=descending, limit=size)
    pages = []
    while page:
        pages.append((page, cursors))
        forward += [s.key for s in page]
        page, cursors = store.browse.keyset(
            flt, order_by=order_by, descending=descending, limit=size, after=cursors[-1]
        )
    backward = [[s.key for s in pages[-1][0]]]
    first = pages[-1][1][0]
    while len(backward) < len(pages):
        page, cursors = store.browse.keyset(flt, order_by=order_by, descending=descending, limit=size, before=first)
        backward.insert(0, [s.key for s in page])
        first = cursors[0]
    return forward, backward


@pytest.mark.parametrize("order_by", list(SORT_COLUMNS))
@pytest.mark.parametrize("descending", [True, False])
def test_keyset_pages_are_the_pages_by_position(store, order_by, descending):
    _fill(store)
    flt = _flt()
    whole = [s.key for s in store.browse.page(flt, order_by=order_by, descending=descending, limit=None)[0]]
    assert len(whole) == 47
    forward, backward = _walk(store, flt, order_by, descending, 5)
    assert forward == whole
    _, every = store.browse.keyset(flt, order_by=order_by, descending=descending, limit=100)
    assert {type(value) for value, _ in every} <= {int, float, str}  # a cursor goes out as JSON
    assert backward[:-1] == [whole[i : i + 5] for i in range(0, 45, 5)]
    assert [k for page in backward for k in page] == whole
    # a deep page read after its predecessor's last row is the page at that offset
    page, _ = store.browse.page(flt, order_by=order_by, descending=descending, limit=5, offset=35)
    _, cursors = store.browse.keyset(flt, order_by=order_by, descending=descending, limit=35)
    deep, _ = store.browse.keyset(flt, order_by=order_by, descending=descending, limit=5, after=cursors[-1])
    assert [s.key for s in deep] == [s.key for s in page]


def test_keyset_paging_under_a_filter_and_search(store):
    _fill(store)
    for flt in (_flt(search="ROOM"), _flt(search="ro"), _flt(kinds=["cron", "other"]), _flt(search="agent:ops")):
        whole = [s.key for s in store.browse.page(flt, order_by="label", descending=False, limit=None)[0]]
        forward, backward = _walk(store, flt, "label", False, 3)
        assert forward == whole and [k for page in backward for k in page] == whole
        assert store.browse.count(flt) == len(whole) == store.browse.page(flt, limit=1)[1]


def test_the_viewers_main_sorts_as_main(store):
    _fill(store)
    forward, _ = _walk(store, _flt(), "key", False, 4)
    whole = [s.key for s in store.browse.page(_flt(), order_by="key", descending=False, limit=None)[0]]
    assert forward == whole
    assert whole.index("agent:main:main") > whole.index("agent:main:hook:h4")  # 'main' > 'hook:…'


def test_a_cancelled_count_gives_up(store):
    _fill(store)
    assert store.browse.count(_flt(), cancelled=lambda: False) == 47
    assert store.browse.count(_flt(), cancelled=lambda: True) in (-1, 47)  # too small to be interrupted


def test_a_schema_2_file_migrates(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    conn = sqlite3.connect(state / "sessions.sqlite3")
    conn.executescript(_SCHEMA)
    conn.execute(
        "INSERT INTO sessions (key, agent_id, session_id, created_at, updated_at, label, display_name, rest, kind, "
        "channel, mirror_path, entry) VALUES ('agent:main:discord:group:dev', 'main', 's-1', 1, 2, 'Dev Chat', "
        "'Dev', 'discord:group:dev', 'group', 'discord', 'x.jsonl', '{\"model\": \"gpt-5\", \"totalTokens\": 7}')"
    )
    conn.execute("PRAGMA user_version=2")
    conn.commit()
    conn.close()
    store = Store(state)
    try:
        with store.read() as c:
            assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            row = c.execute("SELECT sort_model, sort_tokens, sort_label FROM sessions").fetchone()
        assert tuple(row) == ("gpt-5", 7, "Dev Chat")
        flt = SessionFilter(search="dev chat")  # found through the search index filled by the migration
        assert [s.key for s in store.browse.keyset(flt, order_by="model")[0]] == ["agent:main:discord:group:dev"]
        with store.write() as c:  # the triggers keep the search index in step
            c.execute("UPDATE sessions SET label = 'Ops room'")
        assert store.browse.count(SessionFilter(search="ops room")) == 1
        assert store.browse.count(SessionFilter(search="dev chat")) == 0
    finally:
        store.close()
    again = Store(state)  # opening a migrated file again changes nothing
    try:
        assert again.browse.count(SessionFilter(search="discord")) == 1
        with again.write() as c:
            c.execute("DELETE FROM sessions")
            assert c.execute("SELECT count(*) FROM sessions_search").fetchone()[0] == 0
    finally:
        again.close()


def test_the_agents_by_skipping_are_the_distinct_agents(store):
    assert store.browse.agent_ids() == []
    _fill(store)
    assert sorted(store.browse.agent_ids()) == sorted(store.sessions.agent_ids()) == AGENTS


@pytest.mark.parametrize("needle", ["oom", "ROOM 1", 'a"b', "x*y", "AND", 'OR "', "g1", "Ünï", "s1-", "alph"])
def test_the_search_index_only_narrows(store, needle):
    """Through the trigram index (a browse) or not (the list), a search matches the same sessions."""
    _fill(store)
    store.sessions.create('agent:main:discord:group:a"b', {"label": 'x*y AND OR "q"'})
    store.sessions.create("agent:main:discord:group:uni", {"displayName": "ÜnÏcode"})
    listed = {s.key for s in store.browse.list_sessions(search=needle)[0]}
    browsed = {s.key for s in store.browse.page(SessionFilter(search=needle), limit=None)[0]}
    assert browsed == listed and store.browse.count(SessionFilter(search=needle)) == len(listed)
    if needle in ("oom", "ROOM 1", "alph"):
        assert listed


def test_sessions_whose_messages_say_the_words(store):
    """`~words`: the sessions whose messages hold every word, the last one as a prefix."""
    _fill(store)
    store.transcripts.append("agent:main:main", {"role": "user", "content": "the deploy failed again"})
    store.transcripts.append("agent:ops:cron:job-9", {"role": "assistant", "content": "deployment went fine"})
    found = {}
    for words in ("~deploy", "~deployment", "~deploy fail", "~DEPLOY", "~depl", "~went fine", "~nothing here", "~ "):
        flt = _flt(search=words)
        found[words] = {s.key for s in store.browse.page(flt, limit=None)[0]}
        assert store.browse.count(flt) == len(found[words])
    assert found["~deploy"] == {"agent:main:main", "agent:ops:cron:job-9"}
    assert found["~deployment"] == {"agent:ops:cron:job-9"}
    assert found["~deploy fail"] == {"agent:main:main"} and found["~DEPLOY"] == found["~deploy"]
    assert found["~depl"] == {"agent:main:main", "agent:ops:cron:job-9"}
    assert found["~went fine"] == {"agent:ops:cron:job-9"} and found["~nothing here"] == set()
    assert len(found["~ "]) == 47  # no words yet: no narrowing


class _Recorder:
    """The store's connection, noting each statement run on it (and its arguments)."""

    def __init__(self, conn):
        self._conn = conn
        self.statements = []

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def execute(self, sql, args=()):
        self.statements.append((sql, tuple(args)))
        return self._conn.execute(sql, args)


@pytest.mark.parametrize("order_by", list(SORT_COLUMNS))
@pytest.mark.parametrize("descending", [True, False])
def test_each_sort_reads_its_one_index_in_either_direction(make_engine, order_by, descending):
    """Ties follow the sort's direction, so the column's one index gives the page in order, read
    forwards or backwards, for the first page and the pages after and before a row: no sorting."""
    engine = make_engine({"tools": {"agentToAgent": {"enabled": True}}})
    _fill(engine.store)
    store, flt = engine.store, _flt()
    column = SORT_COLUMNS[order_by]
    _, cursors = store.browse.keyset(flt, order_by=order_by, descending=descending, limit=20)
    recorder = store._conn = _Recorder(store._conn)
    try:
        for where in ({}, {"after": cursors[9]}, {"before": cursors[9]}):
            recorder.statements.clear()
            store.browse.keyset(flt, order_by=order_by, descending=descending, limit=5, **where)
            sql, args = next(s for s in recorder.statements if s[0].startswith(f"SELECT {column}, key"))
            plan = [r[3] for r in recorder._conn.execute(f"EXPLAIN QUERY PLAN {sql}", args)]
            assert len(plan) == 1 and f"USING INDEX sessions_sort_{column}" in plan[0], (where, plan)
            assert not any("TEMP B-TREE" in step for step in plan)
    finally:
        store._conn = recorder._conn


def test_a_schema_4_file_gets_one_index_per_sort_column(tmp_path):
    """Schema 4's ascending and descending index of each sort column, and its indexes by time and
    by kind that no query reads, give way to one index per sort column; the letter index is added;
    the sessions stay found."""
    state = tmp_path / "state"
    store = Store(state)
    try:
        store.sessions.create("agent:main:discord:group:dev", {"label": "Dev Chat", "model": "gpt-5"})
        store.sessions.create("agent:main:telegram:direct:bob", {"label": "Bob"})
    finally:
        store.close()
    conn = sqlite3.connect(state / "sessions.sqlite3")  # the file as schema 4 left it
    for column in ("updated_at", *SORTED):
        conn.execute(f"DROP INDEX sessions_sort_{column}")
        for direction in ("asc", "desc"):
            conn.execute(
                f"CREATE INDEX sessions_sort_{column}_{direction} ON sessions("
                f"{column} {direction.upper()}, key, archived_at, agent_id) WHERE listable = 1"
            )
    conn.execute("DROP INDEX sessions_letters")
    conn.execute("ALTER TABLE sessions DROP COLUMN search_text")
    conn.execute("CREATE INDEX sessions_by_updated ON sessions(updated_at DESC)")
    conn.execute("CREATE INDEX sessions_by_kind ON sessions(kind, updated_at DESC)")
    conn.execute("PRAGMA user_version=4")
    conn.commit()
    conn.close()
    store = Store(state)
    try:
        with store.read() as c:
            assert c.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            indexes = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {f"sessions_sort_{column}" for column in ("updated_at", *SORTED)} | {"sessions_letters"} <= indexes
        assert not [i for i in indexes if i.endswith(("_asc", "_desc"))]
        assert not indexes & {"sessions_by_updated", "sessions_by_kind"}
        for order_by in SORT_COLUMNS:
            for descending in (True, False):
                keys = [
                    s.key for s in store.browse.keyset(SessionFilter(), order_by=order_by, descending=descending)[0]
                ]
                assert sorted(keys) == ["agent:main:discord:group:dev", "agent:main:telegram:direct:bob"]
        for needle in ("dev chat", "v", "Bo"):  # through the trigram index, the letter index
            found = [s.key for s in store.browse.keyset(SessionFilter(search=needle))[0]]
            assert found == [s.key for s in store.browse.list_sessions(search=needle)[0]] and len(found) == 1
    finally:
        store.close()
