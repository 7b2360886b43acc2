"""`paramdiff layers`: what SITL actually runs, layer by layer."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import DriftError, UsageError
from ..jobs.layers import layers as stacked
from ..launch.verify import adhoc
from ..pin import Pin
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
    help="The stack, physics and pilot-input test of this launch command line; exits 1, "
    "like check, when it prints FAIL lines.",
)
@click.argument("files", nargs=-1, type=opt.EXISTING_FILE, metavar="[FILE]...")
def layers(pin: Pin, frame: str | None, launch: str | None, files: tuple[Path, ...]) -> None:
    """What SITL actually runs: frame defaults, then each FILE (default: the derived file).

    With --launch, exit 1 when the launch fails (a FAIL line), as check does."""
    if launch is not None:
        if frame or files:
            raise UsageError("--launch names the files and the frame; drop --frame and FILEs")
        result = adhoc(pin, launch, [])
        echo_lines(launch_text(result))
        if not result.passed:
            raise DriftError(
                [f"launch {launch!r}: {len(result.findings)} finding(s) (the FAIL lines above)"],
                "fix each where its line says, or acknowledge a model's finding in the overlay",
            )
        return
    echo_lines(render_layers(*stacked(pin, frame, list(files)), pin.metadata()))
