"""What `diff` and `show` print, and how they read files named on the command line."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple


class Shown(NamedTuple):
    """What a command prints: its warnings (stderr) first, then its lines; ``differs``:
    exit 1 (a row shown differs)."""

    lines: Iterable[str]
    warnings: tuple[str, ...] = ()
    differs: bool = False


class Reading(NamedTuple):
    """How local files are read (``--format``, ``--lenient``, ``--include-root``) and
    whether the project in the current folder gives them metadata (``--project-metadata``)."""

    input_format: str = "auto"
    lenient: bool = False
    include_root: Path | None = None
    project_metadata: bool = False


FILES_AS_THEY_ARE = Reading()
