"""Search on PostgreSQL: the text index's `search_text` over PostgreSQL's full-text search.

A PostgreSQL variant of a repository method, not a translation (adapter.py): FTS5's `MATCH`, `bm25` and
`snippet` have no spelling in PostgreSQL, so the query is written again here over the same rows. The
text index holds the same redacted text on both stores (`transcript_text.text`, written by the same
`TextIndexRepository`: as lines are appended, and by catch-up); PostgreSQL keeps beside it a `tsvector`
of that text (`words`, the `simple` configuration: lowercased, no stemming, as FTS5's unicode61) and
the line's session terms as an array (`sids`), both generated, each with a GIN index (postgres/schema.py).

So the same rule holds: a secret is never findable by its value, and a snippet (`ts_headline` of the
redacted text) never shows one. The same visibility: narrowed to a session or a requester's tree by
the `sid` terms, to agents by a join; only lines of current sessions are hits. Ranked by `ts_rank`
(higher is better, as a hit's `score` is), ties to the newer line; a query matching more than
`RANK_WINDOW` messages is ranked among its newest. Differences from FTS5: diacritics are kept (`café`
does not find `cafe`), the scores are `ts_rank`'s, not bm25's, and a snippet is `ts_headline`'s
fragment; a message's words are indexed up to `schema.INDEXED_CHARS` characters.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from sessions_tui.engine.store.tables.text_index import (
    HIT_END,
    HIT_START,
    RANK_WINDOW,
    TextHits,
    TextIndexRepository,
    TextQuery,
    digest,
    hit_of_row,
)

_QUOTED = re.compile(r'"((?:[^"]|"")*)"')
_HEADLINE = 'StartSel="{start}", StopSel="{end}", MaxWords=48, MinWords=16'


def match_words(match: str) -> list[str]:
    """The words of a `TextQuery.match`, which `fts_query` writes as every word quoted and all required
    (its inverse: the quotes removed, a doubled quote one)."""
    return [word.replace('""', '"') for word in _QUOTED.findall(match)]


def ts_query(words: list[str], *, prefix_last: bool = False) -> str:
    """`words` as a `to_tsquery` text, all of them required: each quoted (so none is query syntax; a word
    the parser splits, `deploy-failed`, is a phrase of its parts), the last a prefix if `prefix_last`."""
    quoted = ["'" + word.replace("\\", "\\\\").replace("'", "''") + "'" for word in words]
    if prefix_last and quoted:
        quoted[-1] += ":*"
    return " & ".join(quoted)


_PG_STATE = "SELECT redaction, inline FROM transcript_text_state WHERE id = 1"


class PgTextIndexRepository(TextIndexRepository):
    """The text index on PostgreSQL: indexing and catch-up are `TextIndexRepository`'s (plain SQL, the
    same on both stores), searching is PostgreSQL's full-text search, and appends of different sessions
    go at once: their rowids are reserved a block at a time (`reserve_rowids`, not the largest plus one),
    and while the index is caught up (`inline`) each append indexes its own lines without moving the
    watermark, which only catch-up moves (under the store's write lock, with no append beside it)."""

    def next_rowids(self, conn: sqlite3.Connection, count: int) -> int:
        return int(conn.execute("SELECT reserve_rowids(?)", (max(1, count),)).fetchone()[0])

    def _may_index(self, conn: sqlite3.Connection, first_rowid: int, fingerprint: str) -> bool:
        redaction, inline = conn.execute(_PG_STATE).fetchone()
        if not inline:
            return False  # a catch-up is under way: it indexes these lines too
        if redaction != fingerprint:
            if redaction != "":
                return False
            if conn.execute("SELECT EXISTS (SELECT 1 FROM transcript WHERE rowid < ?)", (first_rowid,)).fetchone()[0]:
                return False  # lines before these were never indexed with this redaction: catch-up does them
            conn.execute("UPDATE transcript_text_state SET redaction = ? WHERE id = 1", (fingerprint,))
        return True

    def _indexed(self, conn: sqlite3.Connection, last: int) -> None:
        """Nothing: the watermark is catch-up's alone (a shared row every append wrote would make them take turns)."""

    def _indexed_through(self, state: sqlite3.Row, newest: int) -> int:
        return newest if state["inline"] else int(state["indexed_through"])

    def _restarted(self, conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE transcript_text_state SET inline = false WHERE id = 1")

    def _advanced(self, conn: sqlite3.Connection, through: int | None, complete: bool) -> None:
        super()._advanced(conn, through, complete)
        if complete:
            conn.execute("UPDATE transcript_text_state SET inline = true WHERE id = 1")

    def search_text(self, query: TextQuery) -> TextHits:
        """The best `limit` messages of current sessions holding every word of `query.match`, best
        first (`ts_rank`, then newest): ranked by the index alone, then only the best joined to their
        sessions and given a snippet, as on SQLite."""
        words = match_words(query.match)
        if not words or (query.agents is not None and not query.agents):
            return TextHits([])
        tsquery = ts_query(words)
        joins, where, args = self._pg_narrowed(query)
        matching = f"FROM transcript_text AS t {joins} WHERE t.words @@ to_tsquery('simple', ?){where}"
        with self._search_read() as conn:
            many = conn.execute(
                f"SELECT count(*) FROM (SELECT 1 {matching} LIMIT ?) AS m", [tsquery, *args, RANK_WINDOW + 1]
            )
            windowed = int(many.fetchone()[0]) > RANK_WINDOW
            scored = f"SELECT t.rowid AS id, ts_rank(t.words, to_tsquery('simple', ?)) AS rank {matching}"
            if windowed:
                scored = f"SELECT * FROM ({scored} ORDER BY t.rowid DESC LIMIT {RANK_WINDOW}) AS newest"
            start, end = (HIT_START, HIT_END) if query.marked else ("", "")
            rows = conn.execute(
                f"""WITH best AS MATERIALIZED ({scored} ORDER BY rank DESC, id DESC LIMIT ?)
                    SELECT s.key, s.agent_id, s.session_id, tr.entry_id, tr.msg_seq,
                           tr.line::json #>> '{{message,role}}', tr.line::json -> 'timestamp',
                           ts_headline('simple', t.text, to_tsquery('simple', ?), ?), best.rank,
                           tr.line::json #> '{{message,timestamp}}'
                    FROM best
                    JOIN transcript_text AS t ON t.rowid = best.id
                    JOIN transcript AS tr ON tr.rowid = best.id
                    JOIN sessions AS s ON s.session_id = tr.session_id
                    ORDER BY best.rank DESC, best.id DESC LIMIT ?""",
                [
                    tsquery,
                    tsquery,
                    *args,
                    query.limit + 8,
                    tsquery,
                    _HEADLINE.format(start=start, end=end),
                    query.limit,
                ],
            ).fetchall()
        hits = [hit_of_row(r, float(r[8]) if r[8] is not None else 0.0) for r in rows]  # ts_rank: higher is better
        return TextHits(hits, windowed)

    @staticmethod
    def _pg_narrowed(query: TextQuery) -> tuple[str, str, list[Any]]:
        """(joins, further conditions, their arguments) for `query`'s narrowing: the `sid` terms
        (`sid_terms`) as an array, agents by a join."""
        joins, where, args = "", "", []
        if query.tree_of is not None:
            where += " AND t.sids && ?"
            args.append([f"s{digest(query.tree_of)}", f"p{digest(query.tree_of)}"])
        if query.session is not None:
            where += " AND t.sids @> ?"
            args.append([f"s{digest(query.session)}"])
        if query.agents is not None:
            joins = "JOIN transcript AS tr ON tr.rowid = t.rowid JOIN sessions AS s ON s.session_id = tr.session_id"
            where += " AND s.agent_id = ANY(?)"
            args.append(list(query.agents))
        return joins, where, args
