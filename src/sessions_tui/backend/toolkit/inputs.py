"""Input a face takes in for a tool: JSON text read as the engine reads it, and what a file holds.

JSON bodies and arguments with the engine's number rules (`NotJsonNumber`), the one-line problem
of a body that is not JSON, and a file's kind for `send --file`.
"""

from __future__ import annotations

from sessions_tui.engine.inputs.files import kind_of
from sessions_tui.engine.inputs.json_text import NotJsonNumber, json_problem, loads_body, loads_json

__all__ = ["NotJsonNumber", "json_problem", "kind_of", "loads_body", "loads_json"]
