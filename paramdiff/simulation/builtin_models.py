"""A built-in SITL model checked like a Gazebo model: each output it reads against the role the
parameters give that output, the outputs the parameters drive that it does not read, and the
frame parameters against the frame it simulates."""

from __future__ import annotations

from collections.abc import Callable

from paramdiff.model.values import format_value
from paramdiff.parse.launch import SIM_VEHICLE, Launch
from paramdiff.simulation.geometry import output_functions
from paramdiff.simulation.mixer import FRAME_DEFAULTS, SUB_FRAMES, frame_motors
from paramdiff.simulation.physics import Backend, Wrench, wrench

FUNCTION_NAMES = {0: "Disabled", 26: "GroundSteering", 70: "Throttle", 73: "ThrottleLeft",
                  74: "ThrottleRight", **{32 + n: f"Motor{n}" for n in range(1, 13)}}  # fmt: skip


def name(function: float) -> str:
    f = int(function)
    known = FUNCTION_NAMES.get(f)
    return f"{known} ({format_value(function)})" if known else f"function {format_value(function)}"


def response(backend: Backend) -> Callable[[dict[int, float]], Wrench]:
    return lambda pwm: wrench(backend, pwm)


def _skid_pair(funcs: dict[int, float]) -> bool:
    return any(f in (73, 74) for f in funcs.values())


def check(
    backend: Backend, vehicle: str, params: dict[str, float], launch: Launch | None = None
) -> list[tuple[str, str]]:
    """(finding, fix) for every way the parameters drive this built-in model differently
    from what it simulates."""
    out: list[tuple[str, str]] = []
    out += _frame(backend, vehicle, params, launch)
    funcs, _ = output_functions(params, vehicle, frame_motors(vehicle, params))
    reads = backend.outputs
    kind = backend.data["kind"]
    if kind in ("ackermann", "boat") and _skid_pair(funcs):
        out.append(
            (
                f"the parameters are skid steering (ThrottleLeft/ThrottleRight), but "
                f"{backend.name} steers with output 1 and drives with output 3",
                "run the skid-steering physics (-f rover-skid, or --model JSON with the Gazebo "
                "model)",
            )
        )
        return out
    for n, (role, want) in sorted(reads.items()):
        have = funcs.get(n, 0.0)
        if want is not None and have != want:
            out.append(
                (
                    f"output {n}: {backend.name} reads it as {role}, which is "
                    f"SERVO{n}_FUNCTION {name(want)}, but SERVO{n}_FUNCTION is {name(have)}",
                    f"SERVO{n}_FUNCTION {want} (a delta in the overlay), or run a model whose "
                    f"output {n} is {name(have)}",
                )
            )
    roles = {want for _, want in reads.values()}
    for n, f in sorted(funcs.items()):
        if n not in reads and f and (f in roles or f in FUNCTION_NAMES) and f not in (26, 70):
            out.append(
                (
                    f"output {n} ({name(f)}) drives nothing in {backend.name}, which reads "
                    f"outputs {', '.join(map(str, sorted(reads)))}",
                    "run the physics for this frame (see the launch's -f / --model)",
                )
            )
    return out


# SIM_Frame's quad frames by (FRAME_CLASS, FRAME_TYPE) (paramdiff/data/physics/multicopter.json)
QUAD_FRAMES = {(1.0, 0.0): "+", (1.0, 1.0): "X"}


def _copter_frame_fix(pair: tuple[float, float], launch: Launch | None) -> str:
    """The launch flag that runs the parameters' frame (from the parameters, not a list)."""
    frame = QUAD_FRAMES.get(pair)
    sim_vehicle = launch is None or launch.form == SIM_VEHICLE
    flag = "-f" if sim_vehicle else "--model"
    want = f"FRAME_CLASS {format_value(pair[0])}, FRAME_TYPE {format_value(pair[1])}"
    if frame is None:
        return f"run a physics that simulates {want} (paramdiff models quad + and X only)"
    fix = f"{flag} {frame} (SIM_Frame quad {frame} simulates {want})"
    if launch is None:
        return fix
    current = launch.frame.frame if sim_vehicle and launch.frame else launch.model
    return f"{fix} in place of {flag} {current}"


def _frame(
    backend: Backend, vehicle: str, params: dict[str, float], launch: Launch | None = None
) -> list[tuple[str, str]]:
    """FRAME_CONFIG (Sub) or FRAME_CLASS/FRAME_TYPE (Copter) against the simulated frame."""
    d = backend.data
    p = {**FRAME_DEFAULTS.get(vehicle, {}), **params}
    if vehicle == "ArduSub" and "frame_config" in d:
        have = p["FRAME_CONFIG"]
        if have != d["frame_config"]:
            frame = SUB_FRAMES.get(int(have))
            simulated = len(d["thrusters"])
            if frame is None:
                return [(f"FRAME_CONFIG {format_value(have)} is not modelled", "use 1 or 2")]
            motors = len(frame[1])
            article = "an" if motors == 8 else "a"
            return [
                (
                    f"FRAME_CONFIG {format_value(have)} ({frame[0]}, {motors} motors), but "
                    f"{backend.name} simulates {simulated}: {simulated} simulated thrusters "
                    f"for {article} {motors}-motor frame",
                    f"run the matching physics: sim_vehicle.py -v ArduSub -f {frame[0]}",
                )
            ]
    if vehicle == "ArduCopter" and "frame_class" in d:
        pair = (p["FRAME_CLASS"], p["FRAME_TYPE"])
        want = (d["frame_class"], d["frame_type"])
        if pair != want:
            return [
                (
                    f"FRAME_CLASS {format_value(pair[0])}, FRAME_TYPE {format_value(pair[1])}, "
                    f"but {backend.name} simulates FRAME_CLASS {want[0]}, FRAME_TYPE {want[1]}",
                    _copter_frame_fix(pair, launch),
                )
            ]
    return []


def axis_fix(backend: Backend, launch: Launch) -> str:
    """Where a reversed or dead axis of a built-in model is fixed."""
    how = "-f/--model" if launch.form == SIM_VEHICLE else "--model"
    return (
        f"make the output functions match {backend.name} ({backend.source}) with deltas in the "
        f"overlay, or change the launch's {how} to the physics the parameters are for (e.g. "
        "--model JSON with the vehicle's Gazebo model)"
    )
