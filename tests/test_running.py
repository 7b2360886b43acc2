"""What a running vehicle holds against its launch's layers (`verify`), and what runs anyway
(`derive --minimal`, `diff --against-defaults`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import ROOT
from mavlink_vehicle import MAV_PARAM_TYPE_REAL32, Vehicle, tcp_vehicle

from paramdiff.comparison.running_vehicle import (
    NOT_IN_FIRMWARE,
    SET_AFTER_BOOT,
    STORED_SURVIVED,
    changed_from_defaults,
    repeats_baseline,
    runs_anyway,
    verify_running,
)
from paramdiff.comparison.sitl_layers import stack
from paramdiff.errors import ConfigError, DriftError
from paramdiff.jobs.derive import minimal_derived
from paramdiff.jobs.verify import expected, verify_vehicle
from paramdiff.model.params import Param, ParamFile
from paramdiff.model.source import Source
from paramdiff.pin import Pin
from paramdiff.project import Project
from paramdiff.vehicle.mavlink_pull import PullLimits


def _source(role: str, values: dict[str, float]) -> Source:
    params = {
        n: Param(n, v, str(v), f"{role}.parm", i + 1) for i, (n, v) in enumerate(values.items())
    }
    return Source(role=role, file=ParamFile(f"{role}.parm", "params", params))


FRAME = _source("rover_skid", {"SERVO1_FUNCTION": 73, "SERVO3_FUNCTION": 74, "FRAME_CLASS": 2})
DERIVED = _source("derived", {"SERVO1_FUNCTION": 74, "SERVO3_FUNCTION": 73, "ATC_STR_RAT_P": 0.2})
LAYERS = stack([FRAME, DERIVED], "rover-skid", ("rover_skid",))


def test_every_layer_value_running_is_verified() -> None:
    running = {"SERVO1_FUNCTION": 74.0, "SERVO3_FUNCTION": 73.0, "FRAME_CLASS": 2.0}
    running |= {"ATC_STR_RAT_P": 0.2, "WP_SPEED": 2.0, "CRUISE_SPEED": 1.5}
    result = verify_running(LAYERS, running, wiped=False)
    assert result.ok and result.matching == 4 and result.unset == 2


def test_names_the_firmware_does_not_know_are_not_counted_as_its_defaults() -> None:
    running = {"SERVO1_FUNCTION": 74.0, "SERVO3_FUNCTION": 73.0, "FRAME_CLASS": 2.0}
    running |= {"ATC_STR_RAT_P": 0.2, "WP_SPEED": 2.0, "NL_BRIGHT": 1.0}
    known = {"SERVO1_FUNCTION", "SERVO3_FUNCTION", "FRAME_CLASS", "ATC_STR_RAT_P", "WP_SPEED"}
    result = verify_running(LAYERS, running, wiped=False, known=known)
    assert (result.unset, result.unknown) == (1, 1)


def test_a_stored_value_that_survived_names_the_layer_and_the_fix() -> None:
    # SITL booted with an old eeprom.bin: the frame's 73 was stored; the derived 74 lost
    running = {"SERVO1_FUNCTION": 73.0, "SERVO3_FUNCTION": 73.0, "FRAME_CLASS": 2.0}
    result = verify_running(LAYERS, running, wiped=False)
    assert [m.name for m in result.mismatches] == ["ATC_STR_RAT_P", "SERVO1_FUNCTION"]
    servo = result.mismatches[1]
    assert servo.row() == [
        "SERVO1_FUNCTION",
        "73",
        "74",
        "derived (derived.parm:1)",
        STORED_SURVIVED,
    ]
    assert "relaunch with -w" in servo.cause
    assert result.mismatches[0].cause == NOT_IN_FIRMWARE and result.mismatches[0].running is None
    wiped = verify_running(LAYERS, running, wiped=True)
    assert wiped.mismatches[1].cause == SET_AFTER_BOOT


def test_float32_values_compare_as_the_vehicle_stores_them() -> None:
    running = {"SERVO1_FUNCTION": 74.0, "SERVO3_FUNCTION": 73.0, "FRAME_CLASS": 2.0}
    running["ATC_STR_RAT_P"] = 0.20000000298023224  # float32(0.2), as pulled
    assert verify_running(LAYERS, running, wiped=False).ok


def test_what_runs_anyway_is_the_firmware_then_the_frame() -> None:
    firmware = [Param("SERVO1_FUNCTION", 0, "0", "d", 1), Param("WP_SPEED", 2, "2", "d", 2)]
    frame_layers = stack([FRAME], "rover-skid", ("rover_skid",))
    baseline = runs_anyway(firmware, frame_layers)
    assert baseline == {
        "SERVO1_FUNCTION": 73,
        "WP_SPEED": 2,
        "SERVO3_FUNCTION": 74,
        "FRAME_CLASS": 2,
    }
    assert repeats_baseline("WP_SPEED", 2.0, baseline)
    assert not repeats_baseline("WP_SPEED", 2.5, baseline)
    assert not repeats_baseline("CRUISE_SPEED", 1.0, baseline)


def test_changed_from_defaults() -> None:
    defaults = {"WP_SPEED": 2.0, "CRUISE_SPEED": 1.0}
    files = [{"WP_SPEED": 2.0, "CRUISE_SPEED": 1.5}, {"NEW_PARAM": 1.0}]
    assert changed_from_defaults(defaults, files) == ["CRUISE_SPEED", "NEW_PARAM"]


# --------------------------------------------------------------------------- the real pins


@pytest.fixture(scope="module")
def blueboat(tmp_path_factory: pytest.TempPathFactory, upstream: Path) -> Pin:
    mirror = upstream
    base = tmp_path_factory.mktemp("verify")
    for name in ("sources.yaml", "sources.lock", "overlays", "derived"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, base / name)
    options = Project(root=base, cache_dir=base / ".cache", mirror=str(mirror))
    return Pin(options, "blueboat", "4.7")


FAST = PullLimits(timeout=20, heartbeat_timeout=5, quiet=0.3, retries=8, version_wait=0.3)


def _running(pin: Pin, launch: str | None = None) -> dict[str, tuple[float, int]]:
    layers, _ = expected(pin, launch)
    params = {n: (e.param.value, MAV_PARAM_TYPE_REAL32) for n, e in layers.effective.items()}
    params |= {"STAT_BOOTCNT": (3.0, 4), "MAV_SYSID": (1.0, 2)}  # firmware's own (4.7)
    params["NL_BRIGHT"] = (1.0, 2)  # a Lua script's: no firmware default
    return params


def test_verify_a_sitl_that_runs_its_launch(blueboat: Pin) -> None:
    params = _running(blueboat)
    with tcp_vehicle(Vehicle(params)) as connection:
        lines = list(verify_vehicle(blueboat, connection, limits=FAST))
    layers, wiped = expected(blueboat, None)
    assert not wiped  # the declared gazebo launch has no -w
    total = len(layers.effective)
    assert lines[2] == (
        f"{total} of {total} parameters the layers set run that value; 2 more run firmware "
        "defaults no layer sets, 1 names the firmware's metadata does not know (counted, not "
        "listed)"
    )
    assert "rover.parm" in lines[1] and "blueboat_sitl.params" in lines[1]


ROS2 = (
    "ardurover --model JSON --defaults rover-skid.parm,dds_udp.parm,derived/blueboat_sitl.params -w"
)


def test_verify_follows_the_launch_given(blueboat: Pin) -> None:
    """The ROS 2 form: rover.parm is not loaded, dds_udp.parm is; -w makes a difference
    something that happened after boot."""
    layers, wiped = expected(blueboat, ROS2)
    assert wiped and "DDS_ENABLE" in layers.effective
    assert not any(s.file.file.endswith("/rover.parm") for s in layers.layers)
    params = _running(blueboat, ROS2)
    params["CRUISE_SPEED"] = (9.0, MAV_PARAM_TYPE_REAL32)
    with tcp_vehicle(Vehicle(params)) as connection, pytest.raises(DriftError) as err:
        list(verify_vehicle(blueboat, connection, launch=ROS2, limits=FAST))
    (finding,) = err.value.findings
    assert finding.startswith("CRUISE_SPEED runs 9,")


def test_verify_names_a_stored_value_that_survived(blueboat: Pin) -> None:
    params = _running(blueboat)
    params["SERVO1_FUNCTION"] = (73.0, 4)  # rover-skid.parm's, kept in eeprom.bin
    with tcp_vehicle(Vehicle(params)) as connection, pytest.raises(DriftError) as err:
        list(verify_vehicle(blueboat, connection, limits=FAST))
    (finding,) = err.value.findings
    assert finding.startswith("SERVO1_FUNCTION runs 73, derived/blueboat_sitl.params (")
    assert "sets 74" in finding
    assert "-w" in str(err.value)


def test_minimal_derive_leaves_out_what_runs_anyway(project: Path, tmp_path: Path) -> None:
    """A firmware_defaults role (a pulled, wiped SITL): lines equal to it go, deltas stay."""
    from helpers import location_args

    (project / "field").mkdir()
    (project / "field" / "defaults.params").write_text(
        "FRAME_CLASS 2\nSERVO1_MAX 1900\nSERVO1_MIN 1100\nSERVO1_TRIM 1500\nWP_RADIUS 2\n"
    )
    yaml = (project / "sources.yaml").read_text()
    role = "        firmware_defaults: {file: field/defaults.params}\n"
    (project / "sources.yaml").write_text(
        yaml.replace("        calibration: {", role + "        calibration: {")
    )
    options = Project(root=project, cache_dir=tmp_path / "c", mirror=str(tmp_path / "mirror"))
    loc = location_args(project, tmp_path / "c", tmp_path / "mirror")
    from helpers import run_cli

    assert run_cli(["fetch", *loc]).exit_code == 0
    pin = Pin(options, None, None)
    full = {ln.name for ln in pin.derived().lines}
    minimal = minimal_derived(pin)
    kept = {ln.name for ln in minimal.lines}
    assert full - kept == {"FRAME_CLASS", "SERVO1_MAX", "SERVO1_MIN"}
    assert "SERVO1_TRIM" in kept  # a delta stays even where it equals the default
    assert "WP_RADIUS" in kept  # 1 here, 2 by default
    assert minimal.minimal_of == ("firmware_defaults", 3)
    from paramdiff.render.derived_file import render

    text = "\n".join(render(minimal))
    assert "3 lines left out that only restate what the launch runs anyway" in text


def test_minimal_needs_a_firmware_defaults_role(project: Path, tmp_path: Path) -> None:
    from helpers import location_args, run_cli

    assert (
        run_cli(["fetch", *location_args(project, tmp_path / "c", tmp_path / "mirror")]).exit_code
        == 0
    )
    options = Project(root=project, cache_dir=tmp_path / "c", mirror=str(tmp_path / "mirror"))
    with pytest.raises(ConfigError, match="has no 'firmware_defaults' role"):
        minimal_derived(Pin(options, None, None))


# --------------------------------------------------------------------------- the commands


def test_verify_command_exits_1_naming_the_stored_value(blueboat: Pin, upstream: Path) -> None:
    from helpers import location_args, run_cli

    loc = location_args(blueboat.config.root, blueboat.config.root / ".cache",
                        upstream)  # fmt: skip
    params = _running(blueboat)
    params["SERVO1_FUNCTION"] = (73.0, 4)
    with tcp_vehicle(Vehicle(params)) as connection:
        result = run_cli(["verify", connection, "--profile", "blueboat", *loc])
    assert result.exit_code == 1, result.output
    assert "SERVO1_FUNCTION" in result.stdout and "a stored value survived" in result.stdout
    assert result.stderr.startswith("Error: SERVO1_FUNCTION runs 73")
    with tcp_vehicle(Vehicle(_running(blueboat))) as connection:
        result = run_cli(["verify", connection, "--profile", "blueboat", *loc])
    assert result.exit_code == 0, result.output


def test_derive_minimal_wants_its_own_output(project: Path, tmp_path: Path) -> None:
    from helpers import location_args, run_cli

    loc = location_args(project, tmp_path / "c", tmp_path / "mirror")
    assert run_cli(["fetch", *loc]).exit_code == 0
    result = run_cli(["derive", "--minimal", *loc])
    assert result.exit_code == 2 and "--minimal writes a file of its own" in result.stderr
    result = run_cli(["derive", "--minimal", "-o", "-", *loc])
    assert result.exit_code == 2 and "has no 'firmware_defaults' role" in result.stderr


def test_diff_against_defaults(tmp_path: Path) -> None:
    from helpers import run_cli

    defaults = tmp_path / "defaults.params"
    defaults.write_text("WP_SPEED 2\nCRUISE_SPEED 1\nSERVO1_FUNCTION 0\n")
    boat = tmp_path / "boat.params"
    boat.write_text("WP_SPEED 2\nCRUISE_SPEED 1.5\nSERVO1_FUNCTION 74\n")
    result = run_cli(["diff", "--against-defaults", str(defaults), str(boat), "--format", "csv"])
    assert result.exit_code == 1, result.output
    names = [ln.split(",")[0] for ln in result.stdout.splitlines()[1:]]
    assert names == ["CRUISE_SPEED", "SERVO1_FUNCTION"]
    same = tmp_path / "same.params"
    same.write_text("WP_SPEED 2\n")
    result = run_cli(["diff", "--against-defaults", str(defaults), str(same)])
    assert result.exit_code == 0, result.output
