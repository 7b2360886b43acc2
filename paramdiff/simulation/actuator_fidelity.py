"""Actuator fidelity: the thrust (or rotor speed) the model gives at the firmware's full forward
and full reverse output, against what the firmware's mixer assumes of it.

The model's side: the ArduPilotPlugin turns an output's PWM into a command
(``multiplier * (clamp((pwm - servo_min) / (servo_max - servo_min), 0, 1) + offset)``,
ArduPilot/ardupilot_gazebo src/ArduPilotPlugin.cc@00aa2194 UpdateMotorCommands); a COMMAND
control publishes it on its ``cmd_topic``, where a gz-sim Thruster system clamps and applies it
(parse.sdf_thruster); a VELOCITY control sets the joint's angular velocity (rad/s).

The firmware's side (ArduPilot/ardupilot, read at the commits named):

- ArduRover skid steering (libraries/AR_Motors/AP_MotorsUGV.cpp@0264b671,
  output_skid_steering): the mixer "assumes forward thrust is always larger than reverse":
  it limits the throttle to -1/MOT_THST_ASYM and multiplies every negative motor output by
  MOT_THST_ASYM, so full reverse output (SERVOn_MIN, SERVOn_MAX when reversed) is expected to
  give 1/MOT_THST_ASYM of the full forward thrust. MOT_THR_MIN raises every nonzero command
  to at least that percentage (get_scaled_throttle); MOT_SLEWRATE limits the throttle's rate
  of change in the firmware (slew_limit_throttle), so SITL has it as the boat does.
- ArduSub (libraries/AP_Motors/AP_Motors6DOF.cpp calc_thrust_to_pwm): thrust -1..1 maps to
  1500 -/+ the PWM range either side; the 6DOF mixer treats every thruster as symmetric.
  The range, on Sub as on Copter, is MOT_PWM_MIN/MAX, else the throttle channel's
  RCn_MIN/MAX (simulation.channels.motor_range: motor PWM is written raw, not through SERVOn_*).
- ArduCopter (AP_MotorsMulticopter): an actuator 0..1 maps to MOT_PWM_MIN..MOT_PWM_MAX; armed
  and idle the motors run at MOT_SPIN_ARM, in flight no lower than MOT_SPIN_MIN.
- SERVO_RATE has no effect in SITL: HALSITL's RCOutput::set_freq only stores the rate per
  group and write() passes each output on at once (libraries/AP_HAL_SITL/RCOutput.cpp@0654a392).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from paramdiff.model.values import format_value
from paramdiff.parse.sdf import Channel
from paramdiff.parse.sdf_thruster import Actuation, Thruster
from paramdiff.simulation.actuators import motor_number
from paramdiff.simulation.channels import motor_range
from paramdiff.simulation.geometry import infer_vehicle, output_functions
from paramdiff.simulation.thrusters import THROTTLE_LEFT, THROTTLE_RIGHT

RATIO_TOLERANCE = 0.05  # a forward/reverse ratio within 5% of what the firmware assumes agrees
RANGE_TOLERANCE = 0.05  # a Copter PWM range within 5% of the model's servo span agrees
# Firmware defaults where what SITL runs does not set them (each file's var_info).
SERVO_DEFAULTS = {"MIN": 1100.0, "MAX": 1900.0, "TRIM": 1500.0}  # SRV_Channel.cpp
THST_ASYM_DEFAULT = 1.0  # AP_MotorsUGV.cpp THST_ASYM
SPIN_DEFAULTS = {"MOT_SPIN_ARM": 0.10, "MOT_SPIN_MIN": 0.15, "MOT_SPIN_MAX": 0.95}
SUB_NEUTRAL = 1500.0  # AP_Motors6DOF::calc_thrust_to_pwm


class ActuatorFinding(NamedTuple):
    """A disagreement between the model's actuator and the firmware, identified by the
    model's sha256 and ``id`` (stable while the model's bytes and the comparison stand)."""

    id: str  # "thrust-ratio:SERVO1"
    model_sha256: str
    output: int
    what: str  # the numbers compared
    consequence: str  # what it does to the vehicle
    fix: str

    def __str__(self) -> str:
        return f"SERVO{self.output}: {self.what}: {self.consequence}"


class ActuatorRow(NamedTuple):
    """One actuator as the physics sees it, with what the firmware assumes of it."""

    output: int
    joint: str
    physics: str  # what the command drives, e.g. "Thruster (force, N)"
    unit: str
    forward: float | None  # at the firmware's full forward output
    reverse: float | None  # at full reverse (Copter: at MOT_PWM_MIN)
    forward_pwm: float | None
    reverse_pwm: float | None
    limits: tuple[str, ...]  # the clamps that bind, named
    clamps: str  # the Thruster's clamps and where they come from ("" without a Thruster)
    ratio: float | None  # |forward| / |reverse|
    neutral: str  # the PWM band where the command is zero
    firmware: str  # what the firmware assumes
    expected_ratio: float | None
    finding: ActuatorFinding | None


class Fidelity(NamedTuple):
    """The model's actuators against the firmware, and how the rate parameters behave."""

    vehicle: str | None
    rows: list[ActuatorRow]
    notes: list[str]  # slew, servo rate, loop rate, Copter spin points

    @property
    def findings(self) -> list[ActuatorFinding]:
        return [r.finding for r in self.rows if r.finding is not None]


def _param(params: dict[str, float], name: str, default: float) -> float:
    return params.get(name, default)


def _servo(params: dict[str, float], n: int, key: str) -> float:
    return _param(params, f"SERVO{n}_{key}", SERVO_DEFAULTS[key])


def fidelity(
    channels: list[Channel],
    actuation: Actuation,
    params: dict[str, float],
    vehicle: str | None,
    model_sha256: str,
    noun: str = "vehicle",
) -> Fidelity:
    """Each control channel's actuator at the firmware's full outputs, and the findings."""
    vehicle = infer_vehicle(params, vehicle)
    functions, _ = output_functions(params, vehicle, 8)
    rows = [
        _row(ch, actuation.reached(ch.channel), params, vehicle, functions.get(ch.output), noun)
        for ch in channels
    ]
    rows = [
        r._replace(finding=r.finding._replace(model_sha256=model_sha256)) if r.finding else r
        for r in rows
    ]
    return Fidelity(vehicle, rows, _notes(channels, actuation, params, vehicle))


def actuator_findings(fid: Fidelity) -> list[ActuatorFinding]:
    """The disagreements ``check`` fails on unless an overlay acknowledges them."""
    return fid.findings


def _physics(ch: Channel, thruster: Thruster | None) -> tuple[str, str]:
    if thruster is not None:
        mode = "angular velocity command" if thruster.angvel else "force command"
        return f"Thruster ({mode}), line {thruster.line}", "N"
    if ch.type == "COMMAND":
        return "cmd_topic reaches no Thruster of the model", "cmd"
    if ch.type == "VELOCITY":
        return "joint velocity", "rad/s"
    return f"joint {ch.type.lower()}", "cmd"


def _value(ch: Channel, thruster: Thruster | None, pwm: float) -> tuple[float, str | None]:
    cmd = ch.command(pwm)
    if thruster is None:
        return cmd, None
    return thruster.thrust(cmd), thruster.binds(cmd)


def _neutral(ch: Channel, thruster: Thruster | None) -> str:
    """Where the command (or thrust) is zero, in PWM."""
    span = ch.servo_max - ch.servo_min
    zero = ch.neutral_pwm
    if ch.multiplier == 0:
        return "everywhere (multiplier 0)"
    if zero <= ch.servo_min:
        return f"≤ {format_value(ch.servo_min)}" if zero == ch.servo_min else "none"
    if zero >= ch.servo_max:
        return f"≥ {format_value(ch.servo_max)}" if zero == ch.servo_max else "none"
    if thruster is not None and thruster.deadband:
        if thruster.angvel:  # thrust = k w|w| < deadband  <=>  |w| < sqrt(deadband / k)
            k = thruster.thrust_coefficient * thruster.propeller_diameter**4
            k *= thruster.fluid_density
            half_cmd = (thruster.deadband / abs(k)) ** 0.5 if k else 0.0
        else:
            half_cmd = thruster.deadband
        half = half_cmd / abs(ch.multiplier) * span
        return f"{zero - half:.0f}–{zero + half:.0f} (deadband {thruster.deadband:g} N)"
    return format_value(round(zero, 1))


def _row(
    ch: Channel,
    thruster: Thruster | None,
    params: dict[str, float],
    vehicle: str | None,
    function: float | None,
    noun: str,
) -> ActuatorRow:
    physics, unit = _physics(ch, thruster)
    n = ch.output
    motor = motor_number(function) if function is not None else None
    if vehicle == "ArduCopter" and motor is not None:
        return _rotor_row(ch, thruster, params, physics, unit)
    if vehicle == "ArduSub" and motor is not None:
        lo, hi, _ = motor_range(params)
        expected: float | None = 1.0
        assumes = (
            f"symmetric thrust: 6DOF mixer maps ±1 to {format_value(lo)}/{format_value(hi)} "
            f"around {format_value(SUB_NEUTRAL)}"
        )
        fwd_pwm, rev_pwm = hi, lo
    elif function in (THROTTLE_LEFT, THROTTLE_RIGHT):
        asym = max(_param(params, "MOT_THST_ASYM", THST_ASYM_DEFAULT), 1.0)
        expected = asym
        lo, hi = _servo(params, n, "MIN"), _servo(params, n, "MAX")
        flipped = _param(params, f"SERVO{n}_REVERSED", 0.0) != 0
        fwd_pwm, rev_pwm = (lo, hi) if flipped else (hi, lo)
        assumes = (
            f"reverse = forward / MOT_THST_ASYM {format_value(asym)} (skid-steer mixer), "
            f"neutral SERVO{n}_TRIM {format_value(_servo(params, n, 'TRIM'))}"
        )
    else:
        expected = None
        lo, hi = _servo(params, n, "MIN"), _servo(params, n, "MAX")
        fwd_pwm, rev_pwm = hi, lo
        assumes = "nothing of its thrust (no asymmetry parameter for this output's function)"
    forward, fwd_limit = _value(ch, thruster, fwd_pwm)
    reverse, rev_limit = _value(ch, thruster, rev_pwm)
    ratio = abs(forward) / abs(reverse) if reverse and forward else None
    limits = tuple(
        f"{side} limited by {lim}"
        for side, lim in (("forward", fwd_limit), ("reverse", rev_limit))
        if lim
    )
    finding = None
    if expected is not None and ratio is not None and thruster is not None:
        finding = _ratio_finding(ch, vehicle, ratio, expected, forward, reverse, limits, noun)
    return ActuatorRow(
        n, ch.joint, physics, unit, forward, reverse, fwd_pwm, rev_pwm, limits, _clamps(thruster),
        ratio, _neutral(ch, thruster), assumes, expected, finding,
    )  # fmt: skip


def _clamps(thruster: Thruster | None) -> str:
    if thruster is None:
        return ""
    unit = "rad/s" if thruster.angvel else "N"
    set_ = [k for k in ("max_thrust_cmd", "min_thrust_cmd") if k in thruster.lines]
    where = (
        "set in the model"
        if len(set_) == 2
        else ("gz-sim's defaults" if not set_ else f"{set_[0]} set, the other gz-sim's default")
    )
    return f"{thruster.max_cmd:g} / {thruster.min_cmd:g} {unit} ({where})"


def _ratio_finding(
    ch: Channel,
    vehicle: str | None,
    ratio: float,
    expected: float,
    forward: float,
    reverse: float,
    limits: tuple[str, ...],
    noun: str,
) -> ActuatorFinding | None:
    if abs(ratio / expected - 1.0) <= RATIO_TOLERANCE:
        return None
    named = f"; {', '.join(limits)}" if limits else ""
    what_expected = (
        f"MOT_THST_ASYM {format_value(expected)}"
        if vehicle != "ArduSub"
        else "ArduSub's symmetric thrusters (1.00)"
    )
    what = (
        f"forward/reverse thrust {ratio:.2f} ({abs(forward):.1f} N / {abs(reverse):.1f} N"
        f"{named}) against {what_expected}"
    )
    factor = expected / ratio
    if vehicle == "ArduSub":
        consequence = (
            f"reverse thrust is {factor:.2f}× forward's share: a command the mixer balances "
            f"(hover, pure yaw) leaves a net force and the {noun} drifts"
        )
    elif factor > 1:
        consequence = (
            f"simulated reverse thrust is {factor:.2f}× what the firmware expects "
            f"({abs(reverse):.1f} N where it assumes {abs(forward) / expected:.1f} N): in a "
            f"pivot turn the {noun} backs up"
        )
    else:
        consequence = (
            f"simulated reverse thrust is {factor:.2f} of what the firmware expects: in a "
            f"pivot turn the {noun} creeps forward and it stops and reverses weaker than "
            "commanded"
        )
    fix = (
        "set max_thrust_cmd/min_thrust_cmd (or the multiplier) of the model's Thruster so "
        f"forward/reverse is {format_value(expected)}, or acknowledge the finding with a "
        "reason in the overlay (acknowledged:)"
    )
    return ActuatorFinding(f"thrust-ratio:SERVO{ch.output}", "", ch.output, what, consequence, fix)


def _rotor_row(
    ch: Channel,
    thruster: Thruster | None,
    params: dict[str, float],
    physics: str,
    unit: str,
) -> ActuatorRow:
    """A Copter rotor: the speed at MOT_PWM_MIN and MOT_PWM_MAX against the servo span."""
    n = ch.output
    lo, hi, _ = motor_range(params)
    top, top_limit = _value(ch, thruster, hi)
    bottom, bottom_limit = _value(ch, thruster, lo)
    limits = tuple(x for x in (top_limit, bottom_limit) if x)
    span = ch.servo_max - ch.servo_min
    off = max(abs(lo - ch.servo_min), abs(hi - ch.servo_max)) / span
    finding = None
    if off > RANGE_TOLERANCE:
        what = (
            f"MOT_PWM_MIN/MAX {format_value(lo)}–{format_value(hi)} against the model's "
            f"servo_min/servo_max {format_value(ch.servo_min)}–{format_value(ch.servo_max)}"
        )
        if lo < ch.servo_min or hi > ch.servo_max:
            consequence = (
                "part of the firmware's range moves no rotor (the plugin clamps outside "
                "servo_min..servo_max): thrust per command differs from the real motor"
            )
        else:
            consequence = (
                f"the rotor already turns at {abs(bottom):.0f} rad/s at MOT_PWM_MIN or never "
                "reaches full speed: thrust per command differs from the real motor"
            )
        finding = ActuatorFinding(
            f"rotor-range:SERVO{n}",
            "",
            n,
            what,
            consequence,
            "set MOT_PWM_MIN/MAX to the model's servo_min/servo_max (an overlay delta), or "
            "acknowledge it with a reason",
        )
    return ActuatorRow(
        n, ch.joint, physics, unit, top, bottom, hi, lo, limits, _clamps(thruster), None,
        _neutral(ch, thruster),
        f"rotor stopped at MOT_PWM_MIN {format_value(lo)}, full at MOT_PWM_MAX "
        f"{format_value(hi)}", None, finding,
    )  # fmt: skip


def _notes(
    channels: list[Channel], actuation: Actuation, params: dict[str, float], vehicle: str | None
) -> list[str]:
    notes = []
    if vehicle == "ArduCopter":
        notes += _spin_notes(channels, actuation, params)
    if vehicle not in ("ArduCopter", "ArduSub"):
        notes += _throttle_notes(params)
    if "MOT_SLEWRATE" in params and vehicle not in ("ArduCopter", "ArduSub"):
        rate = params["MOT_SLEWRATE"]
        forced = any(not t.angvel for t in actuation.thrusters)
        lag = (
            " The model adds no lag of its own: a gz-sim Thruster applies a force command "
            "in the physics step it arrives (Thruster.cc PreUpdate), so the firmware's slew "
            "is the only one."
            if forced
            else ""
        )
        notes.append(
            f"MOT_SLEWRATE {format_value(rate)} %/s is applied by the firmware "
            "(AP_MotorsUGV::slew_limit_throttle), in SITL as on the vehicle"
            + (
                f": zero to full throttle takes {100 / rate:.2g} s, full reverse to full "
                f"forward {200 / rate:.2g} s."
                if rate > 0
                else ": 0 disables it."
            )
            + lag
        )
    if "SERVO_RATE" in params:
        notes.append(
            f"SERVO_RATE {format_value(params['SERVO_RATE'])} Hz has no effect in SITL: "
            "HALSITL's RCOutput::set_freq stores the rate and write() passes every output on "
            "at once (libraries/AP_HAL_SITL/RCOutput.cpp), so the model sees a new PWM with "
            "every frame SITL sends, whatever the rate."
        )
    notes.append(loop_rate_note(params, None))
    return notes


def _throttle_notes(params: dict[str, float]) -> list[str]:
    """What MOT_THR_MIN and MOT_THR_MAX do to the skid-steer outputs (AP_MotorsUGV)."""
    notes = []
    low = params.get("MOT_THR_MIN")
    if low is not None:
        notes.append(
            f"MOT_THR_MIN {format_value(low)} %: "
            + (
                "every nonzero motor output is raised to at least that share of full "
                "(AP_MotorsUGV::get_scaled_throttle), so the smallest thrust the firmware "
                "commands is that share of the thrust at full output."
                if low > 0
                else "no minimum: the firmware can command any thrust down to zero."
            )
        )
    high = params.get("MOT_THR_MAX")
    if high is not None and high < 100:
        notes.append(
            f"MOT_THR_MAX {format_value(high)} %: the throttle demand is capped there "
            "(AP_MotorsUGV::set_throttle); steering can still drive a motor to full output."
        )
    return notes


def loop_rate_note(params: dict[str, float], world: tuple[float, str] | None) -> str:
    """SCHED_LOOP_RATE against the world's physics step (``world``: step in seconds and where
    it was read). With the plugin's lock_step, SITL's JSON backend sends one servo frame and
    waits for one state per physics step, and takes its frame time from the states'
    timestamps (libraries/SITL/SIM_JSON.cpp JSON::update, recv_fdm): SITL runs at the world's
    rate whatever SIM_RATE_HZ says, and the firmware's loop every (physics rate / loop rate)
    frames."""
    loop = params.get("SCHED_LOOP_RATE")
    said = f"SCHED_LOOP_RATE {format_value(loop)} Hz" if loop is not None else "SCHED_LOOP_RATE"
    if world is None:
        return (
            f"{said}: the plugin runs lock-step with SITL (one servo frame per physics step); "
            "no world file is given (check --world FILE), so the physics step is not compared."
        )
    step, where = world
    rate = 1.0 / step
    head = (
        f"the world steps at {rate:g} Hz (max_step_size {step:g} s, {where}); with lock_step "
        "SITL's JSON backend runs one frame per physics step at that rate (SIM_RATE_HZ does not "
        "set it)"
    )
    if loop is None:
        return head + "."
    if loop > rate:
        return (
            f"{head}, but {said} is faster: the firmware's loop runs more often than the world "
            "steps, so several loops read the same state — raise the physics rate (smaller "
            "max_step_size) or lower SCHED_LOOP_RATE."
        )
    frames = rate / loop
    even = abs(frames - round(frames)) < 1e-6
    return f"{head}; {said} runs the firmware's loop every {frames:g} physics steps" + (
        "." if even else ", not a whole number: the loop's period jitters by a step."
    )


def _spin_notes(
    channels: list[Channel], actuation: Actuation, params: dict[str, float]
) -> list[str]:
    """What each distinct rotor mapping does at MOT_SPIN_ARM/MIN/MAX."""
    spins = {k: _param(params, k, v) for k, v in SPIN_DEFAULTS.items()}
    seen: set[tuple[float, float, float, float]] = set()
    notes = []
    for ch in channels:
        key = (ch.servo_min, ch.servo_max, ch.offset, abs(ch.multiplier))
        if key in seen or ch.type != "VELOCITY":
            continue
        seen.add(key)
        lo, hi, _ = motor_range(params)
        points = []
        for name, spin in spins.items():
            pwm = lo + spin * (hi - lo)
            speed = abs(ch.command(pwm))
            points.append(f"{name} {format_value(spin)} → {pwm:.0f} µs → {speed:.0f} rad/s")
        below = abs(ch.command(lo))
        notes.append(
            f"Rotors with servo {format_value(ch.servo_min)}–{format_value(ch.servo_max)}, "
            f"|multiplier| {format_value(abs(ch.multiplier))}: "
            + "; ".join(points)
            + ". "
            + (
                "Disarmed (MOT_PWM_MIN) the rotor stands still; armed it spins at MOT_SPIN_ARM, "
                "as the firmware expects."
                if below == 0
                else f"At MOT_PWM_MIN the rotor already turns at {below:.0f} rad/s."
            )
        )
    return notes


ACTUATOR_IDS = ("thrust-ratio:", "rotor-range:")


def acknowledgement_of(acks: Sequence[Any], model: str, finding: ActuatorFinding) -> Any | None:
    """The overlay acknowledgement (config.overlay.Acknowledgement) that accepts ``finding``
    of the model named ``model`` (a role or a path): the same model, the same bytes (sha256),
    and as finding its id (``thrust-ratio:SERVO1``) or the text check prints for it."""
    text = " ".join(f"{model}: {finding}".split())
    same = (finding.id, text)
    return next(
        (
            a
            for a in acks
            if a.model == model and a.sha256 == finding.model_sha256 and a.finding in same
        ),
        None,
    )


def is_actuator_acknowledgement(ack: Any) -> bool:
    """An acknowledgement written for an actuator finding (by id or by its text)."""
    return bool(ack.model) and (
        ack.finding.startswith(ACTUATOR_IDS)
        or (": SERVO" in ack.finding and " thrust " in ack.finding)
    )
