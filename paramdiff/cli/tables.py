"""A comparison's selected rows, printed in the table options' format."""

from __future__ import annotations

from ..render.comparison import render
from ..stages.compare import Comparison, select
from .options import TableOptions
from .output import echo_lines


def print_comparison(comp: Comparison, table: TableOptions, title: str | None) -> list[str]:
    """Print the rows ``table`` selects; returns their names."""
    names = select(comp, table.only_differences, table.categories, table.params)
    echo_lines(render(comp, table.fmt, names, title))
    return names
