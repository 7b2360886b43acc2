"""The report's "Actuator fidelity" section, and the disagreement table's consequences that
follow from it (MOT_THST_ASYM, MOT_SLEWRATE, SERVO_RATE)."""

from __future__ import annotations

from collections.abc import Iterator

from paramdiff.model.values import format_value
from paramdiff.render.texttable import markdown_table
from paramdiff.simulation.actuator_fidelity import RATIO_TOLERANCE, ActuatorRow, Fidelity


def _amount(value: float | None, unit: str) -> str:
    return "—" if value is None else f"{value + 0.0:.1f} {unit}"  # + 0.0: no "-0.0"


def _pwm(value: float | None) -> str:
    return "" if value is None else f" at {format_value(value)}"


def _cells(row: ActuatorRow, acknowledged: set[str]) -> list[str]:
    if row.finding is None:
        judged = row.expected_ratio is not None or row.firmware.startswith("rotor stopped")
        verdict = "agrees" if judged else ""
    elif row.finding.id in acknowledged:
        verdict = f"acknowledged: {row.finding.consequence}"
    else:
        verdict = f"**{row.finding.consequence}**"
    return [
        f"SERVO{row.output}",
        f"`{row.joint}`",
        row.physics,
        _amount(row.forward, row.unit) + _pwm(row.forward_pwm),
        _amount(row.reverse, row.unit) + _pwm(row.reverse_pwm),
        "; ".join(row.limits) or (f"none bind: {row.clamps}" if row.clamps else "—"),
        "—" if row.ratio is None else f"{row.ratio:.2f}",
        row.neutral,
        row.firmware,
        verdict,
    ]


def actuator_section(
    fid: Fidelity | None, model: str, acknowledged: set[str] | None = None
) -> Iterator[str]:
    """A row per actuator: forward and reverse limits, ratio, neutral band, what the firmware
    assumes and the verdict; then how slew, servo rate and loop rate behave in SITL."""
    yield "## Actuator fidelity"
    yield ""
    if fid is None:
        yield "No Gazebo model to read actuators from."
        yield ""
        return
    yield (
        f"Each output of {model} as the physics sees it: the command the ArduPilotPlugin "
        "gives at the firmware's full forward and full reverse output (PWM), through the gz-sim "
        "Thruster its `cmd_topic` reaches (clamps and deadband applied), against what the "
        f"firmware's mixer assumes. A ratio more than {RATIO_TOLERANCE:.0%} off is a finding "
        "`check` fails on unless the overlay acknowledges it."
    )
    yield ""
    rows = [_cells(r, acknowledged or set()) for r in fid.rows]
    yield from markdown_table(
        [
            "output",
            "joint",
            "physics",
            "full forward",
            "full reverse",
            "limits",
            "ratio",
            "neutral (PWM)",
            "firmware assumes",
            "verdict",
        ],
        rows,
        empty="No control channels.",
    )
    yield ""
    for note in fid.notes:
        yield f"- {note}"
    if fid.notes:
        yield ""


def actuator_consequence(name: str, fid: Fidelity | None, noun: str) -> str | None:
    """The disagreement table's consequence for a parameter the actuator numbers explain, or
    None when they do not (the caller's own sentence then)."""
    if fid is None:
        return None
    if name == "MOT_THST_ASYM":
        rows = [r for r in fid.rows if r.ratio is not None and r.expected_ratio is not None]
        if not rows:
            return "forward/reverse thrust asymmetry; the model's thrust ratio is not known"
        ratios = sorted({f"{r.ratio:.2f}" for r in rows})
        found = next((r.finding for r in rows if r.finding is not None), None)
        said = f"the model's forward/reverse thrust is {', '.join(ratios)}"
        return f"{said}: {found.consequence}" if found else f"{said}: the values agree with it"
    if name == "MOT_SLEWRATE":
        return (
            "throttle slew-rate limit, applied by the firmware (in SITL too); the model's "
            "thrusters add no lag of their own"
        )
    if name == "SERVO_RATE":
        return "output frame rate of the real board; no effect in SITL"
    return None
