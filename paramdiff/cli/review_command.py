"""`paramdiff review`: what this branch changes since a base revision."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import write_outputs

if TYPE_CHECKING:
    from paramdiff.project import Project


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
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.review.branch import review_files

    write_outputs(review_files(options, base, fmt, output))
