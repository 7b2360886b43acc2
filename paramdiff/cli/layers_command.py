"""`paramdiff layers`: what SITL actually runs, layer by layer."""

from __future__ import annotations

from pathlib import Path

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import echo_lines
from paramdiff.jobs.layers import layers_lines
from paramdiff.pin import Pin


@click.command("layers")
@opt.pin_context
@click.option("--frame", help="sim_vehicle.py frame (default: the profile's sitl_frame).")
@click.option(
    "--launch",
    metavar="CMD",
    help="The stack, physics and pilot-input test of this launch command line; exits 1, "
    "like check, when it prints FAIL lines.",
)
@click.argument("files", nargs=-1, type=opt.EXISTING_FILE, metavar="[FILE]...")
def layers(pin: Pin, frame: str | None, launch: str | None, files: tuple[Path, ...]) -> None:
    """What SITL actually runs: frame defaults, then each FILE (default: the derived file).

    With --launch, exit 1 when the launch fails (a FAIL line), as check does."""
    given = click.get_current_context().params.get("profile") is not None
    echo_lines(layers_lines(pin, frame, launch, list(files), profile_given=given))
