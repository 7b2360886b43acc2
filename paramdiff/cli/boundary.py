"""The one error boundary: every command, and the parsing of its options, runs inside
``guarded``, which maps what was raised to the exit code and the one `Error:` line.

0 ok · 1 drift/differences found by a check · 2 usage or input error (click's usage errors
too) · 3 a bug · 130 interrupted · 141 the reader of stdout left (`| head`), or stdout was closed
(`>&-`): nobody reads what the command writes.
"""

from __future__ import annotations

import errno
import io
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from paramdiff.errors import (
    ECHO_LIMIT,
    INTERNAL_ERROR_EXIT,
    ParamdiffError,
    internal_error_line,
    quote,
)
from paramdiff.render.safe_text import visible

READER_LEFT_EXIT = 141  # 128 + SIGPIPE, as a shell reports `cat big | head`
INTERRUPTED_EXIT = 130  # 128 + SIGINT
USAGE_EXIT = 2


class Carried(Exception):
    """An exception click itself would handle (a broken pipe becomes exit 1 in click's
    ``main``, an interrupt an ``Abort`` after a blank line), carried through click to
    ``guarded``, which raises it again."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(original)
        self.original = original


@contextmanager
def carried() -> Iterator[None]:
    """Carry a broken pipe or an interrupt past click's own handlers (see Carried)."""
    try:
        yield
    except (BrokenPipeError, KeyboardInterrupt) as exc:
        raise Carried(exc) from exc


class MissingCommand(click.UsageError):
    """A group given no command: its whole help is shown, then one Error line."""

    def __init__(self, ctx: click.Context) -> None:
        super().__init__("name a command", ctx)


def _say(text: str) -> None:
    """One line on stderr, control characters made visible (render/safe_text.py)."""
    click.echo(visible(text), err=True)


def guarded(run: Callable[[], int | None]) -> int:
    """Run ``run`` inside the one error boundary; returns the exit code."""
    try:
        try:
            return run() or 0
        except Carried as exc:
            raise exc.original from None
    except ParamdiffError as exc:
        for line in getattr(exc, "details", ()):  # a check's findings, then one Error line
            _say(line)
        _say(f"Error: {exc}")
        return exc.exit_code
    except click.UsageError as exc:  # click's: the usage (or a group's help), one Error line
        return _usage_error(exc)
    except click.ClickException as exc:
        _say(f"Error: {exc.format_message()}")
        return exc.exit_code
    except BrokenPipeError:  # the reader left (`| head`): stop quietly, as cat would
        _silence_stdout()
        return READER_LEFT_EXIT
    except OSError as exc:  # a file boundary the library did not name itself
        where = f"{quote(str(exc.filename), ECHO_LIMIT)}: " if exc.filename else ""
        _say(f"Error: {where}{exc.strerror or exc} — check the path")
        return USAGE_EXIT
    except (KeyboardInterrupt, click.Abort):  # Abort: click's word for an interrupt
        _say("Error: interrupted")
        return INTERRUPTED_EXIT
    except Exception as exc:  # a bug: never exit 1, which means "drift found"
        _say(internal_error_line(exc))
        return INTERNAL_ERROR_EXIT


def _usage_error(exc: click.UsageError) -> int:
    """One Error line naming the help to read (a group given no command shows its help
    first: there is nothing else to say)."""
    ctx = exc.ctx
    if ctx is not None and isinstance(exc, MissingCommand):
        _say(ctx.get_help())
    prog = ctx.command_path if ctx is not None else "paramdiff"
    what = exc.format_message().rstrip(".")  # click's sentences end in a full stop
    _say(f"Error: {what} — see '{prog} --help'")
    return USAGE_EXIT


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so exiting does not fail flushing it."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # closed, or not a file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


class ClosedStdout(io.TextIOBase):
    """sys.stdout when the process started with it closed (`>&-`): a write is a reader that
    left (141), not an AttributeError on None (which was exit 3)."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise BrokenPipeError(errno.EPIPE, "stdout is closed")


def open_closed_descriptors() -> None:
    """Give a standard descriptor the process started without (`>&-`, `2>&-`) /dev/null, so
    the next file opened is not taken for it (a git child would write into a derived file
    opened as descriptor 1). sys.stdout/sys.stderr stay as Python made them (None)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: this one
