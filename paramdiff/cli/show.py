"""`paramdiff show`: one local file as a table, or written back out in another format."""

from __future__ import annotations

from pathlib import Path

import click

from ..jobs.local_meta import categorise_local
from ..model.mavtypes import qgc_types
from ..parse.local import local_source
from ..parse.params import write_rows
from ..stages.compare import compare
from . import options as opt
from .output import echo_lines, warn
from .tables import print_comparison


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
    table: opt.TableOptions,
    project_metadata: bool,
) -> None:
    """One file's normalized table (params, Mission Planner, QGC, BlueOS or SDF)."""
    src = local_source(file, input_format, lenient, root=include_root)
    if as_format:
        qgc = qgc_types(src.file.params.values()) if as_format == "qgc" else None
        warn(qgc.warning() if qgc else None)
        echo_lines(write_rows(src.file.params.values(), as_format, qgc.types if qgc else None))
        return
    sources, classifier = categorise_local([src]) if project_metadata else ([src], None)
    print_comparison(compare(sources, classifier), table, None)
