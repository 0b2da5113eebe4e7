"""`sessions-tui store copy`: a store moved between a state directory and PostgreSQL, each table's rows counted.

Prints one line per table (its rows in the source and the target), then the total; `--json` prints
`{tables: [{table, source, target}], equal}`. A count that differs: exit 1, naming the table.
"""

from __future__ import annotations

import argparse
import json
import sys

from sessions_tui.backend.toolkit.store_copy import CopyReport, StoreCopyError, copy_between
from sessions_tui.cli.errors import EXIT_OK, EXIT_REFUSED, UsageError
from sessions_tui.counting import plural


def run(opts: argparse.Namespace) -> int:
    try:
        report = copy_between(opts.source, opts.target)
    except StoreCopyError as exc:
        raise UsageError(str(exc)) from None
    _print(report, as_json=opts.json)
    mismatched = report.mismatched
    if mismatched:
        print(f"sessions-tui: store copy: the counts differ in {', '.join(mismatched)}", file=sys.stderr)
        return EXIT_REFUSED
    return EXIT_OK


def _print(report: CopyReport, *, as_json: bool) -> None:
    if as_json:
        tables = [{"table": c.table, "source": c.source, "target": c.target} for c in report.counts]
        print(json.dumps({"tables": tables, "equal": not report.mismatched}, indent=2))
        return
    width = max(len(c.table) for c in report.counts)
    for c in report.counts:
        mark = "" if c.source == c.target else "  DIFFERS"
        print(f"{c.table:<{width}}  {c.source:>9}  {c.target:>9}{mark}")
    rows = sum(c.target for c in report.counts)
    print(f"copied {plural(rows, 'row')} in {plural(len(report.counts), 'table')}", end="")
    print(": every count equal" if not report.mismatched else "")
