"""Check a parameter set against the firmware's metadata: what ArduPilot would ignore or refuse."""

from __future__ import annotations

from typing import NamedTuple

from paramdiff.comparison.classify import Classifier
from paramdiff.model.metadata import Metadata
from paramdiff.model.params import Param, ParamFile

ERROR = "error"  # ArduPilot ignores or refuses the value
WARNING = "warning"  # the metadata's range/enum/bits are advisory; ArduPilot stores the value
READ_ONLY = "is read-only: the firmware will not take this value"


class Problem(NamedTuple):
    """A value the metadata does not allow, and how bad it is."""

    param: Param
    what: str
    severity: str = WARNING

    def __str__(self) -> str:
        return f"{self.param.file}:{self.param.line}: {self.param.name} {self.what}"

    @property
    def read_only(self) -> bool:
        return self.what == READ_ONLY

    def fix_in(self, overlay: str) -> str:
        """What fixes it in the overlay: a read-only parameter (a field dump's STAT_*
        counters) cannot be set, so no delta does; any other bad value a delta changes."""
        if self.read_only:
            return (
                f"leave {self.param.name} out: add it to select.exclude in {overlay} (the "
                "firmware sets it itself)"
            )
        return f"fix the value with a delta in {overlay}"


def validate(
    params: ParamFile, metadata: Metadata, classifier: Classifier | None = None
) -> list[Problem]:
    out = []
    for p in params.params.values():
        problems = metadata.problems(p.name, p.value)
        if problems is None:
            reason = classifier.script_reason(p.name) if classifier else None
            if reason:
                continue  # script-defined: exists only when the script runs; reported elsewhere
            out.append(
                Problem(
                    p,
                    f"is not a {metadata.firmware} parameter: ArduPilot would silently ignore it",
                    ERROR,
                )
            )
            continue
        if metadata.read_only(p.name):
            out.append(Problem(p, READ_ONLY, ERROR))
        for problem in problems:
            out.append(Problem(p, problem))
    return out
