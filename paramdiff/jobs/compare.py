"""`compare three-way` and `compare pins`: aligned tables of a pin's sources, or of one role
across pins."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..memo import pin_memo
from ..pin import Pin
from ..project import Project

if TYPE_CHECKING:
    from ..stages.compare import Comparison

THREE_WAY = ("hardware", "sitl", "sitl_models")


def three_way(pin: Pin) -> Comparison:
    """hardware vs sitl vs sitl_models, each with its own firmware's metadata."""
    return pin.compare(list(THREE_WAY))


def three_way_lines(
    pin: Pin,
    fmt: str = "text",
    only_differences: bool = False,
    categories: tuple[str, ...] = (),
    params: tuple[str, ...] = (),
    title: str | None = None,
) -> list[str]:
    """`compare three-way`: the selected rows of ``three_way`` in ``fmt``, kept per digest
    of their inputs (paramdiff/memo.py) and read back while nothing changed."""
    options = (pin.lenient, fmt, only_differences, categories, params, title)
    memo = pin_memo(pin, "three-way", *options)
    kept = memo.get(pin) if memo is not None else None
    if kept is not None:
        return list(kept)
    # Only a result not kept needs the stages (their import is most of a warm run's time).
    from ..render.comparison import render
    from ..stages.compare import select

    comp = three_way(pin)
    names = select(comp, only_differences, categories, params)
    lines = list(render(comp, fmt, names, title))
    if memo is not None:
        memo.put(lines)
    return lines


def compare_pins(project: Project, profile: str | None, pins: list[str], role: str) -> Comparison:
    """One role of a profile across pins (``hardware@4.6`` vs ``hardware@4.7``): what moved.

    Each side keeps its own firmware's metadata; categories use every pin's metadata.
    """
    from ..stages.compare import compare

    each = [Pin(project, profile, name) for name in pins]
    sources = [p.source(role)._replace(role=f"{role}@{p.pin}") for p in each]
    others = tuple(m for p in each[:-1] for m in p.metadata_by_firmware().values())
    return compare(sources, each[-1].classifier(others), each[-1].metadata())
