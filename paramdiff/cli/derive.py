"""`paramdiff derive`: the SITL parameter file, hardware + overlay, with provenance."""

from __future__ import annotations

from pathlib import Path

import click

from ..project import PinContext
from ..render.params import derived_qgc_types, render
from . import options as opt
from .output import warn, write_output


@click.command("derive")
@opt.pin_context
@opt.output("derived")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["params", "mp", "qgc"]),
    default="params",
    show_default=True,
    help="params (sim_vehicle/MAVProxy), mp (Mission Planner), qgc.",
)
def derive(pin: PinContext, output: Path | None, fmt: str, check: bool) -> None:
    """Write the SITL parameter file: hardware + overlay, with provenance."""
    if fmt == "qgc":
        warn(derived_qgc_types(pin.derived).warning())
    write_output(render(pin.derived, fmt), pin.derived_output(output, fmt), check)
