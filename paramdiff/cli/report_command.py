"""`paramdiff report`: the markdown report (and its SVG top view) for a pull request."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import write_outputs

if TYPE_CHECKING:
    from paramdiff.pin import Pin


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
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs.report import report_files

    write_outputs(report_files(pin, output, model), check)
