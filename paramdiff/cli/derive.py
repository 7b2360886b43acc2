"""`paramdiff derive`: the SITL parameter file, hardware + overlay, with provenance."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..errors import UsageError
from ..jobs.derive import derived_output, minimal_derived
from ..parse.params import WRITE_FORMATS
from ..pin import Pin
from ..render.params import derived_qgc_types, render
from . import options as opt
from .output import warn, write_output


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
    if minimal and output is None:
        raise UsageError(
            "--minimal writes a file of its own",
            "give -o PATH (or -o -); the profile's derived file is the full one check keeps",
        )
    if minimal and output is not None and str(output) != "-" and pin.profile.derived_path(pin.pin):
        own = pin.config.root / (pin.profile.derived_path(pin.pin) or "")
        if Path(os.path.realpath(output)) == Path(os.path.realpath(own)):
            raise UsageError(
                f"-o {output} is the profile's own derived file, which stays the full one",
                "give --minimal a path of its own",
                file=str(output),
            )
    target = derived_output(pin, output, fmt)  # refused before any warning about the rows
    derived = minimal_derived(pin) if minimal else pin.derived()
    if fmt == "qgc":
        warn(derived_qgc_types(derived).warning())
    write_output(render(derived, fmt), target, check)
