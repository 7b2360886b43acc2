"""Plain-text and GitHub-markdown tables, fast enough for ~1,500 rows.

Same layout as tabulate's "simple" and "github" formats with number parsing off: every
column is at least its header plus two wide, cells are left-aligned, and trailing blanks
are dropped from plain-text lines. tabulate infers a type per cell, which costs more than
the whole comparison on the BlueBoat's 1,400 rows.
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


# A plain-text cell is cut to this many characters (ending in …): one value with every bit
# label spelled out (ARMING_SKIPCHK) made the whole table 375 columns wide. Markdown, CSV and
# JSON keep every cell whole.
TEXT_CELL_MAX = 30


def _cut(cell: str, limit: int) -> str:
    return cell if len(cell) <= limit else cell[: limit - 1] + "…"


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    markdown: bool,
    cell_max: int | None = None,
) -> Iterator[str]:
    """Lines of the table: aligned plain text (cells cut at ``cell_max``; None keeps them
    whole), or a GitHub markdown table (always whole)."""
    if not markdown and cell_max is not None:
        rows = [[_cut(c, cell_max) for c in row] for row in rows]
    widths = _widths(headers, rows)
    if markdown:
        yield "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)) + " |"
        yield "|" + "|".join("-" * (w + 2) for w in widths) + "|"
        for row in rows:
            yield "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
        return
    yield "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()
    yield "  ".join("-" * w for w in widths)
    for row in rows:
        yield "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
