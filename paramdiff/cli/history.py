"""`paramdiff history`: a parameter's value at every upstream commit that changed it."""

from __future__ import annotations

import click

from ..project import PinContext
from ..render.texttable import table
from . import options as opt
from .output import echo_lines


@click.command("history")
@opt.pin_context
@click.argument("param", metavar="PARAM")
@click.option("--role", default="hardware", show_default=True, help="Which source's file.")
def history(pin: PinContext, param: str, role: str) -> None:
    """PARAM (a name or glob) at every upstream commit that changed the role's file."""
    rows = pin.history(role, param)
    echo_lines(table(["commit", "date", "subject", param], rows, markdown=False))
