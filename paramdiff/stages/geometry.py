"""What each Gazebo control channel physically is, read from the model's geometry, against
what ArduPilot expects of that output for the vehicle's frame.

Frames and units: positions come from the SDF in the model frame (Gazebo: x forward, y left,
z up, metres). ArduPilot's motor tables are in the body frame FRD (x forward, y right, z
down); the conversion is the plugin's ``modelXYZToAirplaneXForwardZDown`` (default roll 180°:
x_frd = x, y_frd = -y, z_frd = -z). Every finding says which frame each number is in.

Rules (each re-implemented from ArduPilot's source, cited where it is used):
- skid-steer (Rover, SERVOn_FUNCTION 73/74): ThrottleLeft drives the port thruster (+y in
  the model frame), ThrottleRight the starboard one; a positive command pushes forward.
- multicopter matrix (Copter, FRAME_CLASS/FRAME_TYPE): each motor's angle and spin from
  ``AP_MotorsMatrix::setup_quad_matrix``; positions follow from the angles.
- vectored 6DOF (Sub, FRAME_CONFIG 2): each thruster's roll/pitch/yaw/throttle/forward/lateral
  factors from ``AP_Motors6DOF::setup_motors`` against the wrench its thrust produces.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from ..model.metadata import Metadata
from ..model.values import format_value
from ..parse.sdf import Channel, _local, _parse_xml, plugins, read_channels
from ..parse.sdf_include import (
    Joint,
    ModelTree,
    Pose,
    Vec,
    load_model,
    parse_pose,
    rpy,
)
from ..parse.sdf_paths import Resolver
from .channels import MODEL, PARAMETERS, Finding, Role, _label, channel_findings

if TYPE_CHECKING:
    from .derive import Derived
    from .layers import SitlRun

THROTTLE_LEFT, THROTTLE_RIGHT = 73, 74
CCW, CW = 1, -1  # AP_MOTORS_MATRIX_YAW_FACTOR_CCW / _CW (AP_MotorsMatrix.h)
GAZEBO = "Gazebo model frame: x forward, y left, z up"
FRD = "ArduPilot body frame FRD: x forward, y right, z down"
# The ArduPilotPlugin default for modelXYZToAirplaneXForwardZDown: roll 180 degrees.
DEFAULT_TO_FRD = Pose(r=rpy(math.pi, 0.0, 0.0))

# AP_MotorsMatrix::setup_quad_matrix (libraries/AP_Motors/AP_MotorsMatrix.cpp): per FRAME_TYPE,
# MotorN's (angle in degrees clockwise from the nose, seen from above; yaw factor).
QUAD_MATRIX: dict[int, tuple[str, tuple[tuple[float, int], ...]]] = {
    0: ("QUAD PLUS", ((90, CCW), (-90, CCW), (0, CW), (180, CW))),
    1: ("QUAD X", ((45, CCW), (-135, CCW), (-45, CW), (135, CW))),
}
# AP_Motors6DOF::setup_motors, case SUB_FRAME_VECTORED_6DOF (libraries/AP_Motors/
# AP_Motors6DOF.cpp): MotorN's roll, pitch, yaw, throttle, forward, lateral factors.
SIX_DOF_AXES = ("roll", "pitch", "yaw", "throttle", "forward", "lateral")
VECTORED_6DOF: tuple[tuple[float, ...], ...] = (
    (0, 0, 1, 0, -1, 1),
    (0, 0, -1, 0, -1, -1),
    (0, 0, -1, 0, 1, 1),
    (0, 0, 1, 0, 1, -1),
    (1, -1, 0, -1, 0, 0),
    (-1, -1, 0, -1, 0, 0),
    (1, 1, 0, -1, 0, 0),
    (-1, 1, 0, -1, 0, 0),
)
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


def to_frd_pose(data: bytes, file: str) -> Pose:
    """The plugin's model -> FRD transform (``modelXYZToAirplaneXForwardZDown``)."""
    for plugin in plugins(_parse_xml(data, file)):
        for elem in plugin:
            if _local(elem.tag) == "modelXYZToAirplaneXForwardZDown":
                return parse_pose(elem, file)
    return DEFAULT_TO_FRD


def _inverse_rotate(pose: Pose, v: Vec) -> Vec:
    r = pose.r
    return (
        r[0][0] * v[0] + r[1][0] * v[1] + r[2][0] * v[2],
        r[0][1] * v[0] + r[1][1] * v[1] + r[2][1] * v[2],
        r[0][2] * v[0] + r[1][2] * v[1] + r[2][2] * v[2],
    )


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
            ch, joint, pos, _inverse_rotate(to_frd, pos), _inverse_rotate(to_frd, joint.axis)
        )
    return placed, missing


def _xyz(v: Vec) -> str:
    return "(" + ", ".join(f"{a} {_num(c)}" for a, c in zip("xyz", v, strict=True)) + ")"


def _num(x: float) -> str:
    x = 0.0 if abs(x) < 5e-4 else x
    return f"{x:+.3f}".rstrip("0").rstrip(".") if abs(x) >= 5e-4 else "0"


def _spin_word(spin: int) -> str:
    return "counter-clockwise" if spin == CCW else "clockwise"


def output_functions(
    params: dict[str, float], vehicle: str | None, motors: int
) -> tuple[dict[int, float], dict[int, str]]:
    """SERVOn_FUNCTION as the firmware runs it, and a note where that is not the parameter.

    On multicopters and subs, AP_Motors::add_motor_num calls SRV_Channels::
    set_aux_channel_default(MotorN, N-1) at boot (libraries/AP_Motors/AP_Motors_Class.cpp,
    libraries/SRV_Channel/SRV_Channels.cpp): when no output has MotorN yet and output N's
    function is 0 (Disabled), output N becomes MotorN. Rover assigns nothing.
    """
    functions: dict[int, float] = {}
    notes: dict[int, str] = {}
    for name, value in params.items():
        if name.startswith("SERVO") and name.endswith("_FUNCTION") and name[5:-9].isdigit():
            functions[int(name[5:-9])] = value
    if vehicle in ("ArduCopter", "ArduSub"):
        for n in range(1, motors + 1):
            f = float(motor_function(n))
            if f not in functions.values() and functions.get(n, 0.0) == 0.0:
                functions[n] = f
                was = "not set" if f"SERVO{n}_FUNCTION" not in params else "0"
                notes[n] = f"SERVO{n}_FUNCTION is {was}, so the firmware assigns Motor{n} at boot"
    return functions, notes


def infer_vehicle(params: dict[str, float], vehicle: str | None) -> str | None:
    if vehicle:
        return vehicle
    if "FRAME_CONFIG" in params:
        return "ArduSub"
    if any(
        k.endswith("_FUNCTION") and v in (THROTTLE_LEFT, THROTTLE_RIGHT) for k, v in params.items()
    ):
        return "Rover"
    return "ArduCopter" if "FRAME_CLASS" in params else None


def analyse(
    channels: list[Channel],
    tree: ModelTree,
    params: dict[str, float],
    vehicle: str | None,
    label: Label,
    to_frd: Pose = DEFAULT_TO_FRD,
) -> Geometry:
    """Every channel's physical role against what the vehicle's frame expects of its output."""
    placed, missing = place(channels, tree, to_frd)
    vehicle = infer_vehicle(params, vehicle)
    if vehicle == "ArduCopter":
        rule = _quad_rule(params)
    elif vehicle == "ArduSub":
        rule = _six_dof_rule(params)
    else:
        rule = _skid_rule(params)
    if rule is None:
        return Geometry(
            "no geometry rule for this frame", [], missing, placed, [_no_rule(vehicle, params)]
        )
    frame, motors, judge = rule
    functions, notes = output_functions(params, vehicle, motors)
    ctx = _Judge(list(placed.values()), functions, params, label, frame, to_frd)
    views: list[View] = []
    findings = list(missing)
    for act in sorted(placed.values(), key=lambda a: a.channel.channel):
        view, found = judge(ctx, act)
        if view.expected is not None:
            view.expected_label = _short(ctx, act, float(view.expected))
        views.append(view)
        findings.extend(found)
    boot = [notes[n] for n in sorted(notes) if any(a.channel.output == n for a in placed.values())]
    return Geometry(frame, views, findings, placed, boot)


def _no_rule(vehicle: str | None, params: dict[str, float]) -> str:
    keys = ("FRAME_CLASS", "FRAME_TYPE", "FRAME_CONFIG")
    shown = ", ".join(f"{k} {format_value(params[k])}" for k in keys if k in params)
    return (
        f"no geometry rule for {vehicle or 'this vehicle'} ({shown or 'no frame parameters'}): "
        "channel roles come from joint_roles only"
    )


@dataclass(frozen=True, slots=True)
class _Judge:
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


Rule = tuple[str, int, Callable[[_Judge, Actuator], tuple[View, list[Finding]]]]

# An actuator tilted further than this from the direction its rule needs (vertical for a
# rotor, fore-aft for a skid-steer thruster) gives more force across that direction than along.
TILT_LIMIT = 45.0


def _tilt(component: float) -> float:
    """Degrees between a unit axis and the rule's direction, from the axis's component on it."""
    return math.degrees(math.acos(min(1.0, abs(component))))


def _dead(act: Actuator, noun: str, multiplier_fix: str, axis_fix: str) -> list[Finding]:
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
                f"the joint axis of {act.joint.name} is zero {_xyz(act.joint.axis)} ({GAZEBO}): "
                f"Gazebo refuses a zero axis (sdformat: the norm of the xyz vector cannot be "
                f"zero) and this {noun} cannot {'lift' if noun == 'rotor' else 'push'}",
                axis_fix,
            )
        )
    return out


def _misaimed(act: Actuator, noun: str, tilt: float, needs: str, axis_fix: str) -> Finding:
    ch = act.channel
    return Finding(
        ch.channel,
        ch.output,
        ch.joint,
        f"the joint axis of {act.joint.name} is {_xyz(act.joint.axis)} ({GAZEBO}), "
        f"{tilt:.0f}° from {needs}: this {noun} cannot "
        f"{'lift' if noun == 'rotor' else 'drive the vehicle forward'}",
        axis_fix,
    )


# -- skid-steer -------------------------------------------------------------------------------


def _side(act: Actuator) -> int:
    """ThrottleLeft for a thruster on the port side (FRD y < 0, Gazebo y > 0)."""
    return THROTTLE_LEFT if act.frd_position[1] < 0 else THROTTLE_RIGHT


def _skid_rule(params: dict[str, float]) -> Rule | None:
    if not any(
        k.startswith("SERVO") and k.endswith("_FUNCTION") and v in (THROTTLE_LEFT, THROTTLE_RIGHT)
        for k, v in params.items()
    ):
        return None
    return "skid-steer (ThrottleLeft 73 port, ThrottleRight 74 starboard)", 0, _skid


def _skid(j: _Judge, act: Actuator) -> tuple[View, list[Finding]]:
    ch, n = act.channel, act.channel.output
    func = j.function(act)
    want = _side(act)
    side = "port" if want == THROTTLE_LEFT else "starboard"
    where = (
        f"drives {ch.joint}, the {side} thruster (link {act.joint.child} at "
        f"{_xyz(act.position)} m, {GAZEBO})"
    )
    out: list[Finding] = []
    shown = j.fn(act, func) if func is not None else "not set"
    if func is None or int(func) != want:
        fix = j.joint_fix(
            act, lambda o: func is not None and _side(o) == int(func), f"SERVO{n}_FUNCTION {want}"
        )
        out.append(
            Finding(
                ch.channel,
                n,
                ch.joint,
                f"geometry: {where}, which ArduPilot drives as {j.fn(act, want)}; "
                f"parameters: SERVO{n}_FUNCTION is {shown}",
                fix,
                PARAMETERS if fix.startswith("SERVO") else MODEL,
            )
        )
    broken = _skid_cannot_push(j, act)
    out.extend(broken)
    thrust = act.thrust(j.reversed(act))
    driven = func is not None and int(func) in (THROTTLE_LEFT, THROTTLE_RIGHT)
    if not broken and driven and thrust[0] <= EPS:
        out.append(
            Finding(
                ch.channel,
                n,
                ch.joint,
                f"geometry: a command above trim pushes {_xyz(thrust)} ({FRD}; "
                f"multiplier {format_value(ch.multiplier)} × joint axis, SERVO{n}_"
                f"REVERSED {format_value(j.params.get(f'SERVO{n}_REVERSED', 0.0))})"
                f"; parameters: {shown} above trim means forward (+x), so the "
                "thruster pushes backwards",
                f"<multiplier>{format_value(-ch.multiplier)}</multiplier>",
            )
        )
    view = View(act, func, _short(j, act, func), "thruster", expected=want)
    view.reversed = j.reversed(act)
    return view, out


def _skid_cannot_push(j: _Judge, act: Actuator) -> list[Finding]:
    """Multiplier 0, a zero axis, or an axis too far from fore-aft: gz-sim's Thruster pushes
    along the joint axis, so this thruster cannot drive the vehicle forward. The fixes make a
    command above trim push forward (multiplier sign × SERVOn_REVERSED × axis x > 0)."""
    reversed_output = j.reversed(act)
    forward = (act.channel.multiplier >= 0) != reversed_output
    axis = j.model_axis((1.0, 0.0, 0.0) if forward else (-1.0, 0.0, 0.0))
    axis_fix = f'<axis><xyz expressed_in="__model__">{axis}</xyz></axis> in joint {act.joint.name}'
    x = act.frd_axis[0]
    tilt = _tilt(x)
    sign = (-1.0 if reversed_output else 1.0) * (1.0 if x >= 0 or tilt > TILT_LIMIT else -1.0)
    mult_fix = f"<multiplier>{format_value(sign * j.magnitude(act))}</multiplier>"
    out = _dead(act, "thruster", mult_fix, axis_fix)
    if act.joint.axis != (0.0, 0.0, 0.0) and tilt > TILT_LIMIT:
        out.append(_misaimed(act, "thruster", tilt, "fore-aft (x)", axis_fix))
    return out


def _short(j: _Judge, act: Actuator, func: float | None) -> str:
    if func is None:
        return "not set"
    text = j.fn(act, func)
    if "(" in text and text.endswith(")"):
        return text[text.index("(") + 1 : -1] + f" ({format_value(func)})"
    return text


# -- multicopter matrix -----------------------------------------------------------------------


def _quad_rule(params: dict[str, float]) -> Rule | None:
    frame_class = params.get("FRAME_CLASS", 0.0)
    frame_type = params.get("FRAME_TYPE", 1.0)  # Copter's FRAME_TYPE default is 1 (X)
    if frame_class != 1 or int(frame_type) not in QUAD_MATRIX:
        return None
    name, table = QUAD_MATRIX[int(frame_type)]
    frame = (
        f"{name} (FRAME_CLASS 1, FRAME_TYPE {int(frame_type)}; AP_MotorsMatrix::setup_quad_matrix)"
    )

    def judge(j: _Judge, act: Actuator) -> tuple[View, list[Finding]]:
        return _rotor(j, act, table)

    return frame, len(table), judge


def _angle(act: Actuator) -> float:
    """Degrees clockwise from the nose seen from above, as AP_MotorsMatrix::add_motor takes
    them (roll factor cos(angle + 90°), pitch factor cos(angle): FRD x = cos, y = sin)."""
    return math.degrees(math.atan2(act.frd_position[1], act.frd_position[0]))


def _nearest(angle: float, table: tuple[tuple[float, int], ...]) -> int | None:
    """MotorN (1-based) whose table angle is nearest, within half the spacing."""
    gaps = [abs((angle - a + 180.0) % 360.0 - 180.0) for a, _ in table]
    best = min(range(len(table)), key=lambda i: gaps[i])
    return best + 1 if gaps[best] < 180.0 / len(table) else None


def _spin(act: Actuator) -> int:
    """CCW when the joint turns counter-clockwise seen from above (about FRD -z) for a
    command above neutral. SERVOn_REVERSED does not apply: Copter writes motor PWM raw."""
    return CCW if act.sign(False) * act.frd_axis[2] < 0 else CW


def _rotor(
    j: _Judge, act: Actuator, table: tuple[tuple[float, int], ...]
) -> tuple[View, list[Finding]]:
    ch, n = act.channel, act.channel.output
    func = j.function(act)
    assigned = motor_number(func) if func is not None else None
    angle = _angle(act)
    at = _nearest(angle, table)
    want = table[at - 1][1] if at else None
    out = _rotor_cannot_lift(j, act, want)
    spin = 0 if out else _spin(act)  # a rotor that cannot lift has no spin to judge
    where = _rotor_where(act, angle, spin)
    shown = j.fn(act, func) if func is not None else "not set"
    if at is None or assigned != at:
        what = (
            f"that is where {j.frame.split(' (')[0]} puts Motor{at}"
            if at
            else (f"no motor of {j.frame.split(' (')[0]} sits there")
        )
        fix = j.joint_fix(
            act,
            lambda o: _nearest(_angle(o), table) == assigned,
            f"SERVO{n}_FUNCTION {motor_function(at)}" if at else "move the rotor",
        )
        out.append(
            Finding(
                ch.channel,
                n,
                ch.joint,
                f"geometry: {where}; {what}; parameters: SERVO{n}_FUNCTION is {shown}",
                fix,
                PARAMETERS if fix.startswith("SERVO") else MODEL,
            )
        )
    elif spin and want != spin:
        out.append(
            Finding(
                ch.channel,
                n,
                ch.joint,
                f"Motor{at} spins the wrong way — geometry: {where}; parameters: "
                f"SERVO{n}_FUNCTION {shown}, which {j.frame.split(' (')[0]} spins "
                f"{_spin_word(want or CCW)}",
                f"<multiplier>{format_value(-ch.multiplier)}</multiplier>",
            )
        )
    expected = motor_function(at) if at else None
    view = View(act, func, _short(j, act, func), "rotor", spin, expected)
    view.expected_spin = want
    return view, out


def _rotor_where(act: Actuator, angle: float, spin: int) -> str:
    z = act.joint.axis[2]
    sense = " up" if z > 0.5 else (" down" if z < -0.5 else "")
    spinning = f", spinning {_spin_word(spin)} seen from above" if spin else ""
    return (
        f"rotor {act.joint.child} at {angle:.0f}° ({FRD}; clockwise from the nose) = "
        f"{_xyz(act.position)} m ({GAZEBO}){spinning} (multiplier "
        f"{format_value(act.channel.multiplier)} × joint axis {_xyz(act.joint.axis)}{sense})"
    )


def _rotor_cannot_lift(j: _Judge, act: Actuator, want: int | None) -> list[Finding]:
    """Multiplier 0, a zero axis, or an axis too far from vertical: no lift, no spin to judge.
    The fixes keep (or give) the spin ``want`` its motor needs (see _spin)."""
    ccw = (want or CCW) == CCW
    positive = act.channel.multiplier >= 0
    # Axis up (ArduPilot's -z) with a positive multiplier spins counter-clockwise.
    axis = j.model_axis((0.0, 0.0, -1.0) if positive == ccw else (0.0, 0.0, 1.0))
    axis_fix = f'<axis><xyz expressed_in="__model__">{axis}</xyz></axis> in joint {act.joint.name}'
    z = act.frd_axis[2]
    tilt = _tilt(z)
    sign = (-1.0 if ccw else 1.0) * (1.0 if z > 0 else -1.0) if tilt <= TILT_LIMIT else 1.0
    mult_fix = f"<multiplier>{format_value(sign * j.magnitude(act))}</multiplier>"
    out = _dead(act, "rotor", mult_fix, axis_fix)
    if act.joint.axis != (0.0, 0.0, 0.0) and tilt > TILT_LIMIT:
        out.append(_misaimed(act, "rotor", tilt, "vertical", axis_fix))
    return out


# -- vectored 6DOF ----------------------------------------------------------------------------


def _six_dof_rule(params: dict[str, float]) -> Rule | None:
    if params.get("FRAME_CONFIG") != 2:
        return None
    frame = "vectored 6DOF (FRAME_CONFIG 2; AP_Motors6DOF::setup_motors)"
    return frame, len(VECTORED_6DOF), _thruster_6dof


def wrench(act: Actuator, reversed_output: bool) -> tuple[float, ...]:
    """What a command above neutral does, per AP_Motors6DOF axis: torque r × F about the model
    origin (FRD: roll +x right side down, pitch +y nose up, yaw +z nose right), then force
    (throttle: up = -z FRD, forward +x, lateral +y right)."""
    f = act.thrust(reversed_output)
    r = act.frd_position
    torque = (r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0])
    return (*torque, -f[2], f[0], f[1])


def match(contrib: tuple[float, ...], factors: tuple[float, ...]) -> int | None:
    """+1 when the thrust matches the motor's factors in sign on every axis it drives, -1 when
    it matches them all reversed, None otherwise."""
    signs = set()
    for g, f in zip(contrib, factors, strict=True):
        if f == 0:
            continue
        if abs(g) <= EPS:
            return None
        signs.add(1 if (g > 0) == (f > 0) else -1)
    return signs.pop() if len(signs) == 1 else None


def _thruster_6dof(j: _Judge, act: Actuator) -> tuple[View, list[Finding]]:
    ch, n = act.channel, act.channel.output
    func = j.function(act)
    assigned = motor_number(func) if func is not None else None
    out = _six_dof_cannot_push(j, act, assigned)
    contrib = wrench(act, j.reversed(act))
    fits = {k + 1: s for k, f in enumerate(VECTORED_6DOF) if (s := match(contrib, f))}
    push = act.thrust(j.reversed(act))
    where = (
        f"thruster {act.joint.child} at {_xyz(act.frd_position)} m pushing {_xyz(push)}"
        f" ({FRD}; {_xyz(act.position)} m in the {GAZEBO}) for a command above neutral: "
        + ", ".join(f"{a} {_num(g)}" for a, g in zip(SIX_DOF_AXES, contrib, strict=True))
    )
    shown = j.fn(act, func) if func is not None else "not set"
    if out:
        pass  # it pushes nothing: no motor's factors to fit
    elif assigned is None or assigned > len(VECTORED_6DOF) or assigned not in fits:
        fit = ", ".join(f"Motor{k}" + (" reversed" if s < 0 else "") for k, s in fits.items())
        fix = j.joint_fix(
            act,
            lambda o: (
                assigned is not None
                and assigned <= len(VECTORED_6DOF)
                and match(wrench(o, j.reversed(o)), VECTORED_6DOF[assigned - 1]) is not None
            ),
            f"SERVO{n}_FUNCTION {motor_function(next(iter(fits)))}" if fits else "re-aim it",
        )
        out.append(
            Finding(
                ch.channel,
                n,
                ch.joint,
                f"geometry: {where} — that fits {fit or 'no motor'} of "
                f"{j.frame.split(' (')[0]}; parameters: SERVO{n}_FUNCTION is {shown}",
                fix,
                PARAMETERS if fix.startswith("SERVO") else MODEL,
            )
        )
    else:
        out.extend(_six_dof_direction(j, act, assigned, fits[assigned], where, shown))
    best = sorted(fits, key=lambda k: (fits[k] < 0, k))
    expected = motor_function(best[0]) if best else None
    view = View(act, func, _short(j, act, func), "thruster", expected=expected)
    view.reversed = j.reversed(act)
    return view, out


def _six_dof_direction(
    j: _Judge, act: Actuator, assigned: int, fit: int, where: str, shown: str
) -> list[Finding]:
    """The assigned motor's push against its factors, MOT_n_DIRECTION applied."""
    ch, n = act.channel, act.channel.output
    out: list[Finding] = []
    direction = j.params.get(f"MOT_{assigned}_DIRECTION", 1.0)
    if fit * (1 if direction >= 0 else -1) < 0:
        factors = ", ".join(
            f"{a} {format_value(f)}"
            for a, f in zip(SIX_DOF_AXES, VECTORED_6DOF[assigned - 1], strict=True)
            if f
        )
        out.append(
            Finding(
                ch.channel,
                n,
                ch.joint,
                f"Motor{assigned} pushes the wrong way — geometry: {where}; "
                f"parameters: SERVO{n}_FUNCTION {shown}, MOT_{assigned}_DIRECTION "
                f"{format_value(direction)}, factors {factors}",
                f"<multiplier>{format_value(-ch.multiplier)}</multiplier>",
            )
        )
    return out


def _six_dof_cannot_push(j: _Judge, act: Actuator, assigned: int | None) -> list[Finding]:
    """Multiplier 0 or a zero axis: the thruster pushes nothing. The multiplier fix takes the
    sign that fits the assigned motor's factors (MOT_n_DIRECTION applied)."""
    sign = 1.0
    if assigned is not None and assigned <= len(VECTORED_6DOF) and any(act.joint.axis):
        probe = act._replace(channel=act.channel._replace(multiplier=1.0))
        direction = j.params.get(f"MOT_{assigned}_DIRECTION", 1.0)
        fit = match(wrench(probe, j.reversed(act)), VECTORED_6DOF[assigned - 1]) or 1
        sign = -1.0 if fit * (1 if direction >= 0 else -1) < 0 else 1.0
    mult_fix = f"<multiplier>{format_value(sign * j.magnitude(act))}</multiplier>"
    axis_fix = f"a non-zero <axis><xyz> in joint {act.joint.name}, along the thruster's push"
    return _dead(act, "thruster", mult_fix, axis_fix)


# -- one model against one parameter set ------------------------------------------------------


class ModelCheck(NamedTuple):
    """One model checked: its channels, geometry and findings."""

    channels: list[Channel]
    geometry: Geometry
    findings: list[Finding]


class ModelRead(NamedTuple):
    """What the check reads of a model's XML: its channels, merged tree and FRD pose."""

    channels: list[Channel]
    tree: ModelTree
    to_frd: Pose


def read_model(data: bytes, file: str, resolve: Resolver) -> ModelRead:
    channels, _ = read_channels(data, file)
    return ModelRead(channels, load_model(data, file, resolve), to_frd_pose(data, file))


def check_model(
    data: bytes,
    file: str,
    resolve: Resolver,
    params: dict[str, float],
    joint_roles: dict[str, int],
    vehicle: str | None,
    metadata: Metadata | None,
) -> ModelCheck:
    """The model's channels (includes merged) against what SITL runs: geometry first,
    joint_roles as a cross-check, then ranges and neutral; findings numbered for the picture."""
    channels, tree, to_frd = read_model(data, file, resolve)

    def label(n: int, value: float) -> str:
        return _label(metadata, f"SERVO{n}_FUNCTION", value)

    geometry = analyse(channels, tree, params, vehicle, label, to_frd)
    findings = channel_findings(
        channels, params, joint_roles, metadata, roles(geometry), infer_vehicle(params, vehicle)
    )
    for number, finding in enumerate(findings, 1):
        for view in geometry.views:
            if view.actuator.channel.channel == finding.channel:
                view.findings.append(number)
    return ModelCheck(channels, geometry, findings)


def roles(geometry: Geometry) -> dict[int, Role]:
    """Per channel, what the channel check takes from the geometry."""
    out: dict[int, Role] = {}
    for f in geometry.findings:
        if f.channel not in geometry.by_channel:  # its joint is not in the model
            out[f.channel] = Role(False, None, None, (f,))
    for view in geometry.views:
        ch = view.actuator.channel.channel
        found = tuple(f for f in geometry.findings if f.channel == ch)
        out[ch] = Role(True, view.function, view.expected, found)
    return out


def sitl_params(derived: Derived, sitl: SitlRun | None) -> dict[str, float]:
    """What SITL runs: the frame defaults, then the derived file (last wins); the derived file
    alone when the profile pins no frame defaults."""
    if sitl is None:
        return derived.params()
    return {name: e.param.value for name, e in sitl.layers.effective.items()}
