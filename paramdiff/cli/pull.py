"""`paramdiff pull`: every parameter of a vehicle or a running SITL, over MAVLink."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..outputs import ProjectFiles
from ..parse.params import WRITE_FORMATS
from ..project import Project
from ..render.sinks import output_for
from ..vehicle.dump import dump_lines
from ..vehicle.pull import Progress, PullLimits, pull
from . import options as opt
from .output import echo, write_output


def terminal_progress() -> Progress | None:
    """A progress line on stderr, rewritten in place, when stderr is a terminal."""
    if sys.stderr is None or not sys.stderr.isatty():
        return None

    def show(received: int, total: int) -> None:
        end = "\n" if received >= total else ""
        click.echo(f"\rparameters: {received}/{total}{end}", err=True, nl=False)

    return show


def _guard(root: Path) -> ProjectFiles:
    """Where -o may not write: a project's own files when run in one, and never through a
    symlink out of the current directory (paramdiff/outputs.py)."""
    if not (root / "sources.yaml").is_file():
        return ProjectFiles(root, {}, {})
    options = Project(root=root)
    # pulling the boat again over its committed dump is how a team refreshes it (then
    # `paramdiff fetch` pins the new bytes); every other project file stays refused
    dumps = [
        spec.path
        for profile in options.config().profiles.values()
        for specs in profile.pins.values()
        for spec in specs.values()
        if spec.is_local
    ]
    return options.project_files().without(*dumps)


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
def pull_command(connection: str, output: Path, fmt: str, timeout: float) -> None:
    """Every parameter of a vehicle or running SITL, as a file (MAVLink, pymavlink).

    CONNECTION as MAVProxy takes it: tcp:127.0.0.1:5760, udpin:0.0.0.0:14550,
    /dev/ttyACM0,115200. Missing parameters are asked for again one by one; each bound
    (10 s for a HEARTBEAT, 5 requests an index, --timeout for the whole pull) ends in one
    Error line.
    """
    root = Path.cwd()
    target = output_for(root, output, None, f"paramdiff pull {connection} -o PATH", _guard(root))
    pulled = pull(connection, PullLimits(timeout=timeout), terminal_progress())
    for warning in pulled.warnings:
        echo(f"warning: {warning}", err=True)
    write_output(dump_lines(pulled, fmt), target, False)
