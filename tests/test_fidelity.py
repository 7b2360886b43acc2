"""Actuator fidelity (simulation.actuator_fidelity): the thrust a model gives at the firmware's
full forward and reverse output, through the gz-sim Thruster its cmd_topic reaches, against what
the firmware's mixer assumes. Hand-written SDF fixtures with the same plugin blocks as the real
models; the real SITL_Models BlueBoat (edited in the test) when the mirror is there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paramdiff.errors import ConfigError, InputError
from paramdiff.overlay.file import parse_overlay
from paramdiff.parse.sdf import read_channels
from paramdiff.parse.sdf_thruster import read_actuation
from paramdiff.render.fidelity_section import actuator_consequence, actuator_section
from paramdiff.simulation.actuator_fidelity import Fidelity, actuator_findings, fidelity

ROVER = {"SERVO1_FUNCTION": 73.0, "SERVO3_FUNCTION": 74.0, "MOT_THST_ASYM": 1.6}
BOAT_MODEL = "blueboat"


def thruster(joint: str, extra: str = "") -> str:
    return f"""
    <plugin name="gz::sim::systems::Thruster" filename="gz-sim-thruster-system">
      <namespace>{BOAT_MODEL}</namespace>
      <joint_name>{joint}</joint_name>
      <thrust_coefficient>0.02</thrust_coefficient>
      <propeller_diameter>0.112</propeller_diameter>{extra}
    </plugin>"""


def control(channel: int, joint: str, multiplier: float = 70, lo: int = 1000, hi: int = 2000,
            topic: str | None = None, ctype: str = "COMMAND") -> str:  # fmt: skip
    topic = topic if topic is not None else f"/model/{BOAT_MODEL}/joint/{joint}/cmd_thrust"
    return f"""
      <control channel="{channel}">
        <jointName>{joint}</jointName>
        <multiplier>{multiplier}</multiplier>
        <offset>-0.5</offset>
        <servo_min>{lo}</servo_min>
        <servo_max>{hi}</servo_max>
        <type>{ctype}</type>
        <cmd_topic>{topic}</cmd_topic>
      </control>"""


def boat(thrusters: str, controls: str) -> bytes:
    return f"""<?xml version="1.0"?>
<sdf version="1.9">
  <model name="{BOAT_MODEL}">{thrusters}
    <plugin name="ArduPilotPlugin" filename="ArduPilotPlugin">{controls}
    </plugin>
  </model>
</sdf>
""".encode()


def fid_of(data: bytes, params: dict[str, float], vehicle: str = "Rover") -> Fidelity:
    channels, _ = read_channels(data, "model.sdf")
    return fidelity(channels, read_actuation(data, "model.sdf"), params, vehicle, "ab" * 32, "boat")


SITL_MODELS_LIKE = boat(
    thruster("motor_port_joint") + thruster("motor_stbd_joint"),
    control(0, "motor_port_joint") + control(2, "motor_stbd_joint"),
)
ROADMAP_CLAMPS = (
    "\n      <max_thrust_cmd>51.5</max_thrust_cmd>\n      <min_thrust_cmd>-40.2</min_thrust_cmd>"
)


def test_the_sitl_models_boat_is_symmetric_against_thst_asym_1_6() -> None:
    fid = fid_of(SITL_MODELS_LIKE, ROVER)
    row = fid.rows[0]
    # 70 * ((1900 - 1000) / 1000 - 0.5) = 28 N; at 1100: -28 N; gz-sim's default clamps ±1000
    assert (row.forward, row.reverse, row.ratio) == (pytest.approx(28.0), pytest.approx(-28.0), 1.0)
    assert row.limits == () and "1000 / -1000 N (gz-sim's defaults)" in row.clamps
    assert row.neutral == "1500" and row.expected_ratio == 1.6
    found = actuator_findings(fid)
    assert [f.id for f in found] == ["thrust-ratio:SERVO1", "thrust-ratio:SERVO3"]
    assert "1.00" in found[0].what and "MOT_THST_ASYM 1.6" in found[0].what
    assert "1.60× what the firmware expects" in found[0].consequence
    assert "backs up" in found[0].consequence and found[0].model_sha256 == "ab" * 32


def test_the_roadmap_clamps_give_1_28_and_name_both_limits() -> None:
    data = boat(
        thruster("motor_port_joint", ROADMAP_CLAMPS) + thruster("motor_stbd_joint", ROADMAP_CLAMPS),
        control(0, "motor_port_joint", 140) + control(2, "motor_stbd_joint", 140),
    )
    row = fid_of(data, ROVER).rows[0]
    assert row.forward == 51.5 and row.reverse == -40.2
    assert f"{row.ratio:.2f}" == "1.28"
    assert row.limits[0].startswith("forward limited by max_thrust_cmd 51.5 N (line ")
    assert row.limits[1].startswith("reverse limited by min_thrust_cmd -40.2 N (line ")
    assert row.finding is not None and "1.28" in row.finding.what
    assert "1.25× what the firmware expects" in row.finding.consequence


def test_the_real_sitl_models_boat_edited_gives_1_00_then_1_28(upstream: Path) -> None:
    path = next(upstream.glob("raw/ArduPilot/SITL_Models/b2fb*/Gazebo/models/blueboat/model.sdf"))
    real = path.read_bytes()
    params = {"SERVO1_FUNCTION": 74.0, "SERVO3_FUNCTION": 73.0, "MOT_THST_ASYM": 1.6}
    assert {f"{r.ratio:.2f}" for r in fid_of(real, params).rows} == {"1.00"}
    edited = real.replace(
        b"<velocity_control>0</velocity_control>",
        b"<velocity_control>0</velocity_control>" + ROADMAP_CLAMPS.encode(),
    ).replace(b"<multiplier>70</multiplier>", b"<multiplier>140</multiplier>")
    rows = fid_of(edited, params).rows
    assert [f"{r.ratio:.2f}" for r in rows] == ["1.28", "1.28"]
    assert all(len(r.limits) == 2 and r.finding is not None for r in rows)


def test_a_ratio_within_five_percent_agrees() -> None:
    asym = {**ROVER, "MOT_THST_ASYM": 1.0}
    assert actuator_findings(fid_of(SITL_MODELS_LIKE, asym)) == []
    # forward 28 N, reverse clamped to 20 N: 1.4 against 1.6 is 12.5% off
    clamp = "\n      <min_thrust_cmd>-20</min_thrust_cmd>"
    data = boat(thruster("motor_port_joint", clamp), control(0, "motor_port_joint"))
    (row,) = fid_of(data, {**ROVER, "MOT_THST_ASYM": 1.45}).rows
    assert row.ratio == pytest.approx(1.4) and row.finding is None  # 3.4% off
    (row,) = fid_of(data, ROVER).rows
    assert row.finding is not None


def test_reverse_weaker_than_the_firmware_expects_says_so() -> None:
    clamp = "\n      <min_thrust_cmd>-10</min_thrust_cmd>"
    data = boat(thruster("motor_port_joint", clamp), control(0, "motor_port_joint"))
    (row,) = fid_of(data, ROVER).rows
    assert (
        row.finding is not None and "0.57 of what the firmware expects" in row.finding.consequence
    )


def test_a_reversed_output_swaps_which_pwm_is_forward() -> None:
    params = {**ROVER, "SERVO1_REVERSED": 1.0, "MOT_THST_ASYM": 1.0}
    (row, _) = fid_of(SITL_MODELS_LIKE, params).rows
    assert (row.forward_pwm, row.reverse_pwm) == (1100.0, 1900.0)
    assert row.forward == pytest.approx(-28.0)


HEAVY_LIKE = boat(
    "".join(thruster(f"thruster{i}_joint") for i in range(1, 9)),
    "".join(control(i - 1, f"thruster{i}_joint", 100, 1100, 1900) for i in range(1, 9)),
)


def test_the_heavy_s_symmetric_thrusters_agree_with_ardusub() -> None:
    fid = fid_of(HEAVY_LIKE, {"FRAME_CONFIG": 2.0}, "ArduSub")
    assert len(fid.rows) == 8 and actuator_findings(fid) == []
    assert {(r.forward, r.reverse, r.ratio) for r in fid.rows} == {(50.0, -50.0, 1.0)}
    assert all("symmetric" in r.firmware for r in fid.rows)


def test_an_asymmetric_sub_thruster_is_a_finding() -> None:
    data = boat(
        thruster("thruster1_joint", "\n      <min_thrust_cmd>-30</min_thrust_cmd>"),
        control(0, "thruster1_joint", 100, 1100, 1900),
    )
    (row,) = fid_of(data, {"FRAME_CONFIG": 2.0}, "ArduSub").rows
    assert row.finding is not None and "symmetric" in row.finding.what
    assert "drifts" in row.finding.consequence


def test_the_angular_velocity_mode_applies_fossen_s_thrust_and_its_deadband() -> None:
    extra = "\n      <use_angvel_cmd>true</use_angvel_cmd>\n      <deadband>1</deadband>"
    data = boat(thruster("motor_port_joint", extra), control(0, "motor_port_joint"))
    (act,) = read_actuation(data, "m.sdf").thrusters
    assert act.topic == f"model/{BOAT_MODEL}/joint/motor_port_joint/cmd_vel" and act.angvel
    assert act.thrust(28.0) == pytest.approx(0.02 * 0.112**4 * 28 * 28 * 1000)
    assert act.thrust(0.5) == 0.0  # below the 1 N deadband
    (row,) = fid_of(data.replace(b"cmd_thrust", b"cmd_vel"), ROVER).rows
    assert "deadband 1 N" in row.neutral and row.physics.startswith("Thruster (angular velocity")


def test_a_force_deadband_widens_the_neutral_band() -> None:
    data = boat(thruster("motor_port_joint", "\n      <deadband>7</deadband>"),
                control(0, "motor_port_joint"))  # fmt: skip
    (row,) = fid_of(data, ROVER).rows
    assert row.neutral == "1400–1600 (deadband 7 N)"  # 7 N / 70 * 1000 µs either side


def test_topics_follow_gz_sim_s_rules() -> None:
    custom = boat(
        thruster("motor_port_joint", "\n      <topic>/thrust/port/</topic>"),
        control(0, "motor_port_joint", topic="blueboat/thrust/port"),
    )
    (row,) = fid_of(custom, ROVER).rows
    assert row.physics.startswith("Thruster")
    nowhere = boat(thruster("motor_port_joint"), control(0, "motor_port_joint", topic="/x"))
    (row,) = fid_of(nowhere, ROVER).rows
    assert row.physics == "cmd_topic reaches no Thruster of the model" and row.finding is None
    no_namespace = SITL_MODELS_LIKE.replace(b"<namespace>blueboat</namespace>", b"")
    assert fid_of(no_namespace, ROVER).rows[0].physics.startswith("Thruster")  # model name


def test_a_max_below_min_keeps_gz_sim_s_defaults_and_bad_numbers_are_refused() -> None:
    swapped = (
        "\n      <max_thrust_cmd>-5</max_thrust_cmd>\n      <min_thrust_cmd>5</min_thrust_cmd>"
    )
    data = boat(thruster("motor_port_joint", swapped), control(0, "motor_port_joint"))
    (act,) = read_actuation(data, "m.sdf").thrusters
    assert (act.max_cmd, act.min_cmd, act.lines.get("max_thrust_cmd")) == (1000, -1000, None)
    bad = boat(thruster("motor_port_joint", "\n      <deadband>lots</deadband>"), "")
    with pytest.raises(InputError) as exc:
        read_actuation(bad, "m.sdf")
    assert exc.value.line == 9
    no_joint = boat(thruster("").replace("<joint_name></joint_name>", ""), "")
    assert read_actuation(no_joint, "m.sdf").thrusters == []


COPTER = {"FRAME_CLASS": 1.0, "FRAME_TYPE": 1.0, "MOT_SPIN_ARM": 0.07, "MOT_SPIN_MIN": 0.09}


def rotor_model(lo: int = 1100, hi: int = 1900) -> bytes:
    controls = "".join(
        f"""
      <control channel="{i}"><jointName>rotor_{i}_joint</jointName><multiplier>838</multiplier>
        <offset>0</offset><servo_min>{lo}</servo_min><servo_max>{hi}</servo_max>
        <type>VELOCITY</type></control>"""
        for i in range(4)
    )
    return boat("", controls)


def test_copter_rotors_at_mot_pwm_min_max_and_the_spin_points() -> None:
    params = {**COPTER, "MOT_PWM_MIN": 1100.0, "MOT_PWM_MAX": 1900.0}
    fid = fid_of(rotor_model(), params, "ArduCopter")
    assert actuator_findings(fid) == []
    row = fid.rows[0]
    assert (row.forward, row.reverse, row.ratio, row.unit) == (838.0, 0.0, None, "rad/s")
    assert row.neutral == "≤ 1100"
    (spins,) = [n for n in fid.notes if n.startswith("Rotors")]
    assert "MOT_SPIN_ARM 0.07 → 1156 µs → 59 rad/s" in spins
    assert "MOT_SPIN_MAX 0.95 → 1860 µs" in spins and "stands still" in spins


def test_copter_pwm_range_off_the_model_s_servo_span_is_a_finding() -> None:
    params = {**COPTER, "MOT_PWM_MIN": 1000.0, "MOT_PWM_MAX": 2000.0}
    fid = fid_of(rotor_model(), params, "ArduCopter")
    found = actuator_findings(fid)
    assert [f.id for f in found] == [f"rotor-range:SERVO{i}" for i in range(1, 5)]
    assert "moves no rotor" in found[0].consequence
    inside = fid_of(rotor_model(1000, 2000), {**COPTER, "MOT_PWM_MIN": 1100.0,
                                                "MOT_PWM_MAX": 1900.0}, "ArduCopter")  # fmt: skip
    assert "already turns at 84 rad/s" in actuator_findings(inside)[0].consequence
    assert "already turns" in next(n for n in inside.notes if n.startswith("Rotors"))


def test_rates_are_described_as_they_behave_in_sitl() -> None:
    params = {**ROVER, "MOT_SLEWRATE": 200.0, "SERVO_RATE": 50.0, "SCHED_LOOP_RATE": 50.0}
    notes = "\n".join(fid_of(SITL_MODELS_LIKE, params).notes)
    assert "MOT_SLEWRATE 200 %/s is applied by the firmware" in notes
    assert "full reverse to full forward 1 s" in notes and "no lag of its own" in notes
    assert "SERVO_RATE 50 Hz has no effect in SITL" in notes
    assert "SCHED_LOOP_RATE 50 Hz" in notes
    zero = "\n".join(fid_of(SITL_MODELS_LIKE, {**ROVER, "MOT_SLEWRATE": 0.0}).notes)
    assert "0 disables it" in zero
    limits = {**ROVER, "MOT_THR_MIN": 5.0, "MOT_THR_MAX": 80.0}
    shown = "\n".join(fid_of(SITL_MODELS_LIKE, limits).notes)
    assert "MOT_THR_MIN 5 %: every nonzero motor output is raised" in shown
    assert "MOT_THR_MAX 80 %: the throttle demand is capped" in shown
    none = "\n".join(fid_of(SITL_MODELS_LIKE, {**ROVER, "MOT_THR_MIN": 0.0}).notes)
    assert "MOT_THR_MIN 0 %: no minimum" in none


def test_the_report_section_and_the_consequences() -> None:
    fid = fid_of(SITL_MODELS_LIKE, {**ROVER, "MOT_SLEWRATE": 200.0})
    lines = list(actuator_section(fid, "the model", {"thrust-ratio:SERVO1"}))
    text = "\n".join(lines)
    assert lines[0] == "## Actuator fidelity"
    assert "| SERVO1 |" in text and "acknowledged: simulated reverse" in text
    assert "**simulated reverse thrust is 1.60×" in text  # SERVO3: not acknowledged
    assert "none bind: 1000 / -1000 N (gz-sim's defaults)" in text
    asym = actuator_consequence("MOT_THST_ASYM", fid, "boat")
    assert asym is not None and asym.startswith("the model's forward/reverse thrust is 1.00: ")
    assert "not represented" not in (actuator_consequence("MOT_SLEWRATE", fid, "boat") or "")
    assert "no effect in SITL" in (actuator_consequence("SERVO_RATE", fid, "boat") or "")
    assert actuator_consequence("WP_SPEED", fid, "boat") is None
    assert actuator_consequence("MOT_THST_ASYM", None, "boat") is None
    agree = fid_of(SITL_MODELS_LIKE, {**ROVER, "MOT_THST_ASYM": 1.0})
    assert "agree" in (actuator_consequence("MOT_THST_ASYM", agree, "boat") or "")
    assert list(actuator_section(None, "x"))[2] == "No Gazebo model to read actuators from."


OVERLAY = """version: 1
base: hardware
deltas: []
acknowledged:
  - model: sitl_models
    finding: {finding}
    sha256: {sha}
    reason: upstream's model
"""


def test_an_acknowledgement_accepts_an_actuator_finding_by_id_or_text_for_its_bytes() -> None:
    from paramdiff.simulation.actuator_fidelity import (
        acknowledgement_of,
        is_actuator_acknowledgement,
    )

    fid = fid_of(SITL_MODELS_LIKE, ROVER)
    found = actuator_findings(fid)[0]
    text = f"sitl_models: {found}"
    for finding in ("thrust-ratio:SERVO1", text):
        data = OVERLAY.format(finding=json.dumps(finding), sha="ab" * 32).encode()
        acks = parse_overlay(data, "o.yaml").acknowledged
        assert acknowledgement_of(acks, "sitl_models", found) is acks[0]
        assert is_actuator_acknowledgement(acks[0])
        assert acknowledgement_of(acks, "other_model", found) is None
        other = found._replace(model_sha256="cd" * 32)  # another copy of the model
        assert acknowledgement_of(acks, "sitl_models", other) is None
    channel = OVERLAY.format(finding="'sitl_models: channel 0 (x): model range'", sha="ab" * 32)
    (ack,) = parse_overlay(channel.encode(), "o.yaml").acknowledged
    assert not is_actuator_acknowledgement(ack)
    with pytest.raises(ConfigError, match="is not 64 lower-case hex"):
        parse_overlay(OVERLAY.format(finding="x", sha="abc").encode(), "o.yaml")


def world(tmp_path: Path, physics: str) -> Path:
    path = tmp_path / "world.sdf"
    path.write_text(f'<sdf version="1.9">\n<world name="w">{physics}</world>\n</sdf>')
    return path


def test_the_world_s_physics_step_against_the_loop_rate(tmp_path: Path) -> None:
    from paramdiff.parse.sdf_thruster import read_physics_step
    from paramdiff.simulation.actuator_fidelity import loop_rate_note

    first = '<physics name="a"><max_step_size>0.01</max_step_size></physics>'
    chosen = '<physics name="b" default="true"><max_step_size>0.004</max_step_size></physics>'
    two = world(tmp_path, first + chosen)
    step, line = read_physics_step(two.read_bytes(), "w.sdf")
    assert (step, line) == (0.004, 2)
    ok = loop_rate_note({"SCHED_LOOP_RATE": 50.0}, (step, "w.sdf:2"))
    assert "the world steps at 250 Hz" in ok and "every 5 physics steps." in ok
    assert "not a whole number" in loop_rate_note({"SCHED_LOOP_RATE": 60.0}, (step, "w"))
    fast = loop_rate_note({"SCHED_LOOP_RATE": 400.0}, (step, "w"))
    assert "is faster" in fast and "several loops read the same state" in fast
    assert loop_rate_note({}, (step, "w")).endswith("(SIM_RATE_HZ does not set it).")
    assert "no world file is given" in loop_rate_note({}, None)
    default = world(tmp_path, "<physics/>")
    assert read_physics_step(default.read_bytes(), "w.sdf")[0] == 0.001
    assert read_physics_step(world(tmp_path, "").read_bytes(), "w.sdf") == (0.001, 2)
    for step_text, what in (("0", "not positive"), ("x", "max_step_size")):
        bad = f"<physics><max_step_size>{step_text}</max_step_size></physics>"
        with pytest.raises(InputError, match=what):
            read_physics_step(world(tmp_path, bad).read_bytes(), "w.sdf")
    with pytest.raises(InputError, match="no <world>"):
        read_physics_step(SITL_MODELS_LIKE, "m.sdf")


def test_check_model_fails_on_the_ratio_until_acknowledged_and_then_when_stale(
    derived: tuple[Path, list[str]], tmp_path: Path
) -> None:
    """`check --model` computes the same numbers for a team's own model; the overlay's
    acknowledgment (for these bytes) lets it pass; one whose finding is gone is stale."""
    from helpers import run_cli

    from paramdiff.digests import sha256_of

    project, loc = derived
    model = tmp_path / "team" / "boat" / "model.sdf"
    model.parent.mkdir(parents=True)
    model.write_bytes(SITL_MODELS_LIKE)
    sha = sha256_of(SITL_MODELS_LIKE)
    args = ["check", "-v", *loc, "--profile", "boat", "--model", str(model)]
    out = run_cli(args)
    assert out.exit_code == 1
    assert (
        f"{model}: actuator SERVO1: forward/reverse thrust 1.00 (28.0 N / 28.0 N) against "
        "MOT_THST_ASYM 1.6: simulated reverse thrust is 1.60× what the firmware expects"
    ) in out.output
    assert (
        f"acknowledged: [{{model: {model}, finding: thrust-ratio:SERVO1, sha256: {sha}"
        in out.output
    )
    overlay = project / "overlays" / "boat.yaml"
    text = overlay.read_text()
    acks = "".join(
        f"  - {{model: '{model}', finding: 'thrust-ratio:SERVO{n}', sha256: {sha},"
        " reason: the team's model}\n"
        for n in (1, 3)
    )
    overlay.write_text(text.replace("\ndeltas:", "\nacknowledged:\n" + acks + "deltas:", 1))
    out = run_cli(args)
    assert "actuator SERVO1" not in out.output
    assert f"{model}: thrust-ratio:SERVO1 acknowledged (overlays/boat.yaml:" in out.output
    model.write_bytes(SITL_MODELS_LIKE.replace(b"<multiplier>70<", b"<multiplier>71<"))
    out = run_cli(args)
    assert out.exit_code == 1
    assert (
        f"acknowledgement of model {model} is stale: no finding is 'thrust-ratio:SERVO1' of "
        f"the model with sha256 {sha[:12]}"
    ) in out.output
    assert f"{model}: actuator SERVO1" in out.output  # other bytes: not acknowledged


def test_report_model_renders_a_team_s_own_model(upstream: Path, tmp_path: Path) -> None:
    """`report --model COPY -o F`: the actuator section of the team's model (the roadmap's
    clamps: 1.28 against 1.6, both limits named), the committed report untouched."""
    from helpers import ROOT, location_args, run_cli

    path = next(upstream.glob("raw/ArduPilot/SITL_Models/b2fb*/Gazebo/models/blueboat/model.sdf"))
    edited = (
        path.read_bytes()
        .replace(
            b"<velocity_control>0</velocity_control>",
            b"<velocity_control>0</velocity_control>" + ROADMAP_CLAMPS.encode(),
        )
        .replace(b"<multiplier>70</multiplier>", b"<multiplier>140</multiplier>")
    )
    copy = tmp_path / "blueboat" / "model.sdf"
    copy.parent.mkdir()
    copy.write_bytes(edited)
    loc = location_args(ROOT, tmp_path / "cache", upstream)
    args = ["report", "--profile", "blueboat", *loc, "--model", str(copy)]
    refused = run_cli(args)
    assert refused.exit_code == 2 and "--model writes a report of its own" in refused.stderr
    out = tmp_path / "own.md"
    result = run_cli([*args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert f"## Channel mapping: derived file vs `{copy.as_posix()}`" in text
    assert "1.28" in text and "max_thrust_cmd 51.5" in text and "min_thrust_cmd -40.2" in text
