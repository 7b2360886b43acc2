"""`paramdiff validate`: a parameter file against the pin's metadata."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import echo_lines

if TYPE_CHECKING:
    from paramdiff.pin import Pin


@click.command("validate")
@opt.pin_context
@click.argument("file", type=opt.EXISTING_FILE, metavar="FILE")
@opt.lenient()
@click.option("--strict", is_flag=True, help="Fail on range/enum/bitmask warnings too.")
def validate(pin: Pin, file: Path, lenient: bool, strict: bool) -> None:
    """Check FILE against the pin's metadata: unknown names, range, enum, bitmask, read-only."""
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs.validate import validate_file

    echo_lines(validate_file(pin, file, lenient, strict))
