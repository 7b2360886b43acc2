"""The multicopter matrix rule (Copter, FRAME_CLASS/FRAME_TYPE): each rotor's place and spin
against the motor ``AP_MotorsMatrix::setup_quad_matrix`` puts there."""

from __future__ import annotations

import math

from paramdiff.model.values import format_value
from paramdiff.parse.sdf_frames import FRD, GAZEBO
from paramdiff.simulation.actuators import (
    CCW,
    CW,
    TILT_LIMIT,
    Actuator,
    Judge,
    Rule,
    View,
    dead,
    misaimed,
    motor_function,
    motor_number,
    short,
    spin_word,
    tilt_degrees,
    xyz,
)
from paramdiff.simulation.channels import MODEL, PARAMETERS, Finding

# AP_MotorsMatrix::setup_quad_matrix (libraries/AP_Motors/AP_MotorsMatrix.cpp): per FRAME_TYPE,
# MotorN's (angle in degrees clockwise from the nose, seen from above; yaw factor).
QUAD_MATRIX: dict[int, tuple[str, tuple[tuple[float, int], ...]]] = {
    0: ("QUAD PLUS", ((90, CCW), (-90, CCW), (0, CW), (180, CW))),
    1: ("QUAD X", ((45, CCW), (-135, CCW), (-45, CW), (135, CW))),
}


def quad_rule(params: dict[str, float]) -> Rule | None:
    frame_class = params.get("FRAME_CLASS", 0.0)
    frame_type = params.get("FRAME_TYPE", 1.0)  # Copter's FRAME_TYPE default is 1 (X)
    if frame_class != 1 or int(frame_type) not in QUAD_MATRIX:
        return None
    name, table = QUAD_MATRIX[int(frame_type)]
    frame = (
        f"{name} (FRAME_CLASS 1, FRAME_TYPE {int(frame_type)}; AP_MotorsMatrix::setup_quad_matrix)"
    )

    def judge(j: Judge, act: Actuator) -> tuple[View, list[Finding]]:
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
    j: Judge, act: Actuator, table: tuple[tuple[float, int], ...]
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
                f"{spin_word(want or CCW)}",
                f"<multiplier>{format_value(-ch.multiplier)}</multiplier>",
            )
        )
    expected = motor_function(at) if at else None
    view = View(act, func, short(j, act, func), "rotor", spin, expected)
    view.expected_spin = want
    return view, out


def _rotor_where(act: Actuator, angle: float, spin: int) -> str:
    z = act.joint.axis[2]
    sense = " up" if z > 0.5 else (" down" if z < -0.5 else "")
    spinning = f", spinning {spin_word(spin)} seen from above" if spin else ""
    return (
        f"rotor {act.joint.child} at {angle:.0f}° ({FRD}; clockwise from the nose) = "
        f"{xyz(act.position)} m ({GAZEBO}){spinning} (multiplier "
        f"{format_value(act.channel.multiplier)} × joint axis {xyz(act.joint.axis)}{sense})"
    )


def _rotor_cannot_lift(j: Judge, act: Actuator, want: int | None) -> list[Finding]:
    """Multiplier 0, a zero axis, or an axis too far from vertical: no lift, no spin to judge.
    The fixes keep (or give) the spin ``want`` its motor needs (see _spin)."""
    ccw = (want or CCW) == CCW
    positive = act.channel.multiplier >= 0
    # Axis up (ArduPilot's -z) with a positive multiplier spins counter-clockwise.
    axis = j.model_axis((0.0, 0.0, -1.0) if positive == ccw else (0.0, 0.0, 1.0))
    axis_fix = f'<axis><xyz expressed_in="__model__">{axis}</xyz></axis> in joint {act.joint.name}'
    z = act.frd_axis[2]
    tilt = tilt_degrees(z)
    sign = (-1.0 if ccw else 1.0) * (1.0 if z > 0 else -1.0) if tilt <= TILT_LIMIT else 1.0
    mult_fix = f"<multiplier>{format_value(sign * j.magnitude(act))}</multiplier>"
    out = dead(act, "rotor", mult_fix, axis_fix)
    if act.joint.axis != (0.0, 0.0, 0.0) and tilt > TILT_LIMIT:
        out.append(misaimed(act, "rotor", tilt, "vertical", axis_fix))
    return out
