"""`paramdiff report`: the markdown report (and its SVG top view) for a pull request."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import UsageError
from ..jobs.report import report_inputs, report_output
from ..pin import Pin
from ..render.report import render_picture, render_report, svg_output
from . import options as opt
from .output import write_output


@click.command("report")
@opt.pin_context
@opt.output("report")
@click.option(
    "--model",
    type=opt.EXISTING_FILE,
    metavar="FILE",
    help="Show this Gazebo model's channels and actuator fidelity instead of the pinned "
    "sitl_models' (a team's own model). Needs -o: the profile's report is the pinned model's.",
)
def report(pin: Pin, output: Path | None, check: bool, model: Path | None) -> None:
    """Write the markdown report for a pull request."""
    if model is not None and output is None:
        raise UsageError(
            "--model writes a report of its own",
            "give -o PATH (or -o -); the profile's report shows the pinned sitl_models",
        )
    # both outputs are checked before either is written (and before the report is made)
    target = report_output(pin, output)
    picture = svg_output(target) if target.path is not None else None  # beside the report
    inputs = report_inputs(pin, model)
    write_output(render_report(inputs), target, check)
    if picture is not None:
        write_output(render_picture(inputs), picture, check)
