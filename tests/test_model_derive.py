"""derive's model side (derive/derived_model.py): a small boat SDF the test writes, its channels
and Thruster limits rewritten from SERVOn_* and a thrust curve; text edits with provenance,
everything else byte for byte, idempotent, and a right model touched only where thrust differs."""

from __future__ import annotations

from pathlib import Path

import pytest

from paramdiff.derive.derived_model import derive_model
from paramdiff.errors import InputError
from paramdiff.parse.sdf import read_channels
from paramdiff.parse.sdf_thruster import read_actuation
from paramdiff.parse.thrust_table import ThrustCurve
from paramdiff.simulation.thrust_curve import summarize


def no_includes(uri: str, base: str, line: int) -> tuple[str, bytes]:
    raise AssertionError(f"the test model includes nothing ({uri})")


def link(name: str, y: float) -> str:
    return f"""
    <link name="{name}"><pose>-0.5 {y} 0 0 0 0</pose></link>
    <joint name="{name}_joint" type="revolute">
      <parent>base_link</parent><child>{name}</child>
      <axis><xyz>1 0 0</xyz></axis>
    </joint>"""


def thruster(joint: str) -> str:
    return f"""
    <plugin name="gz::sim::systems::Thruster" filename="gz-sim-thruster-system">
      <namespace>boat</namespace>
      <joint_name>{joint}</joint_name>
      <thrust_coefficient>0.02</thrust_coefficient>
    </plugin>"""


def control(channel: int, joint: str, multiplier: str = "70", low: str = "1000") -> str:
    return f"""
      <!-- <multiplier>1</multiplier> in a comment is never edited -->
      <control channel="{channel}">
        <jointName>{joint}</jointName>
        <multiplier>{multiplier}</multiplier>
        <offset>-0.5</offset>
        <servo_min>{low}</servo_min>
        <servo_max>2000</servo_max>
        <type>COMMAND</type>
        <cmd_topic>/model/boat/joint/{joint}/cmd_thrust</cmd_topic>
      </control>"""


def boat(controls: str) -> bytes:
    # Gazebo y > 0 is port (FLU); ArduPilot's FRD y < 0.
    return f"""<?xml version="1.0"?>
<sdf version="1.9">
  <model name="boat">
    <link name="base_link"/>{link("motor_port", 0.3)}{link("motor_stbd", -0.3)}
{thruster("motor_port_joint")}{thruster("motor_stbd_joint")}
    <plugin name="ArduPilotPlugin" filename="ArduPilotPlugin">{controls}
    </plugin>
  </model>
</sdf>
""".encode()


# SERVO1 is ThrottleRight and SERVO3 ThrottleLeft, as on the BlueBoat: the upstream model
# drives channel 0 into the port thruster.
BOAT = {
    "SERVO1_FUNCTION": 74.0, "SERVO1_MIN": 1100.0, "SERVO1_MAX": 1900.0, "SERVO1_TRIM": 1500.0,
    "SERVO3_FUNCTION": 73.0, "SERVO3_MIN": 1100.0, "SERVO3_MAX": 1900.0, "SERVO3_TRIM": 1500.0,
}  # fmt: skip
WRONG = boat(control(0, "motor_port_joint") + control(2, "motor_stbd_joint"))
CURVE = ThrustCurve(
    "t.csv",
    16,
    (1100, 1480, 1500, 1520, 1900),
    (-40.0, 0.0, 0.0, 0.0, 50.0),
    "t.csv",
)


def derived(data: bytes, params: dict[str, float] = BOAT) -> bytes:
    return derive_model(data, "model.sdf", no_includes, params, summarize(CURVE)).data


def test_each_channel_drives_the_thruster_its_function_names() -> None:
    out = derived(WRONG)
    channels = {c.channel: c for c in read_channels(out, "model.sdf")[0]}
    assert channels[0].joint == "motor_stbd_joint" and channels[2].joint == "motor_port_joint"
    topics = read_actuation(out, "model.sdf").topics
    assert topics[0] == "model/boat/joint/motor_stbd_joint/cmd_thrust"
    assert (channels[0].servo_min, channels[0].servo_max) == (1100, 1900)
    # zero at TRIM, 50 N (the larger thrust) at MAX, clamped each way by the Thruster
    assert channels[0].command(1500) == pytest.approx(0)
    assert channels[0].command(1900) == pytest.approx(50, abs=1e-3)
    thrusters = {t.joint: t for t in read_actuation(out, "model.sdf").thrusters}
    port = thrusters["motor_port_joint"]
    assert (port.max_cmd, port.min_cmd) == (50, -40)
    assert port.deadband == pytest.approx(2.5)  # 100 N per 800 µs over the 20 µs half band
    assert port.thrust(channels[2].command(1100)) == -40


def test_edits_are_commented_and_the_rest_is_byte_for_byte() -> None:
    out = derived(WRONG).decode()
    assert (
        "<jointName>motor_stbd_joint</jointName> <!-- paramdiff: SERVO1_FUNCTION 74 "
        "(ThrottleRight) is the starboard thruster (was motor_port_joint) -->" in out
    )
    assert "<servo_min>1100</servo_min> <!-- paramdiff: SERVO1_MIN 1100 (was 1000) -->" in out
    assert "<max_thrust_cmd>50</max_thrust_cmd> <!-- paramdiff: thrust data" in out
    assert "(was unset) -->" in out
    assert out.count("<!-- <multiplier>1</multiplier> in a comment is never edited -->") == 2
    kept = [line for line in out.splitlines() if "paramdiff:" not in line]
    original = WRONG.decode().splitlines()
    edited = ("jointName", "multiplier", "servo_min", "servo_max", "cmd_topic")
    assert kept == [
        line for line in original if not any(line.strip().startswith(f"<{t}>") for t in edited)
    ]


def test_an_old_value_holding_two_dashes_stays_a_well_formed_comment() -> None:
    """'--' may not stand inside an XML comment (XML 1.0 §2.5): the old value is shown as '- -'."""
    wrong = WRONG.replace(b"motor_port_joint/cmd_thrust<", b"motor_port_joint/cmd_thrust--old<", 1)
    assert wrong != WRONG
    out = derived(wrong).decode()
    assert "cmd_thrust- -old) -->" in out and "cmd_thrust--old) -->" not in out


def test_deriving_the_derived_model_changes_nothing() -> None:
    once = derived(WRONG)
    assert derived(once) == once


def test_a_model_whose_channels_are_right_is_rewritten_only_where_thrust_differs() -> None:
    right = boat(
        control(0, "motor_stbd_joint", "100", "1100")
        + control(2, "motor_port_joint", "100", "1100")
    )
    result = derive_model(right, "model.sdf", no_includes, BOAT, summarize(CURVE))
    changed = {(c.where, c.element) for c in result.changes}
    assert not any(e in ("jointName", "cmd_topic", "servo_min") for _, e in changed)
    assert ("channel 0", "servo_max") in changed  # 2000 -> 1900
    assert ("channel 0", "multiplier") not in changed  # 50 N at half the range: 100 already
    assert ("Thruster motor_port_joint", "max_thrust_cmd") in changed


def test_reversed_output_gets_a_negative_multiplier() -> None:
    out = derived(WRONG, {**BOAT, "SERVO1_REVERSED": 1.0})
    channels = {c.channel: c for c in read_channels(out, "model.sdf")[0]}
    assert channels[0].multiplier < 0 < channels[2].multiplier


def test_a_function_without_a_control_block_is_refused() -> None:
    with pytest.raises(InputError, match='no ArduPilotPlugin <control channel="2">'):
        derived(boat(control(0, "motor_port_joint")))


def test_the_pinned_blueboat(upstream: Path) -> None:
    path = next(upstream.glob("raw/ArduPilot/SITL_Models/b2fb*/Gazebo/models/blueboat/model.sdf"))
    out = derived(path.read_bytes())
    channels = {c.channel: c for c in read_channels(out, "model.sdf")[0]}
    assert channels[0].joint == "motor_stbd_joint" and channels[2].joint == "motor_port_joint"
