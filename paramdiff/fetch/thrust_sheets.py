"""A thruster workbook's sheets, parsed once per content (``<cache>/parsed/thrust-sheets/``).

Reading Blue Robotics' T200 workbook (95 kB of xlsx, a sheet per voltage) through pandas and
openpyxl costs ~0.6 s a run (importing pandas ~0.4 s), most of a `derive --check` that reads it
(docs/performance.md); its entry is read and checked in ~1 ms. Its sheets are
kept, per sha256 of the verified workbook bytes, beside the cached file, as the parsed metadata
is (fetch/parsed.py): every voltage's sheet (name, volts, PWM widths, thrust in newtons), so a
profile whose voltage changes reads no workbook; the curve at the profile's voltage is taken
from the kept sheets (parse/thrust_table.py's ``curve_at_voltage``). The entry is plain JSON
text under fetch/cache.py's verified header (never pickle: the cache directory is not trusted
code); json writes a float's shortest repr, which reads back as the same float. An entry that
fails any check (corrupt, truncated, edited, another format version) is rebuilt from the source
bytes, never used. A workbook that does not parse raises its InputError on every run: errors
are never kept. A bench CSV is parsed as it is (a few hundred lines: well under a millisecond).
"""

from __future__ import annotations

import json
import math
from itertools import pairwise
from typing import Any

from paramdiff.fetch.cache import Cache
from paramdiff.parse.thrust_table import (
    Sheet,
    ThrustCurve,
    curve_at_voltage,
    is_xlsx,
    parse_thrust_table,
    sheet_volts,
    workbook_sheets,
)

SHEETS_KIND = "thrust-sheets"
_FIELDS = ("name", "volts", "pwm_us", "thrust_n")


def thrust_curve(
    cache: Cache, source_sha256: str, data: bytes, file: str, voltage: float
) -> ThrustCurve:
    """The curve at ``voltage`` of a thrust_table role's bytes (``data``, verified to hash to
    ``source_sha256``): a workbook's sheets from their parsed entry when it verifies, else
    parsed and the entry written."""
    if not is_xlsx(data):
        return parse_thrust_table(data, file, voltage)
    return curve_at_voltage(load_sheets(cache, source_sha256, data, file), file, voltage)


def load_sheets(cache: Cache, source_sha256: str, data: bytes, file: str) -> list[Sheet]:
    """The workbook's sheets (``workbook_sheets``), from the cache when its entry checks out."""
    found = cache.read_parsed(SHEETS_KIND, source_sha256)
    sheets = decode_sheets(found) if found is not None else None
    if sheets is None:
        sheets = workbook_sheets(data, file)  # raises for a workbook it cannot read: not kept
        cache.write_parsed(SHEETS_KIND, source_sha256, encode_sheets(sheets))
    return sheets


def encode_sheets(sheets: list[Sheet]) -> bytes:
    rows = [
        {"name": s.name, "volts": s.volts, "pwm_us": s.pwm_us, "thrust_n": s.thrust_n}
        for s in sheets
    ]
    return json.dumps(rows, separators=(",", ":"), allow_nan=False).encode()


def decode_sheets(lines: list[bytes]) -> list[Sheet] | None:
    """The sheets of an entry's payload, or None when it is not what ``encode_sheets`` writes
    (only an entry forged with a matching digest gets past the header's checks)."""
    try:
        rows = json.loads(b"\n".join(lines))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(rows, list) or not rows:
        return None
    sheets = [_sheet(row) for row in rows]
    if None in sheets:
        return None
    found = [s for s in sheets if s is not None]
    if any(a.volts >= b.volts for a, b in pairwise(found)):
        return None  # curve_at_voltage reads them by rising volts
    return found


def _sheet(row: Any) -> Sheet | None:
    if not isinstance(row, dict) or tuple(row) != _FIELDS:
        return None
    name, volts, pwm_us, thrust_n = (row[k] for k in _FIELDS)
    # A name the parser gives (its `how` reaches the derived model's comments), of these volts.
    if type(name) is not str or not _floats([volts]) or sheet_volts(name) != volts:
        return None
    if not (_floats(pwm_us) and _floats(thrust_n)) or len(pwm_us) != len(thrust_n):
        return None
    if len(pwm_us) < 2 or any(a >= b for a, b in pairwise(pwm_us)):
        return None
    return Sheet(volts, name, tuple(pwm_us), tuple(thrust_n))


def _floats(values: Any) -> bool:
    return isinstance(values, list) and all(type(v) is float and math.isfinite(v) for v in values)
