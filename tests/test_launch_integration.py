"""Launches of the real profiles, on ../shared/upstream (skipped, saying so, without it)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from helpers import ROOT, copy_project, location_args, run_cli

from paramdiff.parse.launch import split

# The header lines the derived files carried before launches were verified, exactly.
OLD_LINES = {
    "blueboat": (
        "sim_vehicle.py -v Rover -f rover-skid --add-param-file=derived/blueboat_sitl.params",
        [
            "steering reversed: steer right → turns left",
            "output 1: SIM_Rover skid steering reads it as motor1 (left)",
        ],
    ),
    "bluerov2_heavy": (
        "sim_vehicle.py -v ArduSub --add-param-file=derived/bluerov2_heavy_sitl.params",
        ["6 simulated thrusters for an 8-motor frame", "pitch dead"],
    ),
    "holybro_x500": (
        "sim_vehicle.py -v ArduCopter -f gazebo-iris "
        "--add-param-file=derived/holybro_x500_sitl.params",
        ["no JSON backend"],
    ),
}
CORRECTED = {
    "blueboat": [
        "sim_vehicle.py -v Rover -f rover-skid --model JSON "
        "--add-param-file=derived/blueboat_sitl.params"
    ],
    "bluerov2_heavy": [
        "sim_vehicle.py -v ArduSub -f vectored_6dof "
        "--add-param-file=derived/bluerov2_heavy_sitl.params",
        "sim_vehicle.py -v ArduSub -f vectored_6dof --model JSON "
        "--add-param-file=derived/bluerov2_heavy_sitl.params",
    ],
    "holybro_x500": [
        "sim_vehicle.py -v ArduCopter -f gazebo-iris --model JSON "
        "--add-param-file=derived/holybro_x500_sitl.params"
    ],
}
ROS2 = "ardurover --model JSON --defaults rover-skid.parm,dds_udp.parm"


@pytest.fixture(scope="module")
def repo(upstream: Path, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The committed project itself, read through the mirror (a fresh cache)."""
    mirror = upstream
    return location_args(ROOT, tmp_path_factory.mktemp("launch-cache"), mirror)


@pytest.mark.parametrize("profile", sorted(OLD_LINES))
def test_the_old_header_lines_fail_naming_the_problem(repo: list[str], profile: str) -> None:
    line, problems = OLD_LINES[profile]
    result = run_cli(["check", "-v", *repo, "--profile", profile, "--launch", line])
    assert result.exit_code == 1, result.output
    for problem in problems:
        assert problem in result.output


@pytest.mark.parametrize("profile", sorted(CORRECTED))
def test_the_corrected_lines_pass(repo: list[str], profile: str) -> None:
    for line in CORRECTED[profile]:
        result = run_cli(["check", "-v", *repo, "--profile", profile, "--launch", line])
        assert result.exit_code == 0, result.output
        assert f"launch (command line): {line}" in result.output


@pytest.mark.parametrize("profile", sorted(CORRECTED))
def test_each_derived_header_carries_a_verified_launch(profile: str) -> None:
    text = (ROOT / f"derived/{profile}_sitl.params").read_text()
    block = text.split("# Load it with", 1)[1].split("\n# It loads", 1)[0]
    # As a user pastes it: '# ' stripped, the lines joined by newlines, and the shell's
    # backslash-newline continuation (POSIX 2.2.1) removed before words are split.
    pasted = "\n".join(ln.removeprefix("# ") for ln in block.splitlines()[2:])
    assert shlex.split(pasted.replace("\\\n", "")) == shlex.split(CORRECTED[profile][0])
    assert "\n" not in pasted or pasted.count("\\\n") == pasted.count("\n")
    # ... and `check --launch` reads the paste as the shell does (#28 review).
    assert split(pasted) == shlex.split(CORRECTED[profile][0])


def test_ros2_launch_loads_its_defaults_verbatim(repo: list[str]) -> None:
    result = run_cli(["layers", *repo, "--profile", "blueboat", "--launch", ROS2])
    # exit 1: without the derived file rover-skid.parm's outputs run (SERVO1 ThrottleLeft),
    # which the derived model, made for the derived file, is not wired for (the FAIL lines)
    assert result.exit_code == 1, result.output
    assert "derived/blueboat_model.sdf: channel 0 (motor_stbd_joint, SERVO1): geometry" in (
        result.output
    )
    out = result.output
    assert (
        "1. rover-skid.parm (--defaults): rover_skid_defaults, ArduPilot/ardupilot@5764606ecdaf"
        in out
    )
    assert "2. dds_udp.parm (--defaults): dds_udp_defaults, ArduPilot/ardupilot@649adbc9b81a" in out
    assert "rover.parm" not in out.replace("rover-skid.parm", "")
    # The derived model is built for the derived file's outputs (SERVO1 ThrottleRight); with
    # rover-skid.parm's SERVO1 ThrottleLeft it steers backwards, as it should be told.
    assert (
        "steering  steer right → turns left (counter-clockwise seen from above) [REVERSED]" in out
    )


def test_ros2_launch_stack_adds_dds(upstream: Path) -> None:
    from paramdiff.pin import Pin
    from paramdiff.project import Project
    from paramdiff.simulation.launch_check import adhoc

    mirror = upstream
    ctx = Pin(Project(root=ROOT, mirror=str(mirror)), "blueboat", None)
    result = adhoc(ctx.launch_inputs([ROS2]), ROS2, [])
    params = result.params
    assert (params["DDS_ENABLE"], params["DDS_PORT"]) == (1.0, 2019.0)
    assert [ly.source.role for ly in result.layers] == ["rover_skid_defaults", "dds_udp_defaults"]
    assert any("no -w" in n for n in result.notes)
    # Without the derived file rover-skid.parm's outputs run: the derived model's channel
    # findings then are this launch's own, and no acknowledgement fits.
    assert not result.passed
    # First: the launch loads nothing of ours (paramdiff/simulation/frame.py), with its fix.
    assert result.findings[0].text.startswith("the profile's derived file is not loaded")
    assert "derived/blueboat_sitl.params last in --defaults" in result.findings[0].fix
    assert result.findings[1:]
    assert all(f.text.startswith("derived/blueboat_model.sdf: ") for f in result.findings[1:])
    with_derived = ROS2 + ",derived/blueboat_sitl.params"
    declared = adhoc(ctx.launch_inputs([with_derived]), with_derived, [])
    assert [ly.kind for ly in declared.layers] == ["pinned", "pinned", "derived"]
    assert declared.passed  # on the derived model, with no acknowledgement
    assert declared.acknowledged == [] and declared.model == "derived/blueboat_model.sdf"


def test_the_header_line_loads_the_derived_file() -> None:
    # The ros2 launch as declared loads the derived file last; a launch loading none could
    # never be the derived header's line (render.launch.load_line).
    header = (ROOT / "derived/blueboat_sitl.params").read_text()
    assert "--add-param-file=derived/blueboat_sitl.params" in header
    declared = (ROOT / "sources.yaml").read_text()
    assert "--defaults rover-skid.parm,dds_udp.parm,derived/blueboat_sitl.params" in declared


def test_blueboat_fails_without_its_acknowledgements(tmp_path: Path, upstream: Path) -> None:
    base = copy_project(tmp_path / "p")
    overlay = base / "overlays/blueboat_sitl.yaml"
    text = overlay.read_text()
    head, rest = text.split("\n# Findings about the pinned upstream Gazebo model", 1)
    overlay.write_text(head + "\n" + rest[rest.index("\ndeltas:") :])
    loc = location_args(base, tmp_path / "c", upstream)
    result = run_cli(["check", "-v", *loc, "--profile", "blueboat"])
    assert result.exit_code == 1
    # The launches run the derived model and need none; the pinned model's actuator findings
    # (the report reads it) are what the acknowledgements were for.
    assert "steering reversed" not in result.output
    assert "thrust-ratio:SERVO1" in result.output


def test_a_stale_acknowledgement_fails(tmp_path: Path, upstream: Path) -> None:
    base = copy_project(tmp_path / "p")
    overlay = base / "overlays/blueboat_sitl.yaml"
    text = overlay.read_text().replace(
        "finding: thrust-ratio:SERVO3", "finding: thrust-ratio:SERVO4"
    )
    overlay.write_text(text)
    loc = location_args(base, tmp_path / "c", upstream)
    result = run_cli(["check", "-v", *loc, "--profile", "blueboat"])
    assert result.exit_code == 1
    assert "is stale: no finding is 'thrust-ratio:SERVO4'" in result.output


def test_a_copy_of_the_model_with_other_bytes_is_not_acknowledged(
    repo: list[str], tmp_path: Path, upstream: Path
) -> None:
    from paramdiff.pin import Pin
    from paramdiff.project import Project

    ctx = Pin(Project(root=ROOT, mirror=str(upstream)), "blueboat", None)
    _, _, data, _ = ctx.pinned_model("sitl_models")
    copy = tmp_path / "blueboat/model.sdf"
    copy.parent.mkdir()
    copy.write_bytes(data + b"<!-- the same model, other bytes -->\n")
    line = CORRECTED["blueboat"][0]
    result = run_cli(
        ["check", "-v", *repo, "--profile", "blueboat", "--launch", line, "--model", str(copy)]
    )
    assert result.exit_code == 1, result.output
    assert "steering reversed: steer right → turns left" in result.output


def test_report_has_a_section_per_declared_launch() -> None:
    heavy = (ROOT / "reports/bluerov2_heavy-4.7.md").read_text()
    assert "### Launch `built-in` — passes" in heavy
    assert "### Launch `gazebo` — passes" in heavy
    row = "| `sub-6dof.parm` | frame vectored_6dof | sub_6dof_defaults |"
    assert f"| 1 {row} ArduPilot/ardupilot@4e52657d9461 |" in heavy
    boat = (ROOT / "reports/blueboat-4.7.md").read_text()
    assert "### Launch `gazebo` — passes\n" in boat
    assert "| steering | steer right |" in boat


def test_swapped_jointnames_with_kept_topics_are_found(
    repo: list[str], tmp_path: Path, upstream: Path
) -> None:
    # The geometry follows <jointName>, which now agrees with the derived file's channels; what
    # moves is the Thruster each cmd_topic reaches, so the boat still steers the wrong way.
    from paramdiff.pin import Pin
    from paramdiff.project import Project

    ctx = Pin(Project(root=ROOT, mirror=str(upstream)), "blueboat", None)
    _, _, data, _ = ctx.pinned_model("sitl_models")
    text = data.decode()
    port, stbd = "<jointName>motor_port_joint<", "<jointName>motor_stbd_joint<"
    assert port in text and stbd in text
    swapped = text.replace(port, "@").replace(stbd, port).replace("@", stbd)
    copy = tmp_path / "blueboat/model.sdf"
    copy.parent.mkdir()
    copy.write_text(swapped)
    line = CORRECTED["blueboat"][0]
    result = run_cli(
        ["check", "-v", *repo, "--profile", "blueboat", "--launch", line, "--model", str(copy)]
    )
    assert result.exit_code == 1, result.output
    assert (
        "channel 0 (<jointName> motor_stbd_joint, SERVO1): its cmd_topic "
        "model/blueboat/joint/motor_port_joint/cmd_thrust reaches the Thruster of joint "
        "motor_port_joint"
    ) in result.output
    assert "steering reversed: steer right → turns left" in result.output


@pytest.mark.parametrize(
    ("profile", "line"),
    [
        ("blueboat", "sim_vehicle.py -v Rover -w"),
        ("bluerov2_heavy", "sim_vehicle.py -v ArduSub -w"),
    ],
)
def test_stock_launches_run_the_firmware_boot_outputs(
    repo: list[str], profile: str, line: str
) -> None:
    # Rover's boot defaults (output 1 GroundSteering, 3 Throttle); ArduSub's vectored frame
    # assigns 6 motors and has no pitch factor (a note, not a failure). The one finding: the
    # launch loads nothing of the profile's (paramdiff/simulation/frame.py).
    result = run_cli(["layers", *repo, "--profile", profile, "--launch", line])
    assert result.exit_code == 1, result.output
    fails = [ln for ln in result.output.splitlines() if ln.lstrip().startswith("FAIL")]
    assert len(fails) == 1 and "the profile's derived file is not loaded" in fails[0], fails
    assert "DEAD" not in result.output
    assert "function (0)" not in result.output
    if profile == "bluerov2_heavy":
        assert "note: pitch not controlled by this frame" in result.output


def test_layers_launch_without_profile_is_refused_as_check_refuses_it(repo: list[str]) -> None:
    # issue #28 review 5: without --profile, layers judged this Sub launch as the first
    # profile (blueboat) and printed a wrong fix
    launch = (
        "sim_vehicle.py -v ArduSub -f vectored_6dof "
        "--add-param-file=derived/bluerov2_heavy_sitl.params"
    )
    result = run_cli(["layers", *repo, "--launch", launch])
    assert result.exit_code == 2, result.output
    assert "--launch needs --profile" in result.output and "bluerov2_heavy" in result.output
    named = run_cli(["layers", *repo, "--profile", "bluerov2_heavy", "--launch", launch])
    assert "--launch needs --profile" not in named.output
    assert "blueboat" not in named.output
