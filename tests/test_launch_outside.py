"""A launch's parameter files stay in the project (#31): ``--add-param-file`` / ``--defaults``
naming an absolute path, a ``..`` path or a symlink out of the project is one ``Error:`` line,
exit 2, and nothing of the outside file reaches stdout or stderr (sources.yaml's launches come
from a pull request; SECURITY.md, "Project files")."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import OVERLAY_YAML, build_mirror, location_args, run_cli
from test_offline_project import offline_sources, offline_upstream

SECRET = "https://user:TOKEN-31c@example.invalid/repo.git"


def project(tmp_path: Path, command: str) -> tuple[Path, list[str]]:
    root = tmp_path / "project"
    (root / "overlays").mkdir(parents=True)
    launches = f"    launches:\n      - name: probe\n        command: {command}\n"
    sources = offline_sources().replace("    pins:\n", launches + "    pins:\n", 1)
    (root / "sources.yaml").write_text(sources)
    (root / "overlays" / "boat.yaml").write_text(OVERLAY_YAML)
    (root / "sim").mkdir()
    build_mirror(tmp_path / "mirror", offline_upstream())
    return root, location_args(root, tmp_path / "cache", tmp_path / "mirror")


def outside_file(tmp_path: Path, text: str) -> Path:
    secret = tmp_path / "cred"
    secret.write_text(text)
    return secret


@pytest.mark.parametrize("form", ["absolute", "symlink", "dotdot", "symlinked folder"])
@pytest.mark.parametrize("content", [SECRET + "\n", "SERVO1_FUNCTION 73\n"])
def test_a_launch_file_outside_the_project_is_refused(
    tmp_path: Path, form: str, content: str
) -> None:
    secret = outside_file(tmp_path, content)
    ref = {
        "absolute": str(secret),
        "symlink": "sim/link.parm",
        "dotdot": "../cred",
        "symlinked folder": "sim/out/cred",
    }[form]
    base = "ardurover -w --model rover-skid --defaults derived/boat_sitl.params"
    root, loc = project(tmp_path, f"{base},{ref}")
    (root / "sim" / "link.parm").symlink_to(secret)
    (root / "sim" / "out").symlink_to(tmp_path)
    for command in (["fetch"], ["derive"], ["report"], ["check"]):
        result = run_cli([*command, *loc])
        if command == ["fetch"]:
            assert result.exit_code == 0, result.output
            continue
        assert result.exit_code == 2, (command, result.output)
        errors = [ln for ln in result.output.splitlines() if ln.startswith("Error:")]
        assert len(errors) == 1, result.output
        assert "outside the project" in errors[0], result.output
        assert "TOKEN" not in result.output and "SERVO1_FUNCTION 73" not in result.output
    assert not (root / "derived" / "boat_sitl.params").exists()


def test_a_launch_file_outside_the_project_from_the_command_line(tmp_path: Path) -> None:
    secret = outside_file(tmp_path, SECRET + "\n")
    _, loc = project(
        tmp_path, "ardurover -w --model rover-skid --defaults derived/boat_sitl.params"
    )
    for command in ("fetch", "derive"):
        assert run_cli([command, *loc]).exit_code == 0
    for ref in (str(secret), "../cred"):
        launch = f"ardurover -w --model rover-skid --defaults derived/boat_sitl.params,{ref}"
        result = run_cli(["layers", *loc, "--launch", launch])
        assert result.exit_code == 2, result.output
        assert "outside the project" in result.output
        assert "TOKEN" not in result.output


def test_a_file_only_named_like_the_derived_file_is_not_taken_for_it(tmp_path: Path) -> None:
    """A path that ends like the derived file's (/tmp/x/derived/boat_sitl.params, a file
    elsewhere in the project) was judged as the derived file: a launch loading a copy that
    steers backwards passed check (#30 review 5). It is the file it names: outside the
    project, refused; inside, a local layer, and the launch does not load the derived file."""
    root, loc = project(
        tmp_path, "ardurover -w --model rover-skid --defaults derived/boat_sitl.params"
    )
    for command in ("fetch", "derive"):
        assert run_cli([command, *loc]).exit_code == 0
    stranger = tmp_path / "x" / "derived" / "boat_sitl.params"
    stranger.parent.mkdir(parents=True)
    stranger.write_text("SERVO1_FUNCTION 73\n")
    (root / "sim" / "derived").mkdir()
    (root / "sim" / "derived" / "boat_sitl.params").write_text("SERVO1_FUNCTION 73\n")
    outside = f"ardurover -w --model rover-skid --defaults {stranger}"
    for command in (["layers", "--launch", outside], ["check", "--launch", outside]):
        result = run_cli([*command, *loc])
        assert result.exit_code == 2, result.output
        assert "outside the project" in result.output, result.output
    inside = "ardurover -w --model rover-skid --defaults sim/derived/boat_sitl.params"
    layers = run_cli(["layers", "--launch", inside, *loc])
    assert layers.exit_code in (0, 1), layers.output
    assert "local" in layers.output or "sim/derived/boat_sitl.params" in layers.output
    checked = run_cli(["check", "--launch", inside, *loc])
    assert checked.exit_code == 1, checked.output
    assert "derived file is not loaded" in checked.output, checked.output
    assert "Traceback" not in checked.output


def test_the_derived_file_by_another_path_is_the_derived_file(tmp_path: Path) -> None:
    """Its absolute path, ./ and a doubled slash, and a link inside the project to it: each
    is the derived file (judged as it, never a stranger's local layer)."""
    root, loc = project(
        tmp_path, "ardurover -w --model rover-skid --defaults derived/boat_sitl.params"
    )
    for command in ("fetch", "derive"):
        assert run_cli([command, *loc]).exit_code == 0
    (root / "sim" / "boat.params").symlink_to(root / "derived" / "boat_sitl.params")
    plain = run_cli(["check", "--launch", "ardurover -w --model rover-skid --defaults "
                     "derived/boat_sitl.params", *loc])  # fmt: skip
    for ref in (str(root / "derived" / "boat_sitl.params"), "./derived/boat_sitl.params",
                "derived//boat_sitl.params", "sim/boat.params"):  # fmt: skip
        result = run_cli(
            ["check", "--launch", f"ardurover -w --model rover-skid --defaults {ref}", *loc]
        )
        assert "derived file is not loaded" not in result.output, (ref, result.output)
        assert result.exit_code == plain.exit_code, (ref, result.output)


@pytest.mark.parametrize(
    "tail",
    [
        "--add-param-file=" + "a" * 100_000,  # a path the OS refuses (File name too long)
        "--add-param-file=" + "a/" * 50_000 + "x",  # a path that is simply not there
        "--bogus" + "a" * 100_000,  # an option no sim_vehicle.py has
    ],
)
def test_a_huge_launch_or_path_is_echoed_cut_with_a_mark(tmp_path: Path, tail: str) -> None:
    # issue #28 review 6: the Error line echoed 100,000 characters of the path
    _, loc = project(
        tmp_path, "ardurover -w --model rover-skid --defaults derived/boat_sitl.params"
    )
    for command in ("fetch", "derive"):
        assert run_cli([command, *loc]).exit_code == 0
    launch = f"sim_vehicle.py -v Rover -w -f rover-skid {tail}"
    result = run_cli(["layers", *loc, "--launch", launch])
    assert result.exit_code == 2, result.output[:300]
    errors = [ln for ln in result.output.splitlines() if ln.startswith("Error:")]
    assert len(errors) == 1, result.output[:300]
    assert len(errors[0]) < 700 and "characters)" in errors[0], errors[0][:300]
