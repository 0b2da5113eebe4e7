"""A notice on the desktop: which channel (`ui.notify.desktop`), the OSC 9 / OSC 777 sequence for
the terminal, or `notify-send` run.

`auto` takes the terminal's own notifications where TERM_PROGRAM or TERM names a terminal that shows
them (iTerm2, WezTerm, kitty, ghostty: OSC 9; foot: OSC 777), else `notify-send` when it is on PATH,
else none. Inside tmux or screen an OSC sequence does not reach the terminal: `auto` takes
`notify-send` there. Whatever goes into a sequence has its control characters taken out (agent text
is data: an ESC or BEL in it would end the sequence and start another); `notify-send` gets the texts
as arguments, never through a shell, and runs without blocking the loop.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
from collections.abc import Callable, Mapping
from typing import Literal

from sessions_tui.backend.toolkit.notices.notice import Notice, clean_line
from sessions_tui.backend.values.vocabulary import DesktopChannel

log = logging.getLogger(__name__)

Desktop = Literal["osc9", "osc777", "notify-send"]
"""A desktop channel decided: an OSC sequence to write, or the command to run."""

OSC9_PROGRAMS = frozenset({"iterm.app", "wezterm", "ghostty", "kitty"})
"""TERM_PROGRAM values (lower case) of terminals that show OSC 9."""
OSC9_TERMS = ("xterm-kitty", "xterm-ghostty", "wezterm")
OSC777_TERMS = ("foot",)
"""TERM prefixes of terminals that show OSC 9, and OSC 777."""
MULTIPLEXERS = ("tmux", "screen")


def terminal_channel(environ: Mapping[str, str]) -> Desktop | None:
    """The OSC channel the terminal shows, from TERM_PROGRAM and TERM; None: none known (or a
    multiplexer between)."""
    program = environ.get("TERM_PROGRAM", "").lower()
    term = environ.get("TERM", "").lower()
    if program in MULTIPLEXERS or term.startswith(MULTIPLEXERS) or environ.get("TMUX"):
        return None
    if program in OSC9_PROGRAMS or term.startswith(OSC9_TERMS):
        return "osc9"
    if term.startswith(OSC777_TERMS):
        return "osc777"
    return None


def desktop_channel(
    setting: DesktopChannel | Literal[False],
    environ: Mapping[str, str],
    which: Callable[[str], str | None] = shutil.which,
) -> Desktop | None:
    """The channel a desktop notice takes: the setting's, or for `auto` the terminal's, else
    `notify-send` when on PATH; None: no desktop notice (false, or nothing found)."""
    if setting is False:
        return None
    if setting != "auto":
        return setting
    found = terminal_channel(environ)
    if found is not None:
        return found
    return "notify-send" if which("notify-send") else None


def _osc_text(text: str) -> str:
    return clean_line(text, 240)


def osc_sequence(channel: Literal["osc9", "osc777"], item: Notice) -> str:
    """The sequence that shows `item` on the desktop: `ESC ] 9 ; text BEL` or
    `ESC ] 777 ; notify ; title ; body BEL` (a `;` in the title would start the body: made `,`)."""
    title, body = _osc_text(item.title), _osc_text(item.body)
    if channel == "osc9":
        return f"\x1b]9;{_osc_text(item.line())}\x07"
    return f"\x1b]777;notify;{title.replace(';', ',')};{body}\x07"


def notify_send_argv(item: Notice, program: str = "notify-send") -> list[str]:
    """`notify-send`'s arguments for `item` (the texts after `--`: never read as options)."""
    return [program, "--app-name=sessions-tui", "--", clean_line(item.title, 240), clean_line(item.body, 240)]


async def run_notify_send(item: Notice) -> None:
    """Run `notify-send` for `item` and wait for it off the loop (a failure is logged, not raised)."""
    program = shutil.which("notify-send")
    if program is None:
        return
    try:
        process = await asyncio.create_subprocess_exec(
            *notify_send_argv(item, program),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        await process.wait()
    except OSError:
        log.warning("notify-send failed", exc_info=True)


class DesktopNotices:
    """One face's desktop channel, decided once: `write` takes an OSC sequence (the terminal's), a
    `notify-send` runs as a task of the running loop (kept until it ends)."""

    def __init__(self, channel: Desktop | None, write: Callable[[str], None]) -> None:
        self.channel = channel
        self.write = write
        self._tasks: set[asyncio.Task[None]] = set()

    def show(self, item: Notice) -> None:
        if self.channel is None:
            return
        if self.channel == "notify-send":
            task = asyncio.get_running_loop().create_task(run_notify_send(item))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        self.write(osc_sequence(self.channel, item))

    async def wait(self) -> None:
        """The `notify-send`s still running, ended (a command's close)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
