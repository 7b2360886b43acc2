"""The gz-sim Thruster systems of an SDF model, and which ``<control>`` reaches which.

What the water sees of an output is the ArduPilotPlugin's command (parse.sdf.Channel.command)
as the Thruster system that the control's ``cmd_topic`` reaches applies it. Read in gz-sim's
src/systems/thruster/Thruster.cc (gazebosim/gz-sim@6a9a7cb5b83969de1395388ade8cac608f4cf676)
and Thruster.hh:

- the system subscribes to ``/model/{namespace}/joint/{joint_name}/cmd_thrust`` (a force in
  N; the default mode) or, with ``<use_angvel_cmd>true``, ``.../cmd_vel`` (propeller angular
  velocity in rad/s); ``<topic>`` replaces that with ``{namespace}/{topic}``. ``namespace``
  defaults to the model's name.
- the command is clamped to ``[min_thrust_cmd, max_thrust_cmd]``, defaults -1000 and 1000
  (in N, or in rad/s in the angular-velocity mode); a max below the min keeps the defaults.
- in the angular-velocity mode the thrust is
  ``thrust_coefficient * propeller_diameter^4 * |w| * w * fluid_density`` (defaults 1, 0.02 m,
  1000 kg/m^3); in the force mode the clamped command IS the thrust, applied along the joint
  axis at once (the propeller's PID spin does not delay it).
- ``<deadband>`` (N, default none): a thrust of smaller magnitude is applied as zero.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

from paramdiff.errors import InputError
from paramdiff.model.values import parse_number
from paramdiff.parse.sdf import _child_text, _line, _local, _parse_xml

CMD_MAX_DEFAULT = 1000.0  # ThrusterPrivateData::cmdMax
CMD_MIN_DEFAULT = -1000.0  # ThrusterPrivateData::cmdMin
THRUST_COEFFICIENT_DEFAULT = 1.0
PROPELLER_DIAMETER_DEFAULT = 0.02  # m
FLUID_DENSITY_DEFAULT = 1000.0  # kg/m^3
TRUE_WORDS = ("1", "true")  # sdf's bool parsing, case-insensitive


class Thruster(NamedTuple):
    """One gz-sim Thruster system, its defaults applied; ``lines`` has the line of each
    element it sets (a clamp the model does not set has no line: gz-sim's default)."""

    joint: str
    topic: str  # the command topic it subscribes to, without leading/trailing '/'
    angvel: bool  # commands are propeller angular velocity (rad/s), not force (N)
    max_cmd: float
    min_cmd: float
    deadband: float | None
    thrust_coefficient: float
    propeller_diameter: float
    fluid_density: float
    file: str
    line: int
    lines: dict[str, int]

    def thrust(self, command: float) -> float:
        """The force (N) this thruster applies for a command on its topic."""
        clamped = min(max(command, self.min_cmd), self.max_cmd)
        force = (
            self.thrust_coefficient
            * self.propeller_diameter**4
            * abs(clamped)
            * clamped
            * self.fluid_density
            if self.angvel
            else clamped
        )
        if self.deadband is not None and abs(force) < self.deadband:
            return 0.0
        return force

    def binds(self, command: float) -> str | None:
        """The clamp that limits ``command``, named with its value and where it comes from."""
        unit = "rad/s" if self.angvel else "N"
        for key, limit, over in (
            ("max_thrust_cmd", self.max_cmd, command > self.max_cmd),
            ("min_thrust_cmd", self.min_cmd, command < self.min_cmd),
        ):
            if over:
                where = f"line {self.lines[key]}" if key in self.lines else "gz-sim's default"
                return f"{key} {limit:g} {unit} ({where})"
        return None


class Actuation(NamedTuple):
    """What a model's command topics reach: its Thruster systems and each control channel's
    ``cmd_topic`` (normalized as Thruster.topic)."""

    thrusters: list[Thruster]
    topics: dict[int, str]  # channel -> cmd_topic

    def reached(self, channel: int) -> Thruster | None:
        topic = self.topics.get(channel)
        return next((t for t in self.thrusters if t.topic == topic), None) if topic else None


def topic_name(raw: str) -> str:
    """A topic as gz-transport compares it: without the leading and trailing slashes."""
    return raw.strip().strip("/")


# Memoized per process like _parse_xml (sdf.py): the result is shared, so read-only.
@functools.lru_cache(maxsize=32)
def read_actuation(data: bytes, file: str) -> Actuation:
    """Every Thruster system of the model, and each ArduPilotPlugin control's cmd_topic."""
    root = _parse_xml(data, file)
    model = (
        root
        if _local(root.tag) == "model"
        else next((e for e in root if _local(e.tag) == "model"), root)
    )
    model_name = model.get("name", "")
    thrusters: list[Thruster] = []
    topics: dict[int, str] = {}
    for elem in root.iter():
        if _local(elem.tag) != "plugin":
            continue
        label = f"{elem.get('name', '')} {elem.get('filename', '')}"
        if "ArduPilotPlugin" in label:
            for control in elem:
                if _local(control.tag) != "control":
                    continue
                text, _ = _child_text(control, "cmd_topic")
                channel = (control.get("channel") or "").strip()
                if text and channel.isascii() and channel.isdigit():
                    topics[int(channel)] = topic_name(text)
        elif "thruster" in label.lower():
            found = _thruster(elem, file, model_name)
            if found is not None:
                thrusters.append(found)
    return Actuation(thrusters, topics)


def _thruster(plugin: Any, file: str, model_name: str) -> Thruster | None:
    joint, _ = _child_text(plugin, "joint_name")
    if not joint:
        return None  # gz-sim logs "Missing <joint_name>" and does not initialize it
    lines: dict[str, int] = {}

    def number(key: str, default: float) -> float:
        text, at = _child_text(plugin, key)
        if text is None:
            return default
        value, problem = parse_number(text)
        if value is None:
            raise InputError(f"<{key}> {problem}", "write a number", file=file, line=at)
        lines[key] = at
        return value

    def flag(key: str) -> bool:
        text, _ = _child_text(plugin, key)
        return (text or "").strip().lower() in TRUE_WORDS

    namespace = (_child_text(plugin, "namespace")[0] or model_name).strip()
    angvel = flag("use_angvel_cmd")
    custom, _ = _child_text(plugin, "topic")
    if custom:
        topic = f"{namespace}/{topic_name(custom)}"
    else:
        topic = f"model/{namespace}/joint/{joint}/{'cmd_vel' if angvel else 'cmd_thrust'}"
    max_cmd = number("max_thrust_cmd", CMD_MAX_DEFAULT)
    min_cmd = number("min_thrust_cmd", CMD_MIN_DEFAULT)
    if max_cmd < min_cmd:  # gz-sim: "Revert to using default values"
        max_cmd, min_cmd = CMD_MAX_DEFAULT, CMD_MIN_DEFAULT
        lines.pop("max_thrust_cmd", None)
        lines.pop("min_thrust_cmd", None)
    has_deadband = _child_text(plugin, "deadband")[0] is not None
    return Thruster(
        joint=joint,
        topic=topic_name(topic),
        angvel=angvel,
        max_cmd=max_cmd,
        min_cmd=min_cmd,
        deadband=number("deadband", 0.0) if has_deadband else None,
        thrust_coefficient=number("thrust_coefficient", THRUST_COEFFICIENT_DEFAULT),
        propeller_diameter=number("propeller_diameter", PROPELLER_DIAMETER_DEFAULT),
        fluid_density=number("fluid_density", FLUID_DENSITY_DEFAULT),
        file=file,
        line=_line(plugin),
        lines=lines,
    )


PHYSICS_STEP_DEFAULT = 0.001  # s: <physics><max_step_size>'s default (sdformat physics.sdf)


def read_physics_step(data: bytes, file: str) -> tuple[float, int]:
    """A world file's physics step (``<max_step_size>`` of its default ``<physics>``, else the
    first; sdformat's default 0.001 s without one) and the line it was read from."""
    root = _parse_xml(data, file)
    worlds = [e for e in root.iter() if _local(e.tag) == "world"]
    if not worlds:
        raise InputError("no <world> in this SDF", "pass a world file (.sdf)", file=file, line=1)
    physics = [e for e in worlds[0] if _local(e.tag) == "physics"]
    chosen = next(
        (p for p in physics if (p.get("default") or "").strip().lower() in TRUE_WORDS),
        physics[0] if physics else None,
    )
    if chosen is None:
        return PHYSICS_STEP_DEFAULT, _line(worlds[0])
    text, line = _child_text(chosen, "max_step_size")
    if text is None:
        return PHYSICS_STEP_DEFAULT, _line(chosen)
    value, problem = parse_number(text)
    if value is None or value <= 0:
        raise InputError(
            f"<max_step_size> {problem or 'is not positive'}",
            "write the physics step in seconds, e.g. 0.001",
            file=file,
            line=line,
        )
    return value, line
