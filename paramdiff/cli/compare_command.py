"""`paramdiff compare`: the pinned sources of a profile side by side (three-way), or one
role's file across pins."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from paramdiff.cli import options as opt
from paramdiff.cli.lazy import CommandGroup
from paramdiff.cli.output import echo_lines

if TYPE_CHECKING:
    from paramdiff.comparison.side_by_side import TableOptions
    from paramdiff.project import Project


@click.group("compare", cls=CommandGroup)
def compare() -> None:
    """Compare the pinned sources of a profile."""


@compare.command("three-way", epilog=opt.TABLE_LEGEND)
@opt.location
@opt.profile()
@opt.pin()
@opt.lenient()
@opt.table
def three_way(
    options: Project, profile: str | None, pin: str | None, lenient: bool, table: TableOptions
) -> None:
    """hardware vs sitl vs sitl_models for a pin."""
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs import compare as jobs
    from paramdiff.pin import Pin

    echo_lines(jobs.three_way_lines(Pin(options, profile, pin, lenient=lenient), table))


@compare.command(
    "pins", epilog=opt.TABLE_LEGEND, short_help="One role's file across pins: what changed."
)
@click.argument("pins", nargs=-1, required=True, metavar="PIN...")
@click.option(
    "--role", default="hardware", show_default=True, help="Which source to follow across pins."
)
@opt.profile()
@opt.location
@opt.table
def pins(
    options: Project,
    pins: tuple[str, ...],
    role: str,
    profile: str | None,
    table: TableOptions,
) -> None:
    """One role's file across pins, e.g. `compare pins 4.6 4.7`: what changed."""
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs import compare as jobs

    echo_lines(jobs.pins_lines(options, profile, list(pins), role, table))
