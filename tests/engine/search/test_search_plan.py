"""A rare search (few of the newest sessions match, or a needle too short for the trigram index)
is tested on every session once and its matches kept until the store changes; the next keystroke's
longer needle, the count and the page after are read from them; a needle holding a rare letter is
narrowed by the letter index. Whatever the plan, the table shows the sessions the per-field
condition matches, as `list_sessions` finds them."""

from conftest import add_session
from sessions_tui.engine.store.browsing.browse import SessionFilter
from sessions_tui.engine.store.browsing.search_plan import LETTERED, KnownMatches, letter_mask, plan_search


def keys(engine, needle):  # type: ignore[no-untyped-def]
    """The sessions the table shows for `needle` (of an engine, or of a store), as the list finds them."""
    store = getattr(engine, "store", engine)
    flt = SessionFilter(search=needle)
    browsed = [s.key for s in store.browse.keyset(flt, limit=1000)[0]]
    listed = {s.key for s in store.browse.list_sessions(search=needle)[0]}
    assert set(browsed) == listed and store.browse.count(flt) == len(listed), needle
    return set(browsed)


def test_rare_searches_keep_their_matches_until_the_store_changes(make_engine):
    engine = make_engine({})
    for i in range(300):
        add_session(engine, f"agent:main:discord:group:g{i:03}", label=f"team {i}")
    add_session(engine, "agent:main:discord:group:old", label="Zq one", updatedAt=1)
    add_session(engine, "agent:main:discord:group:older", label="zqx two", updatedAt=0)
    assert keys(engine, "z") == {
        engine.canonical("agent:main:discord:group:old"),
        engine.canonical("agent:main:discord:group:older"),
    }
    assert engine.store.browse._known_matches()._kept  # kept: too few of the newest sessions match
    assert keys(engine, "zqx") == {engine.canonical("agent:main:discord:group:older")}
    assert keys(engine, "q%") == set() and keys(engine, "_") == set()  # wildcards are letters
    added = add_session(engine, "agent:main:discord:group:new", label="zq three")
    assert added in keys(engine, "zq") and added not in keys(engine, "zqx")  # a write: tested again
    engine.store.sessions.patch(added, {"label": "zqx three"})
    assert added in keys(engine, "zqx")


LABELS = [
    "Zürich Ops",
    "ZÜRICH night",
    "QA-42 review",
    "x_y%z",
    "Straße 7",
    "naïve JOB",
    "\u212aelvin",  # KELVIN SIGN: Python lowers it to `k`, LIKE does not fold it
    "\u0130stanbul",  # lowered by Python to `i` and a combining dot
    "İi",
    "[brackets] & *stars*",
    "MiXeD CaSe",
    "kelvin",
    None,
]
NEEDLES = [
    "x", "X", "xy", "x_", "_", "%", "%z", "\\", "q", "Q", "qa-4", "QA-42", "42", "4", "7", "-", "ü", "Ü",
    "zü", "ZÜR", "ß", "ss", "straße", "STRASSE", "ï", "naïve", "job", "J", "\u212a", "k", "K", "kel",
    "\u0130", "i", "İ", "[", "*s", "& *", "mixed", "MIXED", "é", " ", "z", "Zz", "v", "vi",
]  # fmt: skip


def test_every_needle_matches_what_the_per_field_condition_matches(store):
    """Needles of upper case, digits, punctuation, LIKE's wildcards and letters outside ASCII,
    through whatever plan (the letter index, the trigram index, the sample, the whole scan; on
    PostgreSQL, its trigram index or none): the sessions `list_sessions` finds with the per-field
    condition alone."""
    for i, label in enumerate(LABELS):
        store.sessions.create(f"agent:main:discord:group:g{i}", {"label": label} if label else {})
    store.sessions.create("agent:main:telegram:direct:xavier", {"displayName": "Q. Jones"})
    for needle in NEEDLES:
        keys(store, needle)
    assert keys(store, "x") >= {"agent:main:discord:group:g3", "agent:main:telegram:direct:xavier"}
    assert keys(store, "straße") == {"agent:main:discord:group:g4"} and keys(store, "MIXED") == {
        "agent:main:discord:group:g10"
    }
    kelvin = "agent:main:discord:group:g6" in keys(store, "k")
    assert kelvin == (type(store).__name__ == "PostgresStore")  # SQLite's LIKE folds ASCII only; ILIKE folds it


def test_the_letter_index_narrows_and_keeps_in_step_with_writes(make_engine):
    """A needle of a rare letter reads only the sessions holding it, through `sessions_letters`,
    after every kind of write: a new session, a renamed one, a deleted one, a batch's new one."""
    engine = make_engine({})
    store = engine.store
    for i in range(50):
        add_session(engine, f"agent:main:discord:group:g{i}", label=f"team {i}")
    assert keys(engine, "q") == set() and letter_mask("q") > letter_mask("x") > letter_mask("i") > 0
    assert letter_mask("Ab-1é") == letter_mask("") == 0 and letter_mask("QxQ") == letter_mask("xq")
    added = add_session(engine, "agent:main:discord:group:new", label="Quiet")
    assert keys(engine, "q") == {added}
    store.sessions.patch(engine.canonical("agent:main:discord:group:g7"), {"label": "queue"})
    assert keys(engine, "q") == {added, engine.canonical("agent:main:discord:group:g7")}
    store.sessions.patch(added, {"label": "loud"})
    assert keys(engine, "q") == {engine.canonical("agent:main:discord:group:g7")}
    with store.write() as conn:
        conn.execute("DELETE FROM sessions WHERE key = ?", (engine.canonical("agent:main:discord:group:g7"),))
    assert keys(engine, "q") == set()
    with store.batch(seconds=0) as checkpoint:
        store.sessions.create("agent:main:discord:group:batched", {"displayName": "QQ"})
        checkpoint()
    assert keys(engine, "q") == {"agent:main:discord:group:batched"}
    with store.read() as conn:
        noting = _Noting(conn)
        _, condition, args = plan_search(noting, ["listable = 1"], [], "Q", KnownMatches())
        lettered = [(sql, a) for sql, a in noting.statements if LETTERED in sql]
        plans = [[r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN {sql}", a)] for sql, a in lettered]
    assert condition.startswith("(rowid IN (") and args == ["%q%"] * 5
    searched = "SEARCH sessions USING INDEX sessions_letters (<expr>>?)"  # from the needle's mask up
    assert len(plans) == 2 and all(searched in plan for plan in plans)


class _Noting:
    """A connection that notes the statements run on it."""

    def __init__(self, conn):  # type: ignore[no-untyped-def]
        self._conn = conn
        self.statements = []

    def __getattr__(self, name):  # type: ignore[no-untyped-def]
        return getattr(self._conn, name)

    def execute(self, sql, args=()):  # type: ignore[no-untyped-def]
        self.statements.append((sql, tuple(args)))
        return self._conn.execute(sql, args)
