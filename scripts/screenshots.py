"""Regenerate screenshots/*.svg from the demo: `.venv/bin/python scripts/screenshots.py`."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from textual._doc import take_svg_screenshot  # noqa: E402 - the same renderer snap_compare uses

from scenes import SCENES, SIZE, scene_app  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "screenshots"


def main() -> int:
    OUT.mkdir(exist_ok=True)
    for name in SCENES:
        app, scene = scene_app(name)
        svg = take_svg_screenshot(app=app, terminal_size=SIZE, run_before=scene)
        (OUT / f"{name}.svg").write_text(svg, encoding="utf-8")
        print(f"screenshots/{name}.svg")
    return 0


if __name__ == "__main__":
    sys.exit(main())
