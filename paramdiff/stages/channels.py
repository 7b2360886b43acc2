"""Does a Gazebo model's ArduPilotPlugin agree with a parameter set, channel by channel?"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.metadata import Metadata
from ..model.values import format_value, same_value
from ..parse.sdf import Channel


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


def channel_findings(
    channels: list[Channel],
    params: dict[str, float],
    joint_roles: dict[str, int],
    metadata: Metadata | None = None,
) -> list[Finding]:
    """Every way in which the parameters would drive this model differently from intended."""
    out: list[Finding] = []
    joint_of = {func: joint for joint, func in joint_roles.items()}
    for ch in channels:
        n = ch.output

        def add(what: str, fix: str = "", ch: Channel = ch) -> None:
            out.append(Finding(ch.channel, ch.output, ch.joint, what, fix))

        func = params.get(f"SERVO{n}_FUNCTION")
        role = joint_roles.get(ch.joint)
        if role is None:
            add(f"joint {ch.joint} has no entry in joint_roles, so its function cannot be checked")
        elif func is None:
            add(
                f"drives {ch.joint} ({_label(metadata, f'SERVO{n}_FUNCTION', role)}) but the "
                f"parameters do not set SERVO{n}_FUNCTION"
            )
        elif not same_value(func, role):
            want = joint_of.get(int(func))
            add(
                f"drives {ch.joint}, which is {_label(metadata, f'SERVO{n}_FUNCTION', role)}, "
                f"but SERVO{n}_FUNCTION is {_label(metadata, f'SERVO{n}_FUNCTION', func)}",
                f"<jointName>{want}</jointName>" if want else "",
            )
        (pmin, min_note), (pmax, max_note) = _servo(params, n, "MIN"), _servo(params, n, "MAX")
        trim, trim_note = _servo(params, n, "TRIM")
        # The offset that puts the model's zero command at the parameters' trim.
        offset = format_value(round(-(trim - pmin) / (pmax - pmin), 6)) if pmax > pmin else "?"
        if not (same_value(pmin, ch.servo_min) and same_value(pmax, ch.servo_max)):
            model_span, param_span = ch.servo_max - ch.servo_min, pmax - pmin
            ratio = (param_span / model_span - 1) * 100
            add(
                f"model range {format_value(ch.servo_min)}–{format_value(ch.servo_max)} vs "
                f"SERVO{n}_MIN/MAX {format_value(pmin)}–{format_value(pmax)}{min_note or max_note} "
                f"({abs(ratio):.0f}% {'less' if ratio < 0 else 'more'} PWM span: every command "
                "maps to a different thrust)",
                f"<servo_min>{format_value(pmin)}</servo_min> "
                f"<servo_max>{format_value(pmax)}</servo_max> <offset>{offset}</offset>",
            )
        if not same_value(trim, ch.neutral_pwm):
            add(
                f"model neutral {format_value(ch.neutral_pwm)} vs SERVO{n}_TRIM "
                f"{format_value(trim)}{trim_note}: a standing command of "
                f"{format_value(round(ch.command(trim), 6))} at zero throttle",
                f"<offset>{offset}</offset>",
            )
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
    return out
