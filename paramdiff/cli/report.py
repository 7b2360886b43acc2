"""`paramdiff report`: the markdown report (and its SVG top view) for a pull request."""

from __future__ import annotations

from pathlib import Path

import click

from ..project import PinContext
from ..render.report import render_picture, render_report, svg_output
from . import options as opt
from .output import write_output


@click.command("report")
@opt.pin_context
@opt.output("report")
def report(pin: PinContext, output: Path | None, check: bool) -> None:
    """Write the markdown report for a pull request."""
    # both outputs are checked before either is written (and before the report is made)
    target = pin.report_output(output)
    picture = svg_output(target) if target.path is not None else None  # beside the report
    inputs = pin.report_inputs()
    write_output(render_report(inputs), target, check)
    if picture is not None:
        write_output(render_picture(inputs), picture, check)
