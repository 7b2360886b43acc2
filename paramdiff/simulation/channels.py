"""Does a Gazebo model's ArduPilotPlugin agree with a parameter set, channel by channel?

A channel's role (which actuator it drives) and direction come from the model's geometry when
simulation.geometry has a rule for the vehicle's frame (``roles``); joint_roles in sources.yaml is
then a cross-check, and the fallback when the model has no links and joints to read."""

from __future__ import annotations

from typing import NamedTuple

from paramdiff.model.metadata import Metadata
from paramdiff.model.values import format_value, same_value
from paramdiff.parse.sdf import Channel

# Where a finding's fix is made, as the report and check word it before the fix.
MODEL = "in the model"  # the model's <control> block or a joint
SOURCES = "in sources.yaml"  # the profile's joint_roles
PARAMETERS = "as an overlay delta"  # a SERVOn_ parameter of the derived file


class Finding(NamedTuple):
    """A channel whose model disagrees with what the parameters make of its output, and the fix."""

    channel: int
    output: int
    joint: str
    what: str
    fix: str = ""  # what to write, where ``fix_in`` says
    fix_in: str = MODEL

    def __str__(self) -> str:
        return f"channel {self.channel} ({self.joint}, SERVO{self.output}): {self.what}"

    def fix_text(self) -> str:
        """`` — in the model: `<multiplier>838</multiplier>``` (empty without a fix)."""
        return f" — {self.fix_in}: `{self.fix}`" if self.fix else ""


# SRV_Channel's own defaults (AP_GROUPINFO MIN 1100, MAX 1900, TRIM 1500, REVERSED 0), the same
# on every vehicle: what an output runs on a wiped EEPROM when no loaded file sets it.
SERVO_DEFAULTS = {"MIN": 1100.0, "MAX": 1900.0, "TRIM": 1500.0, "REVERSED": 0.0}


def _servo(params: dict[str, float], n: int, field: str) -> tuple[float, str]:
    """SERVOn_<field> as the firmware would run it, and a note when that is the default."""
    name = f"SERVO{n}_{field}"
    if name in params:
        return params[name], ""
    return SERVO_DEFAULTS[field], " (not set: firmware default)"


def _label(metadata: Metadata | None, name: str, value: float) -> str:
    return metadata.label(name, value) if metadata else format_value(value)


class Role(NamedTuple):
    """What the model's geometry says about one channel (simulation.geometry.analyse)."""

    placed: bool  # its joint and link were found and a frame rule applied
    function: float | None  # SERVOn_FUNCTION as SITL runs it (boot motor assignment applied)
    expected: int | None  # the SERVOn_FUNCTION the geometry says the channel is
    findings: tuple[Finding, ...] = ()  # the geometry's own verdicts (role, spin, thrust)


MOTOR_FUNCTIONS = range(33, 41)  # Motor1..8

# Rover::load_parameters (Rover/Parameters.cpp, ArduPilot/ardupilot@00dff1258d5b) sets the
# defaults of output 1 (k_steering) and output 3 (k_throttle): what runs where no file sets them.
ROVER_BOOT_FUNCTIONS = {1: 26.0, 3: 70.0}
ROVER_BOOT_NAMES = {1: "GroundSteering", 3: "Throttle"}


def channel_findings(
    channels: list[Channel],
    params: dict[str, float],
    joint_roles: dict[str, int],
    metadata: Metadata | None = None,
    roles: dict[int, Role] | None = None,
    vehicle: str | None = None,
) -> list[Finding]:
    """Every way in which the parameters would drive this model differently from intended:
    one rule per aspect of a channel (function, PWM range, neutral, direction). With
    ``roles``, function and direction come from the geometry; on ArduCopter a motor output's
    range is the motor PWM range."""
    out: list[Finding] = []
    if vehicle == "Rover":
        boot = {f"SERVO{n}_FUNCTION": f for n, f in ROVER_BOOT_FUNCTIONS.items()}
        params = {**boot, **params}
    for ch in channels:
        role = (roles or {}).get(ch.channel)
        out.extend(role.findings if role is not None else ())
        if role is not None and role.placed:
            out.extend(_cross_check(ch, role, joint_roles, metadata))
            rules = [_range_rule, _neutral_rule]
            if vehicle == "ArduCopter" and role.function in MOTOR_FUNCTIONS:
                rules = [_motor_range_rule]
        else:
            rules = [_function_rule, _range_rule, _neutral_rule, _direction_rule]
        for rule in rules:
            for what, fix in rule(ch, params, joint_roles, metadata):
                out.append(Finding(ch.channel, ch.output, ch.joint, what, fix))
    return out


def _cross_check(
    ch: Channel, role: Role, joint_roles: dict[str, int], meta: Metadata | None
) -> list[Finding]:
    """joint_roles, when it names the joint, must say what the geometry says."""
    listed, name = joint_roles.get(ch.joint), f"SERVO{ch.output}_FUNCTION"
    if listed is None or role.expected is None or listed == role.expected:
        return []
    what = (
        f"joint_roles in sources.yaml says {ch.joint} is {_label(meta, name, listed)}, but its "
        f"geometry says {_label(meta, name, role.expected)}"
    )
    fix = f"joint_roles: {{{ch.joint}: {role.expected}}}"
    return [Finding(ch.channel, ch.output, ch.joint, what, fix, SOURCES)]


def motor_range(params: dict[str, float]) -> tuple[float, float, str]:
    """A Copter motor's PWM range: MOT_PWM_MIN/MAX when both are set and valid, else the
    throttle channel's RCn_MIN/MAX (AP_MotorsMulticopter::get_pwm_output_min/max, the
    throttle range set by set_throttle_range(channel_throttle->get_radio_min(), ...)).
    Motor PWM is written raw, so SERVOn_MIN/MAX do not apply."""
    lo, hi = params.get("MOT_PWM_MIN", 0.0), params.get("MOT_PWM_MAX", 0.0)
    if lo > 0 and hi > 0 and hi > lo:
        return lo, hi, " (MOT_PWM_MIN/MAX)"
    rc = int(params.get("RCMAP_THROTTLE", 3.0))
    return (
        params.get(f"RC{rc}_MIN", SERVO_DEFAULTS["MIN"]),
        params.get(f"RC{rc}_MAX", SERVO_DEFAULTS["MAX"]),
        f" (MOT_PWM_MIN/MAX unset: RC{rc}_MIN/MAX, the throttle channel)",
    )


def _motor_range_rule(
    ch: Channel, params: dict[str, float], joint_roles: dict[str, int], meta: Metadata | None
) -> Problems:
    """A multicopter motor: the model's servo range against the motor PWM range. A motor has
    no neutral: below servo_min the model's command clamps to zero."""
    pmin, pmax, note = motor_range(params)
    return _span_problem(ch, pmin, pmax, f"motor PWM range {_span(pmin, pmax)}{note}", "0")


Problems = list[tuple[str, str]]  # (what is wrong, what to write in the <control> block)


def _function_rule(
    ch: Channel, params: dict[str, float], joint_roles: dict[str, int], meta: Metadata | None
) -> Problems:
    """The joint's role (joint_roles) against SERVOn_FUNCTION."""
    name = f"SERVO{ch.output}_FUNCTION"
    func = params.get(name)
    role = joint_roles.get(ch.joint)
    if role is None:
        return [
            (f"joint {ch.joint} has no entry in joint_roles, so its function cannot be checked", "")
        ]
    if func is None:
        return [
            (
                f"drives {ch.joint} ({_label(meta, name, role)}) but the parameters do not set "
                f"{name}",
                "",
            )
        ]
    if same_value(func, role):
        return []
    want = {f: joint for joint, f in joint_roles.items()}.get(int(func))
    return [
        (
            f"drives {ch.joint}, which is {_label(meta, name, role)}, but {name} is "
            f"{_label(meta, name, func)}",
            f"<jointName>{want}</jointName>" if want else "",
        )
    ]


def _trim_offset(params: dict[str, float], n: int) -> str:
    """The offset that puts the model's zero command at the parameters' trim."""
    (pmin, _), (pmax, _) = _servo(params, n, "MIN"), _servo(params, n, "MAX")
    trim, _ = _servo(params, n, "TRIM")
    return format_value(round(-(trim - pmin) / (pmax - pmin), 6)) if pmax > pmin else "?"


def _range_rule(
    ch: Channel, params: dict[str, float], joint_roles: dict[str, int], meta: Metadata | None
) -> Problems:
    """The model's servo_min..servo_max against SERVOn_MIN..MAX."""
    n = ch.output
    (pmin, min_note), (pmax, max_note) = _servo(params, n, "MIN"), _servo(params, n, "MAX")
    theirs = f"SERVO{n}_MIN/MAX {_span(pmin, pmax)}{min_note or max_note}"
    return _span_problem(ch, pmin, pmax, theirs, _trim_offset(params, n))


def _span(low: float, high: float) -> str:
    return f"{format_value(low)}–{format_value(high)}"


def _span_problem(ch: Channel, pmin: float, pmax: float, theirs: str, offset: str) -> Problems:
    """The model's servo_min..servo_max against the parameters' PWM range (``theirs``)."""
    if same_value(pmin, ch.servo_min) and same_value(pmax, ch.servo_max):
        return []
    ratio = ((pmax - pmin) / (ch.servo_max - ch.servo_min) - 1) * 100
    return [
        (
            f"model range {_span(ch.servo_min, ch.servo_max)} vs {theirs} ({abs(ratio):.0f}% "
            f"{'less' if ratio < 0 else 'more'} PWM span: every command maps to a different "
            "thrust)",
            f"<servo_min>{format_value(pmin)}</servo_min> "
            f"<servo_max>{format_value(pmax)}</servo_max> <offset>{offset}</offset>",
        )
    ]


def _neutral_rule(
    ch: Channel, params: dict[str, float], joint_roles: dict[str, int], meta: Metadata | None
) -> Problems:
    """The model's neutral PWM (zero command) against SERVOn_TRIM."""
    n = ch.output
    trim, trim_note = _servo(params, n, "TRIM")
    if same_value(trim, ch.neutral_pwm):
        return []
    return [
        (
            f"model neutral {format_value(ch.neutral_pwm)} vs SERVO{n}_TRIM "
            f"{format_value(trim)}{trim_note}: a standing command of "
            f"{format_value(round(ch.command(trim), 6))} at zero throttle",
            f"<offset>{_trim_offset(params, n)}</offset>",
        )
    ]


def _direction_rule(
    ch: Channel, params: dict[str, float], joint_roles: dict[str, int], meta: Metadata | None
) -> Problems:
    """SERVOn_REVERSED against the sign of the model's multiplier."""
    n = ch.output
    rev = params.get(f"SERVO{n}_REVERSED", 0.0)
    if (rev >= 0.5) == ch.reversed:
        return []
    fix = f"<multiplier>{format_value(-ch.multiplier)}</multiplier>"
    if rev >= 0.5:
        what = (
            f"net direction is backwards: SERVO{n}_REVERSED {format_value(rev)} × multiplier "
            f"{format_value(ch.multiplier)}"
        )
    else:
        what = (
            f"net direction is backwards: multiplier {format_value(ch.multiplier)} reverses "
            f"the joint while SERVO{n}_REVERSED is 0"
        )
    return [(what, fix)]
