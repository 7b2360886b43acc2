"""The command line: parse options, call one library function, choose the sink.

0 ok · 1 drift/differences found by a check · 2 usage or input error (argparse's usage errors
too) · 3 a bug · 130 interrupted · 141 the reader of stdout left (`| head`).
Every command, and the parsing of its options, runs inside ``guarded``, the one error boundary.
Heavy modules (pandas, requests, git) are imported inside the commands that need them.

argparse (the standard library's), not click: a process that imports click takes ~20 ms
longer than one that imports argparse (measured in a clean venv: `python -c pass` 9.6 ms,
`import argparse` 16.4 ms, `import click` 35.8 ms), a third of the peer's whole
`mavparmdiff.py` run, which put the `diff A B` <= 0.8x target out of reach. Measured after the
port (interleaved medians, CPU ms): `--help` 50.8 → 31.3, `diff A B` 112.6 → 100.7.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

from .errors import INTERNAL_ERROR_EXIT, ParamdiffError, UsageError, internal_error_line

if TYPE_CHECKING:
    from pathlib import Path

    from .project import Options, PinContext

TABLE_FORMATS = ("text", "markdown", "csv", "json")


def guarded(run: Callable[[], int | None]) -> int:
    """The one error boundary: every command, present and future, runs inside it. Returns
    the exit code."""
    try:
        return run() or 0
    except ParamdiffError as exc:
        for line in getattr(exc, "details", ()):  # a check's findings, then one Error line
            _echo(line, err=True)
        _echo(f"Error: {exc}", err=True)
        return exc.exit_code
    except BrokenPipeError:  # the reader left (`| head`): stop quietly, as cat would
        _silence_stdout()
        return 141
    except OSError as exc:  # a file boundary the library did not name itself
        where = f"{exc.filename}: " if exc.filename else ""
        _echo(f"Error: {where}{exc.strerror or exc} — check the path", err=True)
        return 2
    except KeyboardInterrupt:
        _echo("Error: interrupted", err=True)
        return 130
    except Exception as exc:  # a bug: never exit 1, which means "drift found"
        _echo(internal_error_line(exc), err=True)
        return INTERNAL_ERROR_EXIT


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so exiting does not fail flushing it."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _write(text: str, err: bool = False) -> None:
    """Write and flush: stdout and stderr keep their order, and a reader that left is
    noticed here, inside the error boundary, not at exit. Control characters (from a file's
    name, a metadata label, ...) are made visible, to a terminal and a pipe alike
    (render/safe_text.py)."""
    from .render.safe_text import visible

    stream = sys.stderr if err else sys.stdout
    stream.write(visible(text))
    stream.flush()


def _echo(line: str, err: bool = False) -> None:
    _write(line + "\n", err)


ECHO_BATCH = 1 << 16  # characters per write: every write is flushed


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
                _echo("\n".join(batch))
                batch.clear()
                size = 0
    finally:
        if batch:
            _echo("\n".join(batch))


# --------------------------------------------------------------------------- option types


def _directory(option: str) -> Callable[[str], Path]:
    """A directory option's value: a path that, if it exists, is not a regular file."""

    def convert(text: str) -> Path:
        from pathlib import Path

        if os.path.isfile(text):
            raise UsageError(
                f"{option} names a file, not a directory", "name a directory", file=text
            )
        return Path(text)

    return convert


def _existing_file(text: str) -> Path:
    """A file argument that must exist: a missing one is one Error line naming it."""
    from pathlib import Path

    from .files import missing_file_problem

    path = Path(text)
    problem = missing_file_problem(path)
    if problem is not None:
        fix = "point the link at a real file" if "symlink" in problem else "check the path"
        raise UsageError(problem, fix, file=text)
    if path.is_dir():
        raise UsageError("is a directory, not a file", "name a file", file=text)
    return path


def _output_file(text: str) -> Path:
    """-o: a file to write ('-' for stdout); a directory is refused in one Error line."""
    from pathlib import Path

    path = Path(text)
    if str(path) != "-" and path.is_dir():
        raise UsageError(
            "-o names a directory, not a file", "name the file to write", file=str(path)
        )
    return path


# --------------------------------------------------------------------------- option groups

Arg = tuple[tuple[str, ...], dict[str, Any]]  # add_argument's names and keywords


def _arg(*names: str, **kw: Any) -> Arg:
    """One option or argument; ``env=NAME`` makes a non-empty $NAME its default."""
    return names, kw


def _flag(name: str, help: str | None = None) -> Arg:
    return _arg(name, action="store_true", help=help)


class OptionGroup:
    """Options a command receives as one typed value: ``build`` replaces their parsed values
    (a dict of dest → value) with it."""

    __slots__ = ("args", "build")

    def __init__(self, args: tuple[Arg, ...], build: Callable[[dict[str, Any]], None]) -> None:
        self.args, self.build = args, build


def _build_options(kw: dict[str, Any]) -> None:
    from .project import Options

    kw["options"] = Options(
        root=kw.pop("root"),
        cache_dir=kw.pop("cache_dir"),
        mirror=kw.pop("mirror"),
        transport=kw.pop("transport"),
        git_base=kw.pop("git_base"),
        offline=kw.pop("offline"),
    )


LOCATION = OptionGroup(  # where the project, cache and upstream files are: ``options: Options``
    (
        _arg(
            "--root",
            type=_directory("--root"),
            default=".",
            metavar="DIR",
            help="Project root holding sources.yaml. [default: .]",
        ),
        _arg(
            "--cache-dir",
            type=_directory("--cache-dir (or PARAMDIFF_CACHE)"),
            env="PARAMDIFF_CACHE",
            metavar="DIR",
            help="Cache directory [env PARAMDIFF_CACHE].",
        ),
        _arg(
            "--mirror",
            env="PARAMDIFF_MIRROR",
            metavar="DIR|URL",
            help="Read upstream from a mirror (MANIFEST.json + raw/) instead of the "
            "network [env PARAMDIFF_MIRROR].",
        ),
        _arg(
            "--transport",
            choices=["https", "git", "mirror"],
            help="Override every source's transport (mirror needs --mirror).",
        ),
        _arg(
            "--git-base",
            env="PARAMDIFF_GIT_BASE",
            metavar="URL",
            help="Base URL for git (ls-remote, git transport); file:// allowed here "
            "[env PARAMDIFF_GIT_BASE].",
        ),
        _flag("--offline", "Use the cache only; never the network."),
    ),
    _build_options,
)
PROFILE = _arg("--profile", help="Vehicle profile (default: the first in sources.yaml).")
PROFILE_PIN = (PROFILE, _arg("--pin", help="Pin to use (default: the profile's default_pin)."))


def _build_pin(kw: dict[str, Any]) -> None:
    from .project import PinContext

    _build_options(kw)
    kw["pin"] = PinContext(kw.pop("options"), kw.pop("profile"), kw.pop("pin"))


# --profile/--pin plus the location options: ``pin: PinContext``
PIN_CONTEXT = OptionGroup((*LOCATION.args, *PROFILE_PIN), _build_pin)


class TableOptions(NamedTuple):
    only_differences: bool
    categories: tuple[str, ...]
    params: tuple[str, ...]
    fmt: str


def _build_table(kw: dict[str, Any]) -> None:
    kw["table"] = TableOptions(
        kw.pop("only_differences"),
        tuple(kw.pop("categories") or ()),
        tuple(kw.pop("params") or ()),
        kw.pop("fmt"),
    )


TABLE = OptionGroup(  # which rows and which format: ``table: TableOptions``
    (
        _flag("--only-differences", "Hide rows where all agree."),
        _arg(
            "--category",
            dest="categories",
            action="append",
            metavar="CATEGORY",
            help="Only this category.",
        ),
        _arg(
            "--param",
            dest="params",
            action="append",
            metavar="GLOB",
            help="Only names matching GLOB (e.g. 'SERVO*').",
        ),
        _arg(
            "--format",
            dest="fmt",
            choices=TABLE_FORMATS,
            default="text",
            help="Table format. [default: text]",
        ),
    ),
    _build_table,
)

# How to read local files: their format, where their BlueOS %include paths may lead, whether
# bad lines are warnings.
INPUT = (
    _arg(
        "--input-format",
        choices=["auto", "params", "mp", "qgc", "blueos", "sdf"],
        default="auto",
        help="How to read the files. [default: auto]",
    ),
    _arg(
        "--root",
        dest="include_root",
        type=_directory("--root"),
        metavar="DIR",
        help="Directory every BlueOS %%include must stay in (default: the file's git work "
        "tree, else its own directory).",
    ),
    _flag("--lenient", "Keep going past bad lines (as warnings)."),
)


def _output(default: str) -> tuple[Arg, ...]:
    """-o and --check for a generated file whose default path is the profile's ``default``."""
    return (
        _arg(
            "-o",
            "--output",
            type=_output_file,
            metavar="PATH",
            help=f"Where to write (default: the profile's {default} path). '-' for stdout.",
        ),
        _flag("--check", "Exit 1 with a diff if the file is out of date."),
    )


# --------------------------------------------------------------------------- the command tree


class Command:
    """A command: its function (whose docstring is its help) and what it is given."""

    __slots__ = ("items", "run")

    def __init__(self, run: Callable[..., int | None], items: tuple[Arg | OptionGroup, ...]):
        self.run, self.items = run, items

    @property
    def doc(self) -> str:
        return _doc(self.run.__doc__)


class Group:
    """Commands under one name: the program's, `compare`'s."""

    __slots__ = ("commands", "doc", "version")

    def __init__(self, doc: str, version: bool = False) -> None:
        self.doc, self.version = doc, version  # version: whether --version is an option
        self.commands: dict[str, Command | Group] = {}


def _doc(text: str | None) -> str:
    """A docstring as the help shows it: without the source's indentation."""
    return "\n".join(line.strip() for line in (text or "").strip().splitlines())


def _command(
    group: Group, name: str, *items: Arg | OptionGroup
) -> Callable[[Callable[..., int | None]], Callable[..., int | None]]:
    def register(run: Callable[..., int | None]) -> Callable[..., int | None]:
        group.commands[name] = Command(run, items)
        return run

    return register


MAIN = Group(
    "Pinned, auditable ArduPilot parameter sets for SITL.\n\n"
    "fetch → compare → overlays → derive → report → check.",
    version=True,
)
COMPARE = Group("Compare the pinned sources of a profile.")


def _terminal_width() -> int:
    """shutil.get_terminal_size's columns ($COLUMNS, else stdout's terminal, else 80) without
    importing shutil, which brings zlib, bz2 and lzma: ~2 ms on every command (measured)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.RawDescriptionHelpFormatter):  # docstrings keep their lines
    """argparse's formatter, given the width argparse would compute (see _terminal_width);
    add_argument makes one per argument."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        width = _terminal_width() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors end as every other error does: the usage, then
    one `Error:` line naming the help to read; exit 2."""

    def error(self, message: str) -> NoReturn:
        from .render.safe_text import visible

        self.print_usage(sys.stderr)
        self.exit(2, visible(f"Error: {message} — see '{self.prog} -h'") + "\n")


def _parser(prog: str, description: str, **kw: Any) -> argparse.ArgumentParser:
    return _Parser(
        prog=prog,
        description=description,
        formatter_class=_Formatter,
        allow_abbrev=False,  # `--only` is not `--only-differences`
        **kw,
    )


class _Version(argparse.Action):
    """--version: the installed distribution's, looked up only when asked."""

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> None:
        from importlib.metadata import version

        _echo(f"{parser.prog}, version {version('paramdiff')}")
        parser.exit()


def _dispatch(group: Group, prog: str, argv: list[str]) -> int | None:
    """Follow command names down the tree and run the command they lead to. A group whose
    next word names none of its commands gets -h, --version or a usage error (given nothing:
    its help, as a usage error, exit 2)."""
    if argv and argv[0] in group.commands:
        child, prog = group.commands[argv[0]], f"{prog} {argv[0]}"
        if isinstance(child, Group):
            return _dispatch(child, prog, argv[1:])
        return _run(child, prog, argv[1:])
    parser = _group_parser(group, prog)
    parser.parse_args(argv)  # exits after -h, --version or a usage error
    parser.print_help(sys.stderr)
    _echo(f"Error: name a command — see '{prog} -h'", err=True)
    return 2


def _group_parser(group: Group, prog: str) -> argparse.ArgumentParser:
    """A group's options, and its commands listed with their first docstring line."""
    width = max(map(len, group.commands)) + 2
    listing = "".join(f"\n  {n:{width}}{c.doc.splitlines()[0]}" for n, c in group.commands.items())
    version = " [--version]" if group.version else ""
    usage = f"%(prog)s [-h]{version} COMMAND ..."
    parser = _parser(prog, group.doc, usage=usage, epilog=f"commands:{listing}")
    if group.version:
        parser.add_argument(
            "--version",
            action=_Version,
            nargs=0,
            default=argparse.SUPPRESS,
            help="Show the version and exit.",
        )
    parser.add_argument(
        "command",
        nargs="?",
        choices=list(group.commands),
        metavar="COMMAND",
        help=argparse.SUPPRESS,
    )
    return parser


def _run(command: Command, prog: str, argv: list[str]) -> int | None:
    """Parse a command's options and arguments (in any order, as click took them: `diff A
    --lenient B`), turn its option groups into their typed values, and run it."""
    parser = _parser(prog, command.doc)
    builds = []
    for item in command.items:
        for names, kw in item.args if isinstance(item, OptionGroup) else (item,):
            _add_argument(parser, names, kw)
        if isinstance(item, OptionGroup):
            builds.append(item.build)
    # Python 3.11's intermixed parsing loses a `--` between its two passes: after one, a
    # plain parse (file names after `--` may start with '-')
    parse = parser.parse_args if "--" in argv else parser.parse_intermixed_args
    parsed = vars(parse(argv))
    for build in builds:
        build(parsed)
    return command.run(**parsed)


def _add_argument(
    parser: argparse.ArgumentParser, names: tuple[str, ...], kw: dict[str, Any]
) -> None:
    """``parser.add_argument``; with ``env=NAME``, a non-empty $NAME is the default (an
    empty one counts as unset, as with click's envvar)."""
    env = kw.get("env")
    if env:
        kw = {k: v for k, v in kw.items() if k != "env"} | {"default": os.environ.get(env) or None}
    parser.add_argument(*names, **kw)


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
        _echo(f"warning: {message}", err=True)


def _emit(lines: Iterable[str], output: Any, check: bool) -> None:
    """The one sink switch: stdout, --check against a file, or an atomic write."""
    from .render.sinks import emit

    for text, status in emit(lines, output, check):
        _write(text, err=status)


# --------------------------------------------------------------------------- commands


@_command(
    MAIN,
    "fetch",
    LOCATION,
    *PROFILE_PIN,
    _flag("--update", "Re-resolve refs and show old → new commits."),
)
def fetch(options: Options, profile: str | None, pin: str | None, update: bool) -> None:
    """Fetch and verify the files a pin names; write sources.lock.

    Without --profile: every profile that has --pin (or every pin of every profile
    when --pin is not given either), so one command locks the whole project.
    """
    from .project import fetch_project

    _echo_lines(fetch_project(options, profile, pin, update))


@_command(
    MAIN,
    "show",
    _arg("file", type=_existing_file, metavar="FILE", help="The file to show."),
    *INPUT,
    _arg(
        "--as",
        dest="as_format",
        choices=["params", "mp", "qgc"],
        help="Write the parsed rows back out in this format instead of a table.",
    ),
    TABLE,
)
def show(
    file: Path,
    input_format: str,
    lenient: bool,
    include_root: Path | None,
    as_format: str | None,
    table: TableOptions,
) -> None:
    """One file's normalized table (params, Mission Planner, QGC, BlueOS or SDF)."""
    from .model.mavtypes import qgc_types
    from .parse.local import local_source
    from .parse.params import write_rows
    from .stages.compare import compare

    src = local_source(file, input_format, lenient, root=include_root)
    if as_format:
        qgc = qgc_types(src.file.params.values()) if as_format == "qgc" else None
        _warn(qgc.warning() if qgc else None)
        _echo_lines(write_rows(src.file.params.values(), as_format, qgc.types if qgc else None))
        return
    from .local_meta import categorise_local

    sources, classifier = categorise_local([src])
    _print_comparison(compare(sources, classifier), table, None)


@_command(
    MAIN,
    "diff",
    _arg("files", nargs="+", type=_existing_file, metavar="FILE", help="Two or more files."),
    *INPUT,
    TABLE,
)
def diff(
    files: list[Path],
    input_format: str,
    lenient: bool,
    include_root: Path | None,
    table: TableOptions,
) -> int:
    """N-way compare of local files (params or SDF), like mavparmdiff.

    Exits 1 when any row shown differs (differs, only in, missing in), 0 when none does.
    """
    from .parse.local import local_sources
    from .stages.compare import compare

    if len(files) < 2:
        raise UsageError("give at least two files")
    from .local_meta import categorise_local

    sources, classifier = categorise_local(
        local_sources(files, input_format, lenient, include_root)
    )
    comp = compare(sources, classifier)
    names = _print_comparison(comp, table, None)
    # 1: the README's exit code for differences; the table says which
    return 1 if any(comp.rows[n].status.disagrees for n in names) else 0


MAIN.commands["compare"] = COMPARE


@_command(
    COMPARE,
    "three-way",
    LOCATION,
    *PROFILE_PIN,
    _flag("--lenient", "Turn bad lines into warnings."),
    TABLE,
)
def three_way(
    options: Options, profile: str | None, pin: str | None, lenient: bool, table: TableOptions
) -> None:
    """hardware vs sitl vs sitl_models for a pin."""
    from .project import THREE_WAY, PinContext

    ctx = PinContext(options, profile, pin, lenient=lenient)
    title = f"{ctx.profile.name} {ctx.pin}: hardware vs sitl vs sitl_models"
    _print_comparison(ctx.compare(list(THREE_WAY)), table, title)


@_command(
    COMPARE,
    "pins",
    _arg("pins", nargs="+", metavar="PIN", help="Two or more pins."),
    _arg(
        "--role", default="hardware", help="Which source to follow across pins. [default: hardware]"
    ),
    PROFILE,
    LOCATION,
    TABLE,
)
def pins(
    options: Options, pins: list[str], role: str, profile: str | None, table: TableOptions
) -> None:
    """One role's file across pins, e.g. `compare pins 4.6 4.7`: what changed."""
    from .project import compare_pins

    if len(pins) < 2:
        raise UsageError("give at least two pins, e.g. paramdiff compare pins 4.6 4.7")
    comp = compare_pins(options, profile, list(pins), role)
    _print_comparison(comp, table, f"{role} across pins " + " vs ".join(pins))


@_command(
    MAIN,
    "derive",
    PIN_CONTEXT,
    *_output("derived"),
    _arg(
        "--format",
        dest="fmt",
        choices=["params", "mp", "qgc"],
        default="params",
        help="params (sim_vehicle/MAVProxy), mp (Mission Planner), qgc. [default: params]",
    ),
)
def derive(pin: PinContext, output: Path | None, fmt: str, check: bool) -> None:
    """Write the SITL parameter file: hardware + overlay, with provenance."""
    from .render.params import derived_qgc_types, render

    if fmt == "qgc":
        _warn(derived_qgc_types(pin.derived).warning())
    _emit(render(pin.derived, fmt), pin.derived_output(output, fmt), check)


@_command(MAIN, "report", PIN_CONTEXT, *_output("report"))
def report(pin: PinContext, output: Path | None, check: bool) -> None:
    """Write the markdown report for a pull request."""
    from .render.report import render_picture, render_report, svg_output

    inputs, target = pin.report_inputs(), pin.report_output(output)
    _emit(render_report(inputs), target, check)
    if target.path is not None:  # the top view goes next to the report that links it
        _emit(render_picture(inputs), svg_output(target), check)


@_command(
    MAIN,
    "check",
    LOCATION,
    *PROFILE_PIN,
    _arg(
        "--model",
        dest="models",
        action="append",
        type=_existing_file,
        metavar="FILE",
        help="Also check this Gazebo model's channels against the derived file.",
    ),
    _arg(
        "--launch",
        metavar="CMD",
        help="Verify this launch command line (sim_vehicle.py ... or the SITL binary's) instead "
        "of the profile's declared launches: files loaded, physics, pilot sticks.",
    ),
    _arg("--all-profiles", action="store_true", help=argparse.SUPPRESS),  # the default; old scripts
    _arg(
        "--format",
        dest="fmt",
        choices=["text", "github"],
        default="text",
        help="github: each failure also as an ::error annotation on the file and line to fix. "
        "[default: text]",
    ),
)
def check(
    options: Options,
    profile: str | None,
    pin: str | None,
    models: list[Path] | None,
    launch: str | None,
    all_profiles: bool,
    fmt: str,
) -> None:
    """Everything CI needs: lock, overlay, derived file, report, models, layers.

    Without --profile: every profile (at --pin where it has it, else its default pin).
    """
    from .check import check_project

    profile = None if all_profiles else profile
    _echo_lines(
        check_project(
            options, profile, pin, list(models or ()), annotate=fmt == "github", launch=launch
        )
    )


@_command(
    MAIN,
    "review",
    _arg("base", nargs="?", metavar="BASE", help="A git revision."),
    LOCATION,
    _arg(
        "--format",
        dest="fmt",
        choices=["markdown", "json"],
        default="markdown",
        help="markdown (at most 60,000 characters: fits a PR comment) or json (everything). "
        "[default: markdown]",
    ),
    _arg("-o", "--output", type=_output_file, metavar="FILE", help="Write to FILE."),
)
def review(options: Options, base: str | None, fmt: str, output: Path | None) -> None:
    """What this branch changes since BASE (default: the merge base with the default branch).

    Per profile: roles moved, upstream parameters changed, overlay deltas added, removed or
    stale, derived lines changed with their reasons, reboots needed. Exit 1 when something
    needs attention (a stale delta, lock, derived file or report).
    """
    from .errors import DriftError
    from .render.review import render_json, render_markdown
    from .review import review as do_review
    from .review import review_output

    target = review_output(options, output) if output is not None else None
    result = do_review(options, base)
    lines = render_json(result) if fmt == "json" else render_markdown(result, base)
    if target is None:
        _echo_lines(lines)
    else:
        _emit(lines, target, False)
    if result.needs_attention:
        items = [*result.attention, *(a for p in result.profiles for a in p.attention)]
        raise DriftError([a.what for a in items], "see the review")


@_command(
    MAIN,
    "init",
    _arg("profile", metavar="PROFILE", help="A profile paramdiff ships."),
    _arg(
        "--derived",
        metavar="PATH",
        help="Where the derived file goes in this repository (default: the profile's own path).",
    ),
    _arg(
        "--root",
        type=_directory("--root"),
        default=".",
        metavar="DIR",
        help="Repository root to write sources.yaml in. [default: .]",
    ),
)
def init(profile: str, derived: str | None, root: Path) -> None:
    """Start a project: sources.yaml and the overlay of a profile paramdiff ships.

    Also the CI workflow and a pre-commit configuration where absent, and .gitignore's lines
    for the files paramdiff leaves. Never overwrites a file.
    Then: paramdiff fetch && paramdiff derive.
    """
    from .config.starter import starter, write_starter

    for line in write_starter(root, starter(profile, derived)):
        _echo(line)
    _echo("next: paramdiff fetch && paramdiff derive && paramdiff report && paramdiff check")


@_command(
    MAIN,
    "layers",
    PIN_CONTEXT,
    _arg("--frame", help="sim_vehicle.py frame (default: the profile's sitl_frame)."),
    _arg(
        "--launch",
        metavar="CMD",
        help="The stack, physics and pilot-input test of this launch command line.",
    ),
    _arg("files", nargs="*", type=_existing_file, metavar="FILE", help="Files SITL loads."),
)
def layers(pin: PinContext, frame: str | None, launch: str | None, files: list[Path]) -> None:
    """What SITL actually runs: frame defaults, then each FILE (default: the derived file)."""
    if launch is not None:
        from .launch.verify import adhoc
        from .render.launch import launch_text

        if frame or files:
            raise UsageError("--launch names the files and the frame; drop --frame and FILEs")
        _echo_lines(launch_text(adhoc(pin, launch, [])))
        return
    from .render.layers import render_layers

    _echo_lines(render_layers(*pin.layers(frame, list(files)), pin.metadata))


@_command(
    MAIN,
    "validate",
    PIN_CONTEXT,
    _arg("file", type=_existing_file, metavar="FILE", help="The file to check."),
    _flag("--lenient", "Turn bad lines into warnings."),
    _flag("--strict", "Fail on range/enum/bitmask warnings too."),
)
def validate(pin: PinContext, file: Path, lenient: bool, strict: bool) -> None:
    """Check FILE against the pin's metadata: unknown names, range, enum, bitmask, read-only."""
    _echo_lines(pin.validate_file(file, lenient, strict))


@_command(
    MAIN,
    "history",
    PIN_CONTEXT,
    _arg("param", metavar="PARAM", help="A parameter name or glob."),
    _arg("--role", default="hardware", help="Which source's file. [default: hardware]"),
)
def history(pin: PinContext, param: str, role: str) -> None:
    """PARAM (a name or glob) at every upstream commit that changed the role's file."""
    from .render.texttable import table

    rows = pin.history(role, param)
    _echo_lines(table(["commit", "date", "subject", param], rows, markdown=False))


# --------------------------------------------------------------------------- the entry point


def _parse_and_run(argv: list[str], prog: str) -> int | None:
    try:
        code = _dispatch(MAIN, prog, argv)
    except SystemExit as exc:  # argparse's: 0 after -h or --version, 2 after a usage error
        if not isinstance(exc.code, int):
            raise
        code = exc.code
    sys.stdout.flush()  # the help too reaches a reader that may have left (141)
    return code


def main(argv: list[str] | None = None, prog: str = "paramdiff") -> int:
    """`paramdiff ARGV...` (default: this process's arguments); returns the exit code."""
    return guarded(lambda: _parse_and_run(sys.argv[1:] if argv is None else list(argv), prog))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
