"""Which physics a SITL ``--model`` string runs, and the built-in ones as models.

The model table and each built-in model are data (paramdiff/data/physics/*.json), each with
the ArduPilot file and commit it was read from. A built-in model maps output PWMs to a
wrench about the body: force (x forward, y right, z down: ArduPilot's FRD body frame) and
torque (roll right, pitch up, yaw right = clockwise seen from above are positive).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from paramdiff.errors import UsageError

DATA = Path(__file__).resolve().parent.parent / "data" / "physics"
BUILT_IN_FILES = {
    "SimRover": "rover.json",
    "MotorBoat": "motorboat.json",
    "Submarine": "submarine.json",
    "MultiCopter": "multicopter.json",
}
JSON, GAZEBO_LEGACY, BUILT_IN = "JSON", "legacy Gazebo", "built-in"

Wrench = tuple[float, float, float, float, float, float]  # Fx, Fy, Fz, Tx, Ty, Tz (FRD)


@cache
def _load(name: str) -> dict[str, Any]:
    return dict(json.loads((DATA / name).read_text("utf-8")))


def cite(data: dict[str, Any]) -> str:
    src = data["_source"]
    return f"{src['repo']} {src['file']}@{src['commit'][:12]}"


@dataclass(frozen=True, slots=True)
class Backend:
    """The physics one launch runs."""

    kind: str  # JSON, GAZEBO_LEGACY or BUILT_IN
    model: str  # the --model string
    constructor: str  # SITL's class: JSON, Gazebo, SimRover, Submarine, ...
    name: str = ""  # built-in: which variant, e.g. "SIM_Rover skid steering"
    data: dict[str, Any] = field(default_factory=dict)  # built-in: the variant's data
    source: str = ""  # where it was read: file@commit

    @property
    def outputs(self) -> dict[int, tuple[str, int | None]]:
        """Output number → (what the model reads it as, the SERVOn_FUNCTION that is)."""
        kind = self.data.get("kind")
        if kind in ("skid", "ackermann", "boat"):
            return {int(k): (v["role"], v["function"]) for k, v in self.data["outputs"].items()}
        if kind == "thrusters":
            return {t["output"]: (f"thruster {t['output']}", 32 + t["output"])
                    for t in self.data["thrusters"]}  # fmt: skip
        if kind == "multicopter":
            return {m["output"]: (f"motor {m['output']}", 32 + m["output"])
                    for m in self.data["motors"]}  # fmt: skip
        return {}


def resolve(model: str) -> Backend:
    """SITL_cmdline.cpp: the first model_constructors entry that prefixes ``model``
    (case-insensitive), constructed with the whole string."""
    table = _load("models.json")
    where = cite(table)
    constructor = ""
    for name, cls in table["constructors"]:
        if model.lower().startswith(name.lower()):
            constructor = cls
            break
    if not constructor:
        raise UsageError(
            f'--model {model}: SITL has no such model ({where}) and exits "Vehicle model not '
            'found"',
            "use --model JSON for Gazebo, or a built-in model (rover-skid, motorboat, vectored, "
            "vectored_6dof, quad, X)",
        )
    if constructor == "JSON":
        return Backend(JSON, model, constructor, "Gazebo ArduPilotPlugin (JSON)", source=where)
    if constructor == "Gazebo":
        return Backend(GAZEBO_LEGACY, model, constructor, "SIM_Gazebo (legacy)", source=where)
    if constructor not in BUILT_IN_FILES:
        raise UsageError(
            f"--model {model} runs SITL's {constructor} physics, which paramdiff has no model of",
            f"use one of: {', '.join(BUILT_IN_FILES)} (see paramdiff/data/physics/)",
        )
    data = _load(BUILT_IN_FILES[constructor])
    variant = _variant(constructor, model, data["variants"])
    return Backend(BUILT_IN, model, constructor, variant["name"], variant, cite(data))


def _variant(constructor: str, model: str, variants: dict[str, Any]) -> dict[str, Any]:
    """SimRover/Submarine look for a word anywhere in the string (strstr); SIM_Frame takes the
    first frame name that prefixes it (Frame::find_frame, case-insensitive)."""
    low = model.lower()
    for v in variants.values():
        hit = low.startswith(v["match"]) if constructor == "MultiCopter" else v["match"] in low
        if hit:
            return dict(variants[v["same_as"]]) if "same_as" in v else dict(v)
    raise UsageError(
        f"--model {model}: paramdiff encodes only {', '.join(variants)} of SITL's {constructor}",
        "use one of those frames, or add the frame to paramdiff/data/physics/",
    )


def _unit(pwm: float) -> float:
    """2*((pwm-1000)/1000 - 0.5): SIM_Rover and SIM_Sailboat's -1..1 from a PWM."""
    return 2 * ((pwm - 1000) / 1000 - 0.5)


def _sub_thrust(pwm: float) -> float:
    out = 0.0
    if 1000 < pwm < 2000 and (pwm < 1475 or pwm > 1525):
        out = (pwm - 1500) / 400.0
    return out * abs(out)


def wrench(backend: Backend, pwm: dict[int, float]) -> Wrench:
    """The built-in model's force and torque for these output PWMs (outputs not given sit
    at 1500, SITL's idle for a missing PWM on Rover and Sub; 1000 for a copter motor)."""
    d = backend.data
    kind = d["kind"]

    def at(n: int, idle: float = 1500.0) -> float:
        return pwm.get(n, idle)

    if kind == "skid":
        m1, m2 = _unit(at(1)), _unit(at(3))
        return (0.5 * (m1 + m2), 0, 0, 0, 0, m1 - m2)
    if kind == "ackermann":
        return (_unit(at(3)), 0, 0, 0, 0, _unit(at(1)))
    if kind == "boat":
        return ((min(max(at(3), 1000), 2000) - 1500) * 0.1, 0, 0, 0, 0, _unit(at(1)))
    total = [0.0] * 6
    if kind == "thrusters":
        for t in d["thrusters"]:
            f = _sub_thrust(at(t["output"]))
            vec = (t["forward"], t["lateral"], -t["throttle"], t["roll"], t["pitch"], t["yaw"])
            for i in range(6):
                total[i] += vec[i] * f
    elif kind == "multicopter":
        for m in d["motors"]:
            c = min(max((at(m["output"], 1000.0) - 1100) / 800, 0.0), 1.0)
            a = math.radians(m["angle"])
            x, y = math.cos(a), math.sin(a)
            # thrust (0, 0, -c) at (x, y, 0): torque r × F = (-y c, x c, 0), plus the rotor's
            total = [t + v for t, v in zip(total, (0, 0, -c, -y * c, x * c, m["yaw"] * c * 0.1),
                                           strict=True)]  # fmt: skip
    return (total[0], total[1], total[2], total[3], total[4], total[5])
