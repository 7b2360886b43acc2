"""A model's actuators: each control channel placed with the joint it drives in both frames,
what the picture and the report show for it, and what the frame rules (rotors.py,
thrusters.py) judge it with."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from paramdiff.model.values import format_value
from paramdiff.parse.sdf import Channel
from paramdiff.parse.sdf_frames import DEFAULT_TO_FRD, GAZEBO, Pose, Vec, inverse_rotate
from paramdiff.parse.sdf_include import Joint, ModelTree
from paramdiff.simulation.channels import Finding

CCW, CW = 1, -1  # AP_MOTORS_MATRIX_YAW_FACTOR_CCW / _CW (AP_MotorsMatrix.h)
EPS = 1e-6


def motor_function(n: int) -> int:
    """SERVOn_FUNCTION of MotorN (SRV_Channel::k_motor1..8 = 33..40, k_motor9.. = 82..)."""
    return 32 + n if n <= 8 else 73 + n


def motor_number(function: float) -> int | None:
    f = int(function)
    if f != function:
        return None
    if 33 <= f <= 40:
        return f - 32
    if 82 <= f <= 85:
        return f - 73
    return None


class Actuator(NamedTuple):
    """A control channel with the joint it drives, placed in the model."""

    channel: Channel
    joint: Joint
    position: Vec  # child link origin, Gazebo model frame (m)
    frd_position: Vec  # the same point in ArduPilot's FRD body frame (m)
    frd_axis: Vec  # joint axis in FRD

    def sign(self, reversed_output: bool) -> float:
        """+1 when a command above neutral turns the joint positively (multiplier sign,
        and SERVOn_REVERSED swapping the PWM about trim); 0 when the multiplier is 0 (the
        plugin scales every command to nothing)."""
        if self.channel.multiplier == 0:
            return 0.0
        s = 1.0 if self.channel.multiplier > 0 else -1.0
        return -s if reversed_output else s

    def thrust(self, reversed_output: bool) -> Vec:
        """Force direction in FRD for a command above neutral: gz-sim's Thruster pushes along
        the joint axis (Thruster.cc), scaled by the command's sign."""
        s = self.sign(reversed_output)
        return (s * self.frd_axis[0], s * self.frd_axis[1], s * self.frd_axis[2])


@dataclass(slots=True)
class View:
    """What the picture and the report show for one channel."""

    actuator: Actuator
    function: float | None
    label: str  # e.g. "Motor1 (33)"
    kind: str  # "rotor" or "thruster"
    spin: int = 0  # rotors: CCW/CW seen from above
    expected: int | None = None  # the SERVOn_FUNCTION the geometry says this channel is
    reversed: bool = False  # SERVOn_REVERSED, which flips a thruster's push
    expected_spin: int | None = None  # rotors: the spin the frame gives the motor there
    expected_label: str = ""  # ``expected`` as the label shows a function: "Motor3 (35)"
    findings: list[int] = field(default_factory=list)  # 1-based numbers in the report


@dataclass(slots=True)
class Geometry:
    """What a model's channels physically are against the frame's rules."""

    frame: str  # which rule applied, e.g. "QUAD X (FRAME_CLASS 1, FRAME_TYPE 1)"
    views: list[View]
    findings: list[Finding]
    by_channel: dict[int, Actuator]
    notes: list[str] = field(default_factory=list)


Label = Callable[[int, float], str]


def place(
    channels: list[Channel], tree: ModelTree, to_frd: Pose
) -> tuple[dict[int, Actuator], list[Finding]]:
    """Each channel's joint and child link in the model; a finding for a joint that is not."""
    placed: dict[int, Actuator] = {}
    missing: list[Finding] = []
    for ch in channels:
        joint = tree.joints.get(ch.joint)
        link = tree.links.get(joint.child) if joint else None
        if joint is None or link is None:
            what = (
                f"the model has no joint {ch.joint}"
                if joint is None
                else f"joint {ch.joint}'s child link {joint.child} is not in the model"
            )
            missing.append(
                Finding(
                    ch.channel,
                    ch.output,
                    ch.joint,
                    f"{what}: Gazebo cannot "
                    "drive this channel, and its role cannot be read from geometry",
                    "<jointName> naming a joint of the model",
                )
            )
            continue
        pos = link.pose.p
        placed[ch.channel] = Actuator(
            ch, joint, pos, inverse_rotate(to_frd, pos), inverse_rotate(to_frd, joint.axis)
        )
    return placed, missing


def xyz(v: Vec) -> str:
    return "(" + ", ".join(f"{a} {num(c)}" for a, c in zip("xyz", v, strict=True)) + ")"


def num(x: float) -> str:
    x = 0.0 if abs(x) < 5e-4 else x
    return f"{x:+.3f}".rstrip("0").rstrip(".") if abs(x) >= 5e-4 else "0"


def spin_word(spin: int) -> str:
    return "counter-clockwise" if spin == CCW else "clockwise"


class Judge(NamedTuple):
    """What judging one model's actuators needs: the parameters, labels and frames."""

    actuators: list[Actuator]
    functions: dict[int, float]
    params: dict[str, float]
    label: Label
    frame: str
    to_frd: Pose = DEFAULT_TO_FRD

    def function(self, act: Actuator) -> float | None:
        return self.functions.get(act.channel.output)

    def reversed(self, act: Actuator) -> bool:
        return self.params.get(f"SERVO{act.channel.output}_REVERSED", 0.0) >= 0.5

    def fn(self, act: Actuator, value: float) -> str:
        return self.label(act.channel.output, value)

    def joint_fix(self, act: Actuator, wanted: Callable[[Actuator], bool], fallback: str) -> str:
        """Point the channel at the joint that physically is what its output drives."""
        for other in self.actuators:
            if other is not act and wanted(other):
                return f"<jointName>{other.joint.name}</jointName>"
        return fallback

    def magnitude(self, act: Actuator) -> float:
        """The multiplier size the other channels use (1 when none has one)."""
        sizes = [abs(o.channel.multiplier) for o in self.actuators if o.channel.multiplier]
        return sizes[0] if sizes else 1.0

    def model_axis(self, frd: Vec) -> str:
        """``<xyz>`` text, in the model frame, of a direction given in FRD."""
        v = self.to_frd.rotate(frd)
        return " ".join(format_value(round(c, 6) + 0.0) for c in v)


Rule = tuple[str, int, Callable[[Judge, Actuator], tuple[View, list[Finding]]]]


# An actuator tilted further than this from the direction its rule needs (vertical for a
# rotor, fore-aft for a skid-steer thruster) gives more force across that direction than along.
TILT_LIMIT = 45.0


def tilt_degrees(component: float) -> float:
    """Degrees between a unit axis and the rule's direction, from the axis's component on it."""
    return math.degrees(math.acos(min(1.0, abs(component))))


def dead(act: Actuator, noun: str, multiplier_fix: str, axis_fix: str) -> list[Finding]:
    """A channel that cannot move its actuator at all: multiplier 0 (the plugin scales every
    command to 0), or a zero joint axis (sdformat refuses it: JointAxis::SetXyz, "The norm of
    the xyz vector cannot be zero", src/JointAxis.cc)."""
    ch, out = act.channel, []
    if ch.multiplier == 0:
        out.append(
            Finding(
                ch.channel,
                ch.output,
                ch.joint,
                f"multiplier 0: the plugin scales every command to 0, so this {noun} never "
                "moves and the channel does nothing",
                multiplier_fix,
            )
        )
    if act.joint.axis == (0.0, 0.0, 0.0):
        out.append(
            Finding(
                ch.channel,
                ch.output,
                ch.joint,
                f"the joint axis of {act.joint.name} is zero {xyz(act.joint.axis)} ({GAZEBO}): "
                f"Gazebo refuses a zero axis (sdformat: the norm of the xyz vector cannot be "
                f"zero) and this {noun} cannot {'lift' if noun == 'rotor' else 'push'}",
                axis_fix,
            )
        )
    return out


def misaimed(act: Actuator, noun: str, tilt: float, needs: str, axis_fix: str) -> Finding:
    ch = act.channel
    return Finding(
        ch.channel,
        ch.output,
        ch.joint,
        f"the joint axis of {act.joint.name} is {xyz(act.joint.axis)} ({GAZEBO}), "
        f"{tilt:.0f}° from {needs}: this {noun} cannot "
        f"{'lift' if noun == 'rotor' else 'drive the vehicle forward'}",
        axis_fix,
    )


def short(j: Judge, act: Actuator, func: float | None) -> str:
    if func is None:
        return "not set"
    text = j.fn(act, func)
    if "(" in text and text.endswith(")"):
        return text[text.index("(") + 1 : -1] + f" ({format_value(func)})"
    return text
