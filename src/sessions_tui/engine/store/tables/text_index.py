"""The transcript text index: what `sessions_search` finds, an FTS5 table of every user and
assistant message's text, redacted.

The table (`transcript_text`, schema.py) tokenizes as OpenClaw's `session_transcript_fts` does
(unicode61, diacritics removed) and is ranked by the same bm25, so a query finds and orders what
the gateway's finds. Unlike the gateway's, it holds the text *redacted*: a secret is never findable
by its value, and a snippet cut from it never shows one. Its rowid is the transcript line's; its
`sid` column names the line's session and the session that spawned it (`s<key's digest>`,
`p<spawner's digest>`), so a search narrowed to some sessions, or to a requester's tree, is one
more term of the full-text query (`sid : (s… OR p…)`), which the index intersects with the words as
cheaply as it finds them.

It is kept in step in two ways. A write that appends lines indexes them in its own transaction
when the index is caught up (`indexed_through` is the last line before them) and was built with
the same redaction; otherwise it leaves them, and `catch_up_text_index` indexes the lines past
`indexed_through` a chunk at a time (after a migration, a change of the redaction rules, or lines
another configuration wrote). A search while it is behind says so (`TextIndexState.indexing`).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache, lru_cache
from typing import Any, NamedTuple

from sessions_tui.engine.clock import ms_from_iso
from sessions_tui.engine.inputs.surrogates import loads, scrub_text
from sessions_tui.engine.redaction.redact import Redactor, default_redactor
from sessions_tui.engine.search.matching import fts_words
from sessions_tui.engine.sessions.entry import is_number
from sessions_tui.engine.store.connection import Database, SearchUnreadable
from sessions_tui.engine.store.disk import integrity

CATCH_UP_CHUNK = 4000
"""Lines indexed per transaction while catching up: short enough that other writers barely wait."""

RANK_WINDOW = 5_000
"""A query matching more messages than this is ranked among its newest this many: bm25 over every
match of a common word costs over a second on a million messages (about 5 us a message), and its
best match is as good among the newest."""


HIT_START, HIT_END = "\x1e", "\x1f"
"""Marks around a matched token in a marked snippet; removed from indexed text, so never the text's own."""

_UNMARK = str.maketrans({HIT_START: " ", HIT_END: " "})


@cache
def _marks_re() -> re.Pattern[str]:
    return re.compile(f"([{HIT_START}{HIT_END}])")


@cache
def _spaces_re() -> re.Pattern[str]:  # not str.split's whitespace: that counts the marks in
    return re.compile(r"[ \t\n\r\f\v]+")


_TEXT_BLOCKS = ("text", "input_text", "output_text")
_STATE = "SELECT indexed_through, redaction FROM transcript_text_state WHERE id = 1"
_INSERT = "INSERT INTO transcript_text (rowid, text, sid) VALUES (?, ?, ?)"
_NEXT_ROWID = (
    "SELECT CASE WHEN stored > indexed THEN stored ELSE indexed END + 1 FROM ("
    "SELECT coalesce((SELECT max(rowid) FROM transcript), 0) AS stored, "
    "coalesce((SELECT indexed_through FROM transcript_text_state WHERE id = 1), 0) AS indexed) AS last"
)


def message_text(message: Any) -> str | None:
    """A user or assistant message's searchable text, as OpenClaw's `readMessageText` reads it:
    string content, a `text` field, or the text blocks joined by newlines (thinking, tool calls
    and images are not text)."""
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content.strip() or None
    if isinstance(message.get("text"), str):
        return str(message["text"]).strip() or None
    if not isinstance(content, list):
        return None
    parts = [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") in _TEXT_BLOCKS
        and isinstance(block.get("text"), str)
        and block["text"].strip()
    ]
    return "\n".join(parts) if parts else None


def indexed_text(redact: Callable[[str], str], text: str) -> str:
    """What the index holds of a message's text: redacted by `redact`, without the snippet marks,
    and any lone surrogate (which SQLite cannot store as text) as U+FFFD."""
    return scrub_text(redact(text)).translate(_UNMARK)


def marked_parts(snippet: str) -> list[tuple[str, bool]]:
    """A marked snippet on one line (each run of whitespace one space) as its pieces in order, each
    with whether the index matched it; a snippet with no marks is one unmatched piece."""
    parts: list[tuple[str, bool]] = []
    inside = False
    for piece in _marks_re().split(_spaces_re().sub(" ", snippet).strip(" ")):
        if piece in (HIT_START, HIT_END):
            inside = piece == HIT_START
        elif piece:
            parts.append((piece, inside))
    return parts


def line_text(line: Any) -> str | None:
    """The text of a transcript line the index holds, as OpenClaw's `extractTranscriptIndexEntry`
    picks them: a `message` line with an id, of a user or assistant (its role and time are read
    from the line itself when it is found: `hit_time`)."""
    if not isinstance(line, dict) or line.get("type") != "message":
        return None
    entry_id = line.get("id")
    if not isinstance(entry_id, str) or not entry_id.strip():
        return None
    return message_text(line.get("message"))


def hit_of_row(row: Sequence[Any], score: float) -> TextHit:
    """A hit from a search's row (key, agent, session id, entry id, message seq, role, the line's
    timestamp, snippet, rank, the message's timestamp), scored `score` (higher is better) by the caller,
    which knows what its database's rank means."""
    return TextHit(
        key=row[0],
        agent_id=row[1],
        session_id=row[2],
        entry_id=row[3],
        msg_seq=row[4],
        role=str(row[5]),
        timestamp=hit_time(row[6], row[9]),
        snippet=row[7] or "",
        score=score,
    )


def hit_time(line_stamp: Any, message_stamp: Any) -> int:
    """A hit's time in ms, as the gateway's index takes it: the line's timestamp (ISO or ms), else
    the message's."""
    for stamp in (line_stamp, message_stamp):
        if is_number(stamp):
            return int(stamp)
        if isinstance(stamp, str):
            parsed = ms_from_iso(stamp)
            if parsed is not None:
                return parsed
    return 0


class TextIndexState(NamedTuple):
    """How far the index has got: the last line indexed, the newest line stored, and whether the
    index was built with the redaction in use."""

    indexed_through: int
    newest: int
    current: bool

    @property
    def indexing(self) -> bool:
        return not self.current or self.indexed_through < self.newest


class TextHit(NamedTuple):
    """One message the index matched, with where it is and how well it matched (higher is better)."""

    key: str
    agent_id: str
    session_id: str
    entry_id: str | None
    msg_seq: int | None
    role: str
    timestamp: int
    snippet: str
    score: float


class TextHits(NamedTuple):
    """A search's best hits; `windowed`: it matched more than `RANK_WINDOW` messages, and these are
    the best of the newest of them."""

    hits: list[TextHit]
    windowed: bool = False


class TextQuery(NamedTuple):
    """A search: the FTS5 query, how many hits at most, and what narrows it (None: no narrowing).
    `marked`: snippets with `HIT_START`/`HIT_END` around matched tokens (else as the gateway's: bare)."""

    match: str
    limit: int
    session: str | None = None  # one session's messages only
    agents: Sequence[str] | None = None
    tree_of: str | None = None  # a requester: its own session and those it spawned
    marked: bool = False


class TextIndexRepository:
    """Indexing transcript lines as they are written, catching up, and searching."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.text_redactor: Redactor | None = None
        """The redaction the index is built with (the engine sets its own; else the built-in rules)."""

    def _text_redaction(self) -> Redactor:
        return self.text_redactor or default_redactor()

    def next_rowids(self, conn: sqlite3.Connection, count: int) -> int:
        """The first of `count` rowids for new transcript lines, in the caller's transaction: past every
        line stored and every line the index has been through (SQLite's writes take turns, so the next
        ones are this writer's)."""
        return int(conn.execute(_NEXT_ROWID).fetchone()[0])

    def index_lines(self, conn: sqlite3.Connection, first_rowid: int, lines: Iterable[Any], sid: str) -> None:
        """Index lines of one session just stored from `first_rowid` on, in the caller's transaction,
        when the index is caught up to just before them and built with this redaction (else
        catch-up will)."""
        redactor = self._text_redaction()
        if not self._may_index(conn, first_rowid, redactor.fingerprint):
            return
        rows = []
        last = first_rowid - 1
        for last, line in enumerate(lines, start=first_rowid):
            text = line_text(line)
            if text is not None:
                rows.append((last, indexed_text(redactor.redact, text), sid))  # shown soon: remembered
        if rows:
            conn.executemany(_INSERT, rows)
        self._indexed(conn, last)

    def _may_index(self, conn: sqlite3.Connection, first_rowid: int, fingerprint: str) -> bool:
        """Whether lines from `first_rowid` on are indexed as they are written: the index is caught up to
        just before them and built with this redaction (a new store's first lines start it with it)."""
        state = conn.execute(_STATE).fetchone()
        if state is None or int(state[0]) != first_rowid - 1:
            return False
        if state[1] != fingerprint:
            if state[1] != "" or first_rowid != 1:
                return False
            # A new store's first lines: the index starts with this redaction.
            conn.execute("UPDATE transcript_text_state SET redaction = ? WHERE id = 1", (fingerprint,))
        return True

    def _indexed(self, conn: sqlite3.Connection, last: int) -> None:
        """Lines through `last` indexed as they were written: the watermark moves with them."""
        conn.execute("UPDATE transcript_text_state SET indexed_through = ? WHERE id = 1", (last,))

    def unindex_session(self, conn: sqlite3.Connection, session_id: str) -> None:
        """Before a session's lines are deleted: their index rows go with them."""
        conn.execute(
            "DELETE FROM transcript_text WHERE rowid IN (SELECT rowid FROM transcript WHERE session_id = ?)",
            (session_id,),
        )

    @contextmanager
    def _search_read(self) -> Iterator[sqlite3.Connection]:
        """`read()` for a search: damage SQLite meets is kept, as every read's, and raised as
        `SearchUnreadable` (search cannot answer, whatever other reads can)."""
        try:
            with self.db.read() as conn:
                yield conn
        except sqlite3.DatabaseError as exc:
            if not integrity.is_corruption(exc):
                raise
            raise SearchUnreadable(
                f"{self.db.db_path}: search cannot read the state database: it is damaged where search reads ({exc})"
            ) from exc

    def text_index_state(self) -> TextIndexState:
        """How far the index has got (raises `SearchUnreadable` when that cannot be read)."""
        with self._search_read() as conn:
            state = conn.execute("SELECT * FROM transcript_text_state WHERE id = 1").fetchone()
            newest = conn.execute("SELECT coalesce(max(rowid), 0) FROM transcript").fetchone()[0]
            through, redaction = (self._indexed_through(state, int(newest)), state["redaction"]) if state else (0, "")
        current = redaction == self._text_redaction().fingerprint or (redaction == "" and newest == 0)
        return TextIndexState(indexed_through=through, newest=int(newest), current=current)

    def _indexed_through(self, state: sqlite3.Row, newest: int) -> int:
        """The last line indexed, from the index's state row: its watermark (PostgreSQL's index also holds
        what appends indexed past it)."""
        return int(state["indexed_through"])

    def _restarted(self, conn: sqlite3.Connection) -> None:
        """The index begun afresh (another redaction): nothing more here (PostgreSQL's notes it)."""

    def _advanced(self, conn: sqlite3.Connection, through: int | None, complete: bool) -> None:
        """Catch-up indexed through `through` (None: no line this time); `complete` when no line past it
        was left."""
        if through is not None:
            conn.execute("UPDATE transcript_text_state SET indexed_through = ? WHERE id = 1", (through,))

    def catch_up_text_index(self, chunk: int = CATCH_UP_CHUNK) -> TextIndexState:
        """Index up to `chunk` lines past `indexed_through` in one transaction (first starting the
        index afresh if it was built with another redaction); returns where it got to."""
        redactor = self._text_redaction()
        # Old texts, each redacted once: not kept in the redactor's memory of texts (they would push
        # out what the listings and open transcripts redact again and again).
        unremembered = redactor.redact_unremembered
        with self.db.write() as conn:
            state = conn.execute(_STATE).fetchone()
            if state is None or state[1] != redactor.fingerprint:
                conn.execute("DELETE FROM transcript_text")
                conn.execute(
                    "INSERT OR REPLACE INTO transcript_text_state (id, indexed_through, redaction) VALUES (1, 0, ?)",
                    (redactor.fingerprint,),
                )
                self._restarted(conn)
                through = 0
            else:
                through = int(state[0])
            lines = conn.execute(
                """SELECT tr.rowid, tr.line, s.key, s.spawned_by, s.parent_session_key FROM transcript AS tr
                   LEFT JOIN sessions AS s ON s.session_id = tr.session_id
                   WHERE tr.rowid > ? ORDER BY tr.rowid LIMIT ?""",
                (through, chunk),
            ).fetchall()
            rows = []
            for rowid, raw, key, spawned_by, parent in lines:
                if key is None:
                    continue  # a line of no session (none is left so today)
                try:
                    text = line_text(loads(raw))
                except ValueError:
                    text = None
                if text is not None:
                    rows.append((rowid, indexed_text(unremembered, text), sid_terms(key, spawned_by, parent)))
            if rows:
                conn.executemany(_INSERT, rows)
            if lines:
                through = int(lines[-1][0])
            self._advanced(conn, through if lines else None, complete=len(lines) < chunk)
            newest = conn.execute("SELECT coalesce(max(rowid), 0) FROM transcript").fetchone()[0]
        return TextIndexState(indexed_through=through, newest=int(newest), current=True)

    def search_text(self, query: TextQuery) -> TextHits:
        """The best `limit` messages of current sessions matching `query.match`, best first (bm25,
        then newest).

        Ranked first, cut second, described last: the matches are ranked by the index alone, and
        only the best `limit` are joined to their sessions and given a snippet. Narrowed to
        a session or a requester's tree by the index's `sid` terms, to agents by a join per match; a query
        matching more than `RANK_WINDOW` messages is ranked among its newest (read newest first,
        which the index does without sorting).

        Raises `SearchUnreadable` when SQLite meets damage where it reads (kept, as every read's)."""
        if not query.match or (query.agents is not None and not query.agents):
            return TextHits([])  # no words (the query was only spaces and NULs), or no agent to search
        with self._search_read() as conn:
            match, joins, where, args = self._narrowed(query)
            matching = f"FROM transcript_text AS t {joins} WHERE transcript_text MATCH ?{where}"
            args = [match, *args]
            many = conn.execute(f"SELECT count(*) FROM (SELECT 1 {matching} LIMIT ?)", [*args, RANK_WINDOW + 1])
            windowed = int(many.fetchone()[0]) > RANK_WINDOW
            # bm25 weighs the words only (the `sid` column 0); ties go to the newer line. A few more
            # are ranked than wanted: lines of no current session drop out at the join below.
            scored = f"SELECT t.rowid AS id, bm25(transcript_text, 1.0, 0.0) AS rank {matching}"
            if windowed:
                scored = f"SELECT * FROM ({scored} ORDER BY t.rowid DESC LIMIT {RANK_WINDOW})"
            start, end = (HIT_START, HIT_END) if query.marked else ("", "")
            rows = conn.execute(
                f"""WITH best AS MATERIALIZED ({scored} ORDER BY rank, id DESC LIMIT ?)
                    SELECT s.key, s.agent_id, s.session_id, tr.entry_id, tr.msg_seq,
                           json_extract(tr.line, '$.message.role'), json_extract(tr.line, '$.timestamp'),
                           snippet(transcript_text, 0, ?, ?, ' … ', 48), best.rank,
                           json_extract(tr.line, '$.message.timestamp')
                    FROM best
                    JOIN transcript_text AS t ON t.rowid = best.id
                    JOIN transcript AS tr ON tr.rowid = best.id
                    JOIN sessions AS s ON s.session_id = tr.session_id
                    WHERE transcript_text MATCH ?
                    ORDER BY best.rank, best.id DESC LIMIT ?""",
                [*args, query.limit + 8, start, end, match, query.limit],
            ).fetchall()
        hits = [hit_of_row(r, -float(r[8]) if r[8] is not None else 0.0) for r in rows]  # bm25: lower is better
        return TextHits(hits, windowed)

    @staticmethod
    def _narrowed(query: TextQuery) -> tuple[str, str, str, list[Any]]:
        """(the full-text query, joins, further conditions, their arguments) for `query`'s narrowing."""
        match, joins, where, args = f"text : ({query.match})", "", "", []
        if query.tree_of is not None:
            match = f"{match} AND sid : (s{digest(query.tree_of)} OR p{digest(query.tree_of)})"
        if query.session is not None:
            match = f"{match} AND sid : s{digest(query.session)}"
        if query.agents is not None:
            joins = "JOIN transcript AS tr ON tr.rowid = t.rowid JOIN sessions AS s ON s.session_id = tr.session_id"
            where = " AND s.agent_id IN (SELECT value FROM json_each(?))"
            args.append(json.dumps(list(query.agents)))
        return match, joins, where, args


def digest(key: str) -> str:
    """A session key as one index token (hex: the tokenizer keeps it whole)."""
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


@lru_cache(maxsize=4096)  # catch-up asks it per line, and a session's lines come together
def sid_terms(key: str, spawned_by: str | None, parent: str | None) -> str:
    """A line's `sid` column: its session, and the sessions it was spawned by (its requester's tree)."""
    terms = [f"s{digest(key)}"]
    terms.extend(f"p{digest(spawner)}" for spawner in dict.fromkeys((spawned_by, parent)) if spawner)
    return " ".join(terms)


def sessions_saying(conn: sqlite3.Connection, words: str) -> list[int]:
    """The rowids of the sessions whose newest `RANK_WINDOW` matching messages hold every word of
    `words`, the last one as a prefix (a filter is typed a letter at a time)."""
    if not fts_words(words):
        return []
    match = f"text : ({fts_query(words)}*)"
    sql = f"""SELECT DISTINCT s.rowid FROM (
                  SELECT rowid AS id FROM transcript_text WHERE transcript_text MATCH ?
                  ORDER BY rowid DESC LIMIT {RANK_WINDOW}
              ) JOIN transcript AS tr ON tr.rowid = id JOIN sessions AS s ON s.session_id = tr.session_id"""
    return [int(r[0]) for r in conn.execute(sql, (match,))]


def fts_query(query: str) -> str:
    """OpenClaw's `toFtsQuery`: every word (`fts_words`) quoted, all of them required; "" for none.
    Quoted, a word's `*`, `^`, `:`, `-`, parentheses and `NEAR` are text (which the tokenizer drops
    but for the letters and digits), never the query syntax."""
    return " AND ".join('"' + token.replace('"', '""') + '"' for token in fts_words(query))
