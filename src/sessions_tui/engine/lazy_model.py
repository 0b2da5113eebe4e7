"""The base of the project's pydantic models: a model's validator is built when it is first used.

Building a model's schema is the costliest part of defining it (tens of milliseconds for the
config's sections), and most commands use few of the models they import: `sessions-tui tool`
must start fast. `defer_build` moves that work from import to a model's first validation.

What is left of defining a model is reading its fields. A module of many models that a `tool` call
loads (the config's sections, the engine's events, the seam's types) does without
`from __future__ import annotations`: with it, pydantic compiles every field's annotation back from
its text, a fifth of defining each model.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["LazyModel"]


class LazyModel(BaseModel):
    """A pydantic model whose schema is built on first use instead of at import."""

    model_config = ConfigDict(defer_build=True)
