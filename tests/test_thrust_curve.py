"""What a thrust curve says (bollard thrust, ratio, deadband, MOT_THST_EXPO fit) and the
calibration findings against the derived parameters."""

from __future__ import annotations

from pathlib import Path

import pytest

from paramdiff.errors import InputError
from paramdiff.parse.thrust_table import ThrustCurve, parse_thrust_table
from paramdiff.simulation.thrust_curve import calibration_findings, fit_expo, summarize, thrust_at

T200 = (
    "raw/MateusPedrosa/BlueROV_practical/9970d288997c1a806b29dd4d9a296d82dcd89d32/"
    "T200-Public-Performance-Data-10-20V-September-2019.xlsx"
)


def quadratic_curve(expo: float, forward: float, reverse: float) -> ThrustCurve:
    """thrust = (1 - a)·x + a·x² each way from 1500 µs, x the throttle 0..1 of 400 µs."""
    pwm = [1100.0 + 10 * i for i in range(81)]
    thrust = []
    for p in pwm:
        x = abs(p - 1500) / 400
        share = (1 - expo) * x + expo * x * x
        thrust.append(share * (forward if p >= 1500 else reverse))
    return ThrustCurve("c.csv", 16, tuple(pwm), tuple(thrust), "c.csv")


def test_fit_recovers_the_expo_a_curve_was_made_with() -> None:
    summary = summarize(quadratic_curve(0.4, 50, -40))
    assert summary.expo == pytest.approx(0.4, abs=1e-6)
    assert (summary.forward_n, summary.reverse_n) == (50, -40)
    assert summary.ratio == pytest.approx(1.25)
    assert summary.deadband == (1500, 1500)


def test_fit_is_clamped_to_mot_thst_expo_range() -> None:
    assert fit_expo([0, 0.5, 1], [0, 0.9, 1]) == 0.0  # concave: no expo helps
    assert fit_expo([0, 0.5, 1], [0, 0.5, 1]) == 0.0


def test_thrust_at_interpolates_and_holds_the_ends() -> None:
    curve = ThrustCurve("c", 16, (1100, 1500, 1900), (-40, 0, 50), "c")
    assert thrust_at(curve, 1700) == 25
    assert thrust_at(curve, 1000) == -40
    assert thrust_at(curve, 2000) == 50


def test_findings_name_asym_expo_and_servo_range() -> None:
    summary = summarize(quadratic_curve(0.5, 50, -40))
    params = {"MOT_THST_ASYM": 1.6, "MOT_THST_EXPO": 0, "SERVO1_MIN": 1000, "SERVO1_MAX": 1900}
    found = calibration_findings(summary, params, [1])
    assert any("MOT_THST_ASYM 1.6" in f and "1.25" in f and "calibration" in f for f in found)
    assert any(f.startswith("MOT_THST_EXPO 0;") and "0.50" in f for f in found)
    assert any(f.startswith("SERVO1_MIN 1000") for f in found)
    assert not any(f.startswith("SERVO1_MAX") for f in found)
    agreeing = {"MOT_THST_ASYM": 1.25, "MOT_THST_EXPO": 0.5, "SERVO1_MIN": 1100}
    assert calibration_findings(summary, agreeing, [1]) == []


def test_the_t200_at_16_v(upstream: Path) -> None:
    summary = summarize(parse_thrust_table((upstream / T200).read_bytes(), "t200.xlsx", 16))
    assert summary.forward_n == pytest.approx(51.44, abs=0.01)
    assert summary.reverse_n == pytest.approx(-39.91, abs=0.01)
    assert summary.ratio == pytest.approx(1.29, abs=0.01)
    assert summary.deadband == (1472, 1528)
    assert summary.expo == pytest.approx(0.59, abs=0.01)


@pytest.mark.parametrize(
    "table",
    [
        b"pwm_us,thrust_n\n1100,-40\n1900,51\n",  # two points: no zero-thrust width between
        b"pwm_us,thrust_n\n1100,1\n1500,2\n1900,3\n",  # no reverse thrust
    ],
)
def test_a_curve_without_a_dead_band_between_reverse_and_forward_is_refused(table: bytes) -> None:
    """A bench table a bidirectional summary cannot be made of is one Error (it was a
    ZeroDivisionError, exit 3, in derive and check: #30 review)."""
    with pytest.raises(InputError) as caught:
        summarize(parse_thrust_table(table, "bench.csv", 16))
    assert "no reverse thrust below a zero-thrust width" in caught.value.what
    assert caught.value.file == "bench.csv"
