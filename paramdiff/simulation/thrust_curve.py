"""What a thruster's measured curve says at the profile's voltage, and how the derived
parameters compare with it. Pure functions of a ``ThrustCurve`` and parameter values.

The roadmap's rule: the limits come from the data; MOT_THST_ASYM is a check afterwards, and a
disagreement is a finding about the vehicle's calibration (a warning, never a failure).
"""

from __future__ import annotations

from itertools import pairwise
from typing import NamedTuple

from paramdiff.errors import InputError
from paramdiff.parse.thrust_table import ThrustCurve

# Thrust under this share of the larger bollard thrust counts as none: the T200's ESC has a
# deadband of a few dozen µs around 1500 in which the table reads 0 kgf.
ZERO_SHARE = 0.001
# Findings only for disagreements a person would act on.
ASYM_TOLERANCE = 0.1  # of the ratio
EXPO_TOLERANCE = 0.1  # of MOT_THST_EXPO's 0..1 range
PWM_TOLERANCE = 10.0  # µs


class ThrustSummary(NamedTuple):
    """The curve's numbers a model and a parameter file are set from."""

    voltage: float
    how: str
    forward_n: float  # bollard thrust at the top of the table
    reverse_n: float  # at the bottom (negative)
    ratio: float  # forward / |reverse|: what MOT_THST_ASYM states
    deadband: tuple[float, float]  # the PWM widths between which the thrust is zero
    pwm_range: tuple[float, float]
    expo: float  # the MOT_THST_EXPO that best fits both directions
    expo_forward: float
    expo_reverse: float

    @property
    def neutral(self) -> float:
        return (self.deadband[0] + self.deadband[1]) / 2

    @property
    def deadband_half(self) -> float:
        return (self.deadband[1] - self.deadband[0]) / 2


def summarize(curve: ThrustCurve) -> ThrustSummary:
    pwm, thrust = curve.pwm_us, curve.thrust_n
    forward, reverse = max(thrust), min(thrust)
    low, high = _deadband(pwm, thrust, ZERO_SHARE * max(forward, -reverse))
    # ArduPilot's throttle 0..1 spans SERVOn_TRIM..MAX (and TRIM..MIN in reverse), so the
    # throttle axis starts at the middle of the deadband, not at its edge: the deadband is
    # part of the curve MOT_THST_EXPO has to straighten.
    mid = (low + high) / 2
    if not pwm[0] < mid < pwm[-1] or reverse >= 0 or forward <= 0:
        # the summary is a bidirectional thruster's: reverse below the dead band, forward above
        raise InputError(
            f"{curve.how}: no reverse thrust below a zero-thrust width and forward thrust above "
            f"it ({len(pwm)} measurements, {reverse:g} to {forward:g} N)",
            "measure the thruster across its range: reverse at the lowest width, zero at the "
            "neutral width, forward at the highest (at least three rows)",
            file=curve.file,
            line=1,
        )
    fwd = [
        ((p - mid) / (pwm[-1] - mid), t / forward)
        for p, t in zip(pwm, thrust, strict=True)
        if p >= mid
    ]
    rev = [
        ((mid - p) / (mid - pwm[0]), t / reverse)
        for p, t in zip(pwm, thrust, strict=True)
        if p <= mid
    ]
    expo_f = fit_expo(*_unzip(fwd))
    expo_r = fit_expo(*_unzip(rev))
    return ThrustSummary(
        voltage=curve.voltage,
        how=curve.how,
        forward_n=forward,
        reverse_n=reverse,
        ratio=forward / -reverse if reverse < 0 else float("inf"),
        deadband=(low, high),
        pwm_range=(pwm[0], pwm[-1]),
        expo=fit_expo(*_unzip(fwd + rev)),
        expo_forward=expo_f,
        expo_reverse=expo_r,
    )


def _unzip(points: list[tuple[float, float]]) -> tuple[list[float], list[float]]:
    return [x for x, _ in points], [y for _, y in points]


def _deadband(
    pwm: tuple[float, ...], thrust: tuple[float, ...], zero: float
) -> tuple[float, float]:
    """The widest run of PWM widths around the zero crossing whose thrust is within ``zero``."""
    still = [p for p, t in zip(pwm, thrust, strict=True) if abs(t) <= zero]
    if not still:  # no flat band: the crossing itself
        crossing = next(p for p, t in zip(pwm, thrust, strict=True) if t >= 0)
        return crossing, crossing
    return min(still), max(still)


def fit_expo(throttle: list[float], thrust: list[float]) -> float:
    """The least-squares ``a`` in thrust = (1 - a)·throttle + a·throttle², both normalised
    to 0..1: ArduPilot's thrust linearisation (the wiki's motor-thrust-scaling.rst fit;
    libraries/AP_Motors/AP_Motors_Thrust_Linearization.cpp inverts this curve), clamped to
    MOT_THST_EXPO's 0..1."""
    num = sum((x * x - x) * (t - x) for x, t in zip(throttle, thrust, strict=True))
    den = sum((x * x - x) ** 2 for x in throttle)
    return min(1.0, max(0.0, num / den)) if den else 0.0


def thrust_at(curve: ThrustCurve, pwm: float) -> float:
    """The curve at ``pwm`` µs, linearly between its points, held at its ends."""
    xs, ys = curve.pwm_us, curve.thrust_n
    if pwm <= xs[0]:
        return ys[0]
    for (x0, y0), (x1, y1) in pairwise(zip(xs, ys, strict=True)):
        if pwm <= x1:
            return y0 + (y1 - y0) * (pwm - x0) / (x1 - x0)
    return ys[-1]


def calibration_findings(
    summary: ThrustSummary, params: dict[str, float], outputs: list[int]
) -> list[str]:
    """Where the derived parameters disagree with the data: each a finding about the
    vehicle's calibration, stated as the roadmap does."""
    out = []
    asym = params.get("MOT_THST_ASYM", 1.0)
    if abs(asym - summary.ratio) > ASYM_TOLERANCE * summary.ratio:
        out.append(
            f"MOT_THST_ASYM {asym:g} states forward/reverse thrust {asym:g}; the thruster data "
            f"gives {summary.forward_n:.2f} / {-summary.reverse_n:.2f} N = {summary.ratio:.2f} at "
            f"{summary.voltage:g} V. The limits come from the data; MOT_THST_ASYM is a check "
            "afterwards: the disagreement is a finding about the vehicle's calibration"
        )
    expo = params.get("MOT_THST_EXPO", 0.0)
    if abs(expo - summary.expo) > EXPO_TOLERANCE:
        out.append(
            f"MOT_THST_EXPO {expo:g}; the curve's best fit is {summary.expo:.2f} (forward "
            f"{summary.expo_forward:.2f}, reverse {summary.expo_reverse:.2f}): with {expo:g} "
            "ArduPilot's throttle is not linear in thrust on this thruster"
        )
    low, high = summary.pwm_range
    for n in outputs:
        for key, want, what in (
            ("MIN", low, "the table's lowest width"),
            ("MAX", high, "the table's highest width"),
            ("TRIM", summary.neutral, "the middle of the deadband"),
        ):
            name = f"SERVO{n}_{key}"
            if name in params and abs(params[name] - want) > PWM_TOLERANCE:
                out.append(
                    f"{name} {params[name]:g} µs; the thruster data puts {what} at {want:g} µs"
                )
    return out
