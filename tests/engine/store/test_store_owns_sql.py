"""Every piece of SQL on the state directory's tables lives in the store package (engine/store/)."""

from __future__ import annotations

import re
from pathlib import Path

import sessions_tui

# OpenClaw's own SQLite (read-only, its schema): not our store.
NOT_OUR_DATABASE = {"engine/openclaw/agent_db.py"}
SQL_CALL = re.compile(r"\.(execute|executemany|executescript)\(\s*[f]?[\"']")


def test_no_module_outside_the_store_runs_sql():
    root = Path(sessions_tui.__file__).parent
    offenders = [
        str(path.relative_to(root))
        for path in root.rglob("*.py")
        if not path.relative_to(root).as_posix().startswith("engine/store/")
        and path.relative_to(root).as_posix() not in NOT_OUR_DATABASE
        and SQL_CALL.search(path.read_text())
    ]
    assert offenders == []
