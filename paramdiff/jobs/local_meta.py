"""Metadata and categories for files named on the command line (``show``, ``diff``).

A local file is not a pinned source, but its header usually says which firmware wrote it
(``# Vehicle: Surface Boat``, ``# Version: 4.7.0-BETA``). When the project in the current
folder pins metadata for that vehicle and major.minor (a metadata role whose path is
``<Vehicle>-<major.minor>/apm.pdef.json``, ParameterRepository's layout) and the cache holds it,
the file is read with that metadata (display names, value labels) and classified by that
pin's categories. Nothing is downloaded: without the metadata in the cache, or without a
project, the rows are "uncategorised" (comparison/side_by_side.py UNCATEGORISED) and the
table says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from paramdiff.errors import ParamdiffError
from paramdiff.model.metadata import firmware_of

if TYPE_CHECKING:
    from paramdiff.comparison.classify import Classifier
    from paramdiff.model.source import Source
    from paramdiff.pin import Pin

# Words of a ``# Vehicle:`` header -> ParameterRepository's vehicle folder name.
VEHICLE_WORDS = (
    ("boat", "Rover"),
    ("rover", "Rover"),
    ("sub", "Sub"),
    ("copter", "Copter"),
    ("quad", "Copter"),
    ("hexa", "Copter"),
    ("octo", "Copter"),
    ("heli", "Copter"),
    ("plane", "Plane"),
    ("blimp", "Blimp"),
)


def vehicle_of(header: str | None) -> str | None:
    """``Surface Boat`` -> ``Rover``; None for a header naming no vehicle paramdiff knows."""
    low = (header or "").lower()
    return next((folder for word, folder in VEHICLE_WORDS if word in low), None)


def categorise_local(
    sources: list[Source], root: Path | None = None
) -> tuple[list[Source], Classifier | None]:
    """``sources`` with the metadata their headers name, and the classifier of the first pin
    that has it; (sources, None) when there is no project here or no such metadata cached."""
    from paramdiff.config.lock import LOCK_FILE
    from paramdiff.config.sources import SOURCES_FILE

    root = Path.cwd() if root is None else root
    wanted = {
        s.role: f"{vehicle}-{firmware}"
        for s in sources
        if (vehicle := vehicle_of(s.file.header.get("Vehicle")))
        and (firmware := firmware_of(s.file.header.get("Version")))
    }
    if not wanted or not (root / SOURCES_FILE).is_file() or not (root / LOCK_FILE).is_file():
        return sources, None
    # Imported here: Pin and Project bring the derive stack (~70 ms, python -X importtime),
    # which `diff A B` of two files without a project never needs.
    from paramdiff.pin import Pin
    from paramdiff.project import Project

    options = Project(root=root, offline=True)
    found: dict[str, tuple[Pin, str]] = {}  # "Rover-4.7" -> (pin, metadata role)
    try:
        for profile in options.config().profiles.values():
            for pin in profile.pins:
                ctx = Pin(options, profile.name, pin)
                for role in ctx.metadata_roles():
                    head = ctx.specs[role].path.split("/", 1)[0]
                    found.setdefault(head, (ctx, role))
    except ParamdiffError:
        return sources, None  # a project that does not read: the files are shown as they are
    out, classifier = [], None
    for s in sources:
        hit = found.get(wanted.get(s.role, ""))
        meta = None
        if hit is not None:
            ctx, role = hit
            try:
                meta = ctx.metadata_by_firmware().get(_firmware_key(ctx, role))
                classifier = classifier or ctx.classifier()
            except ParamdiffError:  # not in the cache (offline): shown uncategorised
                meta = None
        out.append(s._replace(metadata=meta) if meta is not None else s)
    return out, classifier


def _firmware_key(ctx: Pin, role: str) -> str:
    """The key ``ctx.metadata_by_firmware()`` keeps ``role``'s metadata under."""
    spec = ctx.specs[role]
    return spec.firmware or ctx._firmware_from_path(spec.path) or ctx.pin
