"""A session exported to a file: its formats, the file's default name, rendering and writing.

What a backend's `export_session` answers (`SessionExport`) and what a face does with it; loaded
only by the faces that export (the rendering side is not small).
"""

from __future__ import annotations

from sessions_tui.engine.export import (
    FORMATS,
    ExportFormat,
    LayoutError,
    SessionExport,
    default_file_name,
    is_layout_target,
    render_export,
    write_export,
)

__all__ = [
    "FORMATS",
    "ExportFormat",
    "LayoutError",
    "SessionExport",
    "default_file_name",
    "is_layout_target",
    "render_export",
    "write_export",
]
