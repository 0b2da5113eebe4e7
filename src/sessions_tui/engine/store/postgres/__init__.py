"""The store on PostgreSQL (`--store postgresql://…`): the same contract as the SQLite store, and what
several engine hosts sharing one database need — a lease per host (a session's runs on one host at a
time; a lapsed host's work taken over: hosts.py), writes of different sessions at once (a session's own
lock under the store's write lock held shared), claims with `FOR UPDATE SKIP LOCKED` (each delivery,
announce and due job exactly once), and an events table with a per-session sequence that `LISTEN/NOTIFY`
only wakes readers of (SPEC D26).

psycopg is imported here and nowhere else in the engine, and only when a PostgreSQL store is opened.
"""
