"""The pilot-input test: each stick through the mixer and the physics to the body's motion.

A function of values: effective parameters and a backend response (output PWMs → force and
torque in ArduPilot's FRD body frame) in, one row per pilot axis out. Each axis is moved by
half its range from the neutral (hover for a copter) and the change of the wrench is read on
the axis the pilot asked for: the same sign is right, the other sign reversed, none dead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from paramdiff.model.values import format_value
from paramdiff.simulation import mixer
from paramdiff.simulation.physics import Wrench

STEP = 0.5
HOVER = 0.5  # a copter's throttle for the roll/pitch/yaw tests
EPS = 1e-6
OK, REVERSED, DEAD = "ok", "REVERSED", "DEAD"
# A climb the firmware's takeoff check holds (paramdiff/simulation/capabilities.py says why).
BLOCKED = "will not take off"
# An axis the frame's mixer has no factor for (a Sub's vectored frame: pitch): a note, not a
# failure; the same axis dead on a frame that does command it stays DEAD.
UNCONTROLLED = "not controlled by this frame"


class Axis(NamedTuple):
    name: str  # "steering"
    demand: str  # "steer right"
    want: str  # what the body does when it obeys
    opposite: str  # what it does when the axis is reversed
    component: int  # index into the wrench: Fx Fy Fz Tx Ty Tz
    sign: float  # +1, or -1 when the wanted motion is along -component (climb: -Fz)
    key: str = ""  # the mixer's input name, when it is not ``name``


CW, CCW = "clockwise seen from above", "counter-clockwise seen from above"
AXES: dict[str, tuple[Axis, ...]] = {
    "Rover": (
        Axis("throttle", "throttle forward", "moves forward", "moves backward", 0, 1),
        Axis("steering", "steer right", f"turns right ({CW})", f"turns left ({CCW})", 5, 1),
    ),
    "ArduCopter": (
        Axis("roll", "roll right", "rolls right (right side down)", "rolls left", 3, 1),
        Axis("pitch", "pitch up", "pitches nose up", "pitches nose down", 4, 1),
        Axis("yaw", "yaw right", f"yaws right ({CW})", f"yaws left ({CCW})", 5, 1),
        Axis("climb", "climb", "climbs", "descends", 2, -1),
    ),
    "ArduSub": (
        Axis("forward", "forward", "moves forward", "moves backward", 0, 1),
        Axis("lateral", "move right", "moves right", "moves left", 1, 1),
        Axis("vertical", "ascend", "rises", "sinks", 2, -1, "throttle"),
        Axis("roll", "roll right", "rolls right (right side down)", "rolls left", 3, 1),
        Axis("pitch", "pitch up", "pitches nose up", "pitches nose down", 4, 1),
        Axis("yaw", "yaw right", f"yaws right ({CW})", f"yaws left ({CCW})", 5, 1),
    ),
}
COMPONENTS = ("force x", "force y", "force z", "roll torque", "pitch torque", "yaw torque")


class Row(NamedTuple):
    """One pilot axis followed end to end."""

    axis: Axis
    outputs: str  # "SERVO1 1500→1700 (ThrottleRight), ..."
    response: float  # the wrench change along the wanted motion (sign is the verdict)
    verdict: str  # OK, REVERSED or DEAD
    result: str  # what the body does

    @property
    def failed(self) -> bool:
        return self.verdict in (REVERSED, DEAD, BLOCKED)

    @property
    def note(self) -> str:
        """What the launch notes of an axis its frame does not command (empty otherwise)."""
        if self.verdict != UNCONTROLLED:
            return ""
        return f"{self.axis.name} {UNCONTROLLED}: {self.axis.demand} → {self.result}"

    @property
    def finding(self) -> str:
        """The failure as check and the acknowledgements word it (empty when it passes)."""
        if not self.failed:
            return ""
        if self.verdict == BLOCKED:
            return f"{self.axis.name}: {BLOCKED}: {self.result}"
        word = "reversed" if self.verdict == REVERSED else "dead"
        return f"{self.axis.name} {word}: {self.axis.demand} → {self.result}"


def mix(vehicle: str, params: dict[str, float], axis: Axis | None) -> mixer.Mix:
    """The mixer's outputs for ``axis`` moved by STEP (None: every stick neutral)."""
    amount = STEP if axis is not None else 0.0
    name = axis.key or axis.name if axis is not None else ""
    if vehicle == "Rover":
        return mixer.ugv(
            params, amount if name == "throttle" else 0.0, amount if name == "steering" else 0.0
        )
    if vehicle == "ArduCopter":
        return mixer.matrix(
            params,
            amount if name == "roll" else 0.0,
            amount if name == "pitch" else 0.0,
            amount if name == "yaw" else 0.0,
            HOVER + (amount if name == "climb" else 0.0),
        )
    return mixer.six_dof(params, {name: amount} if name else {})


def pilot_test(
    vehicle: str, params: dict[str, float], response: Callable[[dict[int, float]], Wrench]
) -> list[Row]:
    """One row per pilot axis of ``vehicle``: the outputs it moves and what the body does."""
    base = mix(vehicle, params, None)
    still = response(base.pwm)
    rows = []
    for axis in AXES[vehicle]:
        moved = mix(vehicle, params, axis)
        w = response(moved.pwm)
        change = [a - b for a, b in zip(w, still, strict=True)]
        value = axis.sign * change[axis.component]
        if abs(value) <= EPS and not mixer.commands(vehicle, params, axis.key or axis.name):
            verdict = UNCONTROLLED
            result = f"no {COMPONENTS[axis.component]}: the frame's mixer has no {axis.name} factor"
        elif abs(value) <= EPS:
            verdict, result = DEAD, f"no {COMPONENTS[axis.component]}: it does not move"
        elif value > 0:
            verdict, result = OK, axis.want
        else:
            verdict, result = REVERSED, axis.opposite
        outs = ", ".join(
            f"SERVO{n} {format_value(round(base.pwm.get(n, 0.0)))}→"
            f"{format_value(round(p))} ({moved.driven.get(n, '?')})"
            for n, p in sorted(moved.pwm.items())
            if abs(p - base.pwm.get(n, p)) > 0.5
        )
        rows.append(Row(axis, outs or "none (the mixer drives no output)", value, verdict, result))
    return rows


def hold_takeoff(rows: list[Row], why: str) -> list[Row]:
    """The rows with the climb a takeoff check holds marked so (unchanged when ``why`` is
    empty): the mixer may climb, the firmware never lets it."""
    if not why:
        return rows
    return [r._replace(verdict=BLOCKED, result=why) if r.axis.name == "climb" else r for r in rows]
