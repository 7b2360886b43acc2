"""The commands end to end on a small project whose upstream is a local mirror."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import FIXTURES, build_mirror, location_args, run_cli, small_upstream, tree_bytes

from paramdiff.render.derived_file import read_provenance


@pytest.fixture
def fetched(project: Path, tmp_path: Path) -> tuple[Path, list[str]]:
    loc = location_args(project, tmp_path / "c", tmp_path / "mirror")
    result = run_cli(["fetch", *loc])
    assert result.exit_code == 0, result.output
    return project, loc


def invoke(*args: str) -> object:
    return run_cli(list(args))


def test_three_way_shows_meaning_and_provenance(fetched: tuple[Path, list[str]]) -> None:
    _, loc = fetched
    out = invoke(
        "compare", "three-way", *loc, "--param", "SERVO1_FUNCTION", "--param", "MOT_THST_ASYM"
    )
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert "VERSION MISMATCH: hardware says 4.7.0-BETA, sitl says 4.6.3-STABLE" in lines
    row = next(ln for ln in lines if ln.startswith("SERVO1_FUNCTION")).split()
    assert row[:5] == ["SERVO1_FUNCTION", "74", "26", "73", "differs"]
    asym = next(ln for ln in lines if ln.startswith("MOT_THST_ASYM")).split()
    assert asym[:5] == ["MOT_THST_ASYM", "1.6", "1", "n/r", "differs"]
    js = json.loads(
        invoke("compare", "three-way", *loc, "--format", "json", "--param", "SERVO1_TRIM").output
    )
    cell = js["parameters"][0]["values"]["sitl_models"]
    assert (cell["value"], cell["file"], cell["line"]) == (1500.0, "boat/model.sdf", 10)
    csv_lines = invoke(
        "compare", "three-way", *loc, "--format", "csv", "--param", "NL_*"
    ).output.splitlines()
    assert csv_lines == [
        "name,hardware,sitl,sitl_models,status,category,display_name,renamed_from",
        "NL_ACRO_BLINKS,1,,,only in hardware,script,,",
    ]


def test_text_table_says_a_shared_category_once(fetched: tuple[Path, list[str]]) -> None:
    """For a terminal: a category column every row shares is said once in the count line;
    markdown and CSV keep the column."""
    _, loc = fetched
    lines = invoke("compare", "three-way", *loc, "--category", "vehicle").output.splitlines()
    count = next(ln for ln in lines if " parameters shown" in ln)
    assert " parameters shown (all in category vehicle): " in count
    header = next(ln for ln in lines if ln.startswith("name "))
    assert header.split() == ["name", "hardware", "sitl", "sitl_models", "status", "display_name"]
    mixed = invoke("compare", "three-way", *loc).output.splitlines()
    assert "category" in next(ln for ln in mixed if ln.startswith("name ")).split()
    md = invoke("compare", "three-way", *loc, "--category", "vehicle", "--format", "markdown")
    assert "| name | hardware | sitl | sitl_models | status | category | display_name |" in (
        md.output.splitlines()
    )


def test_derive_check_and_drift(fetched: tuple[Path, list[str]]) -> None:
    root, loc = fetched
    assert invoke("derive", *loc).exit_code == 0
    text = (root / "derived/boat_sitl.params").read_text()
    assert (
        "# DELTA overlay:12: shipped 1510 (hw.params:12) — one unit's neutral; the model is "
        "neutral at\n#   1500\nSERVO1_TRIM 1500\n" in text  # 98 bytes: the dash is 3 of them
    )
    assert read_provenance(text.splitlines())["SERVO1_TRIM"] == "overlay:12"
    assert read_provenance(text.splitlines())["SERVO1_MAX"] == "hardware:9"
    assert "AHRS_ORIENTATION" not in text and "COMPASS_OFS_X" not in text
    assert "# Regenerate: paramdiff derive --profile boat --pin 1.0" in text
    assert invoke("derive", *loc, "--check").exit_code == 0
    (root / "derived/boat_sitl.params").write_text(
        text.replace("\nWP_RADIUS 1\n", "\nWP_RADIUS 9\n")
    )
    out = invoke("derive", *loc, "--check")
    assert out.exit_code == 1
    assert "-WP_RADIUS 9" in out.output
    assert out.output.splitlines()[-1] == (
        "Error: derived/boat_sitl.params is out of date — run: paramdiff derive --profile boat "
        "--pin 1.0"
    )
    mp = invoke("derive", *loc, "--format", "mp", "-o", "-")
    assert "SERVO1_TRIM,1500" in mp.output.splitlines()


def test_check_passes_then_fails_on_stale_overlay(fetched: tuple[Path, list[str]]) -> None:
    root, loc = fetched
    invoke("derive", *loc)
    invoke("report", *loc)
    out = invoke("check", *loc)
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[-1] == "check passed"
    overlay = root / "overlays/boat.yaml"
    overlay.write_text(overlay.read_text().replace("was: 1510", "was: 1520"))
    before = tree_bytes(root)
    out = invoke("check", *loc)
    assert out.exit_code == 1
    assert (
        "overlays/boat.yaml:12: delta SERVO1_TRIM is stale: written against 1520, but "
        "hardware at c2c2c2c2c2c2 now has 1510 (boats/hw.params:12)"
    ) in out.output
    assert "update was: 1510 in overlays/boat.yaml" in out.output
    out = invoke("derive", *loc)
    assert out.exit_code == 2
    assert out.output.startswith("Error: overlays/boat.yaml:12: delta SERVO1_TRIM is stale")
    assert tree_bytes(root) == before


def test_check_models(fetched: tuple[Path, list[str]]) -> None:
    _, loc = fetched
    invoke("derive", *loc)
    invoke("report", *loc)
    out = invoke("check", *loc, "--model", str(FIXTURES / "model.sdf"))
    assert out.exit_code == 1
    assert (
        "channel 0 (motor_port_joint, SERVO1): drives motor_port_joint, which is 73, but "
        "SERVO1_FUNCTION is 74"
    ) in out.output
    assert "model range 1000–2000 vs SERVO1_MIN/MAX 1100–1900 (20% less PWM span" in out.output
    assert "net direction is backwards: SERVO3_REVERSED 1 × multiplier 70" in out.output
    # The findings come first; the Error line itself is one line, and the last.
    last = out.output.splitlines()[-1]
    assert last.startswith("Error: ")
    assert "problem(s) found (listed above) — fix the <control>" in last
    assert [ln for ln in out.output.splitlines() if ln.startswith("Error:")] == [last]


def test_show_round_trips_every_format(tmp_path: Path) -> None:
    for name in ("hardware.params", "mp.param", "qgc.params"):
        src = FIXTURES / name
        for fmt in ("params", "mp", "qgc"):
            written = invoke("show", str(src), "--as", fmt)
            assert written.exit_code == 0
            out = tmp_path / f"{name}.{fmt}"
            out.write_text(written.stdout)  # the type warning goes to stderr
            a = invoke("show", str(src), "--format", "csv").output.splitlines()[1:]
            b = invoke("show", str(out), "--format", "csv").output.splitlines()[1:]
            assert a == b


def test_diff_n_way_and_bad_input(tmp_path: Path) -> None:
    out = invoke(
        "diff",
        str(FIXTURES / "hardware.params"),
        str(FIXTURES / "sitl.params"),
        str(FIXTURES / "model.sdf"),
        "--only-differences",
        "--param",
        "WP_*",
    )
    assert out.exit_code == 1  # WP_RADIUS differs
    assert [ln.split()[:4] for ln in out.output.splitlines() if ln.startswith("WP_")] == [
        ["WP_RADIUS", "1", "3", "n/r"]
    ]
    bad = tmp_path / "motorboat.parm"
    bad.write_bytes(b"FRAME_CLASS 2\nSIM_TIDE_0.5\n")
    out = run_cli(["show", str(bad)])
    assert out.exit_code == 2
    assert out.output == (
        f"Error: {bad.as_posix()}:2: 'SIM_TIDE_0.5' is not a parameter line "
        "(NAME VALUE) — write NAME VALUE, or comment the line out with #\n"
    )
    assert "Traceback" not in out.output
    ok = invoke("show", str(bad), "--lenient")
    assert ok.exit_code == 0 and "is not a parameter line" in ok.output


def test_history_walks_the_mirror_commits(fetched: tuple[Path, list[str]]) -> None:
    _, loc = fetched
    out = invoke("history", "WP_RADIUS", *loc)
    assert out.exit_code == 0, out.output
    rows = [ln.split() for ln in out.output.splitlines()[2:]]
    assert [(r[0], r[-1]) for r in rows] == [
        ("c1c1c1c1c1c1", "WP_RADIUS=2"),
        ("c2c2c2c2c2c2", "WP_RADIUS=1"),
    ]


def test_history_says_why_it_has_nothing_to_show(
    fetched: tuple[Path, list[str]], tmp_path: Path
) -> None:
    _, loc = fetched
    out = invoke("history", "NO_SUCH_*", *loc)
    assert out.exit_code == 2
    assert out.output == (
        "Error: no parameter matches 'NO_SUCH_*' in hardware (boats/hw.params) at any of the 2 "
        "upstream commit(s) that changed it — check the name; a glob such as 'ATC_RAT_*' needs "
        "quotes in the shell\n"
    )
    repos = small_upstream()
    repos["acme/params"]["commits"] = []  # files at commits, no history (as ArduPilot/ardupilot)
    build_mirror(tmp_path / "mirror", repos)
    out = invoke("history", "WP_RADIUS", *loc)
    assert out.exit_code == 2
    assert out.output == (
        "Error: no upstream commit in the mirror's MANIFEST holds acme/params:boats/hw.params "
        "(the mirror holds that file at pinned commits only, not its history) — its history "
        "needs git: run without --mirror/PARAMDIFF_MIRROR (history then reads git log; "
        "--git-base URL for another host)\n"
    )


# --------------------------------------------------------------------------- the parser itself

HW, SITL = str(FIXTURES / "hardware.params"), str(FIXTURES / "sitl.params")


def test_an_unknown_option_is_a_usage_error_on_stderr() -> None:
    out = run_cli(["diff", HW, SITL, "--bogus"])
    assert (out.exit_code, out.stdout) == (2, "")
    assert out.stderr == "Error: No such option '--bogus' — see 'paramdiff diff --help'\n"
    # no abbreviations: `--only` is not `--only-differences`
    only = run_cli(["diff", HW, SITL, "--only"])
    assert only.exit_code == 2 and "No such option '--only' — " in only.stderr
    choice = run_cli(["diff", HW, SITL, "--format", "xml"])
    assert choice.exit_code == 2
    assert "Invalid value for '--format': 'xml' is not one of 'text', 'markdown'" in choice.stderr
    command = run_cli(["dif", HW, SITL])
    assert (
        command.exit_code == 2 and "No such command 'dif'. Did you mean 'diff'?" in command.stderr
    )


def test_a_file_argument_that_does_not_exist_is_one_error_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.params"
    for args in (["diff", HW, str(missing)], ["show", str(missing)]):
        out = run_cli(args)
        assert (out.exit_code, out.stdout) == (2, "")
        assert out.stderr == f"Error: {missing}: no such file — check the path\n"
    out = run_cli(["diff", HW, str(tmp_path)])
    assert (out.exit_code, out.output) == (
        2,
        f"Error: {tmp_path}: is a directory, not a file — name a file\n",
    )
    root = run_cli(["derive", "--root", HW])
    assert (root.exit_code, root.output) == (
        2,
        f"Error: {HW}: --root names a file, not a directory — name a directory\n",
    )
    one = run_cli(["diff", HW])
    assert (one.exit_code, one.output) == (
        2,
        "Error: give at least two files — name two or more, e.g. paramdiff diff A.params "
        "B.params\n",
    )


def test_options_and_arguments_come_in_any_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = run_cli(["diff", HW, SITL, "--format", "csv", "--param", "SERVO*"])
    assert expected.exit_code == 1 and expected.stdout.startswith("name,hardware.params,")
    for args in (
        ["diff", "--format", "csv", HW, "--param", "SERVO*", SITL],
        ["diff", HW, "--param=SERVO*", SITL, "--format=csv"],
    ):
        assert run_cli(args) == expected
    # after `--`, a file name may start with '-'
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-hw.params").write_bytes(Path(HW).read_bytes())
    dashed = run_cli(["diff", "--format", "csv", "--param", "SERVO*", "--", "-hw.params", SITL])
    assert dashed.exit_code == 1
    assert dashed.stdout == expected.stdout.replace("hardware.params", "-hw.params", 1)


def test_version() -> None:
    from importlib.metadata import version

    out = run_cli(["--version"])
    assert (out.exit_code, out.output) == (0, f"paramdiff, version {version('paramdiff')}\n")


def test_every_command_has_help_and_every_option_a_text() -> None:
    import click

    from paramdiff.cli.app import paramdiff

    top = run_cli(["-h"])
    assert top.exit_code == 0 and top.stdout.startswith("Usage: paramdiff [OPTIONS] COMMAND")
    compare = paramdiff.get_command(click.Context(paramdiff), "compare")
    assert isinstance(compare, click.Group)
    commands = [
        *(
            [name]
            for name in paramdiff.list_commands(click.Context(paramdiff))
            if name != "compare"
        ),
        *(["compare", name] for name in compare.commands),
    ]
    assert len(commands) == 15  # 13, then pull and verify (#23)
    for command in commands:
        out = run_cli([*command, "-h"])
        assert (out.exit_code, out.stderr) == (0, ""), command
        assert out.stdout.startswith(f"Usage: paramdiff {' '.join(command)} [OPTIONS]"), command
        group = compare if command[0] == "compare" else paramdiff
        spec = group.get_command(click.Context(group), command[-1])
        assert spec is not None and spec.help is not None
        assert " ".join(spec.help.splitlines()[0].split()) in " ".join(out.stdout.split())
        for param in spec.params:
            assert not isinstance(param, click.Option) or param.help or param.hidden, (
                command,
                param.name,
            )
    pins = " ".join(run_cli(["compare", "pins", "--help"]).stdout.split())
    for text in ("--only-differences Hide rows where all agree.", "[default: hardware]"):
        assert text in pins
    assert "three-way" in run_cli(["compare", "-h"]).stdout


def test_a_group_without_its_command_shows_its_help_and_exits_2() -> None:
    for args, listed in (([], "validate"), (["compare"], "three-way")):
        out = run_cli(args)
        assert (out.exit_code, out.stdout) == (2, "")
        assert out.stderr.startswith("Usage: paramdiff") and listed in out.stderr
        prog = " ".join(["paramdiff", *args])
        assert out.stderr.endswith(f"\nError: name a command — see '{prog} --help'\n")


def test_python_m_paramdiff_and_a_reader_that_leaves(tmp_path: Path) -> None:
    """Run as a real process: `python -m paramdiff` names itself so, and a reader that leaves
    (`| head -1`) ends it quietly with 141, not a traceback."""
    import subprocess
    import sys

    version = subprocess.run(
        [sys.executable, "-m", "paramdiff", "--version"], capture_output=True, text=True
    )
    assert version.returncode == 0 and version.stdout.startswith("python -m paramdiff, version ")
    big = tmp_path / "big.params"
    big.write_text("".join(f"PARAM{i}_X {i}\n" for i in range(19000)))  # ~1 MB of table
    proc = subprocess.Popen(
        [sys.executable, "-m", "paramdiff", "show", str(big)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    assert (proc.wait(), proc.stderr.read()) == (141, b"")


def test_control_sequences_never_reach_a_file_or_a_pipe(tmp_path: Path) -> None:
    """A terminal control sequence in a file's name (here: red) is printed as visible text,
    ``\\x1b[31m``, never as the ESC byte (render/safe_text.py; it was dropped, and reached a
    terminal raw)."""
    red = tmp_path / "a\x1b[31mred.params"
    red.write_bytes(Path(HW).read_bytes())
    out = run_cli(["diff", "--format", "csv", str(red), SITL])
    assert out.exit_code == 1
    assert out.stdout.startswith("name,a\\x1b[31mred.params,sitl.params,")
    assert "\x1b" not in out.output


def test_environment_variables_are_defaults_an_empty_one_unset(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARAMDIFF_MIRROR", str(tmp_path / "mirror"))
    monkeypatch.setenv("PARAMDIFF_CACHE", str(tmp_path / "env-cache"))
    out = run_cli(["fetch", "--root", str(project)])
    assert out.exit_code == 0, out.output
    assert (tmp_path / "env-cache").is_dir()
    option = run_cli(["derive", "--root", str(project), "--cache-dir", str(tmp_path / "opt")])
    assert option.exit_code == 0, option.output
    assert (tmp_path / "opt").is_dir()  # the option wins over the variable
    assert not (tmp_path / "xdg-cache").exists()
    monkeypatch.setenv("PARAMDIFF_CACHE", "")  # unset: the user's cache (XDG_CACHE_HOME here)
    empty = run_cli(["derive", "--check", "--root", str(project)])
    assert empty.exit_code == 0, empty.output
    assert (tmp_path / "xdg-cache").is_dir()
    monkeypatch.setenv("PARAMDIFF_CACHE", str(project / "sources.yaml"))  # a file: refused
    refused = run_cli(["derive", "--check", "--root", str(project)])
    assert (refused.exit_code, refused.output) == (
        2,
        f"Error: {project / 'sources.yaml'}: --cache-dir (or PARAMDIFF_CACHE) names a file, "
        "not a directory — name a directory\n",
    )
