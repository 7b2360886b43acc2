"""A thruster's measured thrust against PWM, at a battery voltage (role format ``thrust_table``).

Two layouts are read:

- Blue Robotics' "T200 Public Performance Data 10-20V September 2019" workbook: one sheet per
  voltage named like ``16 V``, columns ``PWM (µs)`` and ``Force (Kg f)`` among others (their
  headers carry stray leading spaces), read with ``pandas.read_excel`` (openpyxl);
- a team's own bench data as CSV: a header ``pwm_us,thrust_n`` (newtons) or
  ``pwm_us,thrust_kgf`` (kilogram-force), one measurement a line.

Between two sheets the curve is interpolated linearly, point by point, and says so
(``ThrustCurve.how``). Anything the reader cannot trust (no sheet near the voltage, PWM that does
not rise, a force column whose units it cannot tell, a damaged file) is an ``InputError``.

Reading a workbook has two steps, so that what costs can be kept: ``workbook_sheets`` (every
voltage's sheet; pandas and openpyxl, ~0.6 s for the T200's) and ``curve_at_voltage`` (the
curve the profile asks for, from those sheets: microseconds). fetch/thrust_sheets.py keeps the
first per sha256 of the workbook's bytes.
"""

from __future__ import annotations

import csv
import io
import math
import re
import zipfile
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING

from paramdiff.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

# Standard gravity (kgf to newtons), as the CGPM defines it.
G0 = 9.80665
XLSX_MAGIC = b"PK\x03\x04"
_SHEET_VOLTS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*V\s*$", re.IGNORECASE)
SERVO_RANGE_US = (800, 2200)  # SERVOn_MIN/MAX @Range (ArduPilot apm.pdef.json)
_FORCE_UNITS = {"kgf": G0, "kg f": G0, "n": 1.0}


@dataclass(frozen=True)
class ThrustCurve:
    """Thrust in newtons at each PWM width in µs (rising), at ``voltage`` volts."""

    file: str
    voltage: float
    pwm_us: tuple[float, ...]
    thrust_n: tuple[float, ...]
    how: str  # where the curve came from: a sheet, two sheets interpolated, or a CSV


@dataclass(frozen=True)
class Sheet:
    """One voltage's sheet of a workbook: thrust in newtons at each PWM width (rising)."""

    volts: float
    name: str
    pwm_us: tuple[float, ...]
    thrust_n: tuple[float, ...]


def is_xlsx(data: bytes) -> bool:
    return data.startswith(XLSX_MAGIC)


def parse_thrust_table(data: bytes, file: str, voltage: float) -> ThrustCurve:
    """The curve at ``voltage`` from an xlsx workbook (one sheet per voltage) or a CSV."""
    if is_xlsx(data):
        return curve_at_voltage(workbook_sheets(data, file), file, voltage)
    return _csv_curve(data, file, voltage)


def workbook_sheets(data: bytes, file: str) -> list[Sheet]:
    """Every sheet of an xlsx workbook named by a voltage (like ``16 V``), by rising volts."""
    # Imported here: pandas costs ~0.4 s to import, and a run whose workbook is parsed in the
    # cache (fetch/thrust_sheets.py) never reads one.
    import pandas as pd

    try:
        frames = pd.read_excel(io.BytesIO(data), sheet_name=None, header=0, engine="openpyxl")
    except (zipfile.BadZipFile, ValueError, KeyError, OSError) as exc:
        raise InputError(
            f"not a readable xlsx workbook ({type(exc).__name__}: {exc})",
            "restore the pinned file (paramdiff fetch verifies it) or export the table again",
            file=file,
            line=1,
        ) from None
    sheets = []
    for name, frame in frames.items():
        volts = sheet_volts(str(name))
        if volts is None:
            continue  # a notes or chart sheet
        sheets.append(_sheet(frame, file, str(name), volts))
    if not sheets:
        raise InputError(
            "no sheet named by a voltage (like '16 V')",
            "name each sheet by its battery voltage, e.g. '16 V'",
            file=file,
            line=1,
        )
    return sorted(sheets, key=lambda s: s.volts)


def sheet_volts(name: str) -> float | None:
    """The battery voltage a sheet's name gives (``16 V``, ``14.8V``), or None: not a curve."""
    match = _SHEET_VOLTS.match(name)
    return None if match is None else float(match.group(1))


def _column(headers: list[str], file: str, sheet: str, wanted: str, fix: str) -> int:
    for i, header in enumerate(headers):
        if header.lower().startswith(wanted):
            return i
    raise InputError(
        f"sheet '{sheet}' has no '{wanted}' column (headers: {', '.join(headers)})",
        fix,
        file=file,
        line=1,
    )


def _force_scale(header: str, file: str, where: str) -> float:
    units = re.search(r"\(([^)]*)\)", header)
    scale = _FORCE_UNITS.get(units.group(1).strip().lower()) if units else None
    if scale is None:
        raise InputError(
            f"{where}: cannot tell the units of the force column {header!r}",
            "label it 'Force (Kg f)' or 'Force (N)'",
            file=file,
            line=1,
        )
    return scale


def _sheet(frame: pd.DataFrame, file: str, name: str, volts: float) -> Sheet:
    import pandas as pd

    headers = [str(h).strip() for h in frame.columns]
    pwm_col = _column(headers, file, name, "pwm", "the table needs a 'PWM (µs)' column")
    force_col = _column(headers, file, name, "force", "the table needs a 'Force (Kg f)' column")
    scale = _force_scale(headers[force_col], file, f"sheet '{name}'")
    rows: list[tuple[int, float, float]] = []
    for i, (pwm, force) in enumerate(
        zip(frame.iloc[:, pwm_col], frame.iloc[:, force_col], strict=True)
    ):
        row = i + 2  # the header is row 1
        if pd.isna(pwm) and pd.isna(force):
            continue
        rows.append((row, _number(pwm, file, row, name), _number(force, file, row, name) * scale))
    return Sheet(volts, name, *_rising(rows, file, f"sheet '{name}'"))


def _number(value: object, file: str, row: int, where: str) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = float("nan")
    if not math.isfinite(number):  # NaN: an empty or text cell; inf: no measurement
        raise InputError(
            f"sheet '{where}': {value!r} is not a number",
            "every row needs a PWM width and a force",
            file=file,
            line=row,
        )
    return number


def _rising(
    rows: list[tuple[int, float, float]], file: str, where: str
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    if len(rows) < 2:
        raise InputError(
            f"{where}: fewer than two measurements", "add the table's rows", file=file, line=1
        )
    for (_, before, _), (row, pwm, _) in pairwise(rows):
        if pwm <= before:
            raise InputError(
                f"{where}: PWM {pwm:g} µs does not rise after {before:g} µs",
                "sort the rows by PWM and drop repeated widths",
                file=file,
                line=row,
            )
    _plausible(rows, file, where)
    return tuple(r[1] for r in rows), tuple(r[2] for r in rows)


def _plausible(rows: list[tuple[int, float, float]], file: str, where: str) -> None:
    """A table whose widths no servo output reaches, or whose thrust falls as PWM rises, is a
    table in other units or with its sign flipped: derived into the model it would drive the
    boat with nonsense limits, so it is refused. ArduPilot's SERVOn_MIN/MAX range is 800–2200
    µs (the Rover metadata, apm.pdef.json)."""
    low, high = rows[0], rows[-1]
    if high[1] < SERVO_RANGE_US[0] or low[1] > SERVO_RANGE_US[1]:
        raise InputError(
            f"{where}: no PWM width inside {SERVO_RANGE_US[0]}–{SERVO_RANGE_US[1]} µs (SERVOn_MIN/"
            f"MAX's range; the table has {low[1]:g}–{high[1]:g}): milliseconds, or a duty cycle?",
            "give PWM widths in microseconds (e.g. 1100–1900)",
            file=file,
            line=low[0],
        )
    if high[2] <= 0 < low[2] or max(r[2] for r in rows) <= 0:
        raise InputError(
            f"{where}: thrust is not positive at the highest PWM ({high[1]:g} µs: {high[2]:g} N) "
            "— the force's sign is flipped?",
            "forward thrust is positive at the highest PWM width: negate the force column",
            file=file,
            line=high[0],
        )


def curve_at_voltage(sheets: list[Sheet], file: str, voltage: float) -> ThrustCurve:
    """The curve at ``voltage`` from a workbook's sheets (sorted by volts): a sheet's own, or
    interpolated between the two around it."""
    for sheet in sheets:
        if sheet.volts == voltage:
            return ThrustCurve(
                file, voltage, sheet.pwm_us, sheet.thrust_n, f"sheet '{sheet.name}' of {file}"
            )
    below = [s for s in sheets if s.volts < voltage]
    above = [s for s in sheets if s.volts > voltage]
    if not below or not above:
        have = ", ".join(s.name for s in sheets)
        raise InputError(
            f"no sheet at or around {voltage:g} V (sheets: {have})",
            f"set the profile's thrusters voltage between {sheets[0].volts:g} and "
            f"{sheets[-1].volts:g}, or add a sheet measured at {voltage:g} V",
            file=file,
            line=1,
        )
    low, high = below[-1], above[0]
    if low.pwm_us != high.pwm_us:
        raise InputError(
            f"sheets '{low.name}' and '{high.name}' are measured at different PWM widths",
            "measure both sheets at the same PWM steps, or set the voltage of one sheet",
            file=file,
            line=1,
        )
    share = (voltage - low.volts) / (high.volts - low.volts)
    thrust = tuple(a + (b - a) * share for a, b in zip(low.thrust_n, high.thrust_n, strict=True))
    how = (
        f"interpolated linearly between sheets '{low.name}' and '{high.name}' of {file} "
        f"({share:.0%} of the way)"
    )
    return ThrustCurve(file, voltage, low.pwm_us, thrust, how)


def _csv_curve(data: bytes, file: str, voltage: float) -> ThrustCurve:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(
            "neither an xlsx workbook nor a UTF-8 CSV",
            "give the thrust table as the maker's xlsx or a CSV 'pwm_us,thrust_n'",
            file=file,
            line=1,
        ) from None
    lines = [
        (n, row)
        for n, row in enumerate(csv.reader(io.StringIO(text)), start=1)
        if row and not row[0].lstrip().startswith("#")
    ]
    if not lines:
        raise InputError(
            "the thrust table is empty", "write a header 'pwm_us,thrust_n'", file=file, line=1
        )
    header_line, header = lines[0]
    names = [h.strip().lower() for h in header]
    scales = {"thrust_n": 1.0, "thrust_kgf": G0}
    force = next((h for h in names if h in scales), None)
    if "pwm_us" not in names or force is None:
        raise InputError(
            f"cannot tell the columns or units of {','.join(header)!r}",
            "write the header as 'pwm_us,thrust_n' (newtons) or 'pwm_us,thrust_kgf'",
            file=file,
            line=header_line,
        )
    pwm_at, force_at = names.index("pwm_us"), names.index(force)
    rows = []
    for n, row in lines[1:]:
        try:
            pwm_us, thrust_n = float(row[pwm_at]), float(row[force_at]) * scales[force]
            if not (math.isfinite(pwm_us) and math.isfinite(thrust_n)):
                raise ValueError("nan or inf")  # float() takes them; no bench measures them
            rows.append((n, pwm_us, thrust_n))
        except (IndexError, ValueError):
            raise InputError(
                f"{','.join(row)!r} is not a PWM width and a thrust",
                "write each line as two numbers, e.g. 1500,0",
                file=file,
                line=n,
            ) from None
    pwm, thrust = _rising(rows, file, "the table")
    return ThrustCurve(
        file, voltage, pwm, thrust, f"{file} (bench data, taken as at {voltage:g} V)"
    )
