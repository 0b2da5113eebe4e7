"""Regenerate screenshots/*.svg from the demo: `.venv/bin/python scripts/screenshots.py`.

Every scene at the README's size, and the main screen of a small terminal (`main-80x24.svg`).
The scenes are the snapshot tests' (tests/scenes.py); each runs under a temporary home directory
of this run's own, which the screen shows as `~`.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # scripts may use the tests' helpers

from textual._doc import take_svg_screenshot  # noqa: E402 - the same renderer snap_compare uses

from scenes import SCENES, SIZE, scene_app  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "screenshots"
SMALL = [("main", (80, 24))]  # (scene, size): also shown at a small terminal's size


def main() -> int:
    OUT.mkdir(exist_ok=True)
    shots = [(name, SIZE, f"{name}.svg") for name in SCENES]
    shots += [(name, size, f"{name}-{size[0]}x{size[1]}.svg") for name, size in SMALL]
    with tempfile.TemporaryDirectory(prefix="sessions-tui-screenshots-") as temp:
        for name, size, file_name in shots:
            home = Path(temp) / file_name.removesuffix(".svg") / "home"
            os.environ["HOME"] = str(home)  # this process only: the scene's paths show as ~/…
            app, scene = scene_app(name, home)
            svg = take_svg_screenshot(app=app, terminal_size=size, run_before=scene)
            (OUT / file_name).write_text(svg, encoding="utf-8")
            print(f"screenshots/{file_name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
