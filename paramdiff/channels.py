"""Does a Gazebo model's ArduPilotPlugin agree with a parameter set, channel by channel?"""

from __future__ import annotations

from dataclasses import dataclass

from .formats import format_value, same_value
from .metadata import Metadata
from .sdf import Channel


@dataclass(frozen=True)
class Finding:
    channel: int
    output: int
    joint: str
    what: str

    def __str__(self) -> str:
        return f"channel {self.channel} ({self.joint}, SERVO{self.output}): {self.what}"


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
    for ch in channels:
        n = ch.output

        def add(what: str, ch: Channel = ch) -> None:
            out.append(Finding(ch.channel, ch.output, ch.joint, what))

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
            add(
                f"drives {ch.joint}, which is {_label(metadata, f'SERVO{n}_FUNCTION', role)}, "
                f"but SERVO{n}_FUNCTION is {_label(metadata, f'SERVO{n}_FUNCTION', func)}"
            )
        pmin, pmax = params.get(f"SERVO{n}_MIN"), params.get(f"SERVO{n}_MAX")
        if pmin is None or pmax is None:
            add(
                f"SERVO{n}_MIN/MAX are not set; the model expects "
                f"{format_value(ch.servo_min)}–{format_value(ch.servo_max)}"
            )
        elif not (same_value(pmin, ch.servo_min) and same_value(pmax, ch.servo_max)):
            model_span, param_span = ch.servo_max - ch.servo_min, pmax - pmin
            ratio = (param_span / model_span - 1) * 100
            add(
                f"model range {format_value(ch.servo_min)}–{format_value(ch.servo_max)} vs "
                f"SERVO{n}_MIN/MAX {format_value(pmin)}–{format_value(pmax)} "
                f"({abs(ratio):.0f}% {'less' if ratio < 0 else 'more'} PWM span: every command "
                "maps to a different thrust)"
            )
        trim = params.get(f"SERVO{n}_TRIM")
        if trim is None:
            add(f"SERVO{n}_TRIM is not set; the model's neutral is {format_value(ch.neutral_pwm)}")
        elif not same_value(trim, ch.neutral_pwm):
            add(
                f"model neutral {format_value(ch.neutral_pwm)} vs SERVO{n}_TRIM "
                f"{format_value(trim)}: a standing command of "
                f"{format_value(round(ch.command(trim), 6))} at zero throttle"
            )
        rev = params.get(f"SERVO{n}_REVERSED", 0.0)
        if (rev >= 0.5) != ch.reversed and rev >= 0.5:
            add(
                f"net direction is backwards: SERVO{n}_REVERSED {format_value(rev)} × multiplier "
                f"{format_value(ch.multiplier)}"
            )
        elif (rev >= 0.5) != ch.reversed:
            add(
                f"net direction is backwards: multiplier {format_value(ch.multiplier)} reverses "
                f"the joint while SERVO{n}_REVERSED is 0"
            )
    return out
