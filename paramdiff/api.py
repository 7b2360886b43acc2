"""paramdiff as a Python library: what each command does, as functions and records.

Open a project (its sources.yaml, sources.lock and a cache), take one profile's pin, and call
the jobs over it; each returns values (a ``Comparison``, a ``Derived`` file, ``Layers``) or the
lines a command prints. Nothing here writes a file unless a function says so; errors are
``ParamdiffError`` subclasses carrying the file, line and fix. See docs/library.md.

    from paramdiff import api

    project = api.open_project("path/to/project", mirror="path/to/mirror")
    pin = api.open_pin(project, "blueboat")
    table = api.three_way(pin)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from paramdiff.check.run import check_project
from paramdiff.comparison.side_by_side import Comparison, Row, Status, TableOptions, Verdict
from paramdiff.comparison.sitl_layers import Layers
from paramdiff.config.lock import Lock, LockEntry
from paramdiff.config.roles import SourceSpec
from paramdiff.config.sources import Config, Profile
from paramdiff.derive.derived import Derived
from paramdiff.derive.record import (
    Firmware,
    ReadBack,
    Record,
    load_record,
    parse_record,
    record_text,
)
from paramdiff.errors import ConfigError, DriftError, InputError, ParamdiffError, UsageError
from paramdiff.jobs.compare import THREE_WAY, compare_pins, pins_lines, three_way, three_way_lines
from paramdiff.jobs.derive import derive_file, derived_lines, minimal_derived
from paramdiff.jobs.diff import diff_files
from paramdiff.jobs.fetch import fetch_project
from paramdiff.jobs.fidelity import pinned_fidelity
from paramdiff.jobs.history import history
from paramdiff.jobs.layers import layers, layers_lines
from paramdiff.jobs.local import Reading, Shown
from paramdiff.jobs.pull import pull_file
from paramdiff.jobs.report import report_files, report_inputs
from paramdiff.jobs.show import show_file
from paramdiff.jobs.validate import validate_file
from paramdiff.jobs.verify import record_of, verify_vehicle
from paramdiff.model.metadata import Metadata
from paramdiff.model.params import Param, ParamFile
from paramdiff.model.source import Source
from paramdiff.overlay.file import Overlay
from paramdiff.pin import Pin
from paramdiff.project import Project
from paramdiff.render.derived_file import render as render_params
from paramdiff.render.report_inputs import ReportInputs
from paramdiff.render.report_markdown import render_report
from paramdiff.render.sinks import Output, Outputs
from paramdiff.review.branch import review, review_files
from paramdiff.review.changes import Review
from paramdiff.simulation.actuator_fidelity import Fidelity
from paramdiff.vehicle.mavlink_pull import Pulled, PullLimits, pull

__all__ = [
    "THREE_WAY",
    "Comparison",
    "Config",
    "ConfigError",
    "Derived",
    "DriftError",
    "Fidelity",
    "Firmware",
    "InputError",
    "Layers",
    "Lock",
    "LockEntry",
    "Metadata",
    "Output",
    "Outputs",
    "Overlay",
    "Param",
    "ParamFile",
    "ParamdiffError",
    "Pin",
    "Profile",
    "Project",
    "PullLimits",
    "Pulled",
    "ReadBack",
    "Reading",
    "Record",
    "ReportInputs",
    "Review",
    "Row",
    "Shown",
    "Source",
    "SourceSpec",
    "Status",
    "TableOptions",
    "UsageError",
    "Verdict",
    "check",
    "check_project",
    "compare_pins",
    "derive_file",
    "derived_lines",
    "diff_files",
    "fetch_project",
    "history",
    "layers",
    "layers_lines",
    "load_record",
    "minimal_derived",
    "open_pin",
    "open_project",
    "parse_record",
    "pinned_fidelity",
    "pins_lines",
    "pull",
    "pull_file",
    "record_of",
    "record_text",
    "render_params",
    "render_report",
    "report_files",
    "report_inputs",
    "review",
    "review_files",
    "show_file",
    "three_way",
    "three_way_lines",
    "validate_file",
    "verify_vehicle",
]


def open_project(root: str | Path = ".", **options: Any) -> Project:
    """The project at ``root`` (the folder holding sources.yaml); ``options`` are the command
    line's location options: ``cache_dir``, ``mirror``, ``transport``, ``git_base``,
    ``offline``. sources.yaml is read here, so a bad one raises at once."""
    if "cache_dir" in options and options["cache_dir"] is not None:
        options["cache_dir"] = Path(options["cache_dir"])
    project = Project(root=Path(root), **options)
    project.config()
    return project


def open_pin(
    project: Project, profile: str | None = None, pin: str | None = None, lenient: bool = False
) -> Pin:
    """One profile's pin (default: the first profile, its default_pin). Its files are fetched
    or verified when a method asks for them (``pin.source(role)``, ``pin.derived()`` …)."""
    return Pin(project, profile, pin, lenient=lenient)


def check(
    project: Project,
    profile: str | None = None,
    pin: str | None = None,
    models: Iterable[Path] = (),
    launch: str | None = None,
) -> Iterator[str]:
    """`paramdiff check`: the lines it prints; raises ``DriftError`` naming every finding."""
    return check_project(project, profile, pin, list(models), launch=launch)
