"""The thruster rules: skid-steer (Rover, SERVOn_FUNCTION 73/74: ThrottleLeft drives the port
thruster) and vectored 6DOF (Sub, FRAME_CONFIG 2: each thruster's factors from
``AP_Motors6DOF::setup_motors`` against the wrench its thrust produces)."""

from __future__ import annotations

from paramdiff.model.values import format_value
from paramdiff.parse.sdf_frames import FRD, GAZEBO
from paramdiff.simulation.actuators import (
    EPS,
    TILT_LIMIT,
    Actuator,
    Judge,
    Rule,
    View,
    dead,
    misaimed,
    motor_function,
    motor_number,
    num,
    short,
    tilt_degrees,
    xyz,
)
from paramdiff.simulation.channels import MODEL, PARAMETERS, Finding

THROTTLE_LEFT, THROTTLE_RIGHT = 73, 74
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


def _side(act: Actuator) -> int:
    """ThrottleLeft for a thruster on the port side (FRD y < 0, Gazebo y > 0)."""
    return THROTTLE_LEFT if act.frd_position[1] < 0 else THROTTLE_RIGHT


def skid_rule(params: dict[str, float]) -> Rule | None:
    if not any(
        k.startswith("SERVO") and k.endswith("_FUNCTION") and v in (THROTTLE_LEFT, THROTTLE_RIGHT)
        for k, v in params.items()
    ):
        return None
    return "skid-steer (ThrottleLeft 73 port, ThrottleRight 74 starboard)", 0, _skid


def _skid(j: Judge, act: Actuator) -> tuple[View, list[Finding]]:
    ch, n = act.channel, act.channel.output
    func = j.function(act)
    want = _side(act)
    side = "port" if want == THROTTLE_LEFT else "starboard"
    where = (
        f"drives {ch.joint}, the {side} thruster (link {act.joint.child} at "
        f"{xyz(act.position)} m, {GAZEBO})"
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
                f"geometry: a command above trim pushes {xyz(thrust)} ({FRD}; "
                f"multiplier {format_value(ch.multiplier)} × joint axis, SERVO{n}_"
                f"REVERSED {format_value(j.params.get(f'SERVO{n}_REVERSED', 0.0))})"
                f"; parameters: {shown} above trim means forward (+x), so the "
                "thruster pushes backwards",
                f"<multiplier>{format_value(-ch.multiplier)}</multiplier>",
            )
        )
    view = View(act, func, short(j, act, func), "thruster", expected=want)
    view.reversed = j.reversed(act)
    return view, out


def _skid_cannot_push(j: Judge, act: Actuator) -> list[Finding]:
    """Multiplier 0, a zero axis, or an axis too far from fore-aft: gz-sim's Thruster pushes
    along the joint axis, so this thruster cannot drive the vehicle forward. The fixes make a
    command above trim push forward (multiplier sign × SERVOn_REVERSED × axis x > 0)."""
    reversed_output = j.reversed(act)
    forward = (act.channel.multiplier >= 0) != reversed_output
    axis = j.model_axis((1.0, 0.0, 0.0) if forward else (-1.0, 0.0, 0.0))
    axis_fix = f'<axis><xyz expressed_in="__model__">{axis}</xyz></axis> in joint {act.joint.name}'
    x = act.frd_axis[0]
    tilt = tilt_degrees(x)
    sign = (-1.0 if reversed_output else 1.0) * (1.0 if x >= 0 or tilt > TILT_LIMIT else -1.0)
    mult_fix = f"<multiplier>{format_value(sign * j.magnitude(act))}</multiplier>"
    out = dead(act, "thruster", mult_fix, axis_fix)
    if act.joint.axis != (0.0, 0.0, 0.0) and tilt > TILT_LIMIT:
        out.append(misaimed(act, "thruster", tilt, "fore-aft (x)", axis_fix))
    return out


def six_dof_rule(params: dict[str, float]) -> Rule | None:
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


def _thruster_6dof(j: Judge, act: Actuator) -> tuple[View, list[Finding]]:
    ch, n = act.channel, act.channel.output
    func = j.function(act)
    assigned = motor_number(func) if func is not None else None
    out = _six_dof_cannot_push(j, act, assigned)
    contrib = wrench(act, j.reversed(act))
    fits = {k + 1: s for k, f in enumerate(VECTORED_6DOF) if (s := match(contrib, f))}
    push = act.thrust(j.reversed(act))
    where = (
        f"thruster {act.joint.child} at {xyz(act.frd_position)} m pushing {xyz(push)}"
        f" ({FRD}; {xyz(act.position)} m in the {GAZEBO}) for a command above neutral: "
        + ", ".join(f"{a} {num(g)}" for a, g in zip(SIX_DOF_AXES, contrib, strict=True))
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
    view = View(act, func, short(j, act, func), "thruster", expected=expected)
    view.reversed = j.reversed(act)
    return view, out


def _six_dof_direction(
    j: Judge, act: Actuator, assigned: int, fit: int, where: str, shown: str
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


def _six_dof_cannot_push(j: Judge, act: Actuator, assigned: int | None) -> list[Finding]:
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
    return dead(act, "thruster", mult_fix, axis_fix)
