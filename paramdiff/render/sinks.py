"""Where generated lines go: a file (atomically), a --check against a file, or stdout.

Generators produce lines; the sink is chosen last, so `derive`, `derive --check`,
`report` and `check` all go through the same bytes.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from paramdiff.errors import DriftError, InputError, ParamdiffError, UsageError
from paramdiff.files import TEXT_LIMIT, project_path, read_regular, write_atomic
from paramdiff.outputs import ProjectFiles, checked_output
from paramdiff.render.safe_text import visible


def join_lines(lines: Iterable[str]) -> str:
    """Each line and a newline (one join in C: a report's ~1,900 lines were a generator's),
    control characters made visible (safe_text: no ESC or bidi override reaches a file)."""
    lines = lines if isinstance(lines, list) else list(lines)
    return visible("\n".join(lines) + "\n") if lines else ""


class CheckResult(NamedTuple):
    """Whether a file on disk is what would be written, and the diff when not."""

    path: Path
    up_to_date: bool
    diff: str


def check_file(path: Path, lines: Iterable[str], label: str | None = None) -> CheckResult:
    """Compare what would be written with what is on disk; a unified diff when they differ."""
    expected = join_lines(lines)
    try:  # a FIFO, a device or a huge file is an input error naming it, never read
        actual: str | None = read_regular(path, limit=TEXT_LIMIT, label=label).decode("utf-8")
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


class Output(NamedTuple):
    """Where a generated file goes: a path (None: stdout), its label, and the command that
    regenerates it (named when --check finds it stale)."""

    path: Path | None
    label: str
    fix: str
    root: Path | None = None  # the project, when the path is one of its files (not -o)
    guard: ProjectFiles | None = None  # for -o: what it may not overwrite (outputs.py)


@dataclass(frozen=True)
class Outputs:
    """What a command writes, for its sink, in this order: the warnings (stderr), each
    file's lines to its Output (None: stdout, printed as they come), then ``failure``, the
    error the command exits with after writing (``review``'s needing attention)."""

    files: list[tuple[Iterable[str], Output | None]]
    warnings: list[str] = field(default_factory=list)
    failure: ParamdiffError | None = None


def output_for(
    root: Path,
    output: Path | None,
    default: str | None,
    fix: str,
    guard: ProjectFiles | None = None,
) -> Output:
    """``-o PATH`` (``-`` for stdout) if given, else the profile's default path. A path the
    user named passes ``checked_output`` against ``guard`` (the project's files but this
    command's own), never over an input or another output, never through a link out."""
    if output is not None and str(output) == "-":
        return Output(None, "-", fix)
    if output is not None:
        if guard is not None:
            checked_output(output, guard)
        return Output(output, str(output), fix, guard=guard)
    if default is None:
        raise UsageError("give -o PATH (or -o - for stdout) for this format")
    return Output(project_path(root, default, generated=True), default, fix, root)


def emit(lines: Iterable[str], output: Output, check: bool) -> Iterator[tuple[str, bool]]:
    """The one sink switch: stdout, --check against the file, or an atomic write.

    Yields (text, is_status); a stale file under --check raises DriftError after its diff.
    Status lines ("… written") go to stderr, so `-o /dev/stdout > f` leaves f the file's bytes.
    """
    if output.path is None:
        for line in lines:
            yield visible(line) + "\n", False
        return
    if check:
        result = check_file(output.path, lines, output.label)
        if not result.up_to_date:
            yield result.diff, False
            raise DriftError([f"{output.label} is out of date"], f"run: {output.fix}")
        yield f"{output.label} is up to date\n", True
        return
    data = join_lines(lines).encode()
    if len(data) > TEXT_LIMIT:
        # `check` reads a committed derived file or report back under TEXT_LIMIT: never write
        # what it would then refuse.
        raise InputError(
            f"would be {len(data)} bytes, over the {TEXT_LIMIT}-byte limit paramdiff reads back",
            "shorten what makes it long (the overlay's reasons, the parameters it carries)",
            file=output.label,
        )
    written = write_atomic(output.path, data)
    yield f"{output.label} {'written' if written else 'unchanged'}\n", True
