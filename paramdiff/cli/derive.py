"""`paramdiff derive`: the SITL parameter file, hardware + overlay, with provenance."""

from __future__ import annotations

from pathlib import Path

import click

from ..jobs.derive import derive_file
from ..parse.params import WRITE_FORMATS
from ..pin import Pin
from . import options as opt
from .output import write_outputs


@click.command("derive")
@opt.pin_context
@opt.output("derived")
@opt.output_format(
    WRITE_FORMATS, "params", "params (sim_vehicle/MAVProxy), mp (Mission Planner), qgc."
)
@click.option(
    "--minimal",
    is_flag=True,
    help="Leave out what the launch runs anyway (the pin's firmware_defaults role, then the "
    "frame's defaults); every delta stays. Needs -o: the profile's file stays the full one.",
)
def derive(pin: Pin, output: Path | None, fmt: str, check: bool, minimal: bool) -> None:
    """Write the SITL parameter file: hardware + overlay, with provenance."""
    write_outputs(derive_file(pin, output, fmt, minimal), check)
