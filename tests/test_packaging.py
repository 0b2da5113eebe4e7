"""Packaging metadata: the license is declared the way current setuptools wants (no deprecation
warning on install) and its text ships."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_license_is_an_spdx_expression_with_its_file():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = data["project"]
    assert project["license"] == "MIT"  # a string, not the deprecated {text = …} table
    assert all((ROOT / name).is_file() for name in project["license-files"])
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    setuptools = next(r for r in data["build-system"]["requires"] if r.startswith("setuptools"))
    assert int(re.search(r">=(\d+)", setuptools).group(1)) >= 77  # PEP 639 license fields
