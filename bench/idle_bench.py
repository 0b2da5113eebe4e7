"""What the dashboard costs when nothing happens: its CPU, idle, as a share of one core.

The real dashboard (`python -m sessions_tui --demo --state <tmp> --config <tmp>/config.json5`, the
demo's sessions written first by `sessions-tui demo`) runs in a pseudo-terminal (TERM
xterm-256color, 120x40) as a person starts it; nobody types and no other process writes the state
directory. Once it has painted and settled (5 s), its CPU time (utime + stime of all its threads,
`/proc/<pid>/stat`) is read at the start and the end of a 20 s sample; the share of a core is their
difference over the wall time between the reads. What it spends then is its own idling: the store
poll, timers, clock ticks, the garbage collector's quiet-moment checks.

Requirement: under **1 %** of a core.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT, in_temp_dir, verdict

LIMIT_PERCENT = 1.0
SETTLE_S = 5.0
SAMPLE_S = 20.0
COLUMNS, ROWS = 120, 40


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SESSIONS_TUI_")}
    env.update(PYTHONPATH=str(ROOT / "src"), TERM="xterm-256color", COLUMNS=str(COLUMNS), LINES=str(ROWS))
    return env


def cpu_seconds(pid: int) -> float:
    """utime + stime of the process, all its threads (fields 14 and 15 of /proc/<pid>/stat)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def drain(fd: int, seconds: float) -> None:
    """Read (and drop) what the dashboard paints for `seconds`: a terminal that is never read blocks its writer."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:
                return


def bench(tmp: Path) -> int:
    state, config = tmp / "state", tmp / "config.json5"
    demo = [sys.executable, "-m", "sessions_tui", "--state", str(state), "--config", str(config)]
    subprocess.run([*demo, "demo"], env=environment(), check=True, stdout=subprocess.DEVNULL)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the dashboard on the pseudo-terminal
        os.execvpe(sys.executable, [*demo, "--demo"], environment())
    try:
        import fcntl
        import termios

        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        drain(fd, SETTLE_S)
        began, cpu_began = time.monotonic(), cpu_seconds(pid)
        drain(fd, SAMPLE_S)
        wall, cpu = time.monotonic() - began, cpu_seconds(pid) - cpu_began
    finally:
        os.kill(pid, signal.SIGTERM)
        drain(fd, 1.0)
        os.waitpid(pid, 0)
        os.close(fd)
    percent = 100 * cpu / wall
    print(f"idle dashboard: {cpu:.3f} s of CPU in {wall:.1f} s = {percent:.2f} % of a core")
    return verdict(percent < LIMIT_PERCENT, f"idle CPU {percent:.2f} % < {LIMIT_PERCENT:g} % of a core")


if __name__ == "__main__":
    raise SystemExit(in_temp_dir("sessions-tui-idle-", bench))
