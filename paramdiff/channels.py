"""Does a Gazebo model's ArduPilotPlugin agree with a parameter set, channel by channel?"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .formats import format_value, same_value
from .metadata import Metadata
from .sdf import Channel

if TYPE_CHECKING:
    from .stages.geometry import Geometry


@dataclass(frozen=True)
class Finding:
    channel: int
    output: int
    joint: str
    what: str
    fix: str = ""  # what to change in the model's <control> block

    def __str__(self) -> str:
        return f"channel {self.channel} ({self.joint}, SERVO{self.output}): {self.what}"


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


def _motor_range(params: dict[str, float]) -> tuple[tuple[float, str], tuple[float, str]]:
    """A Copter motor's PWM range: MOT_PWM_MIN/MAX when both are set and valid, else the
    throttle channel's RCn_MIN/MAX (AP_MotorsMulticopter::get_pwm_output_min/max; the
    throttle range comes from set_throttle_range(channel_throttle->get_radio_min(), ...)).
    Motor PWM is written raw, so SERVOn_MIN/MAX do not apply."""
    lo, hi = params.get("MOT_PWM_MIN", 0.0), params.get("MOT_PWM_MAX", 0.0)
    if lo > 0 and hi > 0 and hi > lo:
        return (lo, " (MOT_PWM_MIN)"), (hi, " (MOT_PWM_MAX)")
    rc = int(params.get("RCMAP_THROTTLE", 3.0))
    note = f" (MOT_PWM_MIN/MAX unset: RC{rc}_MIN/MAX, the throttle channel)"
    return (
        (params.get(f"RC{rc}_MIN", SERVO_DEFAULTS["MIN"]), note),
        (params.get(f"RC{rc}_MAX", SERVO_DEFAULTS["MAX"]), note),
    )


def _role_findings(
    ch: Channel,
    func: float | None,
    joint_roles: dict[str, int],
    metadata: Metadata | None,
    geometry: Geometry | None,
) -> list[Finding]:
    """Which physical actuator the channel drives vs the output's function: from the model's
    geometry when it has a rule for the frame, with joint_roles as a cross-check; else from
    joint_roles alone."""
    n = ch.output
    view = next((v for v in geometry.views if v.actuator.channel == ch), None) if geometry else None
    # Geometry's own findings: a joint missing from the model, or the rule's verdict.
    found = [f for f in geometry.findings if f.channel == ch.channel] if geometry else []
    role = joint_roles.get(ch.joint)
    if view is not None:
        if role is not None and view.expected is not None and role != view.expected:
            found.append(
                Finding(
                    ch.channel,
                    n,
                    ch.joint,
                    f"joint_roles in sources.yaml says {ch.joint} is "
                    f"{_label(metadata, f'SERVO{n}_FUNCTION', role)}, but its geometry says "
                    f"{_label(metadata, f'SERVO{n}_FUNCTION', view.expected)}",
                    f"joint_roles: {{{ch.joint}: {view.expected}}}",
                )
            )
        return found
    return found + _joint_role_findings(ch, func, joint_roles, metadata)


def _joint_role_findings(
    ch: Channel, func: float | None, joint_roles: dict[str, int], metadata: Metadata | None
) -> list[Finding]:
    """Without geometry: the function joint_roles in sources.yaml gives the joint."""
    n = ch.output
    joint_of = {f: j for j, f in joint_roles.items()}
    role = joint_roles.get(ch.joint)
    if role is None:
        what = f"joint {ch.joint} has no entry in joint_roles, so its function cannot be checked"
        return [Finding(ch.channel, n, ch.joint, what)]
    if func is None:
        return [
            Finding(
                ch.channel,
                n,
                ch.joint,
                f"drives {ch.joint} ({_label(metadata, f'SERVO{n}_FUNCTION', role)}) but "
                f"the parameters do not set SERVO{n}_FUNCTION",
            )
        ]
    if not same_value(func, role):
        want = joint_of.get(int(func))
        return [
            Finding(
                ch.channel,
                n,
                ch.joint,
                f"drives {ch.joint}, which is {_label(metadata, f'SERVO{n}_FUNCTION', role)}"
                f", but SERVO{n}_FUNCTION is {_label(metadata, f'SERVO{n}_FUNCTION', func)}",
                f"<jointName>{want}</jointName>" if want else "",
            )
        ]
    return []


def channel_findings(
    channels: list[Channel],
    params: dict[str, float],
    joint_roles: dict[str, int],
    metadata: Metadata | None = None,
    geometry: Geometry | None = None,
    vehicle: str | None = None,
) -> list[Finding]:
    """Every way in which the parameters would drive this model differently from intended.

    ``geometry`` (stages.geometry.analyse) reads each channel's role and direction from the
    model; ``vehicle`` selects the motor PWM rule on ArduCopter."""
    out: list[Finding] = []
    views = {v.actuator.channel.channel: v for v in geometry.views} if geometry else {}
    for ch in channels:
        n = ch.output

        def add(what: str, fix: str = "", ch: Channel = ch) -> None:
            out.append(Finding(ch.channel, ch.output, ch.joint, what, fix))

        view = views.get(ch.channel)
        func = view.function if view is not None else params.get(f"SERVO{n}_FUNCTION")
        out.extend(_role_findings(ch, func, joint_roles, metadata, geometry))
        if vehicle == "ArduCopter" and func is not None and 33 <= func <= 40:
            (pmin, min_note), (pmax, max_note) = _motor_range(params)
            _range_findings(add, ch, n, (pmin, min_note), (pmax, max_note), (pmin, min_note), True)
            continue
        trim = _servo(params, n, "TRIM")
        _range_findings(add, ch, n, _servo(params, n, "MIN"), _servo(params, n, "MAX"), trim)
        if view is None:
            _reversal_findings(add, ch, n, params)
    return out


def _range_findings(
    add: Callable[..., None],
    ch: Channel,
    n: int,
    low: tuple[float, str],
    high: tuple[float, str],
    neutral: tuple[float, str],
    motor: bool = False,
) -> None:
    """Model servo range vs the output's PWM range, and the model's neutral vs the trim (or,
    for a multicopter motor, vs the PWM minimum where the motor stops)."""
    (pmin, min_note), (pmax, max_note), (trim, trim_note) = low, high, neutral
    names = (
        ("motor PWM range", "motor PWM minimum")
        if motor
        else (f"SERVO{n}_MIN/MAX", f"SERVO{n}_TRIM")
    )
    # The offset that puts the model's zero command at the parameters' trim.
    offset = format_value(round(-(trim - pmin) / (pmax - pmin), 6)) if pmax > pmin else "?"
    if not (same_value(pmin, ch.servo_min) and same_value(pmax, ch.servo_max)):
        model_span, param_span = ch.servo_max - ch.servo_min, pmax - pmin
        ratio = (param_span / model_span - 1) * 100
        add(
            f"model range {format_value(ch.servo_min)}–{format_value(ch.servo_max)} vs "
            f"{names[0]} {format_value(pmin)}–{format_value(pmax)}{min_note or max_note} "
            f"({abs(ratio):.0f}% {'less' if ratio < 0 else 'more'} PWM span: every command "
            "maps to a different thrust)",
            f"<servo_min>{format_value(pmin)}</servo_min> "
            f"<servo_max>{format_value(pmax)}</servo_max> <offset>{offset}</offset>",
        )
    # A motor has no neutral: below servo_min the model's command clamps to zero.
    if not motor and not same_value(trim, ch.neutral_pwm):
        add(
            f"model neutral {format_value(ch.neutral_pwm)} vs {names[1]} "
            f"{format_value(trim)}{trim_note}: a standing command of "
            f"{format_value(round(ch.command(trim), 6))} at zero throttle",
            f"<offset>{offset}</offset>",
        )


def _reversal_findings(
    add: Callable[..., None], ch: Channel, n: int, params: dict[str, float]
) -> None:
    """Without geometry: reversal can only be the multiplier's sign against SERVOn_REVERSED."""
    rev = params.get(f"SERVO{n}_REVERSED", 0.0)
    if (rev >= 0.5) != ch.reversed and rev >= 0.5:
        add(
            f"net direction is backwards: SERVO{n}_REVERSED {format_value(rev)} × multiplier "
            f"{format_value(ch.multiplier)}",
            f"<multiplier>{format_value(-ch.multiplier)}</multiplier>",
        )
    elif (rev >= 0.5) != ch.reversed:
        add(
            f"net direction is backwards: multiplier {format_value(ch.multiplier)} reverses "
            f"the joint while SERVO{n}_REVERSED is 0",
            f"<multiplier>{format_value(-ch.multiplier)}</multiplier>",
        )
