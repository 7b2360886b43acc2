"""The report's model side (#27): the thruster data at the profile's voltage, what it says
against the derived parameters (findings about the vehicle's calibration), and the derived
model's channels old vs new; or, for a profile without one, exactly why none is derived."""

from __future__ import annotations

from collections.abc import Iterator

from paramdiff.derive.derived_model import DerivedModel
from paramdiff.parse.sdf import read_channels
from paramdiff.parse.sdf_thruster import read_actuation
from paramdiff.render.texttable import markdown_table
from paramdiff.simulation.thrust_curve import ThrustSummary
from paramdiff.simulation.thrusters import THROTTLE_LEFT, THROTTLE_RIGHT


def model_side_section(
    summary: ThrustSummary | None,
    model: DerivedModel | None,
    findings: list[str],
    model_path: str | None,
    params: dict[str, float],
) -> Iterator[str]:
    yield "### The model side: thruster data and the derived model"
    yield ""
    if summary is None or model is None:
        yield from _not_derived(params)
        return
    yield (
        f"Thruster data at {summary.voltage:g} V ({summary.how}): bollard thrust "
        f"**{summary.forward_n:+.2f} N** forward and **{summary.reverse_n:+.2f} N** reverse "
        f"(ratio {summary.ratio:.2f}), zero thrust from {summary.deadband[0]:g} to "
        f"{summary.deadband[1]:g} µs, PWM {summary.pwm_range[0]:g}–{summary.pwm_range[1]:g} µs; "
        f"the MOT_THST_EXPO that best fits the curve (thrust = (1 − a)·throttle + a·throttle², "
        f"throttle from the middle of the deadband, as ArduPilot's thrust linearisation uses "
        f"it) is **{summary.expo:.2f}** (forward {summary.expo_forward:.2f}, reverse "
        f"{summary.expo_reverse:.2f})."
    )
    yield ""
    yield "Against the derived parameters (each a warning about the vehicle's calibration):"
    yield ""
    for finding in findings or ["the derived parameters agree with the thruster data"]:
        yield f"- {finding}"
    yield ""
    yield (
        f"`paramdiff derive` writes `{model_path}` from {model.pinned}: each channel old → new "
        "(thrust at the outputs' full forward / full reverse PWM through the model's Thruster)."
    )
    yield ""
    yield from markdown_table(
        ["channel", "joint", "servo range", "multiplier / offset", "thrust forward / reverse"],
        _rows(model, params),
        empty="No control channels.",
    )
    yield ""


def _thrusts(data: bytes, file: str, params: dict[str, float]) -> dict[int, tuple[str, ...]]:
    """Per channel: joint, servo range, multiplier / offset, and the thrust at the outputs'
    full forward and reverse PWM (SERVOn_MAX / MIN, what the firmware sends)."""
    channels, _ = read_channels(data, file)
    actuation = read_actuation(data, file)
    out: dict[int, tuple[str, ...]] = {}
    for ch in channels:
        thruster = actuation.reached(ch.channel)
        n = ch.output
        ends = [params.get(f"SERVO{n}_MAX", 1900), params.get(f"SERVO{n}_MIN", 1100)]
        cmds = [ch.command(pwm) for pwm in ends]
        forward, reverse = (thruster.thrust(c) if thruster else c for c in cmds)
        out[ch.channel] = (
            ch.joint,
            f"{ch.servo_min:g}–{ch.servo_max:g}",
            f"{ch.multiplier:g} / {ch.offset:g}",
            f"{forward:+.1f} / {reverse:+.1f} N",
        )
    return out


def _rows(model: DerivedModel, params: dict[str, float]) -> list[list[str]]:
    new = _thrusts(model.data, "derived", params)
    old = _thrusts(model.pinned_data, "pinned", params)
    rows = []
    for channel in sorted(new):
        before = old.get(channel, ("—",) * 4)
        cells = [f"{channel} (SERVO{channel + 1})"]
        for b, a in zip(before, new[channel], strict=True):
            cells.append(a if a == b else f"{b} → **{a}**")
        rows.append(cells)
    return rows


def _not_derived(params: dict[str, float]) -> Iterator[str]:
    skid = any(
        k.startswith("SERVO") and k.endswith("_FUNCTION") and v in (THROTTLE_LEFT, THROTTLE_RIGHT)
        for k, v in params.items()
    )
    yield (
        "No model is derived for this profile: it names no thruster data (`thrusters:` in "
        "sources.yaml, a `thrust_table` role at a battery voltage), so its launches run the "
        "pinned model and the acknowledgements above stay."
    )
    if not skid:
        yield ""
        yield (
            "Thruster data alone would not be enough: `paramdiff derive` rewrites a model's "
            "channels only for skid-steer outputs (SERVOn_FUNCTION 73 ThrottleLeft / 74 "
            "ThrottleRight, placed port and starboard by the model's geometry). This vehicle's "
            "outputs are motors whose roles come from the frame's motor factors (e.g. "
            "AP_Motors6DOF's vectored 6DOF for a BlueROV2 Heavy): deriving their channels, "
            "and each thruster's direction from its factors, is not built yet."
        )
    yield ""
