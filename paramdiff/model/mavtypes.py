"""Each parameter's MAVLink type (MAV_PARAM_TYPE) as the firmware declares it.

A QGroundControl parameter file carries a type column. QGC loads a parameter the vehicle has
with the vehicle's own type (ParameterEditorController::buildDiffFromFile; the loader that
refused a mismatch was removed in qgroundcontrol PR#14451), so the declared type matters for
a parameter the vehicle does not have yet, which QGC sends as new. apm.pdef.json has no
types, and a value says nothing about its declaration (SERVO1_TRIM 1500 is an AP_Int16,
CRUISE_SPEED 1 an AP_Float), so the types come from a table read off ArduPilot's
declarations, shipped as package data (``paramdiff/data/param_types.tsv``, every row
citing the file and commit it was read at). A name the table does not know is reported,
never guessed in silence.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources

from paramdiff.errors import InputError
from paramdiff.model.params import Param

TYPES_FILE = "param_types.tsv"
WARN_NAMES = 10  # names a warning lists before "+N more" (it stays one readable line)
# The AP_Param class of a member -> the MAV_PARAM_TYPE ArduPilot sends for it: INT8/INT16/INT32
# for AP_PARAM_INT8/16/32, REAL32 for the rest (GCS_MAVLINK::mav_param_type, GCS_Common.cpp).
DECLARED_MAV_TYPE = {
    "AP_Int8": 2,
    "AP_Enum": 2,
    "AP_Int16": 4,
    "AP_Enum16": 4,
    "AP_Int32": 6,
    "AP_Float": 9,
}
_RANGE = re.compile(r"\{(\d+)\.\.(\d+)\}")
_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_SOURCE = re.compile(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}:\S+")


@dataclass(frozen=True)
class DeclaredType:
    """One parameter's type, and where the declaration was read."""

    name: str
    mav_type: int
    declared: str  # AP_Int8, AP_Float, ...
    source: str  # owner/repo@commit:path
    line: int  # line of the table that says so


class TypeTable:
    """Parameter name -> its declared type."""

    def __init__(self, rows: Iterable[DeclaredType], file: str) -> None:
        self.file = file
        self._rows = {row.name: row for row in rows}

    def __len__(self) -> int:
        return len(self._rows)

    def lookup(self, name: str) -> DeclaredType | None:
        return self._rows.get(name)


def expand(pattern: str) -> list[str]:
    """``SERVO{1..3}_MIN`` -> SERVO1_MIN, SERVO2_MIN, SERVO3_MIN (one range per pattern)."""
    m = _RANGE.search(pattern)
    if m is None:
        return [pattern]
    low, high = int(m.group(1)), int(m.group(2))
    return [f"{pattern[: m.start()]}{i}{pattern[m.end() :]}" for i in range(low, high + 1)]


def _row(fields: list[str], file: str, line: int) -> Iterator[DeclaredType]:
    def bad(what: str, fix: str) -> InputError:
        return InputError(what, fix, file=file, line=line)

    if len(fields) != 4:
        raise bad(
            f"{len(fields)} tab-separated columns, expected 4 (name, mav_type, declared, source)",
            "fix the row's columns",
        )
    pattern, mav_text, declared, source = fields
    if declared not in DECLARED_MAV_TYPE:
        raise bad(
            f"unknown declared type '{declared}'", f"use one of {', '.join(DECLARED_MAV_TYPE)}"
        )
    if mav_text != str(DECLARED_MAV_TYPE[declared]):
        raise bad(
            f"{declared} is sent as MAV_PARAM_TYPE {DECLARED_MAV_TYPE[declared]}, not '{mav_text}'",
            "correct the mav_type column",
        )
    if not _SOURCE.fullmatch(source):
        raise bad(
            f"source '{source}' is not owner/repo@COMMIT:PATH", "cite the file and commit read"
        )
    names = expand(pattern)
    if not all(_NAME.fullmatch(n) and len(n) <= 16 for n in names):
        raise bad(f"'{pattern}' is not a parameter name or NAME{{A..B}} pattern", "fix the name")
    for name in names:
        yield DeclaredType(name, int(mav_text), declared, source, line)


def parse_type_table(text: str, file: str) -> TypeTable:
    """The table's rows; a malformed or repeated row is an InputError naming its line."""
    rows: dict[str, DeclaredType] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        for row in _row(raw.split("\t"), file, n):
            if row.name in rows:
                raise InputError(
                    f"{row.name} is already typed at line {rows[row.name].line}",
                    "keep one row per parameter",
                    file=file,
                    line=n,
                )
            rows[row.name] = row
    return TypeTable(rows.values(), file)


@functools.cache
def packaged_types() -> TypeTable:
    """The table shipped with paramdiff."""

    text = resources.files("paramdiff.data").joinpath(TYPES_FILE).read_text("utf-8")
    return parse_type_table(text, f"paramdiff/data/{TYPES_FILE}")


@dataclass(frozen=True)
class QgcTypes:
    """The type column for a set of rows, and the names nothing pinned could type."""

    types: dict[str, int]
    unknown: tuple[str, ...]

    def warning(self) -> str | None:
        """One line for the person loading the file: what a guessed type means for them (a
        parameter not on the vehicle yet would be sent with that type) and what they can do;
        the package's data file is not theirs."""
        if not self.unknown:
            return None
        shown = ", ".join(self.unknown[:WARN_NAMES])
        more = len(self.unknown) - WARN_NAMES
        if more > 0:
            shown += f" (+{more} more)"
        return (
            f"{len(self.unknown)} row(s) of this file carry a guessed type: paramdiff does not "
            "know their declared type, so it guessed it from the value (INT32 if integral, "
            f"else REAL32): {shown} — QGroundControl uses the vehicle's own type for a parameter "
            "the vehicle has, but sends one it does not have yet with this guess: set such a "
            "parameter in QGC by hand; report the names to paramdiff's maintainers to have "
            "their types added"
        )


def qgc_types(params: Iterable[Param], table: TypeTable | None = None) -> QgcTypes:
    """Each row's type: the one its own file states (a QGC dump), else the declared one.

    The type follows the name, never the value, so a delta (CRUISE_SPEED 1 -> 1.5) keeps it.
    """
    table = packaged_types() if table is None else table
    types: dict[str, int] = {}
    unknown: list[str] = []
    for p in params:
        declared = table.lookup(p.name)
        if p.mav_type is not None:
            types[p.name] = p.mav_type
        elif declared is not None:
            types[p.name] = declared.mav_type
        else:
            unknown.append(p.name)
    return QgcTypes(types, tuple(unknown))
