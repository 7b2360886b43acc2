"""`paramdiff layers`: what SITL actually runs, layer by layer."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import UsageError
from ..launch.verify import adhoc
from ..project import PinContext
from ..render.launch import launch_text
from ..render.layers import render_layers
from . import options as opt
from .output import echo_lines


@click.command("layers")
@opt.pin_context
@click.option("--frame", help="sim_vehicle.py frame (default: the profile's sitl_frame).")
@click.option(
    "--launch",
    metavar="CMD",
    help="The stack, physics and pilot-input test of this launch command line.",
)
@click.argument("files", nargs=-1, type=opt.EXISTING_FILE, metavar="[FILE]...")
def layers(pin: PinContext, frame: str | None, launch: str | None, files: tuple[Path, ...]) -> None:
    """What SITL actually runs: frame defaults, then each FILE (default: the derived file)."""
    if launch is not None:
        if frame or files:
            raise UsageError("--launch names the files and the frame; drop --frame and FILEs")
        echo_lines(launch_text(adhoc(pin, launch, [])))
        return
    echo_lines(render_layers(*pin.layers(frame, list(files)), pin.metadata))
