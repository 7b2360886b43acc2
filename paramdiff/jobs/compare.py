"""`compare three-way` and `compare pins`: aligned tables of a pin's sources, or of one role
across pins."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from paramdiff.comparison.side_by_side import EVERY_ROW, TableOptions, compare
from paramdiff.errors import UsageError
from paramdiff.pin import Pin
from paramdiff.project import Project
from paramdiff.render.comparison import selected_lines

if TYPE_CHECKING:
    from paramdiff.comparison.side_by_side import Comparison

THREE_WAY = ("hardware", "sitl", "sitl_models")


def three_way(pin: Pin) -> Comparison:
    """hardware vs sitl vs sitl_models, each with its own firmware's metadata."""
    return pin.compare(list(THREE_WAY))


def three_way_lines(pin: Pin, table: TableOptions = EVERY_ROW) -> list[str]:
    """`compare three-way`: the rows of ``three_way`` that ``table`` selects."""

    title = f"{pin.profile.name} {pin.pin}: hardware vs sitl vs sitl_models"
    return list(selected_lines(three_way(pin), table, title))


def compare_pins(project: Project, profile: str | None, pins: list[str], role: str) -> Comparison:
    """One role of a profile across pins (``hardware@4.6`` vs ``hardware@4.7``): what moved.

    Each side keeps its own firmware's metadata; categories use every pin's metadata.
    """

    each = [Pin(project, profile, name) for name in pins]
    sources = [p.source(role)._replace(role=f"{role}@{p.pin}") for p in each]
    others = tuple(m for p in each[:-1] for m in p.metadata_by_firmware().values())
    return compare(sources, each[-1].classifier(others), each[-1].metadata())


def pins_lines(
    project: Project,
    profile: str | None,
    pins: list[str],
    role: str = "hardware",
    table: TableOptions = EVERY_ROW,
) -> Iterator[str]:
    """`compare pins`: the rows of ``compare_pins`` that ``table`` selects."""

    if len(pins) < 2:
        raise UsageError("give at least two pins, e.g. paramdiff compare pins 4.6 4.7")
    title = f"{role} across pins " + " vs ".join(pins)
    return selected_lines(compare_pins(project, profile, pins, role), table, title)
