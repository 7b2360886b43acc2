"""`paramdiff diff`: an N-way compare of local files."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import UsageError
from ..jobs.local_meta import categorise_local
from ..parse.local import local_sources
from ..render.comparison import render
from ..stages.compare import Comparison, compare, select
from . import options as opt
from .output import echo_lines
from .tables import print_comparison


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
    table: opt.TableOptions,
    defaults: Path | None,
    project_metadata: bool,
) -> int:
    """N-way compare of local files (params or SDF), like mavparmdiff.

    Exits 1 when any row shown differs (differs, only in, missing in), 0 when none does.
    With --against-defaults: only what the files set to another value than the firmware's
    default, or names it does not have; exit 1 when there is any.
    """
    named = [defaults, *files] if defaults is not None else list(files)
    if len(named) < 2:
        raise UsageError(
            "give at least two files", "name two or more, e.g. paramdiff diff A.params B.params"
        )
    sources, classifier = local_sources(named, input_format, lenient, include_root), None
    if project_metadata:
        sources, classifier = categorise_local(sources)
    comp = compare(sources, classifier)
    if defaults is not None:
        return _against_defaults(comp, table)
    names = print_comparison(comp, table, None)
    # 1: the README's exit code for differences; the table says which
    return 1 if any(comp.rows[n].status.disagrees for n in names) else 0


def _against_defaults(comp: Comparison, table: opt.TableOptions) -> int:
    """What the files change from the firmware's defaults (the first source); 1 if anything."""
    from ..stages.running import changes_from_defaults  # (diff A B never needs the layers)

    selected = select(comp, table.only_differences, table.categories, table.params)
    names = changes_from_defaults(comp, selected)
    echo_lines(render(comp, table.fmt, names, None))
    return 1 if names else 0
