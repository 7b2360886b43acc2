"""`paramdiff diff`: files named on the command line, side by side (no pin)."""

from __future__ import annotations

from pathlib import Path

from paramdiff.comparison.side_by_side import TableOptions, compare, select
from paramdiff.errors import UsageError
from paramdiff.jobs.local import FILES_AS_THEY_ARE, Reading, Shown
from paramdiff.jobs.local_meta import categorise_local
from paramdiff.parse.named_files import local_sources
from paramdiff.render.comparison import render


def diff_files(
    files: list[Path],
    table: TableOptions,
    reading: Reading = FILES_AS_THEY_ARE,
    defaults: Path | None = None,
) -> Shown:
    """`paramdiff diff`: the files side by side; with ``defaults`` (a freshly wiped SITL's
    pull, the first column) only what the files change from the firmware's defaults."""
    named = [defaults, *files] if defaults is not None else list(files)
    if len(named) < 2:
        raise UsageError(
            "give at least two files", "name two or more, e.g. paramdiff diff A.params B.params"
        )
    sources = local_sources(named, reading.input_format, reading.lenient, reading.include_root)
    classifier = None
    if reading.project_metadata:
        sources, classifier = categorise_local(sources)
    comp = compare(sources, classifier)
    names = select(comp, table.only_differences, table.categories, table.params)
    if defaults is not None:
        from paramdiff.comparison.running_vehicle import (
            changes_from_defaults,  # (diff A B never needs the layers)
        )

        names = changes_from_defaults(comp, names)
        differs = bool(names)
    else:  # exit 1: the README's exit code for differences; the table says which
        differs = any(comp.rows[n].status.disagrees for n in names)
    return Shown(render(comp, table.fmt, names, None), differs=differs)
