"""A Comparison as text, markdown, CSV or JSON lines."""

from __future__ import annotations

import csv
import json
import textwrap
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from paramdiff.comparison.renames import Rename
from paramdiff.comparison.side_by_side import ABSENT, NR, Comparison, TableOptions, select
from paramdiff.model.params import READ_ONLY_MARK
from paramdiff.model.values import format_value
from paramdiff.render.fit import GAP, WIDTH, fit_rows
from paramdiff.render.texttable import TEXT_CELL_MAX, table


def _rows(comp: Comparison, names: list[str]) -> list[list[str]]:
    rows = comp.rows
    columns = [_column(comp, role, names) for role in comp.roles]
    out = []
    for name, cells in zip(names, zip(*columns, strict=True), strict=True):
        status, category, display_name = rows[name]
        out.append([comp.shown_name(name), *cells, str(status), category, display_name])
    return out


def _column(comp: Comparison, role: str, names: list[str]) -> list[str]:
    """``comp.cell(role, name)`` of every name: a role's lookups made once, not once a cell
    (the report's full table has ~4,100 cells: 2.8 -> 1.6 ms)."""
    source = comp.source(role)
    params, represent, renames = comp.params[role], source.file.can_represent, comp.renames
    meta = source.metadata or comp.metadata
    label = meta.label if meta else None
    out = []
    for name in names:
        param = params.get(name)
        if name in renames:  # an old name's value, converted: the whole rule
            out.append(comp.cell(role, name))
        elif param is None:
            out.append(ABSENT if represent(name) else NR)
        else:
            text = label(param.name, param.value) if label else format_value(param.value)
            out.append(text + READ_ONLY_MARK if param.read_only else text)
    return out


def _text_table(comp: Comparison, names: list[str]) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the plain-text table, for a terminal: each row under its current
    name (a rename's old name is listed below the table, so ``OLD → NEW`` never widens the name
    column), and no category column when one category holds every row (the count line says
    which). Cells are cut by ``table``; markdown, CSV and JSON keep both names and every cell.
    """
    rows, roles = comp.rows, comp.roles
    one_category = len({rows[n].category for n in names}) == 1
    headers = ["name", *roles, "status", *([] if one_category else ["category"])]
    columns = [_column(comp, role, names) for role in roles]
    out = []
    for name, cells in zip(names, zip(*columns, strict=True), strict=True):
        status, category, display_name = rows[name]
        if one_category:
            out.append([name, *cells, str(status), display_name])
        else:
            out.append([name, *cells, str(status), category, display_name])
    return [*headers, "display_name"], out


def _renamed_note(comp: Comparison, names: list[str]) -> Iterator[str]:
    renamed = [comp.shown_name(n) for n in names if comp.renamed_from(n)]
    if renamed:
        yield ""
        yield "Renamed (old name → the name shown; old values converted where a rule says how):"
        yield from (f"  {pair}" for pair in renamed)


def render(
    comp: Comparison,
    fmt: str = "text",
    names: list[str] | None = None,
    title: str | None = None,
    preamble: bool = True,
) -> Iterator[str]:
    """Lines of the comparison in ``fmt`` (text, markdown, csv, json).

    ``preamble=False`` leaves out the title, version lines and counts (the report has its own).
    """
    names = list(comp.rows) if names is None else names
    if fmt == "json":
        yield from _render_json(comp, names)
        return
    if fmt == "csv":
        yield from _render_csv(comp, names)
        return

    md = fmt == "markdown"
    if preamble:
        yield from _preamble(comp, names, title, md)
    if md:
        headers = ["name", *comp.roles, "status", "category", "display_name"]
        yield from table(headers, _rows(comp, names), md)
    else:
        headers, rows = _text_table(comp, names)
        full = headers
        headers, rows, cell_max = _fitted(headers, rows)
        yield from table(headers, rows, md, cell_max=cell_max)
        left_out = [h for h in ("display_name", "category") if h in full and h not in headers]
        yield from _legend(rows, cell_max, left_out)
        yield from _renamed_note(comp, names)
    if comp.facts:
        yield ""
        yield "### Not representable as parameters" if md else "Not representable as parameters:"
        yield ""
        facts = [[role, f.subject, f.key, f.value, f"{f.file}:{f.line}"] for role, f in comp.facts]
        headers = ["source", "subject", "key", "value", "where"]
        yield from table(headers, facts if md else fit_rows(headers, facts), md)
    overridden = [
        [r, name, f"{p.text} at {p.origin}", "; ".join(f"{t} at {o}" for o, t in p.overrides)]
        for r in comp.roles
        if any(p.overrides for p in comp.params[r].values())  # most sources: none
        for name in names
        if (p := comp.param(r, name)) is not None and p.overrides
    ]
    if overridden:
        yield ""
        title = "Set again by a later included file (the later setting wins)"
        yield f"### {title}" if md else f"{title}:"
        yield ""
        headers = ["source", "name", "wins", "replaced"]
        yield from table(headers, overridden if md else fit_rows(headers, overridden), md)
    if comp.warnings:
        yield ""
        yield "### Warnings" if md else "Warnings:"
        yield ""
        for role, w in comp.warnings:
            yield f"- {role}: {w}" if md else f"  {role}: {w}"  # file:line: kept whole


NARROWEST_CUT = 16  # shorter cuts hide value labels ("74 (ThrottleRight)" is 18)


def _width(headers: Sequence[str], longest: Sequence[int], cell_max: int) -> int:
    """The text table's width with its cells cut at ``cell_max`` (texttable.table's layout:
    a header and two blanks at least, the name column never cut), from each column's longest
    cell: a column cut at ``cell_max`` is as wide as the shorter of the two."""
    widths = [
        max(len(h) + 2, n if i == 0 else min(n, cell_max))
        for i, (h, n) in enumerate(zip(headers, longest, strict=True))
    ]
    return sum(widths) + GAP * (len(widths) - 1)


def _fitted(headers: list[str], rows: list[list[str]]) -> tuple[list[str], list[list[str]], int]:
    """The text table made to fit WIDTH columns (#31): without the display names (the last
    column), then without the category column, each only while the table is too wide, then
    with cells cut shorter, never below NARROWEST_CUT (markdown, CSV and JSON keep every
    column). Headers are never cut: a table of long file paths that cannot fit is left whole.
    Each column's cells are measured once (a three-way's 1,400 rows were measured for every
    width tried: 8 passes, ~20 ms)."""
    cell_max = TEXT_CELL_MAX
    if not rows:
        return headers, rows, cell_max
    longest = [max(map(len, column)) for column in zip(*rows, strict=True)]
    if _width(headers, longest, cell_max) <= WIDTH:
        return headers, rows, cell_max
    fitting = headers, rows
    # A value (with its label) says more than a display name: that goes first, whole cells
    # allowing; the category only where cutting cannot make the rest fit.
    for optional, cut in (("display_name", cell_max), ("category", NARROWEST_CUT)):
        if optional in headers and _width(headers, longest, cut) > WIDTH:
            i = headers.index(optional)
            headers = headers[:i] + headers[i + 1 :]
            longest = longest[:i] + longest[i + 1 :]
            rows = [row[:i] + row[i + 1 :] for row in rows]
    if _width(headers, longest, NARROWEST_CUT) > WIDTH:
        return *fitting, cell_max
    while _width(headers, longest, cell_max) > WIDTH:
        cell_max -= 1
    return headers, rows, cell_max


# What the marks of the text table mean (the report's status key says it in markdown).
LEGEND = {
    ABSENT: f"{ABSENT} a source that could set it but does not",
    NR: f"{NR} not representable: the source cannot express it",
}


def _legend(rows: Sequence[Sequence[str]], cell_max: int, left_out: Sequence[str]) -> Iterator[str]:
    """The lines under the text table naming each mark it shows (only those), what a cut cell
    looks like, and where the display names went when the table left them out to fit."""
    cells = {cell for row in rows for cell in row}
    notes = [LEGEND[m] for m in LEGEND if m in cells]
    if any(len(cell) > cell_max for cell in cells):
        notes.append(f"… cut at {cell_max} characters to fit {WIDTH} columns")
    if left_out:
        notes.append(f"{' and '.join(left_out)} left out to fit (--category NAME selects)")
    if any("cut" in n for n in notes) or left_out:
        notes.append("--format markdown, csv or json keeps every column whole")
    for i, note in enumerate(notes):
        yield ("key: " if i == 0 else "     ") + note


def _preamble(comp: Comparison, names: list[str], title: str | None, md: bool) -> Iterator[str]:
    if title:
        yield f"## {title}" if md else title
        yield ""
    # Text keeps the terminal width of the table; markdown (the report) lists twelve names.
    for line in comp.version_lines() if md else comp.version_lines(names_shown=5):
        yield f"- {line}" if md else textwrap.fill(line, WIDTH, subsequent_indent="  ")
    yield ""
    counts = Counter(comp.rows[n].status for n in names)
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    categories = {comp.rows[n].category for n in names}
    # The text table leaves out a category column every row shares: say it here once.
    shared = (
        f" (all in category {next(iter(categories))})" if len(categories) == 1 and not md else ""
    )
    counted = f"{len(names)} parameters shown{shared}: {summary or 'none'}"
    yield counted if md else textwrap.fill(counted, WIDTH, subsequent_indent="  ")
    yield ""


def _render_csv(comp: Comparison, names: list[str]) -> Iterator[str]:
    """A row at a time (``diff`` over a thousand files never holds the whole CSV)."""

    line = _LineBuffer()
    writer = csv.writer(line, lineterminator="\n")
    writer.writerow(["name", *comp.roles, "status", "category", "display_name", "renamed_from"])
    yield from line.take()
    for name in names:
        row = [name]
        for r in comp.roles:
            p = comp.param(r, name)
            row.append(format_value(p.value) if p else "")  # as the source states it
        status, category, display_name = comp.rows[name]
        old = comp.renamed_from(name)
        writer.writerow([*row, str(status), category, display_name, old.old if old else ""])
        yield from line.take()


class _LineBuffer:
    """What csv.writer writes, handed out as lines (a quoted cell may hold line breaks)."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> None:
        self.parts.append(text)

    def take(self) -> list[str]:
        text = "".join(self.parts)
        self.parts.clear()
        return text.splitlines()


def _render_json(comp: Comparison, names: list[str]) -> Iterator[str]:
    """The same bytes as ``json.dumps(document, indent=2)``, one list item at a time (``diff``
    over a thousand files never holds the whole document)."""
    head: dict[str, Any] = {
        "sources": [
            {
                "role": s.role,
                "file": s.file.file,
                "format": s.file.format,
                "repo": s.repo,
                "commit": s.commit,
                "sha256": s.sha256,
                "version": s.version,
                "metadata": s.metadata.file if s.metadata else None,
            }
            for s in comp.sources
        ],
        "versions": comp.version_lines(),
    }
    head_lines = json.dumps(head, indent=2).splitlines()
    yield from head_lines[:-2]
    yield head_lines[-2] + ","
    yield from _json_list("parameters", (_parameter_json(comp, n) for n in names), last=False)
    facts = (
        {
            "source": r,
            "subject": f.subject,
            "key": f.key,
            "value": f.value,
            "file": f.file,
            "line": f.line,
        }
        for r, f in comp.facts
    )
    yield from _json_list("facts", facts, last=False)
    warnings = (
        {"source": r, "file": w.file, "line": w.line, "message": w.message}
        for r, w in comp.warnings
    )
    yield from _json_list("warnings", warnings, last=True)
    yield "}"


_END = object()


def _json_list(key: str, items: Iterator[Any], last: bool) -> Iterator[str]:
    """A top-level key's list as ``json.dumps(..., indent=2)`` writes it, item by item."""
    end = "" if last else ","
    item = next(items, _END)
    if item is _END:
        yield f"  {json.dumps(key)}: []{end}"
        return
    yield f"  {json.dumps(key)}: ["
    while item is not _END:
        # ensure_ascii escapes every other line break: "\n" alone splits the text
        lines = ("    " + json.dumps(item, indent=2).replace("\n", "\n    ")).split("\n")
        item = next(items, _END)
        if item is not _END:
            lines[-1] += ","
        yield from lines
    yield f"  ]{end}"


def _parameter_json(comp: Comparison, name: str) -> dict[str, Any]:
    values = {r: _value_json(comp, r, name) for r in comp.roles}
    old = comp.renamed_from(name)
    return {
        "name": name,
        **({"renamed_from": _rename_json(old)} if old else {}),
        "values": values,
        "status": str(comp.rows[name].status),
        "category": comp.rows[name].category,
        "display_name": comp.rows[name].display_name,
    }


def _value_json(comp: Comparison, role: str, name: str) -> dict[str, Any] | str | None:
    p = comp.param(role, name)
    if p is None:
        return None if comp.source(role).file.can_represent(name) else NR
    return {
        "name": p.name,
        "value": p.value,
        **({"converted": comp.value(role, name)} if p.name != name else {}),
        "text": p.text,
        "label": comp.cell(role, name),
        "file": p.file,
        "line": p.line,
        **({"note": p.note} if p.note else {}),
        **({"read_only": True} if p.read_only else {}),
        **({"overrides": [f"{o} = {t}" for o, t in p.overrides]} if p.overrides else {}),
        **({"included_via": [str(o) for o in p.chain]} if p.chain else {}),
    }


def _rename_json(rename: Rename) -> dict[str, Any]:
    return {
        "name": rename.old,
        "since": rename.since,
        "conversion": rename.conversion.describe(),
        "source": rename.source,
    }


def selected_lines(comp: Comparison, table: TableOptions, title: str | None) -> Iterator[str]:
    """The rows ``table`` selects, in its format."""
    names = select(comp, table.only_differences, table.categories, table.params)
    return render(comp, table.fmt, names, title)
