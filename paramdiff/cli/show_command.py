"""`paramdiff show`: one local file as a table, or written back out in another format."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import echo_lines, warn

if TYPE_CHECKING:
    from paramdiff.comparison.side_by_side import TableOptions


@click.command("show", epilog=opt.TABLE_LEGEND)
@click.argument("file", type=opt.EXISTING_FILE, metavar="FILE")
@opt.input_options
@opt.project_metadata
@click.option(
    "--as",
    "as_format",
    type=click.Choice(["params", "mp", "qgc"]),
    help="Write the parsed rows back out in this format instead of a table.",
)
@opt.table
def show(
    file: Path,
    input_format: str,
    lenient: bool,
    include_root: Path | None,
    as_format: str | None,
    table: TableOptions,
    project_metadata: bool,
) -> None:
    """One file's normalized table (params, Mission Planner, QGC, BlueOS or SDF)."""
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs.local import Reading
    from paramdiff.jobs.show import show_file

    reading = Reading(input_format, lenient, include_root, project_metadata)
    shown = show_file(file, table, reading, as_format)
    for message in shown.warnings:
        warn(message)
    echo_lines(shown.lines)
