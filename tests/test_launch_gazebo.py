"""The pilot-input test through a Gazebo model's <control> blocks (small hand-made models)."""

from __future__ import annotations

from pathlib import Path

from test_geometry import CONTROL, GOOD_SIGNS, PLUGIN, QUAD, quad, write

from paramdiff.parse.sdf_paths import local_resolver
from paramdiff.simulation.gazebo_plugin import follow_topics, reads, response
from paramdiff.simulation.geometry import check_model
from paramdiff.simulation.pilot_input import DEAD, OK, REVERSED, pilot_test


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


def thruster_boat(tmp_path: Path, joints: tuple[str, str], topics: tuple[str, str]) -> Path:
    """The boat with gz-sim Thrusters on both joints; each control names a jointName and a
    cmd_topic (the topic a Thruster subscribes to: model/boat/joint/<joint>/cmd_thrust)."""
    text = boat(tmp_path).read_text()
    for ch, joint, topic in zip((0, 2), joints, topics, strict=True):
        side = f"{('port', 'stbd')[ch // 2]}_joint"
        old = CONTROL.format(ch=ch, joint=side, mult=70, offset=-0.5, type="COMMAND")
        named = f"<jointName>{joint}</jointName><cmd_topic>{topic}</cmd_topic>"
        text = text.replace(old, old.replace(f"<jointName>{side}</jointName>", named))
    plugins = "".join(
        '<plugin name="gz::sim::systems::Thruster" filename="gz-sim-thruster-system">'
        f"<joint_name>{side}_joint</joint_name></plugin>"
        for side in ("port", "stbd")
    )
    return write(tmp_path / "models/boat/model.sdf", text.replace("</model>", plugins + "</model>"))


def followed(model: Path, params: dict[str, float]) -> tuple[dict[str, str], list[str]]:
    """The pilot test as the launch check runs it: following each cmd_topic to its Thruster."""
    from paramdiff.parse.sdf_thruster import read_actuation
    from paramdiff.simulation.actuators import place
    from paramdiff.simulation.geometry import read_model

    data, file = model.read_bytes(), model.as_posix()
    checked = check_model(data, file, local_resolver({}), params, {}, "Rover", None)
    channels, found = follow_topics(checked.channels, read_actuation(data, file))
    _, tree, to_frd = read_model(data, file, local_resolver({}))
    placed, _ = place(channels, tree, to_frd)
    rows = pilot_test("Rover", params, response(channels, placed, False))
    return {r.axis.name: r.verdict for r in rows}, [text for text, _ in found]


TOPIC = "/model/boat/joint/{}_joint/cmd_thrust"


def test_jointname_and_cmd_topic_agreeing_find_nothing(tmp_path: Path) -> None:
    model = thruster_boat(tmp_path, ("port_joint", "stbd_joint"),
                          (TOPIC.format("port"), TOPIC.format("stbd")))  # fmt: skip
    assert followed(model, SKID) == ({"throttle": OK, "steering": OK}, [])


def test_swapped_jointnames_with_kept_topics_follow_the_topic(tmp_path: Path) -> None:
    # The jointNames say channel 0 is starboard, but its topic reaches the port Thruster: the
    # port thruster is what output 1 (ThrottleLeft) really moves, so the boat steers right.
    model = thruster_boat(tmp_path, ("stbd_joint", "port_joint"),
                          (TOPIC.format("port"), TOPIC.format("stbd")))  # fmt: skip
    got, found = followed(model, SKID)
    assert got == {"throttle": OK, "steering": OK}
    assert verdicts(model, SKID, "Rover")["steering"] == REVERSED  # what jointName alone says
    assert found[0].startswith(
        "channel 0 (<jointName> stbd_joint, SERVO1): its cmd_topic "
        "model/boat/joint/port_joint/cmd_thrust reaches the Thruster of joint port_joint"
    )
    assert found[0].endswith("so output 1 moves port_joint, not stbd_joint")
    assert len(found) == 2


def test_cmd_topic_reaching_no_thruster_is_a_dead_channel(tmp_path: Path) -> None:
    model = thruster_boat(tmp_path, ("port_joint", "stbd_joint"),
                          (TOPIC.format("port"), "/model/boat/joint/typo/cmd_thrust"))  # fmt: skip
    got, found = followed(model, SKID)
    assert found == [
        "channel 2 (<jointName> stbd_joint, SERVO3): its cmd_topic "
        "model/boat/joint/typo/cmd_thrust reaches no Thruster of the model, so output 3 drives "
        "nothing"
    ]
    assert got["throttle"] == OK  # the port thruster alone still pushes forward
