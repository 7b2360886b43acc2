"""`paramdiff show`: one file named on the command line, as a table or in another format."""

from __future__ import annotations

from pathlib import Path

from paramdiff.comparison.side_by_side import TableOptions, compare
from paramdiff.jobs.local import FILES_AS_THEY_ARE, Reading, Shown
from paramdiff.jobs.local_meta import categorise_local
from paramdiff.model.mavtypes import qgc_types
from paramdiff.parse.named_files import local_source
from paramdiff.parse.param_text import write_rows
from paramdiff.render.comparison import selected_lines


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
