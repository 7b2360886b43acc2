"""The `paramdiff` group: every command, loaded when it runs, and ``main``, which runs one
inside the error boundary and returns its exit code."""

from __future__ import annotations

import sys
from typing import Any

import click

from .boundary import ClosedStdout, carried, guarded, open_closed_descriptors
from .lazy import Lazy, LazyGroup

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 120}

# In the order a project meets them; each summary is its command's first help line, kept
# here (tests/test_cli_click.py keeps them equal) so `--help` imports no command. Measured
# (#20; non-editable install, median of 20 runs): `paramdiff --help` takes 58 ms with these
# summaries and 312 ms when each is read from its imported command (pull's and verify's
# pymavlink alone is ~115 ms, fetch's ~35 ms), far over the 5 ms that would pay for it.
COMMANDS = {
    "fetch": Lazy(".fetch:fetch", "Fetch and verify the files a pin names; write sources.lock."),
    "show": Lazy(
        ".show:show", "One file's normalized table (params, Mission Planner, QGC, BlueOS or SDF)."
    ),
    "diff": Lazy(".diff:diff", "N-way compare of local files (params or SDF), like mavparmdiff."),
    "compare": Lazy(".compare:compare", "Compare the pinned sources of a profile."),
    "derive": Lazy(
        ".derive:derive", "Write the SITL parameter file: hardware + overlay, with provenance."
    ),
    "report": Lazy(".report:report", "Write the markdown report for a pull request."),
    "check": Lazy(
        ".check:check",
        "Everything CI needs: lock, overlay, derived file, report, models, layers.",
    ),
    "review": Lazy(
        ".review:review",
        "What this branch changes since BASE (default: the merge base with the default branch).",
    ),
    "init": Lazy(
        ".init:init", "Start a project: sources.yaml and the overlay of a profile paramdiff ships."
    ),
    "layers": Lazy(
        ".layers:layers",
        "What SITL actually runs: frame defaults, then each FILE (default: the derived file).",
    ),
    "validate": Lazy(
        ".validate:validate",
        "Check FILE against the pin's metadata: unknown names, range, enum, bitmask, read-only.",
    ),
    "pull": Lazy(
        ".pull:pull_command",
        "Every parameter of a vehicle or running SITL, as a file (MAVLink, pymavlink).",
    ),
    "verify": Lazy(
        ".verify:verify",
        "Pull a running SITL's parameters and compare them with what its launch should run.",
    ),
    "history": Lazy(
        ".history:history",
        "PARAM (a name or glob) at every upstream commit that changed the role's file.",
    ),
}


class ParamdiffGroup(LazyGroup):
    """The program's group: a broken pipe or an interrupt, in parsing or in a command, is
    carried past click's own handling to the error boundary (see boundary.Carried)."""

    def make_context(self, *args: Any, **kw: Any) -> click.Context:
        with carried():
            return super().make_context(*args, **kw)

    def invoke(self, ctx: click.Context) -> Any:
        with carried():
            return super().invoke(ctx)


@click.group(cls=ParamdiffGroup, lazy=COMMANDS, context_settings=CONTEXT)
@click.version_option(package_name="paramdiff", message="%(prog)s, version %(version)s")
def paramdiff() -> None:
    """Pinned, auditable ArduPilot parameter sets for SITL.

    fetch → compare → overlays → derive → report → check.
    """


def _run(argv: list[str], prog: str) -> int | None:
    code = paramdiff.main(argv, prog_name=prog, standalone_mode=False)
    sys.stdout.flush()  # the help too reaches a reader that may have left (141)
    return code if isinstance(code, int) else None


def main(argv: list[str] | None = None, prog: str = "paramdiff") -> int:
    """`paramdiff ARGV...` (default: this process's arguments); returns the exit code."""
    open_closed_descriptors()
    closed = sys.stdout is None  # started with stdout closed (`>&-`)
    if closed:
        sys.stdout = ClosedStdout()
    try:
        return guarded(lambda: _run(sys.argv[1:] if argv is None else list(argv), prog))
    finally:
        if closed:
            sys.stdout = None  # type: ignore[assignment]
