"""`paramdiff diff`: an N-way compare of local files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import echo_lines

if TYPE_CHECKING:
    from paramdiff.comparison.side_by_side import TableOptions


@click.command("diff", epilog=opt.TABLE_LEGEND)
@click.argument("files", nargs=-1, required=True, type=opt.EXISTING_FILE, metavar="FILE...")
@opt.input_options
@opt.project_metadata
@opt.table
@click.option(
    "--against-defaults",
    "defaults",
    type=opt.EXISTING_FILE,
    metavar="DEFAULTS",
    help="Show only what the FILEs change from the firmware: DEFAULTS is a pull of a freshly "
    "wiped SITL of that firmware.",
)
def diff(
    files: tuple[Path, ...],
    input_format: str,
    lenient: bool,
    include_root: Path | None,
    table: TableOptions,
    defaults: Path | None,
    project_metadata: bool,
) -> int:
    """N-way compare of local files (params or SDF), like mavparmdiff.

    Exits 1 when any row shown differs (differs, only in, missing in), 0 when none does.
    With --against-defaults: only what the files set to another value than the firmware's
    default, or names it does not have; exit 1 when there is any.
    """
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs.diff import diff_files
    from paramdiff.jobs.local import Reading

    reading = Reading(input_format, lenient, include_root, project_metadata)
    shown = diff_files(list(files), table, reading, defaults)
    echo_lines(shown.lines)
    return 1 if shown.differs else 0
