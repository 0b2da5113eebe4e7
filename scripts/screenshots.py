"""Regenerate screenshots/*.svg from the demo: `.venv/bin/python scripts/screenshots.py`.

Every scene at the README's size, and the main screen of a small terminal (`main-80x24.svg`).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from scenes import SCENES, SIZE, scene_app, scene_lock  # noqa: E402
from textual._doc import take_svg_screenshot  # noqa: E402 - the same renderer snap_compare uses

OUT = Path(__file__).resolve().parent.parent / "screenshots"
SMALL = [("main", (80, 24))]  # (scene, size): also shown at a small terminal's size


def main() -> int:
    OUT.mkdir(exist_ok=True)
    shots = [(name, SIZE, f"{name}.svg") for name in SCENES]
    shots += [(name, size, f"{name}-{size[0]}x{size[1]}.svg") for name, size in SMALL]
    for name, size, file_name in shots:
        with scene_lock(name):
            app, scene = scene_app(name)
            svg = take_svg_screenshot(app=app, terminal_size=size, run_before=scene)
        (OUT / file_name).write_text(svg, encoding="utf-8")
        print(f"screenshots/{file_name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
