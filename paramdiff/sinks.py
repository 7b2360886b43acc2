"""Where generated lines go: a file (atomically), a --check against a file, or stdout.

Generators produce lines; the sink is chosen last, so `derive`, `derive --check`,
`report` and `check` all go through the same bytes.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .errors import ParamdiffError


def write_atomic(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` via a temp file and rename; never leave half a file.

    Returns False (and touches nothing) when the file already holds exactly these bytes.
    """
    try:
        if path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise ParamdiffError(f"cannot read {path}: {exc.strerror}", "check permissions") from None
    tmp_name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp_name, path)
        tmp_name = None
    except OSError as exc:
        raise ParamdiffError(
            f"cannot write {path}: {exc.strerror or exc}",
            "make the directory writable or choose another output path",
        ) from None
    finally:
        if tmp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
    return True


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
    try:
        actual = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        actual = None
    except (OSError, UnicodeDecodeError):
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
