"""`sessions-tui cron ACTION …`: its actions and their options (commands/cron.py `ACTIONS` runs them).

Apart from parser.py, which declares every other command, so that neither grows past what one module
holds; `build_parser` calls `add_cron_command` as it calls `add_session_command`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sessions_tui.cli.options import CommandParser, face_options, subcommand

_EXIT = (
    "\n\nExit status: 0 when done, 1 for a refusal (a job the config file declares edited or removed, an id "
    "taken, a run of the job under way, a run that ended in error, a backend without cron jobs), 2 for bad "
    "input (a schedule, zone, duration or option that does not parse, an id of no job)."
)


def _action(actions: Any, name: str, summary: str, text: str, example: str, on_demo: str) -> Any:
    parser = subcommand(actions, name, summary, text + _EXIT, epilog=f"example: sessions-tui cron {example}")
    face_options(parser, doing=f"{name} cron jobs on", demo=on_demo)
    parser.add_argument("--json", action="store_true", help="print the answer as JSON (OpenClaw's job shape)")
    return parser


def _job_options(parser: Any, *, editing: bool) -> None:
    """A job's options: its schedule, message, session, agent, overrides and delivery."""
    when = parser.add_mutually_exclusive_group(required=not editing)
    when.add_argument("--cron", metavar="EXPR", help='a five-field cron expression, e.g. "0 7 * * *"')
    when.add_argument("--every", metavar="DURATION", help="an interval: 30s, 10m, 1h, 1d")
    when.add_argument("--at", metavar="WHEN", help="once: an ISO time (UTC without an offset) or a duration from now")
    parser.add_argument(
        "--tz", metavar="ZONE", help="the IANA zone of --cron or of an offset-less --at (default: here)"
    )
    stagger = parser.add_mutually_exclusive_group()
    stagger.add_argument("--exact", action="store_true", help="no stagger of a top-of-hour --cron (default: up to 5m)")
    stagger.add_argument("--stagger", metavar="DURATION", help="the stagger window of a --cron")
    parser.add_argument("--name", metavar="NAME", required=not editing, help="the job's name")
    parser.add_argument("--description", metavar="TEXT", help="what the job is for")
    parser.add_argument("--message", metavar="TEXT", required=not editing, help="what each run sends the agent")
    parser.add_argument("--agent", metavar="ID", help="the agent that runs it (default: main)")
    parser.add_argument(
        "--session",
        metavar="TARGET",
        help="isolated (its own cron:<jobId> session, the default), main (the agent's), or a session KEY",
    )
    parser.add_argument("--model", metavar="M", help="the model of its runs (provider/model)")
    parser.add_argument("--thinking", metavar="L", help="the thinking level of its runs")
    parser.add_argument("--timeout-seconds", type=int, metavar="N", help="each run's time limit (0: none)")
    deliver = parser.add_mutually_exclusive_group()
    deliver.add_argument(
        "--announce", action="store_true", help="announce the reply (--channel, --to; else the session's route)"
    )
    deliver.add_argument("--webhook", metavar="URL", help="POST each finished run to this http(s) URL")
    deliver.add_argument("--no-deliver", action="store_true", help="deliver nothing (the default)")
    parser.add_argument("--channel", metavar="NAME", help="the channel to announce to")
    parser.add_argument("--to", metavar="TARGET", help="the recipient on the channel")
    parser.add_argument("--keep-after-run", action="store_true", help="keep a one-shot after it ran ok")
    if editing:
        parser.add_argument("--clear-model", action="store_true", help="runs use the agent's model again")
        parser.add_argument("--clear-thinking", action="store_true", help="runs use the default thinking level")
    else:
        parser.add_argument("--id", metavar="ID", help="the job's id (default: made up)")
        parser.add_argument("--disabled", action="store_true", help="add it paused (cron enable starts it)")


def add_cron_command(sub: Any, on_demo: str, wanted: Callable[[str], bool] = lambda command: True) -> None:
    """Declare `cron` and its actions on `sub`, with their options when `wanted` says `cron` may be given."""
    cron = subcommand(
        sub,
        "cron",
        "scheduled jobs: add, list, edit, remove, enable, disable, run one now, its runs",
        "Jobs run an agent turn on a schedule (OpenClaw's cron jobs): in their own cron:<jobId> session, "
        "the agent's main one, or a named one. 'sessions-tui serve' and the dashboard run them when due; "
        "jobs may also be declared in the config file (cron.jobs). ACTION is one of the actions below; "
        "'sessions-tui cron ACTION --help' for its options.",
        epilog='example: sessions-tui cron add --name brief --cron "0 7 * * *" --message "Summarize"',
    )
    if not wanted("cron"):
        return
    actions = cron.add_subparsers(dest="cron_command", metavar="ACTION", parser_class=CommandParser)
    actions.required = True
    add = _action(
        actions,
        "add",
        "add a job: its schedule, message, session, agent, overrides and delivery",
        "One of --cron (with --tz), --every or --at, and --name and --message, are needed. Prints the job "
        "and its next run.",
        'add --name brief --cron "0 7 * * *" --tz Europe/Vienna --message "Summarize overnight updates"',
        on_demo,
    )
    _job_options(add, editing=False)
    listing = _action(
        actions,
        "list",
        "list the jobs: schedule, next run, last outcome",
        "Disabled jobs too with --all.",
        "list --all",
        on_demo,
    )
    listing.add_argument("--all", action="store_true", help="the disabled jobs too")
    edit = _action(
        actions,
        "edit",
        "change a job (the options given, the others kept)",
        "A changed schedule is a new scheduling decision: its next run from now. A job the config file "
        "declares is changed there.",
        "edit brief --message 'Summarize, shorter'",
        on_demo,
    )
    edit.add_argument("job", metavar="JOB", help="the job's id")
    _job_options(edit, editing=True)
    for name, summary, text in (
        ("rm", "remove a job (its run history stays)", "A job the config file declares is removed there."),
        ("enable", "enable a job: its next run from now", ""),
        ("disable", "disable a job: it runs no more until enabled", ""),
        ("run", "run a job now, whatever its schedule, and wait for the run's end", "Its schedule is kept."),
    ):
        parser = _action(actions, name, summary, text, f"{name} brief", on_demo)
        parser.add_argument("job", metavar="JOB", help="the job's id")
    runs = _action(
        actions,
        "runs",
        "a job's run history: when, how long, outcome, tokens",
        "Newest first: when it started, how long it took, its outcome, the tokens it used, why it ran "
        "(due, catch-up, manual) and its session.",
        "runs brief --limit 20",
        on_demo,
    )
    runs.add_argument("job", metavar="JOB", help="the job's id")
    runs.add_argument("--limit", type=int, default=20, metavar="N", help="how many runs, newest first (default 20)")
