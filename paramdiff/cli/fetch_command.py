"""`paramdiff fetch`: fetch, verify and lock the files pins name."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from paramdiff.cli import options as opt
from paramdiff.cli.output import echo_lines

if TYPE_CHECKING:
    from paramdiff.project import Project


@click.command("fetch")
@opt.location
@opt.profile("Only this profile (default: every profile).")
@opt.pin("Only this pin (default: every pin, as check checks every pin).")
@click.option("--update", is_flag=True, help="Re-resolve refs and show old → new commits.")
def fetch(options: Project, profile: str | None, pin: str | None, update: bool) -> None:
    """Fetch and verify the files a pin names; write sources.lock.

    With neither --profile nor --pin, every pin of every profile, so one command locks the
    whole project; with --profile alone, every pin of that profile (what `check --profile`
    checks); with --pin alone, every profile that has that pin.

    Bound: at most 4 downloads at a time, and all of them together within one deadline,
    retries and waits included (120 s; PARAMDIFF_HTTP_DEADLINE=SECONDS sets it). The first
    download that fails stops the others. Each wait before a retry is printed on stderr;
    a host that does not resolve or refuses the connection fails at once (offline? read a
    mirror: --mirror DIR|URL or PARAMDIFF_MIRROR).
    """
    # the job's stack is imported when the command runs: --help lists it without (cli/lazy.py)
    from paramdiff.jobs.fetch import fetch_project

    echo_lines(fetch_project(options, profile, pin, update))
