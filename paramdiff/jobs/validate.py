"""`paramdiff validate`: a local file against the pin's metadata."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from paramdiff.errors import DriftError, UsageError
from paramdiff.jobs.param_validation import ERROR, validate
from paramdiff.parse.named_files import local_source
from paramdiff.pin import Pin


def validate_file(pin: Pin, file: Path, lenient: bool, strict: bool) -> Iterator[str]:
    """Lines for `paramdiff validate`; raises DriftError for problems that fail it."""
    meta = pin.metadata()
    if meta is None:
        raise UsageError("the pin declares no metadata (format: pdef) role")

    src = local_source(file, lenient=lenient)
    problems = validate(src.file, meta, pin.classifier())
    for w in src.file.warnings:
        yield f"warning: {w}"
    fails = [strict or p.severity == ERROR for p in problems]
    failing = [p for p, fail in zip(problems, fails, strict=True) if fail]
    for p, fail in zip(problems, fails, strict=True):
        if not fail:  # (a list membership test here was quadratic in the problems)
            yield f"warning: {p}"
    if failing:
        fix = f"correct these values in {file}"
        if any(p.read_only for p in failing):
            fix += " (a read-only one cannot be set: leave it out of the file)"
        raise DriftError([str(p) for p in failing], fix)
    yield validate_summary(
        str(file), len(src.file.params), meta.file, len(src.file.warnings) + len(problems)
    )


def validate_summary(file: str, checked: int, metadata: str, warnings: int) -> str:
    """validate's last line: "valid" only when nothing was warned about above it."""
    if not warnings:
        return f"{file}: {checked} parameters valid for {metadata}"
    return f"{file}: {checked} parameters checked against {metadata}: {warnings} warning(s) above"
