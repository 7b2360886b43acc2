"""The model check: what each Gazebo control channel physically is, read from the model's
geometry, against what ArduPilot expects of that output for the vehicle's frame.

Frames and units (parse/sdf_frames.py): positions come from the SDF in the model frame
(Gazebo: x forward, y left, z up, metres); ArduPilot's motor tables are in the body frame FRD.
Every finding says which frame each number is in. The channels placed in both frames are
actuators.py's; the frame rules are rotors.py's and thrusters.py's.

Rules (each re-implemented from ArduPilot's source, cited where it is used):
- skid-steer (Rover, SERVOn_FUNCTION 73/74): ThrottleLeft drives the port thruster (+y in
  the model frame), ThrottleRight the starboard one; a positive command pushes forward.
- multicopter matrix (Copter, FRAME_CLASS/FRAME_TYPE): each motor's angle and spin from
  ``AP_MotorsMatrix::setup_quad_matrix``; positions follow from the angles.
- vectored 6DOF (Sub, FRAME_CONFIG 2): each thruster's roll/pitch/yaw/throttle/forward/lateral
  factors from ``AP_Motors6DOF::setup_motors`` against the wrench its thrust produces.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, NamedTuple

from paramdiff.model.metadata import Metadata
from paramdiff.model.values import format_value
from paramdiff.parse.sdf import Channel, read_channels
from paramdiff.parse.sdf_frames import DEFAULT_TO_FRD, Pose, to_frd_pose
from paramdiff.parse.sdf_include import ModelTree, load_model
from paramdiff.parse.sdf_paths import Resolver
from paramdiff.simulation.actuators import (
    Geometry,
    Judge,
    Label,
    View,
    motor_function,
    place,
    short,
)
from paramdiff.simulation.channels import (
    ROVER_BOOT_FUNCTIONS,
    ROVER_BOOT_NAMES,
    Finding,
    Role,
    _label,
    channel_findings,
)
from paramdiff.simulation.rotors import quad_rule
from paramdiff.simulation.thrusters import THROTTLE_LEFT, THROTTLE_RIGHT, six_dof_rule, skid_rule

if TYPE_CHECKING:
    from paramdiff.comparison.sitl_layers import SitlRun


def output_functions(
    params: dict[str, float], vehicle: str | None, motors: int
) -> tuple[dict[int, float], dict[int, str]]:
    """SERVOn_FUNCTION as the firmware runs it, and a note where that is not the parameter.

    On multicopters and subs, AP_Motors::add_motor_num calls SRV_Channels::
    set_aux_channel_default(MotorN, N-1) at boot (libraries/AP_Motors/AP_Motors_Class.cpp,
    libraries/SRV_Channel/SRV_Channels.cpp): when no output has MotorN yet and output N's
    function is 0 (Disabled), output N becomes MotorN. Rover sets the defaults of two outputs:
    Rover::load_parameters calls SRV_Channels::set_default_function(CH_1, k_steering) and
    (CH_3, k_throttle) (Rover/Parameters.cpp, ArduPilot/ardupilot@00dff1258d5b): an output 1 or 3
    that no loaded file sets runs GroundSteering (26) or Throttle (70).
    """
    functions: dict[int, float] = {}
    notes: dict[int, str] = {}
    for name, value in params.items():
        if name.startswith("SERVO") and name.endswith("_FUNCTION") and name[5:-9].isdigit():
            functions[int(name[5:-9])] = value
    if vehicle == "Rover":
        for n, f in ROVER_BOOT_FUNCTIONS.items():
            if f"SERVO{n}_FUNCTION" not in params:
                functions[n] = f
                notes[n] = (
                    f"SERVO{n}_FUNCTION is not set, so the firmware's default for Rover applies: "
                    f"{ROVER_BOOT_NAMES[n]} ({format_value(f)})"
                )
    if vehicle in ("ArduCopter", "ArduSub"):
        for n in range(1, motors + 1):
            f = float(motor_function(n))
            if f not in functions.values() and functions.get(n, 0.0) == 0.0:
                functions[n] = f
                was = "not set" if f"SERVO{n}_FUNCTION" not in params else "0"
                notes[n] = f"SERVO{n}_FUNCTION is {was}, so the firmware assigns Motor{n} at boot"
    return functions, notes


def infer_vehicle(params: dict[str, float], vehicle: str | None) -> str | None:
    if vehicle:
        return vehicle
    if "FRAME_CONFIG" in params:
        return "ArduSub"
    if any(
        k.endswith("_FUNCTION") and v in (THROTTLE_LEFT, THROTTLE_RIGHT) for k, v in params.items()
    ):
        return "Rover"
    return "ArduCopter" if "FRAME_CLASS" in params else None


def analyse(
    channels: list[Channel],
    tree: ModelTree,
    params: dict[str, float],
    vehicle: str | None,
    label: Label,
    to_frd: Pose = DEFAULT_TO_FRD,
) -> Geometry:
    """Every channel's physical role against what the vehicle's frame expects of its output."""
    placed, missing = place(channels, tree, to_frd)
    vehicle = infer_vehicle(params, vehicle)
    if vehicle == "ArduCopter":
        rule = quad_rule(params)
    elif vehicle == "ArduSub":
        rule = six_dof_rule(params)
    else:
        rule = skid_rule(params)
    if rule is None:
        return Geometry(
            "no geometry rule for this frame", [], missing, placed, [_no_rule(vehicle, params)]
        )
    frame, motors, judge = rule
    functions, notes = output_functions(params, vehicle, motors)
    ctx = Judge(list(placed.values()), functions, params, label, frame, to_frd)
    views: list[View] = []
    findings = list(missing)
    for act in sorted(placed.values(), key=lambda a: a.channel.channel):
        view, found = judge(ctx, act)
        if view.expected is not None:
            view.expected_label = short(ctx, act, float(view.expected))
        views.append(view)
        findings.extend(found)
    boot = [notes[n] for n in sorted(notes) if any(a.channel.output == n for a in placed.values())]
    return Geometry(frame, views, findings, placed, boot)


def _no_rule(vehicle: str | None, params: dict[str, float]) -> str:
    keys = ("FRAME_CLASS", "FRAME_TYPE", "FRAME_CONFIG")
    shown = ", ".join(f"{k} {format_value(params[k])}" for k in keys if k in params)
    return (
        f"no geometry rule for {vehicle or 'this vehicle'} ({shown or 'no frame parameters'}): "
        "channel roles come from joint_roles only"
    )


class ModelCheck(NamedTuple):
    """One model checked: its channels, geometry and findings."""

    channels: list[Channel]
    geometry: Geometry
    findings: list[Finding]


class ModelRead(NamedTuple):
    """What the check reads of a model's XML: its channels, merged tree and FRD pose."""

    channels: list[Channel]
    tree: ModelTree
    to_frd: Pose


# A model is read by the report, check, each JSON launch and the pilot test: once per process
# for the same bytes and resolver (Pin.pinned_model keeps one resolver per role); shared,
# so read-only.
@functools.lru_cache(maxsize=32)
def read_model(data: bytes, file: str, resolve: Resolver) -> ModelRead:
    channels, _ = read_channels(data, file)
    return ModelRead(channels, load_model(data, file, resolve), to_frd_pose(data, file))


def check_model(
    data: bytes,
    file: str,
    resolve: Resolver,
    params: dict[str, float],
    joint_roles: dict[str, int],
    vehicle: str | None,
    metadata: Metadata | None,
) -> ModelCheck:
    """The model's channels (includes merged) against what SITL runs: geometry first,
    joint_roles as a cross-check, then ranges and neutral; findings numbered for the picture."""
    channels, tree, to_frd = read_model(data, file, resolve)

    def label(n: int, value: float) -> str:
        return _label(metadata, f"SERVO{n}_FUNCTION", value)

    geometry = analyse(channels, tree, params, vehicle, label, to_frd)
    findings = channel_findings(
        channels, params, joint_roles, metadata, roles(geometry), infer_vehicle(params, vehicle)
    )
    for number, finding in enumerate(findings, 1):
        for view in geometry.views:
            if view.actuator.channel.channel == finding.channel:
                view.findings.append(number)
    return ModelCheck(channels, geometry, findings)


def roles(geometry: Geometry) -> dict[int, Role]:
    """Per channel, what the channel check takes from the geometry."""
    out: dict[int, Role] = {}
    for f in geometry.findings:
        if f.channel not in geometry.by_channel:  # its joint is not in the model
            out[f.channel] = Role(False, None, None, (f,))
    for view in geometry.views:
        ch = view.actuator.channel.channel
        found = tuple(f for f in geometry.findings if f.channel == ch)
        out[ch] = Role(True, view.function, view.expected, found)
    return out


def sitl_params(derived: dict[str, float], sitl: SitlRun | None) -> dict[str, float]:
    """What SITL runs: the frame defaults, then the derived file's values (last wins); the
    derived file alone when the profile pins no frame defaults."""
    if sitl is None:
        return derived
    return {name: e.param.value for name, e in sitl.layers.effective.items()}
