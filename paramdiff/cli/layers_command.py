"""`paramdiff layers`: what SITL actually runs, layer by layer."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import echo_lines

if TYPE_CHECKING:
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
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs.layers import layers_lines

    given = click.get_current_context().params.get("profile") is not None
    echo_lines(layers_lines(pin, frame, launch, list(files), profile_given=given))
