"""Which sessions the operator watches: the config's default (`ui.notify.watch`) and the toggles.

`all` watches every session; `sends` those the operator sent to (learnt as the sends are seen); `none`
none. A toggle (`W` in the dashboard) watches or unwatches one session whatever the default says.
A watched session's `done`, `failed`, `stuck` and `looping` notify; a hook, a cron run and a reply to
the operator's send notify unless the default is `none` or the session was unwatched (`happens_to`).
"""

from __future__ import annotations

from sessions_tui.backend.values.vocabulary import NotifyConfig, WatchDefault


class WatchSet:
    """The watched sessions of one face (the dashboard, a `watch --notify`), in memory."""

    def __init__(self, default: WatchDefault = "sends") -> None:
        self.default = default
        self._toggled: dict[str, bool] = {}
        self._sent_to: set[str] = set()

    @classmethod
    def of(cls, config: NotifyConfig) -> WatchSet:
        return cls(config.watch)

    def watched(self, key: str) -> bool:
        """Whether the status notices of `key` are said."""
        toggled = self._toggled.get(key)
        if toggled is not None:
            return toggled
        return self.default == "all" or (self.default == "sends" and key in self._sent_to)

    def happens_to(self, key: str) -> bool:
        """Whether a hook, a cron run or a reply in `key` is said."""
        toggled = self._toggled.get(key)
        return toggled if toggled is not None else self.default != "none"

    def toggle(self, key: str) -> bool:
        """Watch `key` if it is not watched, else stop; returns whether it is watched now."""
        self._toggled[key] = not self.watched(key)
        return self._toggled[key]

    def sent_to(self, key: str) -> None:
        """The operator sent to `key`: watched under the `sends` default."""
        self._sent_to.add(key)

    @property
    def toggled_on(self) -> list[str]:
        """The sessions watched by a toggle, sorted."""
        return sorted(key for key, on in self._toggled.items() if on)
