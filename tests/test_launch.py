"""Launch command lines, the mixers, the built-in physics and the pilot-input test (unit)."""

from __future__ import annotations

import pytest

from paramdiff.errors import UsageError
from paramdiff.parse.launch import SIM_VEHICLE, SITL, parse_launch, split
from paramdiff.simulation import builtin_models, mixer, physics
from paramdiff.simulation.geometry import output_functions
from paramdiff.simulation.pilot_input import DEAD, OK, REVERSED, UNCONTROLLED, pilot_test

ROVER_PARM = "Tools/autotest/default_params/rover.parm"
SKID_PARM = "Tools/autotest/default_params/rover-skid.parm"


def paths(text: str) -> list[str]:
    return [f.path for f in parse_launch(text).files]


# -- the command line ------------------------------------------------------------------------


def test_sim_vehicle_frame_files_then_each_added_file_in_order() -> None:
    launch = parse_launch(
        "sim_vehicle.py -v Rover -f rover-skid --add-param-file=a.params "
        "--add-param-file b.params -w"
    )
    assert launch.form == SIM_VEHICLE
    assert [f.path for f in launch.files] == [ROVER_PARM, SKID_PARM, "a.params", "b.params"]
    assert [f.origin for f in launch.files] == [
        "frame rover-skid",
        "frame rover-skid",
        "--add-param-file",
        "--add-param-file",
    ]
    assert launch.model == "rover-skid"  # the frame name: vehicleinfo has no model for it
    assert launch.wipe and not launch.stored_values_survive


def test_sim_vehicle_aliases_default_frame_and_frame_models() -> None:
    sub = parse_launch("sim_vehicle.py -v Sub")
    assert (sub.vehicle, sub.model) == ("ArduSub", "vectored")
    assert paths("sim_vehicle.py -v ArduSub -f vectored_6dof") == [
        "Tools/autotest/default_params/sub-6dof.parm"
    ]
    quad = parse_launch("sim_vehicle.py -v copter")  # lower-case alias, default frame quad
    assert (quad.vehicle, quad.model) == ("ArduCopter", "+")  # vehicleinfo: quad's model is +
    iris = parse_launch("sim_vehicle.py -v ArduCopter -f gazebo-iris --model JSON")
    assert iris.model == "JSON" and iris.frame is not None and iris.frame.external


def test_sim_vehicle_short_options_abbreviations_and_ignored_options() -> None:
    launch = parse_launch(
        "python3 ./Tools/autotest/sim_vehicle.py -vRover -f motorboat --add-param x.parm "
        "--console --map -L CMAC -I0 --out udp:127.0.0.1:14550"
    )
    assert launch.vehicle == "Rover" and launch.model == "motorboat"
    assert launch.files[-1].path == "x.parm"  # --add-param is optparse's unique prefix


def test_sim_vehicle_unknown_frame_loads_nothing_and_runs_its_name() -> None:
    launch = parse_launch("sim_vehicle.py -v ArduCopter -f JSON")
    assert launch.files == () and launch.model == "JSON"
    assert "no config for frame" in launch.notes[0]
    octa = parse_launch("sim_vehicle.py -v ArduCopter -f octa-foo")  # prefix rule: octa
    assert octa.frame is not None and octa.frame.matched == "octa"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("sim_vehicle.py -f rover-skid", "has no -v"),
        ("sim_vehicle.py -v Rover --defaults a.parm", "has no --defaults option"),
        ("sim_vehicle.py -v Rover --bogus", "has no option --bogus"),
        ("sim_vehicle.py -v Rover -q", "has no option -q"),
        ("sim_vehicle.py -v Rover -f", "-f needs a value"),
        ("sim_vehicle.py -v Plane", "frames for"),
        ("sim_vehicle.py -v Rover -f gazebo-x", "KeyError"),
        ("sim_vehicle.py -v Rover extra", "takes no arguments"),
        ("sim_vehicle.py -v Rover --map=1", "takes no value"),
        ("sim_vehicle.py -v 'Rover", "quote"),
        ("", "empty"),
        ("ardurover --defaults a.parm", "has no --model"),
        ("arduplane --model plane", "not a SITL binary"),
        ("ardurover --model JSON --frobnicate", "has no option --frobnicate"),
    ],
)
def test_bad_launches_are_refused_with_what_to_do(text: str, says: str) -> None:
    with pytest.raises(UsageError, match=says) as info:
        parse_launch(text)
    assert info.value.fix


def test_sitl_binary_takes_defaults_verbatim_and_wipe() -> None:
    launch = parse_launch(
        "/opt/ardupilot/build/sitl/bin/ardurover -S -I0 --model JSON --speedup 1 "
        "--defaults rover-skid.parm,dds_udp.parm --sim-address=127.0.0.1"
    )
    assert launch.form == SITL and launch.vehicle == "Rover" and launch.model == "JSON"
    assert [f.path for f in launch.files] == ["rover-skid.parm", "dds_udp.parm"]
    assert not launch.wipe
    assert parse_launch("ardusub -w -M vectored_6dof").wipe
    assert parse_launch("ardusub -wS -Mvectored").model == "vectored"  # bundled flags
    assert parse_launch("arducopter --model=X --wipe").wipe


# -- which physics -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "kind", "name"),
    [
        ("rover-skid", physics.BUILT_IN, "SIM_Rover skid steering"),
        ("rover", physics.BUILT_IN, "SIM_Rover ackermann"),
        ("rover-vectored", physics.BUILT_IN, "SIM_Rover vectored thrust"),
        ("motorboat", physics.BUILT_IN, "SIM_Sailboat motorboat"),
        ("vectored", physics.BUILT_IN, "SIM_Submarine vectored"),
        ("vectored_6dof", physics.BUILT_IN, "SIM_Submarine vectored_6dof"),
        ("X", physics.BUILT_IN, "SIM_Frame quad X"),
        ("+", physics.BUILT_IN, "SIM_Frame quad +"),
        ("quad", physics.BUILT_IN, "SIM_Frame quad +"),
        ("JSON", physics.JSON, "Gazebo ArduPilotPlugin (JSON)"),
        ("JSON:127.0.0.1", physics.JSON, "Gazebo ArduPilotPlugin (JSON)"),
        ("gazebo-iris", physics.GAZEBO_LEGACY, "SIM_Gazebo (legacy)"),
    ],
)
def test_model_string_selects_the_physics_as_sitl_cmdline_does(
    model: str, kind: str, name: str
) -> None:
    backend = physics.resolve(model)
    assert (backend.kind, backend.name) == (kind, name)
    assert "@649adbc9b81a" in backend.source


@pytest.mark.parametrize("model", ["nonsense", "heli", "hexa"])
def test_unknown_or_unmodelled_physics_is_refused(model: str) -> None:
    with pytest.raises(UsageError):
        physics.resolve(model)


# -- the mixers ------------------------------------------------------------------------------

SKID = {"SERVO1_FUNCTION": 73.0, "SERVO3_FUNCTION": 74.0}


def test_skid_steering_mix_and_servo_ranges() -> None:
    mix = mixer.ugv(SKID, 0.0, 0.5)  # steer right: left motor forward, right motor back
    assert mix.pwm == {1: 1700.0, 3: 1300.0}
    assert mix.driven == {1: "ThrottleLeft", 3: "ThrottleRight"}
    asym = {**SKID, "SERVO1_MIN": 1000.0, "SERVO1_MAX": 1800.0, "SERVO1_TRIM": 1450.0}
    assert mixer.ugv(asym, 0.5, 0.0).pwm[1] == pytest.approx(1625.0)  # trim + 0.5 × (max - trim)
    assert mixer.ugv(asym, -0.5, 0.0).pwm[1] == pytest.approx(1225.0)  # trim - 0.5 × (trim - min)
    rev = {**SKID, "SERVO3_REVERSED": 1.0}
    assert mixer.ugv(rev, 0.5, 0.0).pwm == {1: 1700.0, 3: 1300.0}  # REVERSED negates output 3


def test_regular_steering_mix() -> None:
    mix = mixer.ugv({"SERVO1_FUNCTION": 26.0, "SERVO3_FUNCTION": 70.0}, 0.5, -0.5)
    assert mix.pwm == {1: 1300.0, 3: 1700.0}
    assert mix.frame == "steering and throttle"


def test_quad_x_matrix_and_boot_motor_assignment() -> None:
    params = {"FRAME_CLASS": 1.0, "FRAME_TYPE": 1.0, "MOT_PWM_MIN": 1000.0, "MOT_PWM_MAX": 2000.0}
    base = mixer.matrix(params, 0.0, 0.0, 0.0, 0.5)
    assert base.pwm == {1: 1500.0, 2: 1500.0, 3: 1500.0, 4: 1500.0}  # outputs 1-4 = Motor1-4
    roll = mixer.matrix(params, 0.2, 0.0, 0.0, 0.5).pwm  # right motors (1, 4) slow down
    assert roll[1] < 1500 < roll[2] and roll[4] < 1500 < roll[3]
    yaw = mixer.matrix(params, 0.0, 0.0, 0.2, 0.5).pwm  # CCW motors 1, 2 speed up
    assert yaw[1] > 1500 and yaw[2] > 1500 and yaw[3] < 1500
    assert mixer.matrix({"FRAME_CLASS": 2.0}, 0, 0, 0, 0.5).pwm == {}


def test_six_dof_factors_and_motor_direction() -> None:
    params = {"FRAME_CONFIG": 2.0}
    up = mixer.six_dof(params, {"throttle": 0.5}).pwm
    assert [up[n] for n in range(5, 9)] == [1300.0] * 4  # throttle factor -1 on 5..8
    flipped = mixer.six_dof({**params, "MOT_5_DIRECTION": -1.0}, {"throttle": 0.5}).pwm
    assert flipped[5] == 1700.0
    assert len(mixer.six_dof({}, {}).pwm) == 6  # FRAME_CONFIG defaults to 1: vectored
    assert mixer.six_dof({"FRAME_CONFIG": 5.0}, {}).pwm == {}


# -- the pilot-input test on small hand-made models ----------------------------------------------


def verdicts(vehicle: str, params: dict[str, float], model: str) -> dict[str, str]:
    backend = physics.resolve(model)
    rows = pilot_test(vehicle, params, builtin_models.response(backend))
    return {r.axis.name: r.verdict for r in rows}


def test_skid_rover_obeys_with_left_on_output_1() -> None:
    assert verdicts("Rover", SKID, "rover-skid") == {"throttle": OK, "steering": OK}


def test_swapped_thrusters_reverse_the_steering() -> None:
    swapped = {"SERVO1_FUNCTION": 74.0, "SERVO3_FUNCTION": 73.0}
    backend = physics.resolve("rover-skid")
    rows = pilot_test("Rover", swapped, builtin_models.response(backend))
    steering = rows[1]
    assert steering.verdict == REVERSED
    assert steering.finding == (
        "steering reversed: steer right → turns left (counter-clockwise seen from above)"
    )
    assert "SERVO1 1500→1300 (ThrottleRight)" in steering.outputs
    found = builtin_models.check(backend, "Rover", swapped)
    assert found[0][0].startswith("output 1: SIM_Rover skid steering reads it as motor1 (left)")
    assert found[0][1].startswith("SERVO1_FUNCTION 73")


def test_servo_reversed_left_motor_kills_both_axes() -> None:
    # One motor reversed: steer right spins both motors backwards, throttle spins them apart.
    assert verdicts("Rover", {**SKID, "SERVO1_REVERSED": 1.0}, "rover-skid") == {
        "throttle": DEAD,
        "steering": DEAD,
    }


def test_unmapped_output_is_a_dead_axis() -> None:
    # Only the left motor is mapped: the right motor's output is read but never driven.
    rows = verdicts("Rover", {"SERVO1_FUNCTION": 73.0}, "rover-skid")
    assert rows == {"throttle": OK, "steering": OK}  # one motor still turns and pushes
    disabled = {"SERVO1_FUNCTION": 0.0, "SERVO3_FUNCTION": 0.0}
    assert verdicts("Rover", disabled, "rover-skid") == {"throttle": DEAD, "steering": DEAD}
    found = builtin_models.check(physics.resolve("rover-skid"), "Rover", disabled)
    assert "but SERVO1_FUNCTION is Disabled (0)" in found[0][0]


def test_stock_rover_runs_the_firmware_boot_functions() -> None:
    # Rover::load_parameters: set_default_function(CH_1, k_steering), (CH_3, k_throttle)
    # (Rover/Parameters.cpp): outputs 1 and 3 no file sets are GroundSteering and Throttle.
    assert verdicts("Rover", {}, "rover") == {"throttle": OK, "steering": OK}
    assert builtin_models.check(physics.resolve("rover"), "Rover", {}) == []
    mix = mixer.ugv({}, 0.0, 0.5)
    assert mix.pwm == {1: 1700.0, 3: 1500.0}
    assert mix.driven == {1: "GroundSteering", 3: "Throttle"}
    functions, notes = output_functions({"SERVO3_FUNCTION": 0.0}, "Rover", 0)
    assert functions == {1: 26.0, 3: 0.0}  # a stored 0 is configured: no default
    assert "GroundSteering (26)" in notes[1] and 3 not in notes
    assert output_functions({}, "ArduSub", 0)[0] == {}  # Rover's defaults only


def test_function_names_say_what_they_are() -> None:
    assert builtin_models.name(0.0) == "Disabled (0)"
    assert builtin_models.name(73.0) == "ThrottleLeft (73)"
    assert builtin_models.name(120.0) == "function 120"


def test_motorboat_steers_with_output_1_and_refuses_a_skid_set() -> None:
    regular = {"SERVO1_FUNCTION": 26.0, "SERVO3_FUNCTION": 70.0}
    assert verdicts("Rover", regular, "motorboat") == {"throttle": OK, "steering": OK}
    found = builtin_models.check(physics.resolve("motorboat"), "Rover", SKID)
    assert "steers with output 1 and drives with output 3" in found[0][0]


def test_six_thruster_sub_cannot_pitch_an_eight_motor_frame() -> None:
    params = {"FRAME_CONFIG": 2.0}
    assert verdicts("ArduSub", params, "vectored")["pitch"] == DEAD
    assert set(verdicts("ArduSub", params, "vectored_6dof").values()) == {OK}
    found = [t for t, _ in builtin_models.check(physics.resolve("vectored"), "ArduSub", params)]
    assert "6 simulated thrusters for an 8-motor frame" in found[0]
    assert any("output 7 (Motor7 (39)) drives nothing" in t for t in found)
    assert builtin_models.check(physics.resolve("vectored_6dof"), "ArduSub", params) == []


def test_stock_sub_assigns_six_motors_and_does_not_command_pitch() -> None:
    # AP_Motors6DOF::setup_motors, SUB_FRAME_VECTORED (FRAME_CONFIG 1, the default): MOT_1..6,
    # no pitch factor; add_motor_num assigns only those motors' outputs at boot.
    backend = physics.resolve("vectored")
    assert builtin_models.check(backend, "ArduSub", {}) == []
    rows = {r.axis.name: r for r in pilot_test("ArduSub", {}, builtin_models.response(backend))}
    pitch = rows["pitch"]
    assert pitch.verdict == UNCONTROLLED and not pitch.failed and pitch.finding == ""
    assert pitch.note == (
        "pitch not controlled by this frame: pitch up → no pitch torque: the frame's mixer has "
        "no pitch factor"
    )
    assert all(r.verdict == OK for name, r in rows.items() if name != "pitch")
    assert mixer.frame_motors("ArduSub", {}) == 6
    assert mixer.frame_motors("ArduSub", {"FRAME_CONFIG": 2.0}) == 8
    assert mixer.frame_motors("ArduCopter", {}) == 4 and mixer.frame_motors("Rover", {}) == 0
    assert mixer.commands("ArduSub", {"FRAME_CONFIG": 2.0}, "pitch")
    assert mixer.commands("ArduSub", {"FRAME_CONFIG": 9.0}, "pitch")


def test_reversed_sub_thruster_reverses_its_axes() -> None:
    params = {"FRAME_CONFIG": 2.0, "MOT_1_DIRECTION": -1.0, "MOT_2_DIRECTION": -1.0}
    got = verdicts("ArduSub", params, "vectored_6dof")
    assert got["forward"] == DEAD  # motors 1, 2 now push as hard back as 3, 4 push forward
    assert got["vertical"] == OK


def test_quad_frames_fly_and_a_frame_mismatch_is_found() -> None:
    x = {"FRAME_CLASS": 1.0, "FRAME_TYPE": 1.0}
    assert set(verdicts("ArduCopter", x, "X").values()) == {OK}
    assert set(verdicts("ArduCopter", {**x, "FRAME_TYPE": 0.0}, "+").values()) == {OK}
    found = builtin_models.check(physics.resolve("+"), "ArduCopter", x)
    assert found[0][0] == (
        "FRAME_CLASS 1, FRAME_TYPE 1, but SIM_Frame quad + simulates FRAME_CLASS 1, FRAME_TYPE 0"
    )
    swapped = {**x, "SERVO1_FUNCTION": 34.0, "SERVO2_FUNCTION": 33.0}  # front-right ↔ back-left
    got = verdicts("ArduCopter", swapped, "X")
    # both CCW: yaw still works; roll and pitch cancel between the two diagonals
    assert (got["roll"], got["pitch"], got["yaw"], got["climb"]) == (DEAD, DEAD, OK, OK)


# -- declared launches and acknowledgements: validated like every other key ---------------------

SOURCES = """\
version: 1
profiles:
  b:
    sitl_vehicle: Rover
    launches:
{launches}
    pins:
      "1":
        hardware: {{repo: acme/params, ref: master, path: a/b.params}}
        sitl_models: {{repo: acme/models, ref: main, path: m.sdf, format: sdf}}
"""


def config(launches: str) -> object:
    from pathlib import Path

    from paramdiff.config.sources import parse_config

    return parse_config(SOURCES.format(launches=launches).encode(), "sources.yaml", Path("."))


def test_declared_launches_parse_with_names_and_models() -> None:
    cfg = config(
        "      - sim_vehicle.py -v Rover -f rover-skid\n"
        "      - {name: gz, command: ardurover --model JSON, model: sitl_models}\n"
    )
    launches = cfg.profile(None).launches  # type: ignore[attr-defined]
    assert [(d.name, d.model, d.line) for d in launches] == [
        ("sim_vehicle.py -v Rover -f rover-skid", None, 6),
        ("gz", "sitl_models", 7),
    ]


@pytest.mark.parametrize(
    ("launches", "line", "says"),
    [
        ("      - sim_vehicle.py -v Rover --defaults x.parm\n", 6, "has no --defaults option"),
        ("      - {command: ardurover}\n", 6, "has no --model"),
        ("      - {name: a, command: ardurover --model JSON}\n"
         "      - {name: a, command: ardusub --model JSON}\n", 7, "two launches are named 'a'"),
        ("      - {command: ardurover --model JSON, model: hardware}\n", 6, "not an sdf role"),
        ("      - {command: ardurover --model JSON, colour: red}\n", 6, "colour"),
    ],
)  # fmt: skip
def test_bad_declared_launches_name_the_line(launches: str, line: int, says: str) -> None:
    from paramdiff.errors import ConfigError

    with pytest.raises(ConfigError, match=says) as info:
        config(launches)
    assert (info.value.file, info.value.line) == ("sources.yaml", line)


OVERLAY = """\
version: 1
base: hardware
deltas: []
acknowledged:
{entries}
"""
SHA = "ab" * 32


def test_acknowledgements_parse() -> None:
    from paramdiff.overlay.file import parse_overlay

    text = OVERLAY.format(
        entries=f"  - {{model: sitl_models, finding: 'x:  y', sha256: {SHA}, reason: why}}\n"
        "  - launch: gz\n    finding: f\n    reason: >-\n      because\n      so"
    )
    acks = parse_overlay(text.encode(), "o.yaml").acknowledged
    assert [(a.model, a.launch, a.finding, a.sha256, a.reason, a.line) for a in acks] == [
        ("sitl_models", None, "x: y", SHA, "why", 5),
        (None, "gz", "f", None, "because so", 6),
    ]


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("  - {finding: f, reason: r}", "exactly one of 'launch' or 'model'"),
        ("  - {launch: a, model: b, finding: f, reason: r}", "exactly one of"),
        ("  - {model: m, finding: f, reason: r, sha256: ABC}", "64 lower-case hex"),
        ("  - {model: m, finding: f}", "reason"),
    ],
)
def test_bad_acknowledgements_name_the_line(entry: str, says: str) -> None:
    from paramdiff.errors import ConfigError
    from paramdiff.overlay.file import parse_overlay

    with pytest.raises(ConfigError, match=says) as info:
        parse_overlay(OVERLAY.format(entries=entry).encode(), "o.yaml")
    assert info.value.line == 5


def test_a_stock_rover_on_a_skid_model_names_the_boot_functions() -> None:
    from paramdiff.parse.sdf import Channel
    from paramdiff.simulation.channels import channel_findings

    port = Channel(0, "port", 1100, 1900, -0.5, 10, "VELOCITY", "m.sdf", 1, {})
    roles = {"port": 73}
    found = [f.what for f in channel_findings([port], {}, roles, None, None, "Rover")]
    assert found == ["drives port, which is 73, but SERVO1_FUNCTION is 26"]
    assert channel_findings([port], {"SERVO1_FUNCTION": 73.0}, roles, None, None, "Rover") == []


def test_skid_mix_follows_mot_thst_asym() -> None:
    # AP_MotorsUGV::output_skid_steering: negative outputs × ASYM, reverse throttle ≥ -1/ASYM.
    asym = {**SKID, "MOT_THST_ASYM": 1.6}
    assert mixer.ugv(asym, 0.0, 0.5).pwm == pytest.approx({1: 1700.0, 3: 1180.0})
    assert mixer.skid_mix(asym, -1.0, 0.0) == pytest.approx((-1.0, -1.0))  # -1/1.6 × 1.6
    assert mixer.skid_mix(asym, 1.0, 0.0) == pytest.approx((1.0, 1.0))
    assert mixer.skid_mix({**asym, "MOT_THST_ASYM": 0.5}, -1.0, 0.0) == (-1.0, -1.0)  # ≥ 1
    # Saturated: full throttle and full steering; steering first (MOT_STR_THR_MIX 0.5) keeps
    # the steering the room allows and lowers the throttle to fit.
    left, right = mixer.skid_mix(asym, 1.0, 1.0)
    assert left == pytest.approx(1.0) and left - right > 0
    # saturation 2: steering halved to 0.5, throttle lowered to 1 - 0.5
    assert mixer.skid_mix(SKID, 1.0, 1.0) == pytest.approx((1.0, 0.0))
    # throttle first (MOT_STR_THR_MIX 0): full throttle stays, no room is left to steer
    throttle_first = mixer.skid_mix({**SKID, "MOT_STR_THR_MIX": 0.0}, 1.0, 0.5)
    assert throttle_first == pytest.approx((1.0, 1.0))
    mid = mixer.skid_mix({**SKID, "MOT_STR_THR_MIX": 0.25}, 1.0, 0.5)  # between the two
    assert mid[0] == pytest.approx(1.0) and 0.0 < mid[0] - mid[1] < 1.0


@pytest.mark.parametrize(("given", "near"), [("rover", "Rover"), ("ardusub", "ArduSub")])
def test_vehicle_choices_are_case_sensitive_as_in_sim_vehicle(given: str, near: str) -> None:
    # sim_vehicle.py's -v is an optparse choice: only copter, plane, sub, blimp are lower case.
    with pytest.raises(UsageError, match=f"case-sensitive.*use -v {near}"):
        parse_launch(f"sim_vehicle.py -v {given}")
    assert parse_launch("sim_vehicle.py -v sub").vehicle == "ArduSub"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "sim_vehicle.py -v Rover \\\n  --add-param-file=d.params",
            ["sim_vehicle.py", "-v", "Rover", "--add-param-file=d.params"],
        ),
        ('a "b \\\nc"', ["a", "b c"]),  # POSIX 2.2.3: removed inside double quotes too
        ("a 'b \\\nc'", ["a", "b \\\nc"]),  # ... but kept inside single quotes
        ("a 'b\nc'", ["a", "b\nc"]),  # a quoted newline is part of the word
    ],
)
def test_a_launch_reads_as_a_posix_shell_reads_one_command(text: str, words: list[str]) -> None:
    assert split(text) == words


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("sim_vehicle.py -v ArduCopter\n--add-param-file=d.params", "unquoted newline on line 1"),
        ("sim_vehicle.py -v ArduCopter\r -f X", "unquoted carriage return"),
    ],
)
def test_a_launch_the_shell_would_cut_is_refused(text: str, what: str) -> None:
    with pytest.raises(UsageError, match=what):
        split(text)
