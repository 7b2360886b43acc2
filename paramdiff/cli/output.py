"""Where a command's lines go: click.echo (flushed, so stdout and stderr keep their order and
a reader that left is noticed inside the error boundary), with control characters made visible
to a terminal and a pipe alike (render/safe_text.py); the file sinks; warnings on stderr."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING

import click

from paramdiff.render.safe_text import visible
from paramdiff.render.sinks import Output, Outputs, emit

if TYPE_CHECKING:  # pymavlink's import costs ~140 ms: only pull and verify pay it
    from paramdiff.vehicle.mavlink_pull import Progress

ECHO_BATCH = 1 << 16  # characters per write: click.echo flushes on every call


def echo(text: str, err: bool = False, nl: bool = True) -> None:
    """One write of ``text`` (a control character in it shows as its escape, ``\\x1b``)."""
    click.echo(visible(text), err=err, nl=nl)


def echo_lines(lines: Iterable[str]) -> None:
    """Print lines as they come, ~64 KB per write (a line of `diff` over a thousand files can
    be 100 KB, so the batch is counted in characters); what was produced before an error is
    still printed (before the error's message)."""
    batch: list[str] = []
    size = 0
    try:
        for line in lines:
            batch.append(line)
            size += len(line) + 1
            if size >= ECHO_BATCH:
                echo("\n".join(batch))
                batch.clear()
                size = 0
    finally:
        if batch:
            echo("\n".join(batch))


def progress(line: str) -> None:
    """A note on stderr while a command waits (before a download is retried): a note that
    cannot be written (stderr closed) never fails the download."""
    if sys.stderr is not None:
        with contextlib.suppress(OSError, ValueError):  # ValueError: a closed file
            echo(line, err=True)


def terminal_progress() -> Progress | None:
    """pull_progress, only when stderr is a terminal (verify's, whose stderr a CI log keeps)."""
    if sys.stderr is None or not sys.stderr.isatty():
        return None
    return pull_progress()


def pull_progress() -> Progress | None:
    """A pull's progress on stderr (``received/total``), throttled by count, not by clock:
    on a terminal one line rewritten in place at each 1%; elsewhere (a CI log, a pipe) a
    line at each 10%, so 18,500 parameters are ten lines, not silence nor 18,500 lines.
    Both end with the last parameter."""
    if sys.stderr is None:
        return None
    tty = sys.stderr.isatty()
    shown = [-1]  # the last step shown

    def show(received: int, total: int) -> None:
        step = received * (100 if tty else 10) // max(total, 1)
        if step == shown[0] and received < total:
            return
        shown[0] = step
        if tty:
            end = "\n" if received >= total else ""
            click.echo(f"\rparameters: {received}/{total}{end}", err=True, nl=False)
        else:
            click.echo(f"parameters: {received}/{total}", err=True)

    return show


def warn(message: str | None) -> None:
    """A warning on stderr, so it never mixes with output written to stdout."""
    if message:
        echo(f"warning: {message}", err=True)


def write_output(lines: Iterable[str], output: Output, check: bool) -> None:
    """The one sink switch: stdout, --check against a file, or an atomic write; status lines
    ("… written") go to stderr."""
    for text, status in emit(lines, output, check):
        echo(text, err=status, nl=False)


def write_outputs(outputs: Outputs, check: bool = False) -> None:
    """A library call's outputs (render/sinks.Outputs): its warnings, each file (``check``:
    --check against it), then its failure raised."""
    for message in outputs.warnings:
        warn(message)
    for lines, target in outputs.files:
        if target is None:
            echo_lines(lines)
        else:
            write_output(lines, target, check)
    if outputs.failure is not None:
        raise outputs.failure
