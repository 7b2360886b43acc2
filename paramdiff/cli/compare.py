"""`paramdiff compare`: the pinned sources of a profile side by side (three-way), or one
role's file across pins."""

from __future__ import annotations

import click

from ..errors import UsageError
from ..jobs import compare as jobs
from ..pin import Pin
from ..project import Project
from . import options as opt
from .lazy import CommandGroup
from .output import echo_lines
from .tables import print_comparison


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
    options: Project, profile: str | None, pin: str | None, lenient: bool, table: opt.TableOptions
) -> None:
    """hardware vs sitl vs sitl_models for a pin."""
    ctx = Pin(options, profile, pin, lenient=lenient)
    title = f"{ctx.profile.name} {ctx.pin}: hardware vs sitl vs sitl_models"
    t = table
    echo_lines(jobs.three_way_lines(ctx, t.fmt, t.only_differences, t.categories, t.params, title))


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
    table: opt.TableOptions,
) -> None:
    """One role's file across pins, e.g. `compare pins 4.6 4.7`: what changed."""
    if len(pins) < 2:
        raise UsageError("give at least two pins, e.g. paramdiff compare pins 4.6 4.7")
    comp = jobs.compare_pins(options, profile, list(pins), role)
    print_comparison(comp, table, f"{role} across pins " + " vs ".join(pins))
