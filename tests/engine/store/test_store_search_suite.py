"""The store's search, on both stores (`store`: SQLite's FTS5, PostgreSQL's full-text search): the text
index found by every word, ranked, narrowed to a session, an agent or a requester's tree, with marked
snippets; a secret never found by its value nor shown; catch-up after a change of redaction; a deleted
session's lines gone from it; a word in very many messages ranked among its newest."""

import sys

import pytest

from sessions_tui.engine.redaction.redact import Redactor
from sessions_tui.engine.store.store import Store
from sessions_tui.engine.store.tables.text_index import HIT_END, HIT_START, TextQuery, fts_query

SECRET = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH"


def say(store: Store, key: str, text: str, role: str = "user") -> None:
    store.transcripts.append(key, {"role": role, "content": [{"type": "text", "text": text}]})


def search(store: Store, words: str, limit: int = 10, **narrowing):  # type: ignore[no-untyped-def]
    return store.text_index.search_text(TextQuery(match=fts_query(words), limit=limit, **narrowing))


def found(store: Store, words: str, **narrowing) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    """(session key, snippet) of each hit, best first."""
    return [(hit.key, hit.snippet) for hit in search(store, words, **narrowing).hits]


def test_every_word_is_required_and_the_hits_say_where_they_are(store):
    store.sessions.create("agent:main:main")
    say(store, "agent:main:main", "the deploy failed on staging")
    say(store, "agent:main:main", "the deploy went fine", role="assistant")
    say(store, "agent:main:main", "unrelated chatter")
    assert [s for _, s in found(store, "DEPLOY failed")] == ["the deploy failed on staging"]
    hits = search(store, "deploy").hits
    assert {h.snippet for h in hits} == {"the deploy failed on staging", "the deploy went fine"}
    fine = next(h for h in hits if "fine" in h.snippet)
    assert (fine.key, fine.agent_id, fine.role, fine.msg_seq) == ("agent:main:main", "main", "assistant", 2)
    assert fine.entry_id and fine.timestamp > 0 and fine.session_id == store.sessions.session_id_of("agent:main:main")
    assert found(store, "nowhere") == [] and found(store, "") == []


def test_the_better_match_ranks_first_and_ties_go_to_the_newer(store):
    store.sessions.create("agent:main:main")
    say(store, "agent:main:main", "alpha once among many other words here")
    say(store, "agent:main:main", "alpha alpha alpha")
    say(store, "agent:main:main", "alpha once among many other words here")
    hits = search(store, "alpha").hits
    assert hits[0].snippet == "alpha alpha alpha" and hits[0].score > hits[1].score
    assert hits[1].msg_seq == 3 and hits[2].msg_seq == 1  # the same text: the newer first
    assert len(search(store, "alpha", limit=2).hits) == 2


def test_marked_snippets_mark_the_matched_words(store):
    store.sessions.create("agent:main:main")
    say(store, "agent:main:main", "the deploy failed")
    (hit,) = search(store, "deploy", marked=True).hits
    assert f"{HIT_START}deploy{HIT_END}" in hit.snippet and hit.snippet.replace(HIT_START, "").replace(
        HIT_END, ""
    ).startswith("the deploy failed")


def test_a_query_is_words_never_the_index_syntax(store):
    store.sessions.create("agent:main:main")
    say(store, "agent:main:main", "it's done: (really) AND NOT maybe")
    for words in ['"', "'", "it's", "(really)", "AND NOT", "a\\b", "done: &|!", "NEAR(x y)", "*", "x\x00y"]:
        search(store, words)  # never a syntax error
    assert len(found(store, "it's done")) == 1 and len(found(store, "(really)")) == 1


def test_narrowed_to_a_session_an_agent_or_a_requester_s_tree(store):
    store.sessions.create("agent:main:main")
    store.sessions.create("agent:main:subagent:1", {"spawnedBy": "agent:main:main"})
    store.sessions.create("agent:ops:main")
    for key in ("agent:main:main", "agent:main:subagent:1", "agent:ops:main"):
        say(store, key, f"needle in {key}")
    keys = lambda **n: sorted(k for k, _ in found(store, "needle", **n))  # noqa: E731
    assert keys() == ["agent:main:main", "agent:main:subagent:1", "agent:ops:main"]
    assert keys(session="agent:main:subagent:1") == ["agent:main:subagent:1"]
    assert keys(agents=["ops"]) == ["agent:ops:main"]
    assert keys(agents=[]) == []
    assert keys(tree_of="agent:main:main") == ["agent:main:main", "agent:main:subagent:1"]
    assert keys(tree_of="agent:main:subagent:1") == ["agent:main:subagent:1"]
    assert keys(tree_of="agent:main:main", agents=["ops"]) == []


def test_a_secret_is_never_found_by_its_value_nor_shown(store):
    store.sessions.create("agent:main:main")
    say(store, "agent:main:main", f"my credentials are {SECRET} keep them")
    assert found(store, SECRET) == [] and found(store, "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdEFGH") == []
    ((_, snippet),) = found(store, "credentials")
    assert SECRET not in snippet and "sk-pro…EFGH" in snippet


def test_a_change_of_redaction_rebuilds_the_index_on_catch_up(store):
    store.sessions.create("agent:main:main")
    say(store, "agent:main:main", "ticket ACME-12345 is done")
    assert len(found(store, "ACME")) == 1
    store.text_index.text_redactor = Redactor(patterns=["ACME-\\d+"])
    assert store.text_index.text_index_state().indexing
    state = store.text_index.catch_up_text_index()
    assert not state.indexing and state.indexed_through == 1
    assert found(store, "ACME") == [] and len(found(store, "ticket")) == 1


def test_lines_past_the_index_are_found_after_catch_up(store):
    store.sessions.create("agent:main:main")
    say(store, "agent:main:main", "first words")
    with store.write() as conn:  # as after a migration: the index starts again
        conn.execute("DELETE FROM transcript_text")
        conn.execute("UPDATE transcript_text_state SET indexed_through = 0 WHERE id = 1")
        if (
            type(store).__name__ == "PostgresStore"
        ):  # where appends index their own lines while it is caught up: not now
            conn.execute("UPDATE transcript_text_state SET inline = false WHERE id = 1")
    say(store, "agent:main:main", "second words")  # not indexed: the index is behind
    assert found(store, "words") == [] and store.text_index.text_index_state().indexing
    assert store.text_index.catch_up_text_index(chunk=1).indexed_through == 1
    assert store.text_index.catch_up_text_index().indexed_through == 2
    assert sorted(s for _, s in found(store, "words")) == ["first words", "second words"]


def test_a_deleted_session_is_not_found(store):
    store.sessions.create("agent:main:main")
    store.sessions.create("agent:main:other")
    say(store, "agent:main:main", "needle here")
    say(store, "agent:main:other", "needle there")
    store.sessions.delete("agent:main:main", store.text_index.unindex_session)
    assert found(store, "needle") == [("agent:main:other", "needle there")]


def test_a_word_in_very_many_messages_is_ranked_among_its_newest(store, monkeypatch):
    store.sessions.create("agent:main:main")
    for n in range(12):  # the oldest say it most often: ranked over all, they come first
        say(store, "agent:main:main", "alpha " * (12 - n) + f"n{n}")
    everything = search(store, "alpha", limit=3)
    assert not everything.windowed and everything.hits[0].snippet.endswith("n0")
    monkeypatch.setattr(sys.modules[type(store.text_index).__module__], "RANK_WINDOW", 4)  # the store's search's
    newest = search(store, "alpha", limit=25)
    assert newest.windowed
    assert sorted(h.snippet.split()[-1] for h in newest.hits) == ["n10", "n11", "n8", "n9"]


@pytest.mark.parametrize("words", ["deploy", "deploy fail"])
def test_one_store_finds_what_another_wrote(store, tmp_path, clock, words):
    """Two processes (or hosts) on one store: a line one appends, the other finds."""
    from sessions_tui.engine.store.postgres.store import PostgresStore

    other = PostgresStore(store.url, tmp_path, clock) if isinstance(store, PostgresStore) else Store(tmp_path, clock)
    try:
        other.sessions.create("agent:main:main")
        say(other, "agent:main:main", "the deploy failed")
        if words == "deploy":
            assert found(store, words) == [("agent:main:main", "the deploy failed")]
        else:
            assert found(store, words) == []  # words, not prefixes
    finally:
        other.close()
