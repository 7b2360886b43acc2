"""Plain-text and GitHub-markdown tables, fast enough for ~1,500 rows.

Plain text has tabulate's "simple" layout with number parsing off: every column is at least
its header plus two wide, cells are left-aligned, trailing blanks are dropped. tabulate 0.10
itself (``disable_numparse=True, preserve_whitespace=True``, lines stripped: the same text)
took 46 ms for a 1,400-row, six-column table where this takes 3.5 ms (docs/performance.md),
about 0.4x of the peer's whole run in `compare three-way`; small tables (fetch, layers) use
tabulate.

Markdown is the one markdown table writer of the package: no padding (a pull request comment
holds 65,536 characters and padding was most of the report), ``|`` escaped as ``\\|`` and line
breaks (CR, LF) as spaces in every cell, so a value can never split a row. The report and
``review`` both write through it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import compress, count
from operator import itemgetter

from paramdiff.render.safe_text import has_unsafe, visible


def _column_widths(rows: Sequence[Sequence[str]]) -> list[int]:
    """The longest cell of each column (one column at a time: a `diff` of a thousand files
    has a thousand columns)."""
    return [max(map(len, column)) for column in zip(*rows, strict=True)]


def _cut(
    rows: Sequence[Sequence[str]], widths: list[int], limit: int
) -> tuple[list[Sequence[str]], list[int]]:
    """``rows`` with every cell cut at ``limit``, and their widths: only the rows holding a
    long cell are copied, found column by column without a Python step per row."""
    long = [i for i, width in enumerate(widths) if width > limit]
    cut_rows: set[int] = set()
    for i in long:
        lengths = map(len, map(itemgetter(i), rows))
        cut_rows.update(compress(count(), map(limit.__lt__, lengths)))
    out = list(rows)
    for j in cut_rows:
        out[j] = [cut_cell(c, limit) for c in out[j]]
    widths = list(widths)
    for i in long:
        widths[i] = max(map(len, map(itemgetter(i), out)))
    return out, widths


def markdown_cell(text: str) -> str:
    """A cell (or any inline text) that cannot split a table row: ``|`` escaped, CR/LF blanked,
    no blanks at either end (metadata display names sometimes end in one), and ``<`` outside
    code spans written as ``&lt;``: GitHub drops what looks like an HTML tag (``<include>``
    vanished), and an overlay's reason must not open ``<details>`` or hide a comment marker."""
    flat = visible(str(text).replace("|", "\\|").replace("\r", " ").replace("\n", " ").strip())
    if "<" not in flat:  # most cells: nothing to escape (a report has ~10,000)
        return flat
    parts = flat.split("`")
    if len(parts) % 2 == 0:  # an unmatched backtick: no code span to keep
        return flat.replace("<", "&lt;")
    return "`".join(p if i % 2 else p.replace("<", "&lt;") for i, p in enumerate(parts))


def _visible_rows(rows: Sequence[Sequence[str]]) -> Sequence[Sequence[str]]:
    """``rows`` with control characters made visible before the cells are measured and cut;
    one search over every cell first (nearly every table has none), then only a row that has
    one is copied."""
    try:
        cells = ["".join(row) for row in rows]
    except TypeError:  # a cell that is not a str yet
        cells = ["".join(map(str, row)) for row in rows]
    if not has_unsafe("\t".join(cells)):
        return rows
    out = list(rows)
    for i, joined in enumerate(cells):
        if has_unsafe(joined):
            out[i] = [visible(str(c)) for c in rows[i]]
    return out


def markdown_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], empty: str = ""
) -> Iterator[str]:
    """A GitHub markdown table without padding; ``empty`` (if given) replaces a table with no
    rows."""
    if not rows and empty:
        yield empty
        return
    yield "| " + " | ".join(markdown_cell(h) for h in headers) + " |"
    yield "|" + "|".join("---" for _ in headers) + "|"
    for row in rows:
        yield "| " + " | ".join(_markdown_cells(row)) + " |"


def _markdown_cells(row: Sequence[str]) -> list[str]:
    """``markdown_cell`` of each cell; a row with no ``|``, CR, LF or ``<`` in any cell (most of
    them) only has its cells stripped, which is all markdown_cell would do (the BlueBoat's full
    table: 6 -> 0.7 ms)."""
    try:
        joined = "".join(row)
    except TypeError:  # a cell that is not a str yet
        return [markdown_cell(c) for c in row]
    if "|" in joined or "\r" in joined or "\n" in joined or "<" in joined:
        return [markdown_cell(c) for c in row]
    if has_unsafe(joined):  # a control character: markdown_cell makes it visible
        return [markdown_cell(c) for c in row]
    return [c.strip() for c in row]


# A plain-text cell is cut to this many characters (ending in …): one value with every bit
# label spelled out (ARMING_SKIPCHK) made the whole table 375 columns wide; at 24 the BlueBoat's
# three-way table is 132 (it was 179 at 30 with a category column). Markdown, CSV and JSON keep
# every cell whole; a parameter name (16 characters at most in ArduPilot) is never cut.
TEXT_CELL_MAX = 24


def cut_cell(cell: str, limit: int) -> str:
    """``cell`` at most ``limit`` characters, its end replaced by … when cut."""
    return cell if len(cell) <= limit else cell[: limit - 1] + "…"


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    markdown: bool,
    cell_max: int | None = None,
) -> Iterator[str]:
    """Lines of the table: aligned plain text (cells cut at ``cell_max``; None keeps them
    whole), or a GitHub markdown table (always whole)."""
    if markdown:
        yield from markdown_table(headers, rows)
        return
    headers = [visible(h) for h in headers]
    rows = _visible_rows(rows)
    widths = _column_widths(rows) if rows else [0] * len(headers)
    if cell_max is not None and max(widths, default=0) > cell_max:
        rows, widths = _cut(rows, widths, cell_max)
    widths = [max(w, len(h) + 2) for w, h in zip(widths, headers, strict=True)]
    # One format for every line: "{:<w}" pads as str.ljust does.
    line = "  ".join(f"{{:<{w}}}" for w in widths)
    yield line.format(*headers).rstrip()
    yield "  ".join("-" * w for w in widths)
    for row in rows:
        yield line.format(*row).rstrip()
