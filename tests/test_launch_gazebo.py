"""The pilot-input test through a Gazebo model's <control> blocks (small hand-made models)."""

from __future__ import annotations

from pathlib import Path

from test_geometry import CONTROL, GOOD_SIGNS, PLUGIN, QUAD, quad, write

from paramdiff.launch.gazebo import reads, response
from paramdiff.launch.pilot import DEAD, OK, REVERSED, pilot_test
from paramdiff.parse.sdf_paths import local_resolver
from paramdiff.stages.geometry import check_model


def boat(tmp_path: Path, order: tuple[str, str] = ("port", "stbd"), mult: int = 70) -> Path:
    """Two thrusters pushing forward (+x), port at +y (Gazebo: y left), on channels 0 and 2."""
    links = "".join(
        f'<link name="{side}"><pose>-0.5 {y} 0 0 0 0</pose></link>'
        f'<joint name="{side}_joint" type="revolute"><parent>hull</parent><child>{side}</child>'
        "<axis><xyz>1 0 0</xyz></axis></joint>"
        for side, y in (("port", 0.3), ("stbd", -0.3))
    )
    controls = "\n".join(
        CONTROL.format(ch=ch, joint=f"{side}_joint", mult=mult, offset=-0.5, type="COMMAND")
        for ch, side in zip((0, 2), order, strict=True)
    )
    text = (
        '<?xml version="1.0"?>\n<sdf version="1.9"><model name="boat"><link name="hull"/>'
        + links
        + PLUGIN.format(controls=controls)
        + "</model></sdf>\n"
    )
    return write(tmp_path / "models/boat/model.sdf", text)


SKID = {"SERVO1_FUNCTION": 73.0, "SERVO3_FUNCTION": 74.0}


def verdicts(model: Path, params: dict[str, float], vehicle: str) -> dict[str, str]:
    checked = check_model(
        model.read_bytes(), model.as_posix(), local_resolver({}), params, {}, vehicle, None
    )
    placed = checked.geometry.by_channel
    respond = response(checked.channels, placed, vehicle == "ArduCopter")
    return {r.axis.name: r.verdict for r in pilot_test(vehicle, params, respond)}


def test_boat_model_obeys_the_sticks(tmp_path: Path) -> None:
    assert verdicts(boat(tmp_path), SKID, "Rover") == {"throttle": OK, "steering": OK}


def test_channel_0_on_the_port_joint_with_right_throttle_reverses_steering(tmp_path: Path) -> None:
    swapped = {"SERVO1_FUNCTION": 74.0, "SERVO3_FUNCTION": 73.0}
    assert verdicts(boat(tmp_path), swapped, "Rover") == {"throttle": OK, "steering": REVERSED}


def test_negative_multiplier_reverses_the_boat(tmp_path: Path) -> None:
    assert verdicts(boat(tmp_path, mult=-70), SKID, "Rover") == {
        "throttle": REVERSED,
        "steering": REVERSED,
    }


def test_servo_reversed_on_one_thruster_kills_both_axes(tmp_path: Path) -> None:
    got = verdicts(boat(tmp_path), {**SKID, "SERVO3_REVERSED": 1.0}, "Rover")
    assert got == {"throttle": DEAD, "steering": DEAD}


def test_output_no_channel_reads_is_dead(tmp_path: Path) -> None:
    # The parameters put the thrusters on outputs 5 and 6; the model reads outputs 1 and 3.
    model = boat(tmp_path)
    assert verdicts(model, {"SERVO5_FUNCTION": 73.0, "SERVO6_FUNCTION": 74.0}, "Rover") == {
        "throttle": DEAD,
        "steering": DEAD,
    }
    checked = check_model(model.read_bytes(), model.as_posix(), local_resolver({}), SKID, {},
                          "Rover", None)  # fmt: skip
    assert reads(checked.channels, checked.geometry.by_channel) == {1, 3}


def test_quad_model_flies_and_a_wrong_spin_reverses_yaw(tmp_path: Path) -> None:
    assert set(verdicts(quad(tmp_path, GOOD_SIGNS), QUAD, "ArduCopter").values()) == {OK}
    flipped = {name: -s for name, s in GOOD_SIGNS.items()}  # every rotor spins the other way
    got = verdicts(quad(tmp_path, flipped), QUAD, "ArduCopter")
    assert got == {"roll": OK, "pitch": OK, "yaw": REVERSED, "climb": OK}
