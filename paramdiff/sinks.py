"""Where generated lines go: a file (atomically), a --check against a file, or stdout.

Generators produce lines; the sink is chosen last, so `derive`, `derive --check`,
`report` and `check` all go through the same bytes.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .files import read_regular, write_atomic

__all__ = ["CheckResult", "check_file", "join_lines", "write_atomic"]


def join_lines(lines: Iterable[str]) -> str:
    return "".join(line + "\n" for line in lines)


@dataclass
class CheckResult:
    path: Path
    up_to_date: bool
    diff: str


def check_file(path: Path, lines: Iterable[str], label: str | None = None) -> CheckResult:
    """Compare what would be written with what is on disk; a unified diff when they differ."""
    expected = join_lines(lines)
    try:  # a FIFO, a device or a huge file is an input error naming it, never read
        actual: str | None = read_regular(path, label=label).decode("utf-8")
    except FileNotFoundError:
        actual = None
    except UnicodeDecodeError:
        actual = ""
    if actual == expected:
        return CheckResult(path, True, "")
    name = label or str(path)
    diff = "".join(
        difflib.unified_diff(
            (actual or "").splitlines(keepends=True),
            expected.splitlines(keepends=True),
            fromfile=f"{name} (committed)" if actual is not None else f"{name} (missing)",
            tofile=f"{name} (generated)",
        )
    )
    return CheckResult(path, False, diff)
