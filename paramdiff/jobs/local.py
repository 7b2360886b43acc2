"""`diff` and `show`: files named on the command line, compared or shown (no pin)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from ..comparison.compare import TableOptions, compare, select
from ..errors import UsageError
from ..model.mavtypes import qgc_types
from ..parse.local import local_source, local_sources
from ..parse.params import write_rows
from ..render.comparison import render, selected_lines
from .local_meta import categorise_local


class Shown(NamedTuple):
    """What a command prints: its warnings (stderr) first, then its lines; ``differs``:
    exit 1 (a row shown differs)."""

    lines: Iterable[str]
    warnings: tuple[str, ...] = ()
    differs: bool = False


class Reading(NamedTuple):
    """How local files are read (``--format``, ``--lenient``, ``--include-root``) and
    whether the project in the current folder gives them metadata (``--project-metadata``)."""

    input_format: str = "auto"
    lenient: bool = False
    include_root: Path | None = None
    project_metadata: bool = False


FILES_AS_THEY_ARE = Reading()


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
        from ..derive.running import changes_from_defaults  # (diff A B never needs the layers)

        names = changes_from_defaults(comp, names)
        return Shown(render(comp, table.fmt, names, None), differs=bool(names))
    # exit 1: the README's exit code for differences; the table says which
    differs = any(comp.rows[n].status.disagrees for n in names)
    return Shown(render(comp, table.fmt, names, None), differs=differs)


def show_file(
    file: Path,
    table: TableOptions,
    reading: Reading = FILES_AS_THEY_ARE,
    as_format: str | None = None,
) -> Shown:
    """`paramdiff show`: one file's table, or (``as_format``) its rows written back out in
    another format, with QGC's warning of the names nothing pinned types."""
    src = local_source(file, reading.input_format, reading.lenient, root=reading.include_root)
    if as_format:
        rows = src.file.params.values()
        qgc = qgc_types(rows) if as_format == "qgc" else None
        warning = qgc.warning() if qgc else None
        lines = write_rows(rows, as_format, qgc.types if qgc else None)
        return Shown(lines, (warning,) if warning else ())
    sources, classifier = categorise_local([src]) if reading.project_metadata else ([src], None)
    return Shown(selected_lines(compare(sources, classifier), table, None))
