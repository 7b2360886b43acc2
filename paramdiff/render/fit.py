"""A plain-text table made to fit a terminal: the widest columns wrapped onto continuation
lines until the table is at most ``width`` columns (#31: fetch's status column, verify's
likely cause and three-way's display names made tables of 150-190 columns).

The rows come back as more rows (a wrapped cell's next lines under it, the other cells of
those lines blank), so any table writer lays them out; nothing is cut.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence

WIDTH = 100  # the widest a text table may be
GAP = 2  # blanks between two columns (render/texttable.py's layout)
NARROWEST = 8  # a column is never wrapped narrower than this


class _Wrapper(textwrap.TextWrapper):
    # A path breaks after a '/', a word list after its blank: each chunk is a word, a run of
    # blanks, or a path part with its slash.
    wordsep_re = wordsep_simple_re = re.compile(r"(\s+|[^\s/]+/+|[^\s/]+|/+)")


def fitted_widths(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> list[int]:
    """Each column's width once the widest are narrowed, one character at a time, until the
    whole table (with its gaps) is at most ``width``, or every column is at NARROWEST or at
    its header."""
    widths = [max([len(h) + 2, *(len(str(row[i])) for row in rows)]) for i, h in enumerate(headers)]
    floor = [max(NARROWEST, len(h) + 2) for h in headers]
    budget = width - GAP * (len(headers) - 1)
    while sum(widths) > budget:
        i = max(range(len(widths)), key=lambda c: widths[c] - floor[c])
        if widths[i] <= floor[i]:
            break
        widths[i] -= 1
    return widths


def fit_rows(
    headers: Sequence[str], rows: Sequence[Sequence[str]], width: int = WIDTH
) -> list[list[str]]:
    """``rows`` with each cell longer than its fitted width wrapped onto the rows below it."""
    widths = fitted_widths(headers, rows, width)
    out: list[list[str]] = []
    for row in rows:
        cells = [str(c) for c in row]
        if all(len(c) <= w for c, w in zip(cells, widths, strict=True)):
            out.append(cells)
            continue
        wrapped = [
            _Wrapper(w, break_on_hyphens=False).wrap(c) or [""] if len(c) > w else [c]
            for c, w in zip(cells, widths, strict=True)
        ]
        for k in range(max(map(len, wrapped))):
            out.append([lines[k] if k < len(lines) else "" for lines in wrapped])
    return out
