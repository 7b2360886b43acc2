"""setup.py is a shim for colcon (a ROS 2 workspace finds Python packages by their setup.py):
it must describe nothing itself, so setup.cfg and pyproject.toml stay the one truth."""

from __future__ import annotations

import configparser
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_setup_py_only_hands_over_to_setup_cfg() -> None:
    code = [
        line
        for line in (ROOT / "setup.py").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert code == ["from setuptools import setup", "setup()"]
    done = subprocess.run(
        [sys.executable, "setup.py", "--name", "--version"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    assert done.stdout.split() == [cfg["metadata"]["name"], cfg["metadata"]["version"]]
