"""`paramdiff layers`: what SITL actually runs, layer by layer."""

from __future__ import annotations

from pathlib import Path

import click

from ..project import PinContext
from ..render.layers import render_layers
from . import options as opt
from .output import echo_lines


@click.command("layers")
@opt.pin_context
@click.option("--frame", help="sim_vehicle.py frame (default: the profile's sitl_frame).")
@click.argument("files", nargs=-1, type=opt.EXISTING_FILE, metavar="[FILE]...")
def layers(pin: PinContext, frame: str | None, files: tuple[Path, ...]) -> None:
    """What SITL actually runs: frame defaults, then each FILE (default: the derived file)."""
    echo_lines(render_layers(*pin.layers(frame, list(files)), pin.metadata))
