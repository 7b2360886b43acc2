"""`paramdiff review`: what this branch changes since a base revision."""

from __future__ import annotations

from pathlib import Path

import click

from ..check.review import review as review_since
from ..check.review import review_output
from ..errors import DriftError
from ..project import Project
from ..render.review import render_json, render_markdown
from . import options as opt
from .output import echo_lines, write_output


@click.command("review")
@click.argument("base", required=False, metavar="BASE")
@opt.location
@opt.output_format(
    ["markdown", "json"],
    "markdown",
    "markdown (at most 60,000 characters: fits a PR comment) or json (everything).",
)
@click.option("-o", "--output", type=opt.OUTPUT_FILE, metavar="FILE", help="Write to FILE.")
def review(options: Project, base: str | None, fmt: str, output: Path | None) -> None:
    """What this branch changes since BASE (default: the merge base with the default branch).

    Per profile: roles moved, upstream parameters changed, overlay deltas added, removed or
    stale, derived lines changed with their reasons, reboots needed. Exit 1 when something
    needs attention (a stale delta, lock, derived file or report).
    """
    target = review_output(options, output) if output is not None else None
    result = review_since(options, base)
    lines = render_json(result) if fmt == "json" else render_markdown(result, base)
    if target is None:
        echo_lines(lines)
    else:
        write_output(lines, target, False)
    if result.needs_attention:
        items = [*result.attention, *(a for p in result.profiles for a in p.attention)]
        raise DriftError([a.what for a in items], "see the review")
