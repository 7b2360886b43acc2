"""`paramdiff history`: a parameter's value at every upstream commit that changed it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import echo_lines

if TYPE_CHECKING:
    from paramdiff.pin import Pin


@click.command("history")
@opt.pin_context
@click.argument("param", metavar="PARAM")
@click.option("--role", default="hardware", show_default=True, help="Which source's file.")
def history(pin: Pin, param: str, role: str) -> None:
    """PARAM (a name or glob) at every upstream commit that changed the role's file."""
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs.history import history_lines

    echo_lines(history_lines(pin, role, param))
