"""A rare search (few of the newest sessions match, or a needle too short for the trigram index)
is tested on every session once and its matches kept until the store changes; the next keystroke's
longer needle, the count and the page after are read from them. Whatever the plan, the table shows
the sessions the per-field condition matches, as `list_sessions` finds them."""

from conftest import add_session
from sessions_tui.engine.store import SessionFilter


def keys(engine, needle):  # type: ignore[no-untyped-def]
    flt = SessionFilter(search=needle)
    browsed = [s.key for s in engine.store.browse_keyset(flt, limit=1000)[0]]
    listed = {s.key for s in engine.store.list_sessions(search=needle)[0]}
    assert set(browsed) == listed and engine.store.browse_count(flt) == len(listed), needle
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
    assert engine.store._known_matches()._kept  # kept: too few of the newest sessions match
    assert keys(engine, "zqx") == {engine.canonical("agent:main:discord:group:older")}
    assert keys(engine, "q%") == set() and keys(engine, "_") == set()  # wildcards are letters
    added = add_session(engine, "agent:main:discord:group:new", label="zq three")
    assert added in keys(engine, "zq") and added not in keys(engine, "zqx")  # a write: tested again
    engine.store.patch(added, {"label": "zqx three"})
    assert added in keys(engine, "zqx")
