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
            type=click.Choice(["https", "git"]),
            help="Override every source's transport.",
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
    """Fetch and verify the files a pin names; write sources.lock.

    Without --profile: every profile that has --pin (or every pin of every profile
    when --pin is not given either), so one command locks the whole project.
    """
    from tabulate import tabulate

    from .fetch import fetch_targets
    from .project import blueos_includes

    opts = _options(kw)
    config = opts.config
    targets = config.fetch_targets(kw["profile"], kw["pin"])
    results = fetch_targets(
        config, targets, opts.cache, opts.transports(), update=update, includes=blueos_includes
    )
    headers = ["role", "source", "path", "size", "status"]
    if update:
        headers.append("update")
    for result in results:
        click.echo(f"{result.profile} {result.pin}:")
        click.echo(tabulate(result.table(update), headers=headers, tablefmt="simple"))
        if update:
            from .history import update_hint

            for line in update_hint(opts, result):
                click.echo(line)
    written = any(r.lock_written for r in results)
    click.echo("sources.lock " + ("written" if written else "unchanged"))


# --------------------------------------------------------------------------- show / diff / compare


def table_options(f: Callable[..., Any]) -> Callable[..., Any]:
    opts = [
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
    for opt in reversed(opts):
        f = opt(f)
    return f


def _print_comparison(comp: Any, fmt: str, title: str | None, **kw: Any) -> None:
    from .comparison import render, select

    names = select(comp, kw["only_differences"], tuple(kw["categories"]), tuple(kw["params"]))
    _echo_lines(render(comp, fmt, names, title))


def input_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """How to read local files: their format, and whether bad lines are warnings."""
    f = click.option("--lenient", is_flag=True, help="Keep going past bad lines (as warnings).")(f)
    return click.option(
        "--input-format",
        type=click.Choice(["auto", "params", "mp", "qgc", "blueos", "sdf"]),
        default="auto",
        show_default=True,
    )(f)


@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@input_options
@click.option(
    "--as",
    "as_format",
    type=click.Choice(["params", "mp", "qgc"]),
    help="Write the parsed rows back out in this format instead of a table.",
)
@table_options
@handle_errors
def show(file: Path, input_format: str, lenient: bool, as_format: str | None, **kw: Any) -> None:
    """One file's normalized table (params, Mission Planner, QGC, BlueOS or SDF)."""
    from .comparison import compare
    from .formats import write_rows
    from .localfiles import local_source

    src = local_source(file, input_format, lenient)
    if as_format:
        _echo_lines(write_rows(src.file.params.values(), as_format))
        return
    _print_comparison(compare([src]), kw.pop("fmt"), None, **kw)


@main.command()
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@input_options
@table_options
@handle_errors
def diff(files: tuple[Path, ...], input_format: str, lenient: bool, **kw: Any) -> None:
    """N-way compare of local files (params or SDF), like mavparmdiff."""
    from .comparison import compare
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


@compare.command("pins")
@click.argument("pins", nargs=-1, required=True)
@click.option(
    "--role", default="hardware", show_default=True, help="Which source to follow across pins."
)
@click.option("--profile", help="Vehicle profile (default: the first in sources.yaml).")
@location_options
@table_options
@handle_errors
def pins(pins: tuple[str, ...], role: str, **kw: Any) -> None:
    """One role's file across pins, e.g. `compare pins 4.6 4.7`: what changed."""
    from .project import compare_pins

    if len(pins) < 2:
        raise click.UsageError("give at least two pins, e.g. paramdiff compare pins 4.6 4.7")
    profile = kw.pop("profile")
    comp = compare_pins(_options(kw), profile, list(pins), role)
    title = f"{role} across pins " + " vs ".join(pins)
    _print_comparison(comp, kw.pop("fmt"), title, **kw)


# ------------------------------------------------------------------ derive / report / check


def _emit(lines: Iterable[str], target: Path | None, check: bool, fix: str, label: str) -> None:
    """The one sink switch: stdout, --check against a file, or an atomic write."""
    from .errors import DriftError
    from .sinks import check_file, join_lines, write_atomic

    if target is None:
        _echo_lines(lines)
        return
    if check:
        result = check_file(target, lines, label)
        if not result.up_to_date:
            click.echo(result.diff, nl=False)
            raise DriftError([f"{label} is out of date"], f"run: {fix}")
        click.echo(f"{label} is up to date")
        return
    written = write_atomic(target, join_lines(lines).encode())
    click.echo(f"{label} {'written' if written else 'unchanged'}")


def output_options(default: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """-o and --check for a generated file whose default path is the profile's ``default``."""

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        f = click.option(
            "--check", is_flag=True, help="Exit 1 with a diff if the file is out of date."
        )(f)
        return click.option(
            "-o",
            "--output",
            type=click.Path(dir_okay=False, path_type=Path),
            help=f"Where to write (default: the profile's {default} path). '-' for stdout.",
        )(f)

    return decorate


@main.command()
@pin_options
@output_options("derived")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["params", "mp", "qgc"]),
    default="params",
    show_default=True,
    help="params (sim_vehicle/MAVProxy), mp (Mission Planner), qgc.",
)
@handle_errors
def derive(output: Path | None, fmt: str, check: bool, **kw: Any) -> None:
    """Write the SITL parameter file: hardware + overlay, with provenance."""
    from .derive import build, render
    from .errors import ConfigError

    ctx = _context(kw)
    d = build(ctx)
    profile = ctx.profile
    if output is None and ctx.pin != profile.default_pin and not profile.derived_is_per_pin():
        # One committed derived file per profile: it belongs to the default pin.
        raise ConfigError(
            f"{d.target} is pin {profile.default_pin}'s file (the profile's default_pin)",
            f"give -o PATH (or -o -) for pin {ctx.pin}, or put {{pin}} in the profile's "
            "derived path in sources.yaml",
        )
    target, label = _target(ctx.options.root, output, d.target if fmt == "params" else None)
    fix = (
        d.regenerate
        + (f" --format {fmt}" if fmt != "params" else "")
        + (f" -o {output}" if output and str(output) != "-" else "")
    )
    _emit(render(d, fmt), target, check, fix, label)


def _target(root: Path, output: Path | None, default: str | None) -> tuple[Path | None, str]:
    if output is not None and str(output) == "-":
        return None, "-"
    if output is not None:
        return output, str(output)
    if default is None:
        raise click.UsageError("give -o PATH (or -o - for stdout) for this format")
    return root / default, default


@main.command()
@pin_options
@output_options("report")
@handle_errors
def report(output: Path | None, check: bool, **kw: Any) -> None:
    """Write the markdown report for a pull request."""
    from .derive import build
    from .report import gather, render_report

    ctx = _context(kw)
    d = build(ctx)
    target, label = _target(ctx.options.root, output, ctx.profile.report_path(ctx.pin))
    fix = f"paramdiff report --profile {ctx.profile.name} --pin {ctx.pin}"
    _emit(render_report(gather(ctx, d)), target, check, fix, label)


@main.command()
@pin_options
@click.option(
    "--model",
    "models",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Also check this Gazebo model's channels against the derived file.",
)
@click.option("--all-profiles", is_flag=True, hidden=True)  # the default; kept for old scripts
@handle_errors
def check(models: tuple[Path, ...], all_profiles: bool, **kw: Any) -> None:
    """Everything CI needs: lock, overlay, derived file, report, models, layers.

    Without --profile: every profile (at --pin where it has it, else its default pin).
    """
    from .check import run_check
    from .errors import DriftError
    from .project import PinContext

    opts = _options(kw)
    profiles = opts.config.profiles
    if kw["profile"] is None and models and len(profiles) > 1:
        raise click.UsageError("--model needs --profile: name the vehicle the model simulates")
    if kw["profile"] is not None and not all_profiles:
        contexts = [PinContext(opts, kw["profile"], kw["pin"])]
    else:
        pin = kw["pin"]
        contexts = [
            PinContext(opts, name, pin if pin in p.pins else None) for name, p in profiles.items()
        ]
    findings: list[str] = []
    fixes: list[str] = []
    for ctx in contexts:
        outcome = run_check(ctx, list(models))
        for line in outcome.passed:
            click.echo(f"ok    {ctx.profile.name} {ctx.pin}: {line}")
        for line in outcome.warnings:
            click.echo(f"warn  {ctx.profile.name} {ctx.pin}: {line}")
        for diff in outcome.diffs:
            click.echo(diff, nl=False)
        findings += [f"{ctx.profile.name} {ctx.pin}: {f}" for f in outcome.findings]
        fixes += [f for f in outcome.fixes if f not in fixes]
    if findings:
        raise DriftError(findings, "; ".join(fixes))
    click.echo("check passed")


@main.command()
@pin_options
@click.option("--frame", help="sim_vehicle.py frame (default: the profile's sitl_frame).")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@handle_errors
def layers(frame: str | None, files: tuple[Path, ...], **kw: Any) -> None:
    """What SITL actually runs: frame defaults, then each FILE (default: the derived file)."""
    from .derive import build
    from .layers import (
        excluded_categories,
        frame_sources,
        render_layers,
        stack,
        unchosen,
    )
    from .localfiles import local_source

    ctx = _context(kw)
    frame, frame_srcs = frame_sources(ctx, frame)
    d = build(ctx)
    added = [local_source(f, role=f.as_posix()) for f in files] or [d.source]
    result = stack([*frame_srcs, *added], frame, ctx.profile.frames[frame])
    flags, _ = unchosen(ctx, result, excluded_categories(d))
    _echo_lines(render_layers(result, flags))


@main.command()
@pin_options
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--lenient", is_flag=True)
@click.option("--strict", is_flag=True, help="Fail on range/enum/bitmask warnings too.")
@handle_errors
def validate(file: Path, lenient: bool, strict: bool, **kw: Any) -> None:
    """Check FILE against the pin's metadata: unknown names, range, enum, bitmask, read-only."""
    from .errors import DriftError
    from .localfiles import local_source
    from .validate import validate as do_validate

    ctx = _context(kw)
    meta = ctx.metadata
    if meta is None:
        raise click.UsageError("the pin declares no metadata (format: pdef) role")
    src = local_source(file, lenient=lenient)
    problems = do_validate(src.file, meta, ctx.classifier())
    for w in src.file.warnings:
        click.echo(f"warning: {w}")
    for p in problems:
        if p.severity != "error" and not strict:
            click.echo(f"warning: {p}")
    problems = [p for p in problems if strict or p.severity == "error"]
    if problems:
        raise DriftError([str(p) for p in problems], f"correct these values in {file}")
    click.echo(f"{file}: {len(src.file.params)} parameters valid for {meta.file}")


@main.command()
@pin_options
@click.argument("param")
@click.option("--role", default="hardware", show_default=True)
@handle_errors
def history(param: str, role: str, **kw: Any) -> None:
    """PARAM (a name or glob) at every upstream commit that changed the role's file."""
    from tabulate import tabulate

    from .history import history as do_history

    opts = _options(kw)
    rows = do_history(opts, kw["profile"], kw["pin"], role, param)
    click.echo(
        tabulate(
            rows,
            headers=["commit", "date", "subject", param],
            tablefmt="simple",
            disable_numparse=True,
        )
    )


if __name__ == "__main__":  # pragma: no cover
    main()
