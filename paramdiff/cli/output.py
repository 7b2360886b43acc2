"""Where a command's lines go: click.echo (flushed, so stdout and stderr keep their order and
a reader that left is noticed inside the error boundary; terminal control sequences dropped
when the stream is not a terminal), the file sinks, warnings on stderr."""

from __future__ import annotations

from collections.abc import Iterable

import click

from ..render.sinks import Output, emit

ECHO_BATCH = 1 << 16  # characters per write: click.echo flushes on every call


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
                click.echo("\n".join(batch))
                batch.clear()
                size = 0
    finally:
        if batch:
            click.echo("\n".join(batch))


def warn(message: str | None) -> None:
    """A warning on stderr, so it never mixes with output written to stdout."""
    if message:
        click.echo(f"warning: {message}", err=True)


def write_output(lines: Iterable[str], output: Output, check: bool) -> None:
    """The one sink switch: stdout, --check against a file, or an atomic write; status lines
    ("… written") go to stderr."""
    for text, status in emit(lines, output, check):
        click.echo(text, err=status, nl=False)
