"""`paramdiff verify`: what a running vehicle holds against what its launch should run."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import echo_lines, terminal_progress

if TYPE_CHECKING:
    from paramdiff.pin import Pin


@click.command("verify")
@click.argument("connection", metavar="CONNECTION")
@opt.pin_context
@click.option(
    "--launch",
    metavar="CMD",
    help="The launch it was started with (default: the profile's first declared launch).",
)
@opt.pull_timeout
@click.option(
    "--record",
    is_flag=True,
    help="Write verified/<profile>-<pin>.json: each derived value as read back, the firmware "
    "and the derived file's sha256 (commit it; the report marks what was confirmed).",
)
def verify(pin: Pin, connection: str, launch: str | None, timeout: float, record: bool) -> None:
    """Pull a running SITL's parameters and compare them with what its launch should run.

    Lists each parameter a layer sets whose running value differs, with the layer and line
    that set it and the likely cause (a stored value that survived: relaunch with -w).
    Parameters no layer sets are counted. Exit 1 on a difference (a record is written
    first: it shows which rows differ). An incomplete pull writes no record.
    """
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs.verify import verify_vehicle
    from paramdiff.vehicle.mavlink_pull import PullLimits

    limits = PullLimits(timeout=timeout)
    echo_lines(verify_vehicle(pin, connection, launch=launch, limits=limits,
                              progress=terminal_progress(), record=record))  # fmt: skip
