"""`paramdiff diff`: an N-way compare of local files."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import UsageError
from ..local_meta import categorise_local
from ..parse.local import local_sources
from ..stages.compare import compare
from . import options as opt
from .tables import print_comparison


@click.command("diff", epilog=opt.TABLE_LEGEND)
@click.argument("files", nargs=-1, required=True, type=opt.EXISTING_FILE, metavar="FILE...")
@opt.input_options
@opt.table
def diff(
    files: tuple[Path, ...],
    input_format: str,
    lenient: bool,
    include_root: Path | None,
    table: opt.TableOptions,
) -> int:
    """N-way compare of local files (params or SDF), like mavparmdiff.

    Exits 1 when any row shown differs (differs, only in, missing in), 0 when none does.
    """
    if len(files) < 2:
        raise UsageError(
            "give at least two files", "name two or more, e.g. paramdiff diff A.params B.params"
        )
    sources, classifier = categorise_local(
        local_sources(list(files), input_format, lenient, include_root)
    )
    comp = compare(sources, classifier)
    names = print_comparison(comp, table, None)
    # 1: the README's exit code for differences; the table says which
    return 1 if any(comp.rows[n].status.disagrees for n in names) else 0
