"""The command line: parse options, call one library function, choose the sink.

0 ok · 1 drift/differences found by a check · 2 usage or input error · 3 a bug.
Every command runs inside ``ParamdiffGroup.invoke``, the one error boundary. Heavy modules
(pandas, requests, git) are imported inside the commands that need them.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .errors import INTERNAL_ERROR_EXIT, ParamdiffError, internal_error_line

if TYPE_CHECKING:
    from .project import Options, PinContext

TABLE_FORMATS = ("text", "markdown", "csv", "json")


class ParamdiffGroup(click.Group):
    """The one error boundary: every command, present and future, runs inside it."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ParamdiffError as exc:
            for line in getattr(exc, "details", ()):  # a check's findings, then one Error line
                click.echo(line, err=True)
            click.echo(f"Error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except BrokenPipeError:  # the reader left (`| head`): stop quietly, as cat would
            _silence_stdout()
            sys.exit(141)
        except OSError as exc:  # a file boundary the library did not name itself
            where = f"{exc.filename}: " if exc.filename else ""
            click.echo(f"Error: {where}{exc.strerror or exc} — check the path", err=True)
            sys.exit(2)
        except KeyboardInterrupt:
            click.echo("Error: interrupted", err=True)
            sys.exit(130)
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except Exception as exc:  # a bug: never exit 1, which means "drift found"
            click.echo(internal_error_line(exc), err=True)
            sys.exit(INTERNAL_ERROR_EXIT)


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so exiting does not fail flushing it."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


ECHO_BATCH = 1 << 16  # characters per write: click.echo flushes on every call


def _echo_lines(lines: Iterable[str]) -> None:
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


# --------------------------------------------------------------------------- option groups


def _option_group(
    wrapper: Callable[..., Any], f: Callable[..., Any], decorators: list[Any]
) -> Callable[..., Any]:
    """``wrapper`` (which turns a group of options into one typed argument of ``f``) with
    ``f``'s name, help and other options, and the group's options on top."""
    functools.update_wrapper(wrapper, f)
    for d in reversed(decorators):
        wrapper = d(wrapper)
    return wrapper


def _location(f: Callable[..., Any]) -> Callable[..., Any]:
    """Where the project, cache and upstream files are: becomes ``options: Options``."""
    decorators = [
        click.option(
            "--root",
            type=click.Path(file_okay=False, path_type=Path),
            default=".",
            show_default=True,
            help="Project root holding sources.yaml.",
        ),
        click.option(
            "--cache-dir",
            type=click.Path(file_okay=False, path_type=Path),
            envvar="PARAMDIFF_CACHE",
            help="Cache directory [env PARAMDIFF_CACHE].",
        ),
        click.option(
            "--mirror",
            envvar="PARAMDIFF_MIRROR",
            metavar="DIR|URL",
            help="Read upstream from a mirror (MANIFEST.json + raw/) instead of the "
            "network [env PARAMDIFF_MIRROR].",
        ),
        click.option(
            "--transport",
            type=click.Choice(["https", "git", "mirror"]),
            help="Override every source's transport (mirror needs --mirror).",
        ),
        click.option(
            "--git-base",
            envvar="PARAMDIFF_GIT_BASE",
            metavar="URL",
            help="Base URL for git (ls-remote, git transport); file:// allowed here "
            "[env PARAMDIFF_GIT_BASE].",
        ),
        click.option("--offline", is_flag=True, help="Use the cache only; never the network."),
    ]

    def wrapper(**kw: Any) -> Any:
        from .project import Options

        kw["options"] = Options(
            root=kw.pop("root"),
            cache_dir=kw.pop("cache_dir"),
            mirror=kw.pop("mirror"),
            transport=kw.pop("transport"),
            git_base=kw.pop("git_base"),
            offline=kw.pop("offline"),
        )
        return f(**kw)

    return _option_group(wrapper, f, decorators)


def _profile_pin(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--pin", help="Pin to use (default: the profile's default_pin).")(f)
    f = click.option("--profile", help="Vehicle profile (default: the first in sources.yaml).")(f)
    return _location(f)


def _pin_context(f: Callable[..., Any]) -> Callable[..., Any]:
    """--profile/--pin plus location options: becomes ``pin: PinContext``."""

    def wrapper(options: Options, profile: str | None, pin: str | None, **kw: Any) -> Any:
        from .project import PinContext

        return f(pin=PinContext(options, profile, pin), **kw)

    functools.update_wrapper(wrapper, f)
    return _profile_pin(wrapper)


@dataclass(frozen=True)
class TableOptions:
    only_differences: bool
    categories: tuple[str, ...]
    params: tuple[str, ...]
    fmt: str


def _table(f: Callable[..., Any]) -> Callable[..., Any]:
    """Which rows and which format: becomes ``table: TableOptions``."""
    decorators = [
        click.option("--only-differences", is_flag=True, help="Hide rows where all agree."),
        click.option("--category", "categories", multiple=True, help="Only this category."),
        click.option(
            "--param",
            "params",
            multiple=True,
            metavar="GLOB",
            help="Only names matching GLOB (e.g. 'SERVO*').",
        ),
        click.option(
            "--format", "fmt", type=click.Choice(TABLE_FORMATS), default="text", show_default=True
        ),
    ]

    def wrapper(**kw: Any) -> Any:
        kw["table"] = TableOptions(
            kw.pop("only_differences"), kw.pop("categories"), kw.pop("params"), kw.pop("fmt")
        )
        return f(**kw)

    return _option_group(wrapper, f, decorators)


def _input(f: Callable[..., Any]) -> Callable[..., Any]:
    """How to read local files: their format, whether bad lines are warnings, and where
    their BlueOS %include paths may lead."""
    f = click.option("--lenient", is_flag=True, help="Keep going past bad lines (as warnings).")(f)
    f = click.option(
        "--root",
        "include_root",
        type=click.Path(file_okay=False, path_type=Path),
        help="Directory every BlueOS %include must stay in (default: the file's git work "
        "tree, else its own directory).",
    )(f)
    return click.option(
        "--input-format",
        type=click.Choice(["auto", "params", "mp", "qgc", "blueos", "sdf"]),
        default="auto",
        show_default=True,
    )(f)


def _output_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """-o naming a directory is one Error line (click's own refusal prints its usage too)."""
    if value is not None and str(value) != "-" and value.is_dir():
        from .errors import UsageError

        raise UsageError(
            "-o names a directory, not a file", "name the file to write", file=str(value)
        )
    return value


OUTPUT_FILE = click.Path(path_type=Path)  # a directory is refused by _output_file, in one line


def _output(default: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """-o and --check for a generated file whose default path is the profile's ``default``."""

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        f = click.option(
            "--check", is_flag=True, help="Exit 1 with a diff if the file is out of date."
        )(f)
        return click.option(
            "-o",
            "--output",
            type=OUTPUT_FILE,
            callback=_output_file,
            help=f"Where to write (default: the profile's {default} path). '-' for stdout.",
        )(f)

    return decorate


def _print_comparison(comp: Any, table: TableOptions, title: str | None) -> list[str]:
    """Print the selected rows; returns their names."""
    from .render.comparison import render
    from .stages.compare import select

    names = select(comp, table.only_differences, table.categories, table.params)
    _echo_lines(render(comp, table.fmt, names, title))
    return names


def _warn(message: str | None) -> None:
    """A warning on stderr, so it never mixes with output written to stdout."""
    if message:
        click.echo(f"warning: {message}", err=True)


def _emit(lines: Iterable[str], output: Any, check: bool) -> None:
    """The one sink switch: stdout, --check against a file, or an atomic write."""
    from .render.sinks import emit

    for text, status in emit(lines, output, check):
        click.echo(text, nl=False, err=status)


# --------------------------------------------------------------------------- commands


@click.group(cls=ParamdiffGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="paramdiff")
def main() -> None:
    """Pinned, auditable ArduPilot parameter sets for SITL.

    fetch → compare → overlays → derive → report → check.
    """


@main.command()
@_profile_pin
@click.option("--update", is_flag=True, help="Re-resolve refs and show old → new commits.")
def fetch(options: Options, profile: str | None, pin: str | None, update: bool) -> None:
    """Fetch and verify the files a pin names; write sources.lock.

    Without --profile: every profile that has --pin (or every pin of every profile
    when --pin is not given either), so one command locks the whole project.
    """
    from .project import fetch_project

    _echo_lines(fetch_project(options, profile, pin, update))


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_input
@click.option(
    "--as",
    "as_format",
    type=click.Choice(["params", "mp", "qgc"]),
    help="Write the parsed rows back out in this format instead of a table.",
)
@_table
def show(
    file: Path,
    input_format: str,
    lenient: bool,
    include_root: Path | None,
    as_format: str | None,
    table: TableOptions,
) -> None:
    """One file's normalized table (params, Mission Planner, QGC, BlueOS or SDF)."""
    from .model.types import qgc_types
    from .parse.local import local_source
    from .parse.params import write_rows
    from .stages.compare import compare

    src = local_source(file, input_format, lenient, root=include_root)
    if as_format:
        qgc = qgc_types(src.file.params.values()) if as_format == "qgc" else None
        _warn(qgc.warning() if qgc else None)
        _echo_lines(write_rows(src.file.params.values(), as_format, qgc.types if qgc else None))
        return
    _print_comparison(compare([src]), table, None)


@main.command()
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@_input
@_table
def diff(
    files: tuple[Path, ...],
    input_format: str,
    lenient: bool,
    include_root: Path | None,
    table: TableOptions,
) -> None:
    """N-way compare of local files (params or SDF), like mavparmdiff.

    Exits 1 when any row shown differs (differs, only in, missing in), 0 when none does.
    """
    from .parse.local import local_sources
    from .stages.compare import compare

    if len(files) < 2:
        raise click.UsageError("give at least two files")
    comp = compare(local_sources(files, input_format, lenient, include_root))
    names = _print_comparison(comp, table, None)
    if any(comp.rows[n].status.disagrees for n in names):
        sys.exit(1)  # the README's exit code for differences; the table says which


@main.group(cls=ParamdiffGroup)
def compare() -> None:
    """Compare the pinned sources of a profile."""


@compare.command("three-way")
@_profile_pin
@click.option("--lenient", is_flag=True, help="Turn bad lines into warnings.")
@_table
def three_way(
    options: Options, profile: str | None, pin: str | None, lenient: bool, table: TableOptions
) -> None:
    """hardware vs sitl vs sitl_models for a pin."""
    from .project import THREE_WAY, PinContext

    ctx = PinContext(options, profile, pin, lenient=lenient)
    title = f"{ctx.profile.name} {ctx.pin}: hardware vs sitl vs sitl_models"
    _print_comparison(ctx.compare(list(THREE_WAY)), table, title)


@compare.command("pins")
@click.argument("pins", nargs=-1, required=True)
@click.option(
    "--role", default="hardware", show_default=True, help="Which source to follow across pins."
)
@click.option("--profile", help="Vehicle profile (default: the first in sources.yaml).")
@_location
@_table
def pins(
    options: Options, pins: tuple[str, ...], role: str, profile: str | None, table: TableOptions
) -> None:
    """One role's file across pins, e.g. `compare pins 4.6 4.7`: what changed."""
    from .project import compare_pins

    if len(pins) < 2:
        raise click.UsageError("give at least two pins, e.g. paramdiff compare pins 4.6 4.7")
    comp = compare_pins(options, profile, list(pins), role)
    _print_comparison(comp, table, f"{role} across pins " + " vs ".join(pins))


@main.command()
@_pin_context
@_output("derived")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["params", "mp", "qgc"]),
    default="params",
    show_default=True,
    help="params (sim_vehicle/MAVProxy), mp (Mission Planner), qgc.",
)
def derive(pin: PinContext, output: Path | None, fmt: str, check: bool) -> None:
    """Write the SITL parameter file: hardware + overlay, with provenance."""
    from .render.params import derived_qgc_types, render

    if fmt == "qgc":
        _warn(derived_qgc_types(pin.derived).warning())
    _emit(render(pin.derived, fmt), pin.derived_output(output, fmt), check)


@main.command()
@_pin_context
@_output("report")
def report(pin: PinContext, output: Path | None, check: bool) -> None:
    """Write the markdown report for a pull request."""
    from .render.report import render_picture, render_report, svg_output

    inputs, target = pin.report_inputs(), pin.report_output(output)
    _emit(render_report(inputs), target, check)
    if target.path is not None:  # the top view goes next to the report that links it
        _emit(render_picture(inputs), svg_output(target), check)


@main.command()
@_profile_pin
@click.option(
    "--model",
    "models",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Also check this Gazebo model's channels against the derived file.",
)
@click.option("--all-profiles", is_flag=True, hidden=True)  # the default; kept for old scripts
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "github"]),
    default="text",
    show_default=True,
    help="github: each failure also as an ::error annotation on the file and line to fix.",
)
def check(
    options: Options,
    profile: str | None,
    pin: str | None,
    models: tuple[Path, ...],
    all_profiles: bool,
    fmt: str,
) -> None:
    """Everything CI needs: lock, overlay, derived file, report, models, layers.

    Without --profile: every profile (at --pin where it has it, else its default pin).
    """
    from .check import check_project

    profile = None if all_profiles else profile
    _echo_lines(check_project(options, profile, pin, list(models), annotate=fmt == "github"))


@main.command()
@click.argument("base", required=False)
@_location
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "json"]),
    default="markdown",
    show_default=True,
    help="markdown (at most 60,000 characters: fits a PR comment) or json (everything).",
)
@click.option("-o", "--output", type=OUTPUT_FILE, callback=_output_file, help="Write to FILE.")
def review(options: Options, base: str | None, fmt: str, output: Path | None) -> None:
    """What this branch changes since BASE (default: the merge base with the default branch).

    Per profile: roles moved, upstream parameters changed, overlay deltas added, removed or
    stale, derived lines changed with their reasons, reboots needed. Exit 1 when something
    needs attention (a stale delta, lock, derived file or report).
    """
    from .errors import DriftError
    from .files import write_atomic
    from .render.review import render_json, render_markdown
    from .render.sinks import join_lines
    from .review import review as do_review

    result = do_review(options, base)
    lines = render_json(result) if fmt == "json" else render_markdown(result, base)
    if output is None:
        _echo_lines(lines)
    else:
        write_atomic(output, join_lines(lines).encode())
    if result.needs_attention:
        items = [*result.attention, *(a for p in result.profiles for a in p.attention)]
        raise DriftError([a.what for a in items], "see the review")


@main.command()
@click.argument("profile")
@click.option(
    "--derived",
    metavar="PATH",
    help="Where the derived file goes in this repository (default: the profile's own path).",
)
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="Repository root to write sources.yaml in.",
)
def init(profile: str, derived: str | None, root: Path) -> None:
    """Start a project: sources.yaml and the overlay of a profile paramdiff ships.

    Never overwrites a file. Then: paramdiff fetch && paramdiff derive.
    """
    from .config.starter import starter, write_starter

    for rel in write_starter(root, starter(profile, derived)):
        click.echo(f"{rel} written")
    click.echo("next: paramdiff fetch && paramdiff derive && paramdiff report && paramdiff check")


@main.command()
@_pin_context
@click.option("--frame", help="sim_vehicle.py frame (default: the profile's sitl_frame).")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
def layers(pin: PinContext, frame: str | None, files: tuple[Path, ...]) -> None:
    """What SITL actually runs: frame defaults, then each FILE (default: the derived file)."""
    from .render.layers import render_layers

    _echo_lines(render_layers(*pin.layers(frame, list(files)), pin.metadata))


@main.command()
@_pin_context
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--lenient", is_flag=True)
@click.option("--strict", is_flag=True, help="Fail on range/enum/bitmask warnings too.")
def validate(pin: PinContext, file: Path, lenient: bool, strict: bool) -> None:
    """Check FILE against the pin's metadata: unknown names, range, enum, bitmask, read-only."""
    _echo_lines(pin.validate_file(file, lenient, strict))


@main.command()
@_pin_context
@click.argument("param")
@click.option("--role", default="hardware", show_default=True)
def history(pin: PinContext, param: str, role: str) -> None:
    """PARAM (a name or glob) at every upstream commit that changed the role's file."""
    from .render.texttable import table

    rows = pin.history(role, param)
    _echo_lines(table(["commit", "date", "subject", param], rows, markdown=False))


if __name__ == "__main__":  # pragma: no cover
    main()
