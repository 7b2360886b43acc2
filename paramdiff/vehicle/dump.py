"""A pulled parameter set as a file: params (MAVProxy/sim_vehicle), mp or qgc.

The header follows BlueOS's (``# Vehicle:``, ``# Version:``), which paramdiff and BlueOS both
read, so a dump's firmware picks its metadata like any hardware set; the values are written
as the shortest decimal that reads back as the very float32 the vehicle sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version

from paramdiff.model.params import Param
from paramdiff.model.values import format_value
from paramdiff.parse.param_text import write_rows
from paramdiff.vehicle.mavlink_pull import Pulled


def _paramdiff_version() -> str:
    try:
        return version("paramdiff")
    except PackageNotFoundError:  # pragma: no cover - a source tree that was never installed
        return "(not installed)"


def vehicle_words(type_name: str) -> str:
    """``MAV_TYPE_SURFACE_BOAT`` -> ``Surface Boat``: how BlueOS names the vehicle."""
    return type_name.removeprefix("MAV_TYPE_").replace("_", " ").title()


def header(pulled: Pulled) -> list[str]:
    v = pulled.vehicle
    lines = [
        f"# Date: {pulled.time}",
        f"# Vehicle: {vehicle_words(v.type_name)}",
    ]
    if v.firmware:
        lines.append(f"# Version: {v.firmware}")
    if v.git_hash:
        lines.append(f"# Git: {v.git_hash}")
    lines += [
        f"# Pulled by: paramdiff {_paramdiff_version()} over {pulled.connection}",
        f"# From: system {v.system}, component {v.component} ({v.type_name}, "
        f"{v.autopilot_name}); {len(pulled.params)} parameters",
    ]
    if pulled.lost:  # pulled with --allow-incomplete: say so where the file is read
        lines.append(
            f"# INCOMPLETE: {len(pulled.params)} of the {pulled.total} parameters the vehicle "
            f"announced; {pulled.total - len(pulled.params)} left out:"
        )
        lines += [f"#   {why}" for why in pulled.lost[:20]]
        if len(pulled.lost) > 20:
            lines.append(f"#   and {len(pulled.lost) - 20} more")
    if not v.firmware:
        lines.append("# The vehicle did not answer AUTOPILOT_VERSION: its firmware is not named.")
    return lines


def dump_lines(pulled: Pulled, fmt: str = "params") -> Iterator[str]:
    """The file's lines in ``fmt`` (parse.param_text.WRITE_FORMATS); values exactly as received,
    each with the MAV_PARAM_TYPE the vehicle reported (QGC's type column)."""
    v = pulled.vehicle
    rows = [
        Param(
            p.name, p.value, format_value(p.value), pulled.connection, p.index, mav_type=p.mav_type
        )
        for p in sorted(pulled.params.values(), key=lambda p: p.name)
    ]
    if fmt == "qgc":
        yield f"# Onboard parameters for Vehicle {v.system}"
        yield from header(pulled)
        yield "#"
        yield "# Vehicle-Id Component-Id Name Value Type"
    else:
        yield from header(pulled)
        yield ""
    yield from write_rows(rows, fmt, vehicle=(v.system, v.component))
