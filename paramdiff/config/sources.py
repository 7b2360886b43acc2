"""sources.yaml: vehicle profiles, their pins, and the upstream files each pin names.

Everything here is validated before anything touches the network or the disk,
with errors that name the key path, the line and the fix.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from paramdiff.config.roles import PROJECT_INPUTS, ROLE_RE, SourceSpec, parse_source
from paramdiff.config.validators import (
    check_keys,
    check_relpath,
    flag,
    globs,
    mapping,
    sequence,
    text,
    version,
)
from paramdiff.config.yamlfile import KeyPath, YamlDoc, key_name, load_yaml
from paramdiff.digests import sha256_of
from paramdiff.errors import ConfigError, UsageError, quote
from paramdiff.files import TEXT_LIMIT, project_path, read_regular
from paramdiff.model.categories import Category, ScriptParams
from paramdiff.parse.launch import parse_launch

SOURCES_FILE = "sources.yaml"


def svg_path(report_path: str) -> str:
    """The top view lives next to the report: reports/blueboat-4.7.md -> .svg."""
    return (report_path[:-3] if report_path.endswith(".md") else report_path) + ".svg"


def derive_command(profile: str, pin: str) -> str:
    """The command that writes a pin's derived file (its header's "Regenerate:" line)."""
    return f"paramdiff derive --profile {profile} --pin {pin}"


# Profile and pin names become file names (reports/<profile>-<pin>.md, `{pin}` in a path) and
# words in commands and reports: letters, digits, '.', '_' and '-', never a control
# character, a space, a '/' or a leading '.' or '-' (`..`, `-x`).
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def check_name(doc: YamlDoc, path: KeyPath, kind: str, name: object) -> str:
    """A profile or pin name as NAME_RE allows it, else an Error naming its line."""
    if isinstance(name, str) and NAME_RE.fullmatch(name) and len(name) <= 64:
        return name
    raise doc.error(
        path,
        f"{kind} name {quote(repr(name))} is not a plain name",
        "use at most 64 letters, digits, '.', '_' or '-', starting with a letter or digit "
        "(it becomes part of file names)",
    )


class DeclaredLaunch(NamedTuple):
    """One launch a profile's team uses (``launches:``): the command line as typed."""

    name: str
    command: str
    line: int
    model: str | None = None  # the Gazebo model a JSON launch runs: a role or a path


class Thrusters(NamedTuple):
    """``thrusters:``: the thruster data a profile's model side is derived from (a
    thrust_table role), the battery voltage it is read at and why, and where the derived
    model goes."""

    role: str
    voltage: float
    voltage_reason: str
    model: str | None  # the derived model's path, e.g. derived/blueboat_model.sdf
    line: int


@dataclass(slots=True)
class Profile:
    """One vehicle in sources.yaml: its pins, roles, overlay, derived and report paths, SITL
    frame."""

    name: str
    description: str
    default_pin: str
    pins: dict[str, dict[str, SourceSpec]]
    joint_roles: dict[str, int] = field(default_factory=dict)
    script_params: tuple[ScriptParams, ...] = ()
    overlay: str | None = None
    derived: str | None = None
    report: str | None = None
    target_models: tuple[str, ...] = ()
    frames: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sitl_frame: str | None = None
    sitl_vehicle: str | None = None  # sim_vehicle.py -v, e.g. Rover or ArduSub
    vehicle_noun: str = "vehicle"  # how the report names it: "the boat turns the wrong way"
    launches: tuple[DeclaredLaunch, ...] = ()  # the first one check verifies goes in the header
    thrusters: Thrusters | None = None

    def pin(self, pin: str | None) -> tuple[str, dict[str, SourceSpec]]:
        pin = pin or self.default_pin
        if pin not in self.pins:
            raise ConfigError(
                f"profile '{self.name}' has no pin '{pin}'",
                f"use one of: {', '.join(sorted(self.pins))}, or add the pin to {SOURCES_FILE}",
            )
        return pin, self.pins[pin]

    def report_path(self, pin: str) -> str | None:
        return self.report.replace("{pin}", pin) if self.report else None

    def derived_path(self, pin: str) -> str | None:
        return self.derived.replace("{pin}", pin) if self.derived else None

    def derived_is_per_pin(self) -> bool:
        """Whether each pin has its own derived file; otherwise it is the default pin's."""
        return bool(self.derived and "{pin}" in self.derived)


@dataclass(slots=True)
class Config:
    """sources.yaml: the categories and every profile."""

    file: str
    root: Path
    categories: tuple[Category, ...]
    profiles: dict[str, Profile]
    sha256: str = ""  # of the bytes parsed (load_config): what a result kept for it names

    def profile(self, name: str | None) -> Profile:
        if name is None:
            return next(iter(self.profiles.values()))
        if name not in self.profiles:
            raise ConfigError(
                f"no profile '{name}' in {self.file}",
                f"use one of: {', '.join(self.profiles)}",
            )
        return self.profiles[name]

    def fetch_targets(self, profile: str | None, pin: str | None) -> list[tuple[Profile, str]]:
        """(profile, pin) pairs a fetch covers: one profile if named, else every profile
        that has ``pin``, else every pin of every profile. A profile named without a pin
        means every pin of it, because `check --profile P` checks every one (#31)."""
        if profile is not None:
            chosen = self.profile(profile)
            if pin is None:
                return [(chosen, name) for name in chosen.pins]
            return [(chosen, chosen.pin(pin)[0])]
        if pin is None:
            return [(p, name) for p in self.profiles.values() for name in p.pins]
        targets = [(p, pin) for p in self.profiles.values() if pin in p.pins]
        if not targets:
            raise ConfigError(
                f"no profile in {self.file} has pin '{pin}'",
                "use a pin one of the profiles declares, or name one with --profile",
            )
        return targets


PROFILE_KEYS = {
    "description",
    "default_pin",
    "joint_roles",
    "script_params",
    "overlay",
    "derived",
    "report",
    "target_models",
    "frames",
    "sitl_frame",
    "sitl_vehicle",
    "vehicle_noun",
    "launches",
    "thrusters",
}


def _profile(doc: YamlDoc, path: KeyPath, name: str, raw: Any) -> Profile:
    check_keys(doc, path, raw, {"pins"}, PROFILE_KEYS)
    pins = _pins(doc, (*path, "pins"), raw["pins"])
    frames = _frames(doc, (*path, "frames"), raw.get("frames"), pins)
    sitl_frame = (
        text(doc, (*path, "sitl_frame"), raw["sitl_frame"]) if "sitl_frame" in raw else None
    )
    if sitl_frame is not None and sitl_frame not in frames:
        raise doc.error(
            (*path, "sitl_frame"), f"sitl_frame '{sitl_frame}' is not in frames", "declare it"
        )

    def optional_path(key: str) -> str | None:
        return check_relpath(raw[key], doc, (*path, key)) if key in raw else None

    overlay = optional_path("overlay")
    for key in ("derived", "report"):
        if key in raw:
            _check_output_path(doc, (*path, key), optional_path(key) or "", overlay)

    return Profile(
        name=name,
        description=""
        if raw.get("description") is None
        else text(doc, (*path, "description"), raw["description"]),
        default_pin=_default_pin(doc, path, raw, pins),
        pins=pins,
        joint_roles=_joint_roles(doc, (*path, "joint_roles"), raw.get("joint_roles")),
        script_params=_script_params(doc, (*path, "script_params"), raw.get("script_params")),
        overlay=overlay,
        derived=optional_path("derived"),
        report=optional_path("report"),
        target_models=_target_models(doc, (*path, "target_models"), raw, pins),
        frames=frames,
        sitl_frame=sitl_frame,
        sitl_vehicle=text(doc, (*path, "sitl_vehicle"), raw["sitl_vehicle"])
        if "sitl_vehicle" in raw
        else None,
        vehicle_noun=text(doc, (*path, "vehicle_noun"), raw.get("vehicle_noun", "vehicle")),
        launches=_launches(doc, (*path, "launches"), raw.get("launches"), pins),
        thrusters=_thrusters(doc, (*path, "thrusters"), raw.get("thrusters"), pins, overlay),
    )


def _thrusters(
    doc: YamlDoc, path: KeyPath, raw: Any, pins: Pins, overlay: str | None
) -> Thrusters | None:
    """``thrusters: {role, voltage, voltage_reason, model}``: the role a thrust_table of every
    pin, the voltage a positive number of volts with its reason."""
    if raw is None:
        return None
    check_keys(doc, path, raw, {"role", "voltage", "voltage_reason"}, {"model"})
    role = text(doc, (*path, "role"), raw["role"])
    for pin, specs in pins.items():
        if role not in specs or specs[role].format != "thrust_table":
            raise doc.error(
                (*path, "role"),
                f"thrusters role '{role}' is not a thrust_table role of pin '{pin}'",
                "pin the thruster data in every pin with format: thrust_table",
            )
    voltage = raw["voltage"]
    if isinstance(voltage, bool) or not isinstance(voltage, (int, float)) or not voltage > 0:
        raise doc.error(
            (*path, "voltage"),
            f"voltage {quote(repr(voltage))} is not a number of volts",
            "write the battery pack's voltage, e.g. voltage: 16",
        )
    reason = text(doc, (*path, "voltage_reason"), raw["voltage_reason"])
    model = None
    if "model" in raw:
        model = check_relpath(raw["model"], doc, (*path, "model"))
        _check_output_path(doc, (*path, "model"), model, overlay)
        if not model.endswith(".sdf"):  # derive writes SDF there: never over a params file
            raise doc.error(
                (*path, "model"),
                f"'model' names {model!r}, where derive would write SDF over another kind of file",
                "name an .sdf file of its own, e.g. derived/<vehicle>_model.sdf",
            )
    return Thrusters(role, float(voltage), reason, model, doc.line(path))


Pins = dict[str, dict[str, SourceSpec]]


def _check_output_path(doc: YamlDoc, path: KeyPath, value: str, overlay: str | None) -> None:
    """A file paramdiff writes must not be one the project reads or keeps elsewhere: derive
    would overwrite sources.yaml, the overlay, a workflow or a git hook with parameter text."""
    pure = PurePosixPath(value.replace("{pin}", "x"))
    reserved = (*PROJECT_INPUTS, overlay or "")
    if str(pure) in reserved or value.endswith("/") or pure.parts[0] in (".git", ".github"):
        raise doc.error(
            path,
            f"'{key_name(path)}' names {value!r}, a file paramdiff reads or must not write",
            "point it at a file of its own, e.g. derived/<vehicle>_sitl.params",
        )


def _pins(doc: YamlDoc, path: KeyPath, raw: Any) -> Pins:
    if not isinstance(raw, dict) or not raw:
        raise doc.error(path, "'pins' must map pin names to roles", "add a pin block")
    pins: Pins = {}
    for pin, roles in raw.items():
        ppath = (*path, pin)
        if not isinstance(pin, str):
            raise doc.error(ppath, f"pin {pin!r} must be a quoted string", f"write '{pin}':")
        check_name(doc, ppath, "pin", pin)
        if not isinstance(roles, dict) or not roles:
            raise doc.error(ppath, f"pin '{pin}' must map roles to sources", "add roles")
        specs: dict[str, SourceSpec] = {}
        for role, src in roles.items():
            if not isinstance(role, str) or not ROLE_RE.match(role):
                raise doc.error(
                    (*ppath, role),
                    f"role name {role!r} is not lower_snake_case",
                    "rename it, e.g. hardware, sitl, sitl_models",
                )
            specs[role] = parse_source(doc, (*ppath, role), role, src)
        pins[pin] = specs
    return pins


def _default_pin(doc: YamlDoc, path: KeyPath, raw: Any, pins: Pins) -> str:
    default_pin = text(doc, (*path, "default_pin"), raw.get("default_pin", next(iter(pins))))
    if default_pin not in pins:
        raise doc.error(
            (*path, "default_pin"),
            f"default_pin '{default_pin}' is not one of the pins",
            f"use one of: {', '.join(pins)}",
        )
    return default_pin


def _joint_roles(doc: YamlDoc, path: KeyPath, raw: Any) -> dict[str, int]:
    joint_roles: dict[str, int] = {}
    for joint, func in mapping(doc, path, raw).items():
        if not isinstance(func, int) or isinstance(func, bool):
            raise doc.error(
                (*path, joint),
                f"joint_roles.{joint} must be a SERVOn_FUNCTION number",
                "e.g. motor_port_joint: 73  # ThrottleLeft",
            )
        joint_roles[str(joint)] = func
    return joint_roles


def _script_params(doc: YamlDoc, path: KeyPath, raw: Any) -> tuple[ScriptParams, ...]:
    scripts = []
    for i, item in enumerate(sequence(doc, path, raw)):
        spath = (*path, i)
        check_keys(doc, spath, item, {"params", "reason"}, set())
        if not isinstance(item["params"], str):  # one glob per script entry
            raise doc.error(
                (*spath, "params"),
                f"'{key_name((*spath, 'params'))}' must be one name glob, not "
                f"{quote(repr(item['params']))}",
                "write one glob, e.g. NL_*, and one entry per script",
            )
        globs(doc, (*spath, "params"), item["params"])
        scripts.append(ScriptParams(item["params"], text(doc, (*spath, "reason"), item["reason"])))
    return tuple(scripts)


def _frames(doc: YamlDoc, path: KeyPath, raw: Any, pins: Pins) -> dict[str, tuple[str, ...]]:
    """sim_vehicle.py frames: each lists the roles it loads, in order, in every pin."""
    frames: dict[str, tuple[str, ...]] = {}
    for frame, roles in mapping(doc, path, raw).items():
        fpath = (*path, frame)
        if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
            raise doc.error(fpath, f"frame '{frame}' must list roles", "e.g. [rover_parm, ...]")
        for pin, specs in pins.items():
            for r in roles:
                if r not in specs:
                    raise doc.error(
                        fpath,
                        f"frame '{frame}' names role '{r}', which pin '{pin}' does not declare",
                        f"add '{r}' to pin '{pin}' or remove it from the frame",
                    )
        frames[str(frame)] = tuple(roles)
    return frames


def _launches(doc: YamlDoc, path: KeyPath, raw: Any, pins: Pins) -> tuple[DeclaredLaunch, ...]:
    """Each launch: a command line, or {name, command, model}; read as SITL would (so a typo
    fails here, on its line), names unique."""

    out: list[DeclaredLaunch] = []
    for i, item in enumerate(sequence(doc, path, raw)):
        lpath = (*path, i)
        if isinstance(item, str):
            item = {"command": item}
        check_keys(doc, lpath, item, {"command"}, {"name", "model"})
        command = text(doc, (*lpath, "command"), item["command"])
        try:
            parse_launch(command)
        except UsageError as exc:
            raise doc.error((*lpath, "command"), exc.what, exc.fix or "fix the command") from None
        name = text(doc, (*lpath, "name"), item["name"]) if "name" in item else command
        if any(d.name == name for d in out):
            raise doc.error(lpath, f"two launches are named {name!r}", "give each its own name")
        model = None
        if "model" in item:
            model = text(doc, (*lpath, "model"), item["model"])
            if ROLE_RE.match(model):
                for pin, specs in pins.items():
                    if model not in specs or specs[model].format != "sdf":
                        raise doc.error(
                            (*lpath, "model"),
                            f"launch model '{model}' is not an sdf role of pin '{pin}'",
                            "name an sdf role (e.g. sitl_models) or a model path",
                        )
            else:
                check_relpath(model, doc, (*lpath, "model"))
        out.append(DeclaredLaunch(name, command, doc.line(lpath), model))
    return tuple(out)


def _target_models(doc: YamlDoc, path: KeyPath, raw: Any, pins: Pins) -> tuple[str, ...]:
    """Models `check` requires to match: sdf roles of every pin, or paths in this repo."""
    targets = sequence(doc, path, raw.get("target_models"))
    for i, t in enumerate(targets):
        tpath = (*path, i)
        if isinstance(t, str) and ROLE_RE.match(t):
            # A role name: the pinned model itself must agree with the derived file.
            for pin, specs in pins.items():
                if t not in specs or specs[t].format != "sdf":
                    raise doc.error(
                        tpath,
                        f"target model '{t}' is not an sdf role of pin '{pin}'",
                        "name an sdf role (e.g. sitl_models) or a model path in this repository",
                    )
        else:
            check_relpath(t, doc, tpath)
    return tuple(targets)


def _category(doc: YamlDoc, path: KeyPath, raw: Any) -> Category:
    check_keys(
        doc,
        path,
        raw,
        {"name", "rule"},
        {"params", "calibration_list", "metadata_flags", "script_defined"},
    )
    return Category(
        name=text(doc, (*path, "name"), raw["name"]),
        rule=text(doc, (*path, "rule"), raw["rule"]),
        params=globs(doc, (*path, "params"), raw["params"]) if "params" in raw else (),
        calibration_list=flag(doc, (*path, "calibration_list"), raw.get("calibration_list", False)),
        metadata_flags=tuple(
            text(doc, (*path, "metadata_flags", i), f)
            for i, f in enumerate(
                sequence(doc, (*path, "metadata_flags"), raw.get("metadata_flags"))
            )
        ),
        script_defined=flag(doc, (*path, "script_defined"), raw.get("script_defined", False)),
    )


def parse_config(data: bytes, file: str, root: Path) -> Config:
    doc = load_yaml(data, file)
    raw = check_keys(doc, (), doc.data, {"version", "profiles"}, {"categories"})
    version(doc, raw["version"], 1, "use version: 1")
    categories = tuple(
        _category(doc, ("categories", i), c)
        for i, c in enumerate(sequence(doc, ("categories",), raw.get("categories")))
    )
    profiles_raw = raw["profiles"]
    if not isinstance(profiles_raw, dict) or not profiles_raw:
        raise doc.error(("profiles",), "'profiles' must name at least one profile", "add one")
    mapping(doc, ("profiles",), profiles_raw)  # profile names are strings
    for name in profiles_raw:
        check_name(doc, ("profiles", name), "profile", name)
    profiles = {
        str(name): _profile(doc, ("profiles", name), str(name), p)
        for name, p in profiles_raw.items()
    }
    _local_roles_are_inputs(doc, profiles)
    return Config(file=file, root=root, categories=categories, profiles=profiles)


def _local_roles_are_inputs(doc: YamlDoc, profiles: dict[str, Profile]) -> None:
    """A ``file:`` role is an input: never an overlay, nor a file paramdiff writes."""
    written = {}
    for name, p in profiles.items():
        if p.overlay:
            written[p.overlay] = f"profile {name}'s overlay"
        for pin in p.pins:
            for path, what in (
                (p.derived_path(pin), "derived file"),
                (p.report_path(pin), "report"),
            ):
                if path:
                    written[path] = f"profile {name}'s {what}"
    for name, p in profiles.items():
        for pin, specs in p.pins.items():
            for spec in specs.values():
                if spec.is_local and spec.path in written:
                    raise doc.error(
                        ("profiles", name, "pins", pin, spec.role, "file"),
                        f"role '{spec.role}' names {spec.path}, which is "
                        f"{written[spec.path]}, not a parameter set it reads",
                        "name the field dump itself, e.g. field/boat7.params",
                    )


def load_config(root: Path) -> Config:
    path = project_path(root, SOURCES_FILE)
    try:
        data = read_regular(path, limit=TEXT_LIMIT, label=SOURCES_FILE)
    except FileNotFoundError:
        raise ConfigError(
            f"no {SOURCES_FILE} in {root}",
            f"run paramdiff from the project root, or pass --root DIR with a {SOURCES_FILE}",
        ) from None
    config = parse_config(data, SOURCES_FILE, root)
    config.sha256 = sha256_of(data)
    return config
