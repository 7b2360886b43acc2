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
    inputs, target = pin.report_inputs(), pin.report_output(output)
    write_output(render_report(inputs), target, check)
    if target.path is not None:  # the top view goes next to the report that links it
        write_output(render_picture(inputs), svg_output(target), check)
