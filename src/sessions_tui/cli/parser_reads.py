"""The reading commands' shape: `sends`, `explain`, `export` and `search` (what happened, why,
a session's transcript, what was said), their options and help texts."""

from __future__ import annotations

from typing import Any

from sessions_tui.backend import SEND_STATES
from sessions_tui.cli.options import face_options, subcommand, wrapped


def add_read_commands(sub: Any, on_demo: str) -> None:
    """Declare the reading commands on `sub` (`on_demo`: their --demo help)."""
    sends = subcommand(
        sub,
        "sends",
        "list the send ledger: every sessions_send and what became of it, newest first",
        wrapped(
            "One block per send: when, from whom to whom (the owner's sends say so), the message's head, then "
            "each state of its life with its time (UTC): accepted, started, replied, timeout, error, forbidden, "
            "late_reply (a reply that came after the wait gave up), pingpong (one per turn), announce or "
            "announce_skipped, delivered or delivery_failed. Texts are redacted and cut as history text is."
        ),
        epilog="example: sessions-tui sends --session agent:main:discord:group:dev --reached late_reply",
    )
    face_options(sends, demo=on_demo)
    sends.add_argument("--session", metavar="KEY", help="only sends this session made or received (a key or sessionId)")
    sends.add_argument(
        "--reached",
        dest="send_state",
        choices=SEND_STATES,
        metavar="STATE",
        help=f"only sends that reached STATE: {', '.join(SEND_STATES)}",
    )
    sends.add_argument("--limit", type=int, default=50, metavar="N", help="at most N sends (default 50)")
    sends.add_argument("--json", action="store_true", help="print a JSON list instead of text")

    explain = subcommand(
        sub,
        "explain",
        "say whether FROM may list, read, send to TO and spawn under an agent, and which rule decides",
        wrapped(
            "One line per action (list, history, send, spawn): yes or no, and the rule that decides it: the "
            "visibility level (self, tree, agent, all), the sandbox clamp (a sandboxed requester sees only what "
            "it spawned), agent-to-agent (tools.agentToAgent.enabled and allow), the send policy's rule or the "
            "session's /send override, the session being OpenClaw's (gateway.remote), and for spawn "
            "maxSpawnDepth, maxChildrenPerAgent, requireAgentId and allowAgents. The answers are the tools' own "
            "checks. The chain guard never applies here: the owner's calls are in no run.\n\n"
            "Exit status: 0 for every answer, 2 for a key or agent id that is not one, or a TO that names no "
            "session."
        ),
        epilog="example: sessions-tui explain agent:ops:main agent:main:discord:group:dev --json",
    )
    face_options(explain, demo=on_demo, sandboxed="treat FROM as sandboxed")
    explain.add_argument("from_key", metavar="FROM", help="the requester session: a key or main")
    explain.add_argument("target", metavar="TO", help="the target session: a key")
    explain.add_argument(
        "--agent", metavar="ID", help="spawn under this agent (default: TO's agent; named only if not FROM's own)"
    )
    explain.add_argument("--json", action="store_true", help="print the explanation as JSON")

    export = subcommand(
        sub,
        "export",
        "write one session's transcript as Markdown, a self-contained HTML page or OpenClaw JSONL",
        wrapped(
            "md: a readable transcript (title, each message with its role, time and text; tool calls and results "
            "compact; images as [image]; thinking left out). html: the same as one page with no script or outside "
            "resource, light or dark as the browser prefers. jsonl: OpenClaw's transcript (its session header, then "
            "every stored line); given a directory (-o DIR/) it writes OpenClaw's layout there "
            "(agents/<agent>/sessions/sessions.json and <sessionId>.jsonl), which 'sessions-tui import-openclaw DIR' "
            "takes back unchanged.\n\n"
            "Redacted, as every output is: each secret masked, each JSONL line still valid with its ids and order. "
            "--no-redact only on your own local state directory, never over --remote.\n\n"
            "Exit status: 0 when written; 2 for a key that names no session, a file that cannot be written, or "
            "--no-redact where it is not allowed."
        ),
        epilog="example: sessions-tui export agent:main:discord:group:dev --format html -o dev.html",
    )
    face_options(export, demo=on_demo)
    export.add_argument("key", metavar="KEY", help="the session: a key, main, or a sessionId")
    export.add_argument("--format", choices=("md", "html", "jsonl"), default="md", help="md (default), html or jsonl")
    export.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (default: standard output); jsonl: a DIR/ for the layout"
    )
    export.add_argument(
        "--no-redact",
        action="store_true",
        help="leave secrets in (only the state directory's owner, locally; a warning says so on stderr)",
    )

    search = subcommand(
        sub,
        "search",
        "find the messages that say something, across every transcript the requester may read",
        wrapped(
            "Every word of QUERY must be in a user or assistant message (any order; case, accents and "
            "punctuation do not matter: OpenClaw's sessions_search index). Best matches first, two lines "
            "each: the session, the message's number in its transcript, role, time (UTC) and score, then "
            "the snippet around the match. Only what the requester (main unless --as; --sandboxed) may read "
            "with sessions_history is searched, and the index holds text redacted: a secret is never found "
            "by its value. The first search of a store indexes it (once).\n\n"
            "Exit status: 0 for an answer (none found included), 1 when --session is one the requester may "
            "not read, 2 for an empty query or a bad option."
        ),
        epilog="example: sessions-tui search failed deploy --session agent:main:discord:group:dev --json",
    )
    face_options(search, demo=on_demo, requester="search as this session", sandboxed="treat the requester as sandboxed")
    search.add_argument("query", nargs="+", metavar="QUERY", help="the words to find")
    search.add_argument("--session", metavar="KEY", help="search this session only (a key, main, or a sessionId)")
    search.add_argument("--limit", type=int, default=20, metavar="N", help="at most N messages (default 20)")
    search.add_argument("--json", action="store_true", help="print the results as JSON")
