"""What `check` found for one pin: failures with the file and line to fix, what passed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple


class Located(NamedTuple):
    """A finding with the file and line to fix (for CI annotations); file relative to the
    project root, line None when the whole file is meant."""

    finding: str
    fix: str
    file: str | None
    line: int | None


@dataclass(slots=True)
class CheckOutcome:
    """What `check` found for one profile: failures with their fixes, what passed, diffs,
    warnings."""

    findings: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    passed: list[str] = field(default_factory=list)
    diffs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    located: list[Located] = field(default_factory=list)

    def fail(
        self, finding: str, fix: str, file: str | None = None, line: int | None = None
    ) -> None:
        self.findings.append(finding)
        self.located.append(Located(finding, fix, file, line))
        if fix not in self.fixes:
            self.fixes.append(fix)

    def extend(self, other: CheckOutcome) -> None:
        """``other``'s findings, lines and diffs after this one's (each fix once)."""
        self.findings += other.findings
        self.passed += other.passed
        self.diffs += other.diffs
        self.warnings += other.warnings
        self.located += other.located
        self.fixes += [f for f in other.fixes if f not in self.fixes]
