"""The `sessions-tui` command line's shape: its subcommands, options and help texts.

Kept apart from the commands (`commands/`, which run them) so the help a user reads is in one place,
and a command's module is loaded only when it runs. The `tool` help lists the tools from the tool
registry, so a new tool shows up there by itself.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from sessions_tui import __version__
from sessions_tui.backend.values.vocabulary import SEND_STATES, TOOLS, ToolSpec
from sessions_tui.cli.cron_parser import add_cron_command
from sessions_tui.cli.options import (
    DEMO_DIR,
    CommandParser,
    RedactingParser,
    face_options,
    global_options,
    remote_options,
    subcommand,
    wrapped,
)
from sessions_tui.cli.store_parser import add_store_command

_OPENCLAW_HELP = (
    "an OpenClaw state directory (e.g. ~/.openclaw): the dashboard follows it live, `tool` reads it "
    "brought up to date; its sessions are mirrored in a state directory of their own unless --state is given"
)

# An argument example per tool, shown by `tool --help`; a tool missing here gets one built from
# its schema's required parameters.
_EXAMPLES: dict[str, dict[str, Any]] = {
    "sessions_list": {"activeMinutes": 60, "messageLimit": 2},
    "sessions_history": {"sessionKey": "main", "limit": 20, "includeTools": True},
    "sessions_send": {"sessionKey": "agent:main:discord:group:dev", "message": "status?", "timeoutSeconds": 30},
    "sessions_spawn": {"task": "count the words in: a b c", "label": "words"},
    "sessions_search": {"query": "deploy slow", "limit": 5},
    "agents_list": {},
}
_PLACEHOLDERS = {"string": "…", "integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}


def tool_example(spec: ToolSpec) -> dict[str, Any]:
    """The arguments `tool --help` shows for a tool."""
    if spec.name in _EXAMPLES:
        return _EXAMPLES[spec.name]
    properties = spec.parameters.get("properties") or {}
    return {
        name: _PLACEHOLDERS.get(str((properties.get(name) or {}).get("type")), "…")
        for name in spec.parameters.get("required") or []
    }


def tool_summary(spec: ToolSpec) -> str:
    """A tool's description cut to its first sentence."""
    first = re.split(r"(?<=[.!?])\s", spec.description.strip(), maxsplit=1)[0]
    return " ".join(first.split())


def _tool_epilog() -> str:
    lines = ["tools (ARGS_JSON is a JSON object; the requester is main unless --as):"]
    for spec in TOOLS.values():
        lines.append(f"  {spec.name}")
        lines += textwrap.wrap(
            tool_summary(spec),
            width=max(40, min(100, shutil.get_terminal_size().columns - 2)),
            initial_indent="      ",
            subsequent_indent="      ",
            break_on_hyphens=False,
        )
        example = tool_example(spec)
        args = f" '{json.dumps(example, ensure_ascii=False)}'" if example else ""
        lines.append(f"      e.g. sessions-tui tool {spec.name}{args}")
    exits = wrapped(
        'Exit status: 0 for every tool result, including status "error" and "forbidden"; 2 for '
        "invalid arguments, an unknown tool, a bad config or a state directory that cannot be used."
    )
    return "\n".join([*lines, "", exits])


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. Given the arguments it is to parse (`argv`), only the commands
    they name get their options (any other command is there by its name and help line alone, as
    the top-level help lists it): a word of `argv` that is a command's name is enough, so every
    command that may be the one given is whole."""
    words = None if argv is None else set(argv)

    def wanted(command: str) -> bool:
        return words is None or command in words

    demo_dir = DEMO_DIR  # the directory itself is found when a help is shown
    parser = RedactingParser(
        prog="sessions-tui",
        description="Watch and drive AI-agent sessions: a terminal dashboard on an embedded "
        "OpenClaw-compatible session engine. Without a COMMAND it opens the dashboard.",
        epilog="Run 'sessions-tui COMMAND --help' for a command's options and examples. An option given "
        "before a COMMAND counts for it as well, where the command takes it.",
    )
    parser.argv = [] if argv is None else list(argv)
    parser.add_argument("--version", action="version", version=f"sessions-tui {__version__}")
    global_options(
        parser,
        suppress=False,
        demo=(
            f"open the dashboard on the demo, in a state directory of its own ({demo_dir} unless --state), "
            "filled with the demo sessions and config on first use"
        ),
    )
    parser.add_argument(
        "--as", dest="as_key", metavar="SESSION_KEY", help="act as this session in the dashboard (default: main)"
    )
    parser.add_argument("--sandboxed", action="store_true", help="act as a sandboxed requester in the dashboard")
    parser.add_argument("--openclaw", metavar="DIR", help=_OPENCLAW_HELP)
    remote_options(parser, suppress=False, doing="show in the dashboard")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    on_demo = f"act on the demo's own state directory ({demo_dir} unless --state), filled with the demo first"

    tool = subcommand(
        sub,
        "tool",
        "invoke one session tool and print its result as JSON",
        (
            "Runs the tool on the embedded engine as the requester session (main unless --as), with what that "
            "session may see and do, and prints the tool's result object. Work the tool starts (a run, the "
            "ping-pong, an announce) finishes before the command exits."
        ),
        epilog_source=_tool_epilog,
    )
    if wanted("tool"):
        face_options(
            tool,
            doing="run the tool on",
            demo=on_demo,
            requester="the requester session (default: main)",
            sandboxed="treat the requester as sandboxed",
        )
        tool.add_argument("name", metavar="NAME", help=f"the tool: {', '.join(TOOLS)}")
        tool.add_argument(
            "args_json", nargs="?", default="{}", metavar="ARGS_JSON", help="tool arguments, a JSON object"
        )
        tool.add_argument("--openclaw", metavar="DIR", default=argparse.SUPPRESS, help=_OPENCLAW_HELP)

    send = subcommand(
        sub,
        "send",
        "send a message into a session as the operator, printed readably",
        (
            "Prints the outcome (the reply, accepted, timeout, forbidden), then the agent-to-agent ping-pong and "
            "the announce as they happen. A standalone '/send on|off|inherit' sets the session's send policy.\n\n"
            "Exit status: 0 when the message was taken (ok, accepted, timeout), 1 when it was refused or failed, "
            "2 for invalid arguments."
        ),
        epilog="example: sessions-tui send agent:main:discord:group:dev 'status?'",
    )
    if wanted("send"):
        face_options(
            send,
            doing="send through",
            demo=on_demo,
            requester="send on behalf of this session (enables the ping-pong with it)",
        )
        send.add_argument("key", metavar="KEY", help="the target session: a key, main, or a sessionId")
        send.add_argument(
            "message",
            metavar="MESSAGE",
            nargs="?",
            help="the message; a standalone '/send on|off|inherit' sets the session's send policy",
        )
        send.add_argument(
            "--message-file",
            metavar="FILE",
            help="read the message from FILE instead ('-' for stdin; a pipe works too): UTF-8 text, "
            "invalid bytes are an error (exit 2), one trailing newline is dropped; at most 4 MiB",
        )
        send.add_argument(
            "--timeout",
            type=float,
            default=30,
            metavar="N",
            help="seconds to wait for the reply, a whole number (0 = do not wait; default 30)",
        )

    add_read_commands(sub, on_demo, wanted)
    add_session_command(sub, on_demo, wanted)
    add_cron_command(sub, on_demo, wanted)
    add_store_command(sub, wanted)

    watch = subcommand(
        sub,
        "watch",
        "print what happens in the sessions as it happens, one line each, until Ctrl+C",
        (
            "Session changes (a new session; status, tokens, label), messages (role and text, one line, cut), "
            "streamed text (word by word, redacted), runs starting and ending, sends' progress and announces, "
            "from the local state directory (what other processes write included), a --remote server or "
            "--openclaw DIR (followed as the dashboard follows it). Texts are redacted; control characters are "
            "made visible (escaped in JSON). Lines are flushed one by one.\n\n"
            "--json prints one JSON object a line: ts (epoch ms), type (session_changed, message_appended, "
            "run_started, run_streamed, run_ended, send_progress, announced, policy_refused, delivery_changed, "
            "follow_status, hook_received, cron_run_started; notice with --notify), session (its display key) "
            "and the event's own fields.\n\n"
            "Exit status: 0 on Ctrl+C or SIGTERM, and when the reader of its output goes away; 2 for a bad option."
        ),
        epilog="example: sessions-tui watch --session agent:main:discord:group:dev --json",
    )
    if wanted("watch"):
        face_options(watch, doing="watch", demo=on_demo, requester="watch what this session may see (default: main)")
        watch.add_argument(
            "--session", metavar="KEY", help="only this session's events (a key in any spelling, main, or a sessionId)"
        )
        watch.add_argument("--json", action="store_true", help="print JSON lines, one object per event")
        watch.add_argument(
            "--notify",
            action="store_true",
            help="only the notices the dashboard gives (a watched session done, failed, stuck or looping; a reply "
            "to your send; a hook; a cron run), one line each, and the desktop notification ui.notify.desktop says",
        )
        watch.add_argument("--openclaw", metavar="DIR", default=argparse.SUPPRESS, help=_OPENCLAW_HELP)

    demo = subcommand(
        sub,
        "demo",
        "write the demo into its own state directory and list its sessions",
        (
            f"The demo lives in a state directory of its own, {demo_dir} (beside the everyday one), unless "
            "--state is given; its config is <that directory>/config.json5 unless --config is given. An empty "
            "directory gets the demo sessions, transcripts and a demo config; one that holds sessions is left "
            "as it is. 'sessions-tui --demo' opens the dashboard on it, 'sessions-tui tool --demo …' runs a "
            "tool on it."
        ),
    )
    if wanted("demo"):
        global_options(demo, suppress=True, demo=None, demo_dir=demo_dir)

    imp = subcommand(
        sub,
        "import-openclaw",
        "import an OpenClaw state directory (SQLite store or legacy layout)",
        (
            "Reads OpenClaw's sessions and transcripts (its SQLite store, or the legacy "
            "sessions.json and JSONL files) into the state directory; importing again takes "
            "only what changed. With --follow it keeps doing so as OpenClaw writes. With --adopt its "
            "sessions become this engine's: how someone moves off an OpenClaw install."
        ),
        epilog="example: sessions-tui import-openclaw ~/.openclaw --follow",
    )
    if wanted("import-openclaw"):
        global_options(imp, suppress=True, demo=None)
        imp.add_argument(
            "source", metavar="DIR", help="an OpenClaw state directory (the one holding agents/), e.g. ~/.openclaw"
        )
        imp.add_argument(
            "--follow",
            action="store_true",
            help="keep following it: new sessions, lines and entry changes come in as OpenClaw writes them, "
            "until Ctrl+C or SIGTERM",
        )
        imp.add_argument(
            "--adopt",
            action="store_true",
            help="take its sessions over: they become this engine's (sends, spawns and the session operations "
            "run in them; they are no longer OpenClaw's), keys, sessionIds and every line kept; adopting again "
            "takes only what is new. Refused for an OpenClaw this state directory follows",
        )
        imp.add_argument(
            "--json", action="store_true", help="print the report as JSON (sources, problems, summary, adopted)"
        )

    serve = subcommand(
        sub,
        "serve",
        "answer OpenClaw's HTTP tool API on this state directory, for scripts and remote dashboards",
        (
            "Serves POST /tools/invoke as OpenClaw's gateway does (bearer token, its status codes, its HTTP "
            "deny list: sessions_send and sessions_spawn only when gateway.tools.allow names them), GET /health "
            "and /readyz, and the engine's live events for 'sessions-tui --remote URL' dashboards.\n\n"
            "The token: --token, else $SESSIONS_TUI_TOKEN, else gateway.auth.token in the config. Without one "
            "it listens on loopback only, with a new random token written to <state>/serve.token (mode 600). "
            "A host other than loopback needs a token. Ctrl+C or SIGTERM stops it after the work under way."
        ),
        epilog="example: SESSIONS_TUI_TOKEN=$(cat ~/.sessions-tui-token) sessions-tui serve --host 0.0.0.0",
    )
    if wanted("serve"):
        global_options(serve, suppress=True, demo=on_demo)
        serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
        serve.add_argument(
            "--port",
            type=int,
            default=None,
            help="the port (default: gateway.port in the config, else 18789; 0: any free)",
        )
        serve.add_argument(
            "--token",
            default=argparse.SUPPRESS,
            help="the bearer token clients must send (other local users can see it: prefer $SESSIONS_TUI_TOKEN)",
        )
        serve.add_argument(
            "--workers",
            metavar="N",
            default=None,
            help="serve from N processes on the one port, to use N cores (default 1). With more than one, a run's "
            "streamed text and the events of the work a worker runs reach the /events readers connected to that "
            "worker; the others see the change as a store change (a remote dashboard re-reads). The token "
            "lockout counts per worker; the first worker follows --openclaw",
        )
        serve.add_argument("--openclaw", metavar="DIR", default=argparse.SUPPRESS, help=_OPENCLAW_HELP)
    return parser


def add_read_commands(sub: Any, on_demo: str, wanted: Callable[[str], bool] = lambda command: True) -> None:
    """Declare the reading commands on `sub` (`on_demo`: their --demo help), the options of those
    `wanted` says may be given."""
    sends = subcommand(
        sub,
        "sends",
        "list the send ledger: every sessions_send and what became of it, newest first",
        (
            "One block per send: when, from whom to whom (the operator's sends say so), the message's head, then "
            "each state of its life with its time (UTC): accepted, started, replied, timeout, error, forbidden, "
            "late_reply (a reply that came after the wait gave up), pingpong (one per turn), announce or "
            "announce_skipped, delivered or delivery_failed. Texts are redacted and cut as history text is."
        ),
        epilog="example: sessions-tui sends --session agent:main:discord:group:dev --reached late_reply",
    )
    if wanted("sends"):
        face_options(sends, doing="list the sends of", demo=on_demo)
        sends.add_argument(
            "--session", metavar="KEY", help="only sends this session made or received (a key or sessionId)"
        )
        sends.add_argument(
            "--reached",
            dest="send_state",
            choices=SEND_STATES,
            metavar="STATE",
            help=f"only sends that reached STATE: {', '.join(SEND_STATES)}",
        )
        sends.add_argument("--limit", type=int, default=50, metavar="N", help="at most N sends (default 50)")
        sends.add_argument("--json", action="store_true", help="print a JSON list instead of text")

    usage = subcommand(
        sub,
        "usage",
        "print tokens and estimated cost of the model turns since a time, by agent, model or session",
        (
            "A header (turns, tokens, estimated cost), a table by --by (most costly first), then a line per --every "
            "(UTC). A cost is the provider's own figure, else the model's price in the config (models.providers.<p>."
            "models[].cost): estimated. Turns on a model with neither are counted, their cost left out (+?)."
        ),
        epilog="example: sessions-tui usage --since 30d --by model --every day",
    )
    if wanted("usage"):
        from sessions_tui.backend.values.usage import USAGE_BUCKETS, USAGE_GROUPINGS  # only when usage is asked

        face_options(usage, doing="print the usage of", demo=on_demo)
        usage.add_argument(
            "--since", default="7d", metavar="WHEN", help="a span back from now (7d, 12h) or a UTC date (default 7d)"
        )
        usage.add_argument("--by", choices=USAGE_GROUPINGS, default="agent", help="group by (default agent)")
        usage.add_argument("--every", choices=USAGE_BUCKETS, default="day", help="over time by (default day)")
        usage.add_argument("--json", action="store_true", help="print JSON instead of text")

    explain = subcommand(
        sub,
        "explain",
        "say whether FROM may list, read, send to TO and spawn under an agent, and which rule decides",
        (
            "One line per action (list, history, send, spawn): yes or no, and the rule that decides it: the "
            "visibility level (self, tree, agent, all), the sandbox clamp (a sandboxed requester sees only what "
            "it spawned), agent-to-agent (tools.agentToAgent.enabled and allow), the send policy's rule or the "
            "session's /send override, the session being OpenClaw's (gateway.remote), and for spawn "
            "maxSpawnDepth, maxChildrenPerAgent, requireAgentId and allowAgents. The answers are the tools' own "
            "checks. The chain guard never applies here: the operator's calls are in no run.\n\n"
            "Exit status: 0 for every answer, 2 for a key or agent id that is not one, or a TO that names no "
            "session."
        ),
        epilog="example: sessions-tui explain agent:ops:main agent:main:discord:group:dev --json",
    )
    if wanted("explain"):
        face_options(explain, doing="ask", demo=on_demo, sandboxed="treat FROM as sandboxed")
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
        (
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
    if wanted("export"):
        face_options(export, doing="export from", demo=on_demo)
        export.add_argument("key", metavar="KEY", help="the session: a key, main, or a sessionId")
        export.add_argument(
            "--format", choices=("md", "html", "jsonl"), default="md", help="md (default), html or jsonl"
        )
        export.add_argument(
            "-o",
            "--output",
            metavar="FILE",
            help="write to FILE (default: standard output); jsonl: a DIR/ for the layout",
        )
        export.add_argument(
            "--no-redact",
            action="store_true",
            help="leave secrets in (only on a local state directory that is yours; a warning says so on stderr)",
        )

    search = subcommand(
        sub,
        "search",
        "find the messages that say something, across every transcript the requester may read",
        (
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
    if wanted("search"):
        face_options(
            search,
            doing="search",
            demo=on_demo,
            requester="search as this session",
            sandboxed="treat the requester as sandboxed",
        )
        search.add_argument("query", nargs="+", metavar="QUERY", help="the words to find")
        search.add_argument("--session", metavar="KEY", help="search this session only (a key, main, or a sessionId)")
        search.add_argument("--limit", type=int, default=20, metavar="N", help="at most N messages (default 20)")
        search.add_argument("--json", action="store_true", help="print the results as JSON")


def add_session_command(sub: Any, on_demo: str, wanted: Callable[[str], bool] = lambda command: True) -> None:
    """Declare `session` and its actions on `sub` (one sub-command each, run by commands/session.py
    `ACTIONS`), with their options when `wanted` says `session` may be given."""
    session = subcommand(
        sub,
        "session",
        "act on one session as its operator: create, reset, rename, re-model, archive, delete it, abort its turn",
        "ACTION is one of the actions below; 'sessions-tui session ACTION --help' for its options.",
        epilog="example: sessions-tui session abort agent:main:discord:group:dev",
    )
    if not wanted("session"):
        return
    actions = session.add_subparsers(dest="session_command", metavar="ACTION", parser_class=CommandParser)
    actions.required = True
    abort = subcommand(
        actions,
        "abort",
        "stop the session's running turn, in whichever process runs it",
        (
            "The process running the turn (the dashboard, a serve, a send in another shell) is asked to stop "
            "it and this waits until it has (at most 10 s). Prints one line: 'aborted run R in KEY', 'no run in "
            "progress in KEY', or 'asked run R in KEY to stop; still running'. The messages queued behind the "
            "turn stay (the next one runs) unless --clear-queued. Each stop is written to the audit log.\n\n"
            "Exit status: 0 when stopped or nothing was running, 1 when the backend cannot stop runs or the run "
            "had not stopped within the wait, 2 for a key that names no session or a bad option."
        ),
        epilog="example: sessions-tui session abort agent:main:discord:group:dev --clear-queued",
    )
    face_options(abort, doing="abort the turn on", demo=on_demo, requester=_AS_HELP, sandboxed=_SANDBOXED_HELP)
    abort.add_argument("key", metavar="KEY", help="the session: a key, main, or a sessionId")
    abort.add_argument("--clear-queued", action="store_true", help="drop the messages queued behind the turn too")
    abort.add_argument("--json", action="store_true", help="print the outcome as JSON")
    add_session_operations(actions, on_demo)


_AS_HELP = (
    "act as this session: refused where its visibility or sandbox does not reach (default: the operator, "
    "who reaches every session)"
)
_SANDBOXED_HELP = "treat the session acted as (--as, else main) as sandboxed: it reaches only its own tree"

_OPS_EXIT = (
    "\n\nExit status: 0 when done, 1 for a refusal (the key exists, the label is taken, an agent's main "
    "session, a session an OpenClaw owns, one --as may not reach, a backend without session operations), "
    "2 for bad input (a key that names no session, a malformed key or label, an unknown thinking level)."
)


def _operation(actions: Any, name: str, summary: str, text: str, example: str, on_demo: str) -> Any:
    """One operation's sub-command: its text, the face options, KEY and --json."""
    parser = subcommand(actions, name, summary, text + _OPS_EXIT, epilog=f"example: sessions-tui session {example}")
    face_options(parser, doing=f"{name} the session on", demo=on_demo, requester=_AS_HELP, sandboxed=_SANDBOXED_HELP)
    return parser


def add_session_operations(actions: Any, on_demo: str) -> None:
    """`session new|reset|rename|model|archive|unarchive|delete|compact` (commands/session.py runs them)."""
    new = _operation(
        actions,
        "new",
        "create a session: key, agent, label, model, thinking level, a first message",
        "KEY is any key the key model allows (main, group/channel, cron, hook, node); a bare one belongs to "
        "--agent (else agent main). A key that exists, or global/unknown, is refused. With --message the "
        "operator's first message is sent into it (the run goes on; 'sessions-tui watch' follows it).",
        "new agent:main:discord:group:ops --label ops",
        on_demo,
    )
    new.add_argument("key", metavar="KEY", help="the new session's key")
    new.add_argument("--agent", metavar="ID", help="the agent it belongs to (a bare KEY is this agent's)")
    new.add_argument("--label", metavar="TEXT", help="its label (unique among the live sessions)")
    new.add_argument("--model", metavar="M", help="its model (provider/model)")
    new.add_argument("--thinking", metavar="L", help="its thinking level: off, minimal, low, medium, high, xhigh")
    new.add_argument("--message", metavar="TEXT", help="the first message, sent as the operator")
    reset = _operation(
        actions,
        "reset",
        "start the session anew: a new sessionId under the same key (/new, /reset)",
        "The old transcript is kept (under its sessionId, named in the entry's previousSessionId); label, "
        "model and overrides stay.",
        "reset agent:main:discord:group:ops",
        on_demo,
    )
    rename = _operation(
        actions,
        "rename",
        "set the session's label (unique among the live sessions), or clear it with ''",
        "A label as OpenClaw takes it: trimmed, not empty, at most 512 characters; '' clears it.",
        "rename agent:main:discord:group:ops 'ops room'",
        on_demo,
    )
    model = _operation(
        actions,
        "model",
        "set the session's model (default: the agent's) and/or thinking level",
        "MODEL 'default' clears the override; --thinking off clears the thinking level.",
        "model agent:main:discord:group:ops openai/gpt-5 --thinking low",
        on_demo,
    )
    archive = _operation(
        actions,
        "archive",
        "archive the session: out of the default list, its transcript kept",
        "An agent's main session is never archived.",
        "archive agent:main:discord:group:ops",
        on_demo,
    )
    unarchive = _operation(
        actions, "unarchive", "bring an archived session back", "", "unarchive agent:main:discord:group:ops", on_demo
    )
    delete = _operation(
        actions,
        "delete",
        "delete the session: its turn stopped, its entry and lines removed (asks first; --yes does not)",
        "As OpenClaw deletes: an agent's main session is refused; the transcript's mirror file is kept, "
        "renamed <file>.deleted.<timestamp>.",
        "delete agent:main:discord:group:ops --yes",
        on_demo,
    )
    delete.add_argument("--yes", action="store_true", help="do not ask (needed when stdin is not a terminal)")
    compact = _operation(
        actions,
        "compact",
        "compact the session's transcript: a summary in place of its older lines, where the backend can",
        "Only an OpenClaw gateway compacts (its sessions.compact, over its WebSocket); the embedded engine "
        "and a sessions-tui server do not (exit 1). A session too small to compact is said, not refused.",
        "compact agent:main:discord:group:ops --remote ws://127.0.0.1:18789",
        on_demo,
    )
    for parser in (reset, rename, model, archive, unarchive, delete, compact):
        parser.add_argument("key", metavar="KEY", help="the session: a key, main, or a sessionId")
    rename.add_argument("label", metavar="LABEL", help="the new label ('' clears it)")
    model.add_argument("model", metavar="MODEL", nargs="?", help="provider/model, or 'default'")
    model.add_argument("--thinking", metavar="L", help="the thinking level: off, minimal, low, medium, high, xhigh")
    for parser in (new, reset, rename, model, archive, unarchive, delete, compact):
        parser.add_argument("--json", action="store_true", help="print the outcome as JSON")
