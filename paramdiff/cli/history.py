"""`paramdiff history`: a parameter's value at every upstream commit that changed it."""

from __future__ import annotations

import click

from ..jobs.history import history_lines
from ..pin import Pin
from . import options as opt
from .output import echo_lines


@click.command("history")
@opt.pin_context
@click.argument("param", metavar="PARAM")
@click.option("--role", default="hardware", show_default=True, help="Which source's file.")
def history(pin: Pin, param: str, role: str) -> None:
    """PARAM (a name or glob) at every upstream commit that changed the role's file."""
    echo_lines(history_lines(pin, role, param))
