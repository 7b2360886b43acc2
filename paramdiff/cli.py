"""The command line: parse options, call the library, map exceptions to exit codes.

0 ok · 1 drift/differences found by a check · 2 usage or input error.
Heavy modules (pandas, requests, git) are imported inside the commands that need them.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from .errors import ParamdiffError

TABLE_FORMATS = ("text", "markdown", "csv", "json")


def _echo_lines(lines: Iterable[str]) -> None:
    for line in lines:
        click.echo(line)


def location_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Where the project, cache and upstream files are."""
    options = [
        click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=".",
                     show_default=True, help="Project root holding sources.yaml."),
        click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path),
                     envvar="PARAMDIFF_CACHE", help="Cache directory [env PARAMDIFF_CACHE]."),
        click.option("--mirror", envvar="PARAMDIFF_MIRROR", metavar="DIR|URL",
                     help="Read upstream from a mirror (MANIFEST.json + raw/) instead of the "
                     "network [env PARAMDIFF_MIRROR]."),
        click.option("--transport", type=click.Choice(["https", "git"]),
                     help="Override every source's transport."),
        click.option("--git-base", envvar="PARAMDIFF_GIT_BASE", metavar="URL",
                     help="Base URL for git (ls-remote, git transport); file:// allowed here "
                     "[env PARAMDIFF_GIT_BASE]."),
        click.option("--offline", is_flag=True, help="Use the cache only; never the network."),
    ]
    for opt in reversed(options):
        f = opt(f)
    return f


def pin_options(f: Callable[..., Any]) -> Callable[..., Any]:
    f = click.option("--pin", help="Pin to use (default: the profile's default_pin).")(f)
    f = click.option("--profile", help="Vehicle profile (default: the first in sources.yaml).")(f)
    return location_options(f)


def _options(kw: dict[str, Any]) -> Any:
    from .project import Options

    return Options(
        root=kw.pop("root"),
        cache_dir=kw.pop("cache_dir"),
        mirror=kw.pop("mirror"),
        transport=kw.pop("transport"),
        git_base=kw.pop("git_base"),
        offline=kw.pop("offline"),
    )


def _context(kw: dict[str, Any]) -> Any:
    from .project import PinContext

    opts = _options(kw)
    return PinContext(opts, kw.pop("profile"), kw.pop("pin"))


def handle_errors(f: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except ParamdiffError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("Error: interrupted", err=True)
            sys.exit(130)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="paramdiff")
def main() -> None:
    """Pinned, auditable ArduPilot parameter sets for SITL.

    fetch → compare → overlays → derive → report → check.
    """


# --------------------------------------------------------------------------- fetch


@main.command()
@pin_options
@click.option("--update", is_flag=True, help="Re-resolve refs and show old → new commits.")
@handle_errors
def fetch(update: bool, **kw: Any) -> None:
    """Fetch and verify the files a pin names; write sources.lock."""
    from tabulate import tabulate

    from .fetch import fetch as do_fetch
    from .project import blueos_includes

    opts = _options(kw)
    config = opts.config
    profile = config.profile(kw["profile"])
    transports = opts.transports()
    result = do_fetch(
        config, profile, kw["pin"], opts.cache, transports, update=update, includes=blueos_includes
    )
    headers = ["role", "source", "path", "size", "status"]
    if update:
        headers.append("update")
    click.echo(f"{result.profile} {result.pin}:")
    click.echo(tabulate(result.table(update), headers=headers, tablefmt="simple"))
    if update:
        from .history import update_hint

        for line in update_hint(opts, result):
            click.echo(line)
    click.echo("sources.lock " + ("written" if result.lock_written else "unchanged"))


# --------------------------------------------------------------------------- show / diff / compare


def table_options(f: Callable[..., Any]) -> Callable[..., Any]:
    opts = [
        click.option("--only-differences", is_flag=True, help="Hide rows where all agree."),
        click.option("--category", "categories", multiple=True, help="Only this category."),
        click.option("--param", "params", multiple=True, metavar="GLOB",
                     help="Only names matching GLOB (e.g. 'SERVO*')."),
        click.option("--format", "fmt", type=click.Choice(TABLE_FORMATS), default="text",
                     show_default=True),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def _print_comparison(comp: Any, fmt: str, title: str | None, **kw: Any) -> None:
    from .compare import render, select

    names = select(comp, kw["only_differences"], tuple(kw["categories"]), tuple(kw["params"]))
    _echo_lines(render(comp, fmt, names, title))


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--input-format", type=click.Choice(["auto", "params", "mp", "qgc", "blueos", "sdf"]),
              default="auto", show_default=True)
@click.option("--lenient", is_flag=True, help="Keep going past bad lines (as warnings).")
@click.option("--as", "as_format", type=click.Choice(["params", "mp", "qgc"]),
              help="Write the parsed rows back out in this format instead of a table.")
@table_options
@handle_errors
def show(file: Path, input_format: str, lenient: bool, as_format: str | None, **kw: Any) -> None:
    """One file's normalized table (params, Mission Planner, QGC, BlueOS or SDF)."""
    from .compare import compare
    from .formats import write_rows
    from .localfiles import local_source

    src = local_source(file, input_format, lenient)
    if as_format:
        _echo_lines(write_rows(src.file.params.values(), as_format))
        return
    _print_comparison(compare([src]), kw.pop("fmt"), None, **kw)


@main.command()
@click.argument("files", nargs=-1, required=True,
                type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--input-format", type=click.Choice(["auto", "params", "mp", "qgc", "blueos", "sdf"]),
              default="auto", show_default=True)
@click.option("--lenient", is_flag=True, help="Keep going past bad lines (as warnings).")
@table_options
@handle_errors
def diff(files: tuple[Path, ...], input_format: str, lenient: bool, **kw: Any) -> None:
    """N-way compare of local files (params or SDF), like mavparmdiff."""
    from .compare import compare
    from .localfiles import local_sources

    if len(files) < 2:
        raise click.UsageError("give at least two files")
    sources = local_sources(files, input_format, lenient)
    _print_comparison(compare(sources), kw.pop("fmt"), None, **kw)


@main.group()
def compare() -> None:
    """Compare the pinned sources of a profile."""


@compare.command("three-way")
@pin_options
@click.option("--lenient", is_flag=True, help="Turn bad lines into warnings.")
@table_options
@handle_errors
def three_way(lenient: bool, **kw: Any) -> None:
    """hardware vs sitl vs sitl_models for a pin."""
    from .project import THREE_WAY

    ctx = _context(kw)
    ctx.lenient = lenient
    comp = ctx.compare(list(THREE_WAY))
    title = f"{ctx.profile.name} {ctx.pin}: hardware vs sitl vs sitl_models"
    _print_comparison(comp, kw.pop("fmt"), title, **kw)


if __name__ == "__main__":  # pragma: no cover
    main()
