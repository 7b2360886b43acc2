"""`paramdiff derive`: the SITL parameter file, hardware + overlay, with provenance."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import write_outputs
from paramdiff.parse.param_text import WRITE_FORMATS

if TYPE_CHECKING:
    from paramdiff.pin import Pin


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
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs.derive import derive_file

    write_outputs(derive_file(pin, output, fmt, minimal), check)
