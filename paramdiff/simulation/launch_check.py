"""One launch of a profile checked end to end: what it loads, what runs it, where the sticks go.

``verify_launch`` takes what the pin gathered for it (``LaunchInputs``: the pinned files, the
models, the metadata and the derived file as read back), and returns a ``LaunchResult``: the
layer stack, the backend, the model findings (a Gazebo model's channels, or a built-in model's
outputs and frame parameters), the pilot-input rows, and which findings an overlay
acknowledgement accepts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from paramdiff.comparison.sitl_layers import Layers, stack
from paramdiff.digests import sha256_of
from paramdiff.errors import ConfigError, InputError, echoed
from paramdiff.files import project_path
from paramdiff.model.source import Source
from paramdiff.overlay.file import Acknowledgement
from paramdiff.parse.launch import (
    SIM_VEHICLE,
    DefaultsFile,
    Launch,
    file_kind,
    parse_launch,
    pinned_roles_loaded,
)
from paramdiff.simulation import builtin_models, capabilities, frame, gazebo_plugin
from paramdiff.simulation.physics import BUILT_IN, GAZEBO_LEGACY, JSON, Backend, resolve
from paramdiff.simulation.pilot_input import BLOCKED, Row, hold_takeoff, pilot_test

if TYPE_CHECKING:
    from paramdiff.config.roles import SourceSpec
    from paramdiff.config.sources import Profile
    from paramdiff.model.metadata import Metadata
    from paramdiff.overlay.file import Overlay
    from paramdiff.parse.sdf import Channel
    from paramdiff.parse.sdf_paths import Resolver
    from paramdiff.simulation.actuators import Actuator
    from paramdiff.simulation.geometry import ModelCheck


class PinnedModel(NamedTuple):
    """A Gazebo model a launch may run: its file name, bytes and include resolver."""

    file: str
    data: bytes
    resolve: Resolver


class Declared(NamedTuple):
    """A launch the profile declares: its name, the launch read, the model it names."""

    name: str
    launch: Launch
    model: str | None


@dataclass(frozen=True)
class LaunchInputs:
    """What verifying a pin's launches reads, gathered once by the pin
    (``paramdiff.pin.Pin.launch_inputs``; ``needs`` says which files): values, no callback
    into the pin."""

    root: Path
    profile: Profile
    pin: str
    specs: Mapping[str, SourceSpec]
    derived: Source  # the profile's derived file as the loaders read it back
    metadata: Metadata | None
    overlay: Overlay
    declared: tuple[Declared, ...]
    sources: Mapping[str, Source]  # the pinned parameter files the launches load, by role
    models: Mapping[str, PinnedModel]  # the pinned (or derived) models they run, by reference

    @property
    def target(self) -> str | None:
        return self.profile.derived_path(self.pin)


def declared_launches(profile: Profile) -> tuple[Declared, ...]:
    return tuple(Declared(d.name, parse_launch(d.command), d.model) for d in profile.launches)


def default_model(profile: Profile, specs: Mapping[str, SourceSpec]) -> str | None:
    """The model a JSON launch that names none runs: the profile's derived model first
    (#27: the model its own launches run), then its target models, then sitl_models."""
    thrusters = profile.thrusters
    derived = [thrusters.model] if thrusters and thrusters.model else []
    pinned = ["sitl_models"] if "sitl_models" in specs else []
    targets = [*derived, *profile.target_models, *pinned]
    return targets[0] if targets else None


def needs(
    profile: Profile,
    specs: Mapping[str, SourceSpec],
    target: str | None,
    launches: list[tuple[Launch, str | None]],
    models_given: bool = False,
) -> tuple[set[str], set[str]]:
    """The pinned roles and the model references verifying these (launch, model) pairs
    reads (``models_given``: the command line names the model of a launch that names none)."""
    roles: set[str] = set()
    models: set[str] = set()
    for launch, ref in launches:
        roles |= pinned_roles_loaded(specs, launch, target)
        if resolve(launch.model).kind == JSON and not (ref is None and models_given):
            ref = ref or default_model(profile, specs)
            if ref is not None:
                models.add(ref)
    return roles, models


ADHOC = "(command line)"


class Layer(NamedTuple):
    """One file of the launch's defaults list, resolved."""

    path: str  # as the command names it
    origin: str  # "frame rover-skid", "--add-param-file", "--defaults"
    kind: str  # "pinned", "derived" or "local"
    source: Source


class LaunchFinding(NamedTuple):
    text: str
    fix: str
    model: str | None = None  # the model role or path the finding is about
    sha256: str | None = None  # that model's bytes


@dataclass(slots=True)
class LaunchResult:
    name: str
    launch: Launch
    layers: list[Layer]
    stack: Layers
    backend: Backend
    model: str | None = None  # the Gazebo model verified against (label)
    model_sha256: str | None = None
    rows: list[Row] = field(default_factory=list)
    findings: list[LaunchFinding] = field(default_factory=list)  # not acknowledged
    acknowledged: list[tuple[LaunchFinding, Acknowledgement]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    derived: Source | None = None  # the profile's derived file, loaded by the launch or not
    derived_path: str | None = None

    @property
    def passed(self) -> bool:
        return not self.findings

    @property
    def params(self) -> dict[str, float]:
        return {n: e.param.value for n, e in self.stack.effective.items()}


def resolve_layers(inputs: LaunchInputs, launch: Launch) -> list[Layer]:
    """Each file of the defaults list: a pinned frame file is its locked role, the profile's
    derived path is the derived file, any other path is that file on disk."""
    from paramdiff.parse.named_files import local_source

    out = []
    for f in launch.files:
        kind, role = file_kind(inputs.specs, f, inputs.target)
        if kind == "derived":
            out.append(Layer(f.path, f.origin, "derived", inputs.derived))
            continue
        if role is not None:
            out.append(Layer(f.path, f.origin, "pinned", inputs.sources[role]))
            continue
        if f.origin.startswith("frame"):
            raise ConfigError(
                f"launch {echoed(launch.text)} loads {echoed(f.path)} ({f.origin}), which profile "
                f"'{inputs.profile.name}' pin {inputs.pin} does not pin",
                f"add a role (repo ArduPilot/ardupilot, path {f.path}) to the pin in "
                "sources.yaml and run paramdiff fetch",
            )
        local = launch_file(inputs.root, launch, f)
        if _is_the_derived_file(inputs, local):  # by an absolute path or a link inside
            out.append(Layer(f.path, f.origin, "derived", inputs.derived))
            continue
        if not local.is_file():
            raise InputError(
                f"launch {echoed(launch.text)} loads {echoed(f.path)} ({f.origin}), which is "
                "neither pinned nor a file here",
                "pin it in sources.yaml, or give a path to an existing file",
            )
        out.append(Layer(f.path, f.origin, "local", local_source(local, role=f.path)))
    return out


def _is_the_derived_file(inputs: LaunchInputs, local: Path) -> bool:
    """Whether a project file the launch names by another path (absolute, or a link inside
    the project) is the derived file itself. A file only named like it (``sim/derived/…``)
    is another file, a local layer: the launch then does not load the derived file, and says
    so (#30 review: judged by its name, a launch loading a copy that steers backwards passed)."""
    target = inputs.target
    # realpath, not samefile: a fresh checkout's derive verifies its launches before the
    # derived file exists
    return target is not None and os.path.realpath(local) == os.path.realpath(inputs.root / target)


def launch_file(root: Path, launch: Launch, f: DefaultsFile) -> Path:
    """The project file a launch loads that nothing pins: it must resolve, after symlinks,
    inside the project and outside its ``.git`` whatever form the path takes (absolute,
    ``..``, a link or a linked folder). A launch comes from sources.yaml, which a pull request
    controls: read, an outside file would pass or fail on its content and an error would
    quote its first line (a credential) into CI's log. Refused before a byte is read."""
    inside = Path(os.path.realpath(root))
    resolved = Path(os.path.realpath(root / f.path))
    if not resolved.is_relative_to(inside) or resolved.is_relative_to(inside / ".git"):
        raise InputError(
            f"launch {echoed(launch.text)} loads {echoed(f.path)} ({f.origin}), which leads "
            "outside the project"
            + (" or into its .git folder" if resolved.is_relative_to(inside) else ""),
            "copy the file into the project and name it by its path there "
            "(relative to sources.yaml, no link out)",
        )
    return root / f.path


def _model(
    inputs: LaunchInputs, ref: str | None, extra: list[Path]
) -> tuple[str, str, bytes, object] | None:
    """(label, file, bytes, resolver) of the Gazebo model a JSON launch is verified against:
    ``extra`` (the command line's) for a launch that names none, a pinned model or the
    derived model as derive writes it (check holds the committed copy to it: a fresh
    checkout's `derive` verifies its launches before the file exists), else a project file."""
    from paramdiff.parse.named_files import read_local
    from paramdiff.parse.sdf_paths import local_resolver

    if ref is None and extra:
        return extra[0].as_posix(), extra[0].as_posix(), read_local(extra[0]), local_resolver()
    ref = ref or default_model(inputs.profile, inputs.specs)
    if ref is None:
        return None
    if ref in inputs.models:
        file, data, resolve_include = inputs.models[ref]
        return ref, file, data, resolve_include
    path = project_path(inputs.root, ref)  # a model path of sources.yaml: no link out
    return ref, ref, read_local(path), local_resolver()


def stacked(launch: Launch, layers: list[Layer]) -> Layers:
    """The launch's files stacked in load order: what it runs, last wins."""
    frame_roles = tuple(ly.source.role for ly in layers if ly.origin.startswith("frame"))
    label = launch.frame.frame if launch.frame else launch.model
    return stack([ly.source for ly in layers], label, frame_roles)


def launch_layers(inputs: LaunchInputs, text: str | None) -> tuple[Launch, Layers] | None:
    """The launch ``text`` (default: the profile's first declared one) and what it runs,
    over the derived file as read back; None when there is neither."""
    if text is None and not inputs.declared:
        return None
    launch = inputs.declared[0].launch if text is None else parse_launch(text)
    return launch, stacked(launch, resolve_layers(inputs, launch))


def verify_launch(
    inputs: LaunchInputs,
    name: str,
    launch: Launch,
    model_ref: str | None = None,
    extra_models: list[Path] | None = None,
) -> LaunchResult:
    layers = resolve_layers(inputs, launch)
    result = LaunchResult(name, launch, layers, stacked(launch, layers), resolve(launch.model))
    result.derived, result.derived_path = inputs.derived, inputs.target
    result.notes.extend(launch.notes)
    if launch.stored_values_survive:
        result.notes.append(
            "no -w: parameters stored by an earlier run in this directory win over every "
            "defaults file (AP_Param loads a default only where nothing is stored)"
        )
    if launch.form == SIM_VEHICLE and launch.frame is not None and launch.frame.external:
        result.notes.append(
            f"vehicleinfo marks frame {launch.frame.frame} external; the pinned "
            "sim_vehicle.py still passes its defaults files (ardupilot_gazebo#175 reports "
            "that newer ones stop doing so)"
        )
    vehicle = inputs.profile.sitl_vehicle
    if vehicle and vehicle != launch.vehicle:
        result.findings.append(
            LaunchFinding(
                f"the launch runs {launch.vehicle}, the profile simulates {vehicle}",
                f"start {vehicle} (sim_vehicle.py -v {vehicle})",
            )
        )
        return result
    params = result.params
    backend = result.backend
    _frame_and_needs(result)
    if backend.kind == GAZEBO_LEGACY:
        result.findings.append(
            LaunchFinding(
                f"no JSON backend: --model {launch.model} runs SITL's legacy SIM_Gazebo "
                "protocol, whose packets the gz-sim ArduPilotPlugin refuses (it accepts only "
                "JSON-backend servo packets, magic 18458): no link at all",
                "add --model JSON to the launch",
            )
        )
    elif backend.kind == JSON:
        _json(inputs, result, params, model_ref, extra_models or [])
    elif backend.kind == BUILT_IN:
        for text, fix in builtin_models.check(backend, launch.vehicle, params, launch):
            result.findings.append(LaunchFinding(text, fix))
        fix = builtin_models.axis_fix(backend, launch)
        result.rows = _held(
            result, pilot_test(launch.vehicle, params, builtin_models.response(backend))
        )
        # a held climb's finding is capabilities.lacking's, with the value's own fix
        result.findings += [LaunchFinding(r.finding, fix) for r in result.rows if _axis_failed(r)]
        result.notes += [r.note for r in result.rows if r.note]
    return result


def _from_layers(result: LaunchResult) -> Callable[[str, float], str | None]:
    """The fix a value's finding takes from the layers when the derived file already sets
    the value needed (frame.layered_fix): never a delta the overlay already has."""

    def fix(name: str, want: float) -> str | None:
        if result.derived is None or not result.derived_path:
            return None
        return frame.layered_fix(
            result.launch, result.layers, result.stack, result.derived, result.derived_path,
            name, want,
        )  # fmt: skip

    return fix


def _unloaded_fix(result: LaunchResult) -> str | None:
    """The fix that loads the derived file, when the launch does not load it."""
    if not result.derived_path or any(ly.kind == "derived" for ly in result.layers):
        return None
    return frame.load_fix(result.launch, result.derived_path)


def _frame_and_needs(result: LaunchResult) -> None:
    """First: the derived file not loaded, or a frame parameter of it a later file changes
    (paramdiff/simulation/frame.py); then each value that needs what the backend does not
    simulate (paramdiff/simulation/capabilities.py), and the ESC telemetry question as a note."""
    launch, params, target = result.launch, result.params, result.derived_path
    for text, fix in frame.check(launch, result.layers, result.stack, target) if target else ():
        result.findings.append(LaunchFinding(text, fix))
    needs = capabilities.lacking(result.backend, launch.vehicle, params, _from_layers(result))
    for text, fix in needs:
        result.findings.append(LaunchFinding(text, fix))
    note = capabilities.esc_note(result.backend, launch.vehicle, params)
    if note:
        result.notes.append(note)


def _axis_failed(row: Row) -> bool:
    return row.failed and row.verdict != BLOCKED


def _held(result: LaunchResult, rows: list[Row]) -> list[Row]:
    why = capabilities.takeoff_blocked(result.backend, result.launch.vehicle, result.params)
    return hold_takeoff(rows, why)


def _json(
    inputs: LaunchInputs,
    result: LaunchResult,
    params: dict[str, float],
    model_ref: str | None,
    extra: list[Path],
) -> None:
    from paramdiff.simulation.geometry import check_model

    model = _model(inputs, model_ref, extra)
    if model is None:
        result.findings.append(
            LaunchFinding(
                "a JSON launch runs a Gazebo model, and the profile names none to verify it "
                "against",
                "list the model in target_models (or the launch's model:) in sources.yaml, or "
                "give --model FILE",
            )
        )
        return
    label, file, data, resolve_include = model
    sha = sha256_of(data)
    result.model, result.model_sha256 = label, sha

    def checked_with(values: dict[str, float]) -> ModelCheck:
        return check_model(
            data,
            file,
            resolve_include,  # type: ignore[arg-type]
            values,
            inputs.profile.joint_roles,
            result.launch.vehicle,
            inputs.metadata,
        )

    checked = checked_with(params)
    fix = _model_fix(inputs.overlay, label)
    cause = None
    if checked.findings and result.launch.vehicle == "ArduCopter":
        rechecked = lambda p: frozenset(map(str, checked_with(p).findings))  # noqa: E731
        cause = frame.model_frame(params, rechecked, result.launch, _from_layers(result))
    explained: frozenset[str] = frozenset()
    if cause is not None:  # one cause, one finding, its own fix
        result.findings.append(LaunchFinding(f"{label}: {cause[0]}", cause[1], label, sha))
        explained = cause[2]
    unloaded = _unloaded_fix(result)
    with_derived = _with_derived(result, checked, checked_with) if unloaded else None
    for f in (f for f in checked.findings if str(f) not in explained):
        cleared = with_derived is not None and str(f) not in with_derived
        own = unloaded if unloaded and cleared else fix
        result.findings.append(LaunchFinding(f"{label}: {f}{f.fix_text()}", own, label, sha))
    channels, placed = _as_moved(result, checked, data, file, resolve_include, label, sha)
    respond = gazebo_plugin.response(channels, placed, result.launch.vehicle == "ArduCopter")
    result.rows = _held(result, pilot_test(result.launch.vehicle, params, respond))
    for r in result.rows:
        if _axis_failed(r):
            result.findings.append(LaunchFinding(f"{label}: {r.finding}", fix, label, sha))
        elif r.note:
            result.notes.append(f"{label}: {r.note}")


def _model_fix(overlay: Overlay, label: str) -> str:
    return (
        f"fix the <control> blocks of {label} (jointName, multiplier sign), add a delta in "
        f"{overlay.file}, or acknowledge the finding there (acknowledged:)"
    )


def _with_derived(
    result: LaunchResult,
    checked: ModelCheck,
    checked_with: Callable[[dict[str, float]], ModelCheck],
) -> frozenset[str] | None:
    """The model findings left with the derived file's values on top of the launch's: the
    others follow from the launch not loading it, so loading it is their only fix."""
    if not checked.findings or result.derived is None:
        return None
    derived_values = {n: p.value for n, p in result.derived.file.params.items()}
    return frozenset(map(str, checked_with({**result.params, **derived_values}).findings))


def _as_moved(
    result: LaunchResult,
    checked: ModelCheck,
    data: bytes,
    file: str,
    resolve_include: object,
    label: str,
    sha: str,
) -> tuple[list[Channel], dict[int, Actuator]]:
    """The channels and their placed joints as the Thrusters their cmd_topics reach move them
    (the pilot test follows what really moves); a finding where that is not the jointName."""
    from paramdiff.parse.sdf_thruster import read_actuation
    from paramdiff.simulation.actuators import place
    from paramdiff.simulation.geometry import read_model

    channels, found = gazebo_plugin.follow_topics(checked.channels, read_actuation(data, file))
    fix_all = f"in {label}'s <control> blocks"
    for text, fix in found:
        result.findings.append(LaunchFinding(f"{label}: {text}", f"{fix} {fix_all}", label, sha))
    if not found:
        return checked.channels, checked.geometry.by_channel
    _, tree, to_frd = read_model(data, file, resolve_include)  # type: ignore[arg-type]
    placed, _ = place(channels, tree, to_frd)
    return channels, placed


def acknowledge(result: LaunchResult, acks: tuple[Acknowledgement, ...]) -> set[int]:
    """Move the findings an acknowledgement accepts (same launch or model, same text, same
    model bytes) to ``result.acknowledged``; the indexes of the acknowledgements used."""
    used: set[int] = set()
    kept = []
    for f in result.findings:
        for i, a in enumerate(acks):
            names = a.launch == result.name if a.launch else a.model == f.model
            if names and a.finding == f.text and a.sha256 == f.sha256:
                result.acknowledged.append((f, a))
                used.add(i)
                break
        else:
            kept.append(f)
    result.findings = kept
    return used


def verify_declared(inputs: LaunchInputs) -> list[LaunchResult]:
    """Every launch the profile declares, acknowledgements applied."""
    out = []
    for d in inputs.declared:
        result = verify_launch(inputs, d.name, d.launch, d.model)
        acknowledge(result, inputs.overlay.acknowledged)
        out.append(result)
    return out


def stale_acknowledgements(
    acknowledged: tuple[Acknowledgement, ...], results: list[LaunchResult]
) -> list[Acknowledgement]:
    """Acknowledgements no declared launch's finding matches any more."""
    used = {id(a) for r in results for _, a in r.acknowledged}
    return [a for a in acknowledged if id(a) not in used]


def adhoc(inputs: LaunchInputs, text: str, models: list[Path]) -> LaunchResult:
    """A launch given on the command line, against the derived file; only acknowledgements
    of a model (not of a declared launch) apply to it."""
    result = verify_launch(inputs, ADHOC, parse_launch(text), None, models)
    acknowledge(result, tuple(a for a in inputs.overlay.acknowledged if a.model))
    return result
