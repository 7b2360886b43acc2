"""The click command line: exact output and exit codes (click.testing.CliRunner's isolated
streams around the real entry point, so the error boundary runs too), lazy loading, "Did you
mean", option values from a known set, closed streams in real processes, shell completion."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import click
import pytest
from click.testing import CliRunner
from helpers import (
    FIXTURES,
    OVERLAY_YAML,
    ROOT,
    SOURCES_YAML,
    build_mirror,
    location_args,
    run_cli,
    small_upstream,
)

from paramdiff.cli import main
from paramdiff.cli.app import COMMANDS
from paramdiff.comparison.classify import Classifier
from paramdiff.comparison.side_by_side import compare, select
from paramdiff.model.categories import Category
from paramdiff.parse.named_files import local_sources

HW, SITL = str(FIXTURES / "hardware.params"), str(FIXTURES / "sitl.params")
SCRIPT = Path(sys.executable).parent / "paramdiff"  # the venv's console script


class Run(NamedTuple):
    code: int
    stdout: str
    stderr: str


def invoke(*args: str, env: dict[str, str] | None = None) -> Run:
    """`paramdiff ARGS` through main() inside CliRunner's isolated, non-terminal streams."""
    with CliRunner().isolation(env=env) as streams:
        code = main(list(args))
        out, err = streams[0].getvalue().decode(), streams[1].getvalue().decode()
    return Run(code, out, err)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """conftest's ``derived`` project (fetched, derived, reported), made once for the tests
    here that only read it."""
    tmp = tmp_path_factory.mktemp("built")
    root = tmp / "project"
    (root / "overlays").mkdir(parents=True)
    (root / "sources.yaml").write_text(SOURCES_YAML)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    build_mirror(tmp / "mirror", small_upstream())
    loc = location_args(root, tmp / "c", tmp / "mirror")
    for command in ("fetch", "derive", "report"):
        result = run_cli([command, *loc])
        assert result.exit_code == 0, result.output
    return root, loc


# --------------------------------------------------------------------------- the group


def test_the_help_lists_every_command_with_its_own_summary() -> None:
    probe = (
        "import sys\nfrom paramdiff.cli import main\ncode = main(['--help'])\n"
        "sys.stderr.write(' '.join(sorted(sys.modules)))\nsys.exit(code)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    listed = [
        ln.split()[0] for ln in done.stdout.split("Commands:\n")[1].splitlines() if ln[:3].strip()
    ]
    assert listed == list(COMMANDS)
    assert "Fetch and verify the files a pin names; write sources.lock." in done.stdout


def test_a_mistyped_command_gets_did_you_mean() -> None:
    assert invoke("dif", HW, SITL) == Run(
        2,
        "",
        "Error: No such command 'dif'. Did you mean 'diff'? — see 'paramdiff --help'\n",
    )
    assert invoke("compare", "three-wya") == Run(
        2,
        "",
        "Error: No such command 'three-wya'. Did you mean 'three-way'? — see "
        "'paramdiff compare --help'\n",
    )
    far = invoke("xyzzy")
    assert (far.code, far.stderr.splitlines()[-1]) == (
        2,
        "Error: No such command 'xyzzy' — see 'paramdiff --help'",
    )


def test_a_mistyped_option_gets_did_you_mean() -> None:
    assert invoke("diff", HW, SITL, "--only-diferences") == Run(
        2,
        "",
        "Error: No such option '--only-diferences'. Did you mean '--only-differences'? — see "
        "'paramdiff diff --help'\n",
    )


def test_a_missing_argument_is_a_usage_error() -> None:
    assert invoke("diff") == Run(
        2,
        "",
        "Error: Missing argument 'FILE...' — see 'paramdiff diff --help'\n",
    )


def test_version_and_help_through_the_boundary() -> None:
    from importlib.metadata import version

    assert invoke("--version") == Run(0, f"paramdiff, version {version('paramdiff')}\n", "")
    top = invoke("-h")
    assert top.code == 0 and top.stderr == ""
    assert top.stdout.startswith(
        "Usage: paramdiff [OPTIONS] COMMAND [ARGS]...\n\n"
        "  Pinned, auditable ArduPilot parameter sets for SITL.\n\n"
        "  fetch → compare → overlays → derive → report → check.\n"
    )


def test_environment_variables_are_shown_in_the_help() -> None:
    text = " ".join(invoke("derive", "--help").stdout.split())
    for name in ("PARAMDIFF_CACHE", "PARAMDIFF_MIRROR", "PARAMDIFF_GIT_BASE"):
        assert f"[env var: {name}]" in text


# --------------------------------------------------------------------------- help texts (#19)


def test_fetch_help_says_what_leaving_out_profile_and_pin_means() -> None:
    text = " ".join(invoke("fetch", "--help").stdout.split())
    assert "--profile PROFILE Only this profile (default: every profile)." in text
    assert "--pin PIN Only this pin (default: every pin, as check checks every pin)." in text
    assert "the first in sources.yaml" not in text


def test_init_help_lists_the_profiles_it_ships() -> None:
    out = invoke("init", "--help")
    assert out.code == 0
    listing = out.stdout.split("Profiles paramdiff ships:\n")[1].splitlines()
    assert [ln.split()[0] for ln in listing if ln[:2] == "  " and ln[2] != " "] == [
        "blueboat",
        "bluerov2_heavy",
        "holybro_x500",
    ]
    assert "BlueBoat" in out.stdout


@pytest.mark.parametrize(
    "command", [["show"], ["diff"], ["compare", "three-way"], ["compare", "pins"]]
)
def test_tables_help_explains_absent_and_not_representable(command: list[str]) -> None:
    text = " ".join(invoke(*command, "--help").stdout.split())
    assert "In the table: — the file could set this parameter but does not; n/r: not " in text


def test_at_least_two_files_says_how() -> None:
    assert invoke("diff", HW) == Run(
        2,
        "",
        "Error: give at least two files — name two or more, e.g. paramdiff diff A.params "
        "B.params\n",
    )


# ----------------------------------------------------------------- known sets (#19 item 10)


def test_an_unknown_category_lists_the_categories(built: tuple[Path, list[str]]) -> None:
    _, loc = built
    for command in (["compare", "three-way"], ["compare", "pins", "1.0", "1.0"]):
        assert invoke(*command, *loc, "--category", "vehicles") == Run(
            2,
            "",
            "Error: unknown category 'vehicles' — use one of: calibration, script, board, "
            "vehicle\n",
        ), command
    known = invoke("compare", "three-way", *loc, "--category", "vehicle", "--category", "board")
    assert known.code == 0, known.stderr


def test_a_category_on_local_files_says_they_have_none() -> None:
    assert invoke("diff", HW, SITL, "--category", "vehicle") == Run(
        2,
        "",
        "Error: --category vehicle: these rows are uncategorised (a local file is categorised "
        "only with --project-metadata, by a project here whose cache holds its firmware's "
        "metadata) — add --project-metadata, or select rows with --param GLOB instead\n",
    )


def test_select_refuses_a_category_the_rules_cannot_give() -> None:
    """The library's check: the categories a Classifier can give, "unknown" only with
    metadata, "other" only when no category takes the rest."""
    rules = (Category("board", "b", params=("AHRS_*",)), Category("sim", "s", params=("SIM_*",)))
    comp = compare(local_sources([Path(HW), Path(SITL)]), Classifier(rules))
    assert comp.categories == ("board", "sim", "other")
    assert select(comp, categories=("other",)) == [
        n for n, row in comp.rows.items() if row.category == "other"
    ]
    with pytest.raises(
        Exception, match=r"unknown category 'boards' — use one of: board, sim, other"
    ):
        select(comp, categories=("board", "boards"))


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["compare", "three-way", "--profile", "nope"],
            "Error: no profile 'nope' in sources.yaml — use one of: boat",
        ),
        (
            ["derive", "--pin", "nope"],
            "Error: profile 'boat' has no pin 'nope' — use one of: 1.0, or add the pin to "
            "sources.yaml",
        ),
        (
            ["compare", "pins", "1.0", "1.0", "--role", "nope"],
            "Error: pin '1.0' of profile 'boat' has no role 'nope' — add it to sources.yaml or "
            "use one of: hardware, sitl, sitl_models, calibration",
        ),
        (
            ["history", "X", "--role", "nope"],
            "Error: pin '1.0' of profile 'boat' has no role 'nope' — add it to sources.yaml or "
            "use one of: hardware, sitl, sitl_models, calibration",
        ),
    ],
)
def test_a_value_outside_a_projects_set_lists_the_set(
    built: tuple[Path, list[str]], args: list[str], error: str
) -> None:
    """Profiles, pins and roles come from sources.yaml: the library checks them."""
    _, loc = built
    assert invoke(*args, *loc) == Run(2, "", error + "\n")


@pytest.mark.parametrize(
    ("option", "value", "choices"),
    [
        (["diff", HW, SITL, "--format"], "xml", "'text', 'markdown', 'csv', 'json'"),
        (
            ["diff", HW, SITL, "--input-format"],
            "ini",
            "'auto', 'params', 'mp', 'qgc', 'blueos', 'sdf'",
        ),
        (["show", HW, "--as"], "csv", "'params', 'mp', 'qgc'"),
        (["check", "--format"], "junit", "'text', 'github'"),
        (["derive", "--format"], "csv", "'params', 'mp', 'qgc'"),
        (["review", "--format"], "text", "'markdown', 'json'"),
        (["fetch", "--transport"], "ftp", "'https', 'git', 'mirror'"),
    ],
)
def test_a_value_outside_a_static_set_lists_the_set(
    option: list[str], value: str, choices: str
) -> None:
    out = invoke(*option, value)
    assert (out.code, out.stdout) == (2, "")
    name = option[-1]
    assert out.stderr.splitlines()[-1] == (
        f"Error: Invalid value for '{name}': '{value}' is not one of {choices} — see "
        f"'paramdiff {option[0]} --help'"
    )


# ------------------------------------------------------------- closed streams (#19 item 6)


def _closed(fds: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """`paramdiff ARGS` as a shell runs it with ``fds`` (e.g. '>&-', '2>&-') closed."""
    command = ["sh", "-c", f'exec "$0" "$@" {fds}', str(SCRIPT), *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, capture_output=True, cwd=cwd, env=env)


@pytest.mark.parametrize(
    "args",
    [
        ["show", HW],
        ["diff", HW, SITL],
        ["--help"],
        ["--version"],
        ["compare", "three-way"],
        ["check"],
        ["derive", "-o", "-"],
    ],
)
def test_a_closed_stdout_is_a_reader_that_left(
    built: tuple[Path, list[str]], args: list[str]
) -> None:
    """Before: exit 3, "'NoneType' object has no attribute 'write'". Now: 141, as `| head`
    that left, and nothing on stderr."""
    _, loc = built
    project_args = loc if args[0] in ("compare", "check", "derive") else []
    done = _closed(">&-", *args, *project_args)
    assert (done.returncode, done.stderr) == (141, b"")


def test_a_closed_stdout_does_not_stop_a_command_that_writes_a_file(
    built: tuple[Path, list[str]], tmp_path: Path
) -> None:
    _, loc = built
    target = tmp_path / "out.params"
    done = _closed(">&-", "derive", *loc, "-o", str(target))
    assert (done.returncode, done.stderr) == (0, f"{target} written\n".encode())
    assert target.read_text().startswith("#")


@pytest.mark.parametrize("fds", ["2>&-", ">&- 2>&-", "<&- 2>&-"])
def test_a_bad_input_with_stderr_closed_still_exits_2(tmp_path: Path, fds: str) -> None:
    """Before: exit 1 (printing the Error line failed)."""
    bad = tmp_path / "bad.params"
    bad.write_bytes(b"FRAME_CLASS 2\nSIM_TIDE_0.5\n")
    done = _closed(fds, "show", str(bad))
    assert (done.returncode, done.stdout) == (2, b"")
    assert _closed(fds, "dif").returncode == 2  # a usage error too


# --------------------------------------------------------------------------- shell completion


def _complete(words: str, tmp_path: Path) -> list[str]:
    env = {
        **os.environ,
        "_PARAMDIFF_COMPLETE": "bash_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run([str(SCRIPT)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_shell_completion(tmp_path: Path) -> None:
    env = {**os.environ, "_PARAMDIFF_COMPLETE": "bash_source", "PYTHONPATH": str(ROOT)}
    source = subprocess.run([str(SCRIPT)], capture_output=True, text=True, env=env)
    assert source.returncode == 0 and "_paramdiff_completion" in source.stdout
    assert _complete("paramdiff di", tmp_path) == ["plain,diff"]
    assert _complete("paramdiff compare ", tmp_path) == ["plain,three-way", "plain,pins"]
    assert _complete("paramdiff init blue", tmp_path) == ["plain,blueboat", "plain,bluerov2_heavy"]
    assert _complete("paramdiff diff --only", tmp_path) == ["plain,--only-differences"]
    assert _complete("paramdiff show ", tmp_path) == ["file,"]


# ------------------------------------------------------------------ the boundary and click


def _group_raising(exc: BaseException) -> click.Group:
    """A group of the program's class whose one command raises ``exc``."""
    from paramdiff.cli.app import ParamdiffGroup

    @click.group(cls=ParamdiffGroup)
    def group() -> None:
        pass

    @group.command("raise")
    def raising() -> None:
        raise exc

    return group


@pytest.mark.parametrize(
    ("exc", "code", "stderr"),
    [
        (KeyboardInterrupt(), 130, "Error: interrupted\n"),  # click: a blank line, then Abort
        (BrokenPipeError(32, "Broken pipe"), 141, ""),  # click's main: exit 1
        (RuntimeError("boom"), 3, "Error: internal error (RuntimeError: boom) — this is a bug"),
    ],
)
def test_what_click_would_handle_itself_reaches_the_boundary(
    exc: BaseException, code: int, stderr: str
) -> None:
    from paramdiff.cli import guarded

    group = _group_raising(exc)
    with CliRunner().isolation() as streams:
        got = guarded(lambda: group.main(["raise"], prog_name="p", standalone_mode=False))
        out, err = streams[0].getvalue().decode(), streams[1].getvalue().decode()
    assert (got, out) == (code, "")
    assert err.startswith(stderr) and err.count("\n") == (1 if stderr else 0)
