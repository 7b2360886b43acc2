"""A pilot input through ArduPilot's mixer to each output's PWM (functions of values).

Re-implemented from ArduPilot's source (the commit in paramdiff/data/launch/vehicleinfo.json):
- Rover: AP_MotorsUGV::output_skid_steering (ThrottleLeft = throttle + steering,
  ThrottleRight = throttle - steering, each -1..1) or, with GroundSteering/Throttle outputs,
  steering and throttle each on their own output; each scaled value becomes PWM via
  SRV_Channel::pwm_from_angle (SERVOn_REVERSED negates it, then trim + value × (max - trim) above
  trim, trim - |value| × (trim - min) below).
- Copter: AP_MotorsMatrix::add_motor(angle, yaw factor): roll factor cos(angle + 90°), pitch
  factor cos(angle); thrust = throttle + roll × rf + pitch × pf + yaw × yf,
  PWM = min + thrust × (max - min) over the motor PWM range. Motor PWM is written raw
  (rc_write → SRV_Channels::set_output_pwm): SERVOn_REVERSED does not apply.
- Sub: AP_Motors6DOF::setup_motors factors for FRAME_CONFIG, thrust = MOT_n_DIRECTION × Σ factor ×
  input, PWM = 1500 + thrust × (MOT_PWM_MAX - 1500) above, × (1500 - MOT_PWM_MIN) below
  (calc_thrust_to_pwm).
Pilot inputs are -1..1: positive throttle/forward/climb, steering/roll/yaw right, lateral right,
pitch nose up.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from paramdiff.simulation.actuators import motor_function
from paramdiff.simulation.channels import SERVO_DEFAULTS, motor_range
from paramdiff.simulation.geometry import output_functions
from paramdiff.simulation.rotors import QUAD_MATRIX
from paramdiff.simulation.thrusters import VECTORED_6DOF

STEERING, THROTTLE, THROTTLE_LEFT, THROTTLE_RIGHT = 26, 70, 73, 74
# AP_Motors6DOF::setup_motors, case SUB_FRAME_VECTORED: roll, pitch, yaw, throttle, forward, lateral
VECTORED: tuple[tuple[float, ...], ...] = (
    (0, 0, 1, 0, -1, 1),
    (0, 0, -1, 0, -1, -1),
    (0, 0, -1, 0, 1, 1),
    (0, 0, 1, 0, 1, -1),
    (1, 0, 0, -1, 0, 0),
    (-1, 0, 0, -1, 0, 0),
)
SUB_FRAMES = {1: ("vectored", VECTORED), 2: ("vectored_6dof", VECTORED_6DOF)}
SUB_AXES = ("roll", "pitch", "yaw", "throttle", "forward", "lateral")
# Firmware defaults of the frame parameters when no loaded file sets them (AP_GROUPINFO):
# Sub FRAME_CONFIG 1 (Sub/Parameters.cpp), Copter FRAME_CLASS 0 (undefined) and FRAME_TYPE 1.
FRAME_DEFAULTS = {
    "ArduSub": {"FRAME_CONFIG": 1.0},
    "ArduCopter": {"FRAME_CLASS": 0.0, "FRAME_TYPE": 1.0},
}


def frame_motors(vehicle: str, params: dict[str, float]) -> int:
    """How many motors the frame adds, so how many outputs AP_Motors::add_motor_num assigns at
    boot: a Sub's FRAME_CONFIG frame (AP_Motors6DOF::setup_motors, case SUB_FRAME_VECTORED adds
    MOT_1..MOT_6, SUB_FRAME_VECTORED_6DOF MOT_1..MOT_8; libraries/AP_Motors/AP_Motors6DOF.cpp),
    a Copter quad 4; a Rover none."""
    if vehicle == "ArduSub":
        config = {**FRAME_DEFAULTS["ArduSub"], **params}["FRAME_CONFIG"]
        frame = SUB_FRAMES.get(int(config)) if config == int(config) else None
        return len(frame[1]) if frame else 8
    return 4 if vehicle == "ArduCopter" else 0


def commands(vehicle: str, params: dict[str, float], axis: str) -> bool:
    """Whether the frame's mixer has any factor for ``axis`` (a Sub's vectored frame has no
    pitch factor on any motor: that axis is not controlled by the frame)."""
    if vehicle != "ArduSub" or axis not in SUB_AXES:
        return True
    config = {**FRAME_DEFAULTS["ArduSub"], **params}["FRAME_CONFIG"]
    frame = SUB_FRAMES.get(int(config)) if config == int(config) else None
    if frame is None:
        return True
    column = SUB_AXES.index(axis)
    return any(row[column] != 0 for row in frame[1])


class Mix(NamedTuple):
    """What the mixer drives: output → PWM, and which frame it mixed for."""

    pwm: dict[int, float]
    frame: str  # e.g. "skid steering (ThrottleLeft/ThrottleRight)"
    driven: dict[int, str]  # output → what it carries, e.g. "ThrottleLeft", "Motor3"


def _param(params: dict[str, float], n: int, field: str) -> float:
    return params.get(f"SERVO{n}_{field}", SERVO_DEFAULTS[field])


def pwm_from_angle(params: dict[str, float], n: int, value: float) -> float:
    """SRV_Channel::pwm_from_angle for output ``n`` and a scaled value in -1..1."""
    if _param(params, n, "REVERSED") >= 0.5:
        value = -value
    value = min(max(value, -1.0), 1.0)
    lo, hi, trim = _param(params, n, "MIN"), _param(params, n, "MAX"), _param(params, n, "TRIM")
    return trim + value * (hi - trim) if value > 0 else trim + value * (trim - lo)


def _lerp(x: float, x0: float, x1: float, y0: float, y1: float) -> float:
    """AP_Math's linear_interpolate: y0..y1 as x goes x0..x1, constrained to that range."""
    if x <= x0:
        return y0
    if x >= x1:
        return y1
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def skid_mix(params: dict[str, float], throttle: float, steering: float) -> tuple[float, float]:
    """(left, right) motor outputs -1..1 of AP_MotorsUGV::output_skid_steering
    (libraries/AR_Motors/AP_MotorsUGV.cpp, ArduPilot/ardupilot@0264b6719a64): MOT_THST_ASYM
    (at least 1) limits reverse throttle to -1/ASYM, steering is limited to what fits between
    the limits, a saturated pair is scaled back (MOT_STR_THR_MIX, default 0.5, says whether
    steering or throttle keeps priority), and each negative motor output is multiplied by ASYM
    so that full reverse thrust matches the weaker reverse of the thruster."""
    asym = max(params.get("MOT_THST_ASYM", 1.0), 1.0)
    lower = -1.0 / asym
    best = (1.0 + lower) * 0.5  # the throttle with the most steering room
    room = max(throttle, 0.0) - lower if throttle < best else 1.0 - best
    steering = min(max(steering, -room), room)
    throttle = min(max(throttle, lower), 1.0)
    saturation = max(throttle + abs(steering), (throttle - abs(steering)) / lower)
    if saturation > 1.0:
        mix = min(max(params.get("MOT_STR_THR_MIX", 0.5), 0.0), 1.0)
        fair = 1.0 / saturation
        if mix >= 0.5:  # steering first
            steering *= _lerp(mix, 0.5, 1.0, fair, 1.0)
            throttle = 1.0 - abs(steering) if throttle >= best else abs(steering) + lower
        else:  # throttle first
            throttle *= _lerp(0.5 - mix, 0.0, 0.5, fair, 1.0)
            sign = 1.0 if steering > 0 else -1.0
            steering = (1.0 - throttle if throttle >= best else throttle - lower) * sign
    left, right = throttle + steering, throttle - steering
    return (left * asym if left < 0 else left), (right * asym if right < 0 else right)


def ugv(params: dict[str, float], throttle: float, steering: float) -> Mix:
    """AP_MotorsUGV: skid steering when any output is ThrottleLeft/Right, else regular; the
    functions as the firmware runs them (Rover's boot defaults on outputs 1 and 3)."""
    funcs, _ = output_functions(params, "Rover", 0)
    skid = any(f in (THROTTLE_LEFT, THROTTLE_RIGHT) for f in funcs.values())
    left, right = skid_mix(params, throttle, steering)
    scaled = (
        {THROTTLE_LEFT: left, THROTTLE_RIGHT: right}
        if skid
        else {STEERING: steering, THROTTLE: throttle}
    )
    names = {THROTTLE_LEFT: "ThrottleLeft", THROTTLE_RIGHT: "ThrottleRight",
             STEERING: "GroundSteering", THROTTLE: "Throttle"}  # fmt: skip
    pwm: dict[int, float] = {}
    driven: dict[int, str] = {}
    for n, f in sorted(funcs.items()):
        if f in scaled:
            pwm[n] = pwm_from_angle(params, n, scaled[int(f)])
            driven[n] = names[int(f)]
    frame = "skid steering (ThrottleLeft/ThrottleRight)" if skid else "steering and throttle"
    return Mix(pwm, frame, driven)


def _motor_outputs(params: dict[str, float], vehicle: str, motors: int) -> dict[int, int]:
    """MotorN → the outputs that carry it (boot assignment applied)."""
    funcs, _ = output_functions(params, vehicle, motors)
    out: dict[int, int] = {}
    for n, f in sorted(funcs.items()):
        for m in range(1, motors + 1):
            if f == motor_function(m):
                out.setdefault(m, n)
    return out


def matrix(params: dict[str, float], roll: float, pitch: float, yaw: float, throttle: float) -> Mix:
    """AP_MotorsMatrix for the quad frames (FRAME_CLASS 1, FRAME_TYPE 0 plus / 1 X)."""
    p = {**FRAME_DEFAULTS["ArduCopter"], **params}
    frame_class, frame_type = p["FRAME_CLASS"], p["FRAME_TYPE"]
    if frame_class != 1 or int(frame_type) not in QUAD_MATRIX:
        return Mix({}, f"FRAME_CLASS {frame_class:g}, FRAME_TYPE {frame_type:g} (no quad)", {})
    name, table = QUAD_MATRIX[int(frame_type)]
    lo, hi, _ = motor_range(p)
    pwm: dict[int, float] = {}
    driven: dict[int, str] = {}
    for m, n in _motor_outputs(p, "ArduCopter", len(table)).items():
        angle, yf = table[m - 1]
        rf, pf = math.cos(math.radians(angle + 90)), math.cos(math.radians(angle))
        thrust = min(max(throttle + roll * rf + pitch * pf + yaw * yf, 0.0), 1.0)
        pwm[n] = lo + thrust * (hi - lo)
        driven[n] = f"Motor{m}"
    return Mix(pwm, f"{name} (FRAME_CLASS 1, FRAME_TYPE {frame_type:g})", driven)


def six_dof(params: dict[str, float], inputs: dict[str, float]) -> Mix:
    """AP_Motors6DOF for FRAME_CONFIG 1 (vectored) and 2 (vectored_6dof)."""
    p = {**FRAME_DEFAULTS["ArduSub"], **params}
    config = p["FRAME_CONFIG"]
    if int(config) not in SUB_FRAMES or int(config) != config:
        return Mix({}, f"FRAME_CONFIG {config:g} (not modelled)", {})
    name, table = SUB_FRAMES[int(config)]
    lo, hi = p.get("MOT_PWM_MIN", 1100.0), p.get("MOT_PWM_MAX", 1900.0)
    pwm: dict[int, float] = {}
    driven: dict[int, str] = {}
    for m, n in _motor_outputs(p, "ArduSub", len(table)).items():
        mix = sum(inputs.get(a, 0.0) * f for a, f in zip(SUB_AXES, table[m - 1], strict=True))
        direction = -1.0 if p.get(f"MOT_{m}_DIRECTION", 1.0) < 0 else 1.0
        thrust = min(max(direction * mix, -1.0), 1.0)
        pwm[n] = 1500 + thrust * (hi - 1500 if thrust > 0 else 1500 - lo)
        driven[n] = f"Motor{m}"
    return Mix(pwm, f"{name} (FRAME_CONFIG {config:g}, {len(table)} motors)", driven)
