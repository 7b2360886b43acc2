"""`paramdiff pull`: every parameter of a vehicle or a running SITL, over MAVLink."""

from __future__ import annotations

from pathlib import Path

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import pull_progress, write_outputs
from paramdiff.parse.param_text import WRITE_FORMATS


@click.command("pull")
@click.argument("connection", metavar="CONNECTION")
@click.option(
    "-o",
    "--output",
    type=opt.OUTPUT_FILE,
    default="-",
    show_default=True,
    metavar="FILE",
    help="Where to write the parameters ('-' for stdout).",
)
@opt.output_format(
    WRITE_FORMATS,
    "params",
    "params (MAVProxy, sim_vehicle.py), mp (Mission Planner) or qgc (with each type).",
)
@opt.pull_timeout
@click.option(
    "--allow-incomplete",
    is_flag=True,
    help="Write the dump although some parameters cannot be (NaN or infinite values, a name "
    "sent twice with different values): the header counts them, and a warning says so.",
)
@click.option("-q", "--quiet", is_flag=True, help="No progress on stderr while pulling.")
def pull_command(
    connection: str, output: Path, fmt: str, timeout: float, allow_incomplete: bool, quiet: bool
) -> None:
    """Every parameter of a vehicle or running SITL, as a file (MAVLink, pymavlink).

    CONNECTION as MAVProxy takes it: tcp:127.0.0.1:5760, udpin:0.0.0.0:14550,
    /dev/ttyACM0,115200. Missing parameters are asked for again one by one; each bound
    (10 s for a HEARTBEAT, 5 requests an index, --timeout for the whole pull) ends in one
    Error line. A dump that would be incomplete is an Error too, unless
    --allow-incomplete. Progress goes to stderr (-q: none).
    """
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs.pull import pull_file
    from paramdiff.vehicle.mavlink_pull import PullLimits

    limits = PullLimits(timeout=timeout)
    progress = None if quiet else pull_progress()
    write_outputs(
        pull_file(connection, output, fmt, limits, progress, allow_incomplete=allow_incomplete)
    )
