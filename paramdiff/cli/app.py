"""The `paramdiff` group: every command, loaded when it runs; ``main``, which runs one
inside the error boundary and returns its exit code; and ``console``, the `paramdiff` console
script and `python -m paramdiff`, which exits with it."""

from __future__ import annotations

import contextlib
import gc
import sys
from collections.abc import Iterator
from typing import Any, NoReturn

import click

from paramdiff.cli.boundary import ClosedStdout, carried, guarded, open_closed_descriptors
from paramdiff.cli.lazy import LazyGroup

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 120}

# In the order a project meets them: each command's module and attribute (relative to
# paramdiff.cli), imported when the command runs or the help lists it.
COMMANDS = {
    "fetch": ".fetch_command:fetch",
    "show": ".show_command:show",
    "diff": ".diff_command:diff",
    "compare": ".compare_command:compare",
    "derive": ".derive_command:derive",
    "report": ".report_command:report",
    "check": ".check_command:check",
    "review": ".review_command:review",
    "init": ".init_command:init",
    "layers": ".layers_command:layers",
    "validate": ".validate_command:validate",
    "pull": ".pull_command:pull_command",
    "verify": ".verify_command:verify",
    "history": ".history_command:history",
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


# A command builds tens of thousands of objects that live until it ends (the command's
# modules as they are imported, parsed sources and metadata, derived files and reports) and
# makes few cycles: at CPython's default threshold (a collection every 700 net allocations)
# the cycle collector traversed them again and again — `check`: ~120 collections, 11-14 ms
# of its imports and 13-21 ms of its work. At this threshold none runs in a `check` of the
# four pins; peak memory +0.7 MB there, +0.2 MB on `diff` (docs/performance.md). freqtrade
# (freqtrade/util/gc_setup.py) raises it for the same reason.
GC_THRESHOLD = (100_000, 20, 20)


@contextlib.contextmanager
def rare_collections() -> Iterator[None]:
    """The cycle collector at GC_THRESHOLD while a command runs, as it was afterwards (a
    caller of ``main`` in the same process keeps its own)."""
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLD)
    try:
        yield
    finally:
        gc.set_threshold(*before)


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
        with rare_collections():
            return guarded(lambda: _run(sys.argv[1:] if argv is None else list(argv), prog))
    finally:
        if closed:
            sys.stdout = None  # type: ignore[assignment]


def console(prog: str = "paramdiff") -> NoReturn:
    """The process's command line: ``main``, then exit with its code.

    What the run made (the parsed sources, ~1,400 rows, the metadata, every module) is frozen
    first: the interpreter's finalization otherwise walks all of it for cycles, ~25 ms of a
    0.26 s `compare three-way` and ~10 ms of a `diff` (measured 2026-12-02, a process's exit
    timed from its last line); the memory goes back with the process. ``main`` stays free of it:
    the tests run it many times in one process.
    """
    code = main(prog=prog)
    gc.freeze()
    sys.exit(code)
