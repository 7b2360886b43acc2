"""Plain-text and GitHub-markdown tables, fast enough for ~1,500 rows.

Plain text has tabulate's "simple" layout with number parsing off: every column is at least
its header plus two wide, cells are left-aligned, trailing blanks are dropped. tabulate infers a
type per cell, which costs more than the whole comparison on the BlueBoat's 1,400 rows.

Markdown is the one markdown table writer of the package: no padding (a pull request comment
holds 65,536 characters and padding was most of the report), ``|`` escaped as ``\\|`` and line
breaks (CR, LF) as spaces in every cell, so a value can never split a row. The report and
``review`` both write through it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence


def _widths(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    widths = [len(h) + 2 for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            if len(cell) > widths[i]:
                widths[i] = len(cell)
    return widths


def markdown_cell(text: str) -> str:
    """A cell (or any inline text) that cannot split a table row: ``|`` escaped, CR/LF blanked,
    no blanks at either end (metadata display names sometimes end in one), and ``<`` outside
    code spans written as ``&lt;``: GitHub drops what looks like an HTML tag (``<include>``
    vanished), and an overlay's reason must not open ``<details>`` or hide a comment marker."""
    flat = str(text).replace("|", "\\|").replace("\r", " ").replace("\n", " ").strip()
    parts = flat.split("`")
    if len(parts) % 2 == 0:  # an unmatched backtick: no code span to keep
        return flat.replace("<", "&lt;")
    return "`".join(p if i % 2 else p.replace("<", "&lt;") for i, p in enumerate(parts))


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
    if cell_max is not None:
        rows = [[cut_cell(c, cell_max) for c in row] for row in rows]
    widths = _widths(headers, rows)
    yield "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()
    yield "  ".join("-" * w for w in widths)
    for row in rows:
        yield "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
