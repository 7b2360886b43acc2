"""The options several commands share, as decorators (as pip-tools' scripts/options.py keeps
them): where the project, cache and upstream are; which profile and pin; which rows of a table
and its format; how to read local files; where a generated file goes.

A group of options a command receives as one value (``options: Project``, ``pin:
Pin``, ``table: TableOptions``) is one decorator that adds the options and builds the
value before the command runs.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from paramdiff.cli.output import progress
from paramdiff.comparison.side_by_side import FORMATS as TABLE_FORMATS
from paramdiff.comparison.side_by_side import TableOptions
from paramdiff.errors import UsageError
from paramdiff.files import missing_file_problem
from paramdiff.vehicle import PULL_TIMEOUT

if TYPE_CHECKING:
    # Imported where the options are built: `diff`, `show` and `--help` build no project,
    # and paramdiff.pin brings every stage (measured 2026-12-02: `diff A B` imports 0.27 s
    # less, ~0.26 s -> ~0.12 s, where the target is 1.1x mavparmdiff's ~0.13 s).
    from paramdiff.pin import Pin
    from paramdiff.project import Project

F = TypeVar("F", bound=Callable[..., Any])

# --------------------------------------------------------------------------- value types


class Directory(click.Path):
    """A directory option's value: a path that, if it exists, is not a regular file (one
    Error line naming it, not click's usage). Completes as a directory."""

    def __init__(self, label: str) -> None:
        super().__init__(file_okay=False, path_type=Path)
        self.label = label  # how the refusal names the option (and its variable)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        if os.path.isfile(value):
            raise UsageError(
                f"{self.label} names a file, not a directory", "name a directory", file=str(value)
            )
        return Path(value)


class ExistingFile(click.Path):
    """A file argument that must exist: a missing one, or a directory, is one Error line.
    Completes as a file."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        path = Path(value)
        problem = missing_file_problem(path)
        if problem is not None:
            fix = "point the link at a real file" if "symlink" in problem else "check the path"
            raise UsageError(problem, fix, file=str(value))
        if path.is_dir():
            raise UsageError("is a directory, not a file", "name a file", file=str(value))
        return path


class OutputFile(click.Path):
    """-o: a file to write ('-' for stdout); a directory is refused in one Error line.
    Completes as a file."""

    def __init__(self) -> None:
        super().__init__(dir_okay=False, allow_dash=True, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        path = Path(value)
        if str(path) != "-" and path.is_dir():
            raise UsageError(
                "-o names a directory, not a file", "name the file to write", file=str(path)
            )
        return path


EXISTING_FILE = ExistingFile()


def _gathered(
    decorators: list[Callable[[Any], Any]], name: str, build: Callable[..., Any], keys: list[str]
) -> Callable[[F], F]:
    """A decorator adding ``decorators``' options; the command receives them as one value,
    ``name=build(**those options' values)``."""

    def decorate(f: F) -> F:
        @functools.wraps(f)  # keeps the options decorators below already put on f
        def run(**kw: Any) -> Any:
            kw[name] = build(**{k: kw.pop(k) for k in keys})
            return f(**kw)

        for option in reversed(decorators):
            run = option(run)
        return run  # type: ignore[return-value]

    return decorate


# --------------------------------------------------------------------------- where things are

_LOCATION = [
    click.option(
        "--root",
        type=Directory("--root"),
        default=".",
        show_default=True,
        metavar="DIR",
        help="Project root holding sources.yaml.",
    ),
    click.option(
        "--cache-dir",
        type=Directory("--cache-dir (or PARAMDIFF_CACHE)"),
        envvar="PARAMDIFF_CACHE",
        show_envvar=True,
        metavar="DIR",
        help="Cache directory.",
    ),
    click.option(
        "--mirror",
        envvar="PARAMDIFF_MIRROR",
        show_envvar=True,
        metavar="DIR|URL",
        help="Read upstream from a mirror (MANIFEST.json + raw/) instead of the network.",
    ),
    click.option(
        "--transport",
        type=click.Choice(["https", "git", "mirror"]),
        help="Override every source's transport (mirror needs --mirror).",
    ),
    click.option(
        "--git-base",
        envvar="PARAMDIFF_GIT_BASE",
        show_envvar=True,
        metavar="URL",
        help="Base URL for git (ls-remote, git transport); file:// allowed here.",
    ),
    click.option("--offline", is_flag=True, help="Use the cache only; never the network."),
]
_LOCATION_KEYS = ["root", "cache_dir", "mirror", "transport", "git_base", "offline"]


def _options(**location: Any) -> Project:
    from paramdiff.project import Project  # see TYPE_CHECKING above: not for diff/show

    return Project(**location, progress=progress)


# --root, --cache-dir, --mirror, --transport, --git-base, --offline: ``options: Project``
location = _gathered(_LOCATION, "options", _options, _LOCATION_KEYS)

PROFILE_HELP = "Vehicle profile (default: the first in sources.yaml)."
PIN_HELP = "Pin to use (default: the profile's default_pin)."


def profile(help: str = PROFILE_HELP) -> Callable[[F], F]:
    """--profile; ``help`` says what leaving it out means for this command."""
    return click.option("--profile", metavar="PROFILE", help=help)


def pin(help: str = PIN_HELP) -> Callable[[F], F]:
    """--pin; ``help`` says what leaving it out means for this command."""
    return click.option("--pin", metavar="PIN", help=help)


class Seconds(click.ParamType):
    """A duration in seconds: finite, at least 1 (click's FloatRange lets nan and 1e400 by)."""

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        if not math.isfinite(seconds) or seconds < 1:
            self.fail(f"{value!r} is not a number of seconds from 1 up", param, ctx)
        return seconds


# pull and verify: how long a pull from a vehicle may take
pull_timeout = click.option(
    "--timeout",
    type=Seconds(),
    default=PULL_TIMEOUT,
    show_default=True,
    metavar="SECONDS",
    help="The whole pull, connection to last parameter.",
)


def _pin_context(profile: str | None, pin: str | None, **location: Any) -> Pin:
    from paramdiff.pin import Pin  # see TYPE_CHECKING above: not for diff/show

    return Pin(_options(**location), profile, pin)


# the location options, --profile and --pin: ``pin: Pin``
pin_context = _gathered(
    [*_LOCATION, profile(), pin()], "pin", _pin_context, [*_LOCATION_KEYS, "profile", "pin"]
)

# --------------------------------------------------------------------------- tables


def output_format(choices: Sequence[str], default: str, help: str) -> Callable[[F], F]:
    """--format: one of ``choices`` (the command receives it as ``fmt``)."""
    return click.option(
        "--format", "fmt", type=click.Choice(choices), default=default, show_default=True, help=help
    )


_TABLE = [
    click.option("--only-differences", is_flag=True, help="Hide rows where all agree."),
    click.option(
        "--category",
        "categories",
        multiple=True,
        metavar="CATEGORY",
        help="Only this category (sources.yaml's categories; repeatable).",
    ),
    click.option(
        "--param",
        "params",
        multiple=True,
        metavar="GLOB",
        help="Only names matching GLOB (e.g. 'SERVO*'; repeatable).",
    ),
    output_format(TABLE_FORMATS, "text", "Table format."),
]

# --only-differences, --category, --param, --format: ``table: TableOptions``
table = _gathered(
    _TABLE, "table", TableOptions, ["only_differences", "categories", "params", "fmt"]
)

# What a table's cells mean, for the epilog of every command that prints one.
TABLE_LEGEND = (
    "In the table: — the file could set this parameter but does not; n/r: not representable, "
    "the file cannot express this parameter (a Gazebo model sets only what its plugin reads); "
    "[RO] after a value: set with @READONLY (ArduPilot then refuses to change it)."
)

# --------------------------------------------------------------------------- local files


def input_options(f: F) -> F:
    """How to read local files: their format, where their BlueOS %include paths may lead,
    whether bad lines are warnings."""
    for option in reversed(
        [
            click.option(
                "--input-format",
                type=click.Choice(["auto", "params", "mp", "qgc", "blueos", "sdf"]),
                default="auto",
                show_default=True,
                help="How to read the files.",
            ),
            click.option(
                "--root",
                "include_root",
                type=Directory("--root"),
                metavar="DIR",
                help="Directory every BlueOS %include must stay in (default: the file's git "
                "work tree, else its own directory).",
            ),
            lenient("Keep going past bad lines (as warnings)."),
        ]
    ):
        f = option(f)
    return f


# show and diff: read local files with the metadata the project here pins for their firmware
project_metadata = click.option(
    "--project-metadata",
    is_flag=True,
    help="Read the files with the metadata the project in the current folder pins for the "
    "firmware their headers name (display names, value labels, categories), when the cache "
    "holds it. Without it the rows are uncategorised (reading the project costs ~0.2 s).",
)


def lenient(help: str = "Turn bad lines into warnings.") -> Callable[[F], F]:
    return click.option("--lenient", is_flag=True, help=help)


# --------------------------------------------------------------------------- generated files

OUTPUT_FILE = OutputFile()


def output(default: str) -> Callable[[F], F]:
    """-o and --check for a generated file whose default path is the profile's ``default``."""

    def decorate(f: F) -> F:
        f = click.option(
            "--check", is_flag=True, help="Exit 1 with a diff if the file is out of date."
        )(f)
        return click.option(
            "-o",
            "--output",
            type=OUTPUT_FILE,
            metavar="PATH",
            help=f"Where to write (default: the profile's {default} path). '-' for stdout.",
        )(f)

    return decorate
