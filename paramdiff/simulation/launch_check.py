"""One launch of a profile checked end to end: what it loads, what runs it, where the sticks go.

``verify_launch`` takes a pin (``paramdiff.pin.Pin``: the pinned files and metadata) and the
derived file as read back, and returns a ``LaunchResult``: the layer stack, the backend, the
model findings (a Gazebo model's channels, or a built-in model's outputs and frame
parameters), the pilot-input rows, and which findings an overlay acknowledgement accepts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol

from paramdiff.comparison.sitl_layers import Layers, stack
from paramdiff.digests import sha256_of
from paramdiff.errors import ConfigError, InputError, echoed
from paramdiff.files import project_path
from paramdiff.model.source import Source
from paramdiff.overlay.file import Acknowledgement
from paramdiff.parse.launch import SIM_VEHICLE, DefaultsFile, Launch, file_kind, parse_launch
from paramdiff.simulation import builtin_models, capabilities, frame, gazebo_plugin
from paramdiff.simulation.physics import BUILT_IN, GAZEBO_LEGACY, JSON, Backend, resolve
from paramdiff.simulation.pilot_input import BLOCKED, Row, hold_takeoff, pilot_test

if TYPE_CHECKING:
    from paramdiff.config.roles import SourceSpec
    from paramdiff.config.sources import Config, Profile
    from paramdiff.model.metadata import Metadata
    from paramdiff.overlay.file import Overlay
    from paramdiff.parse.sdf import Channel
    from paramdiff.parse.sdf_paths import Resolver
    from paramdiff.simulation.actuators import Actuator
    from paramdiff.simulation.geometry import ModelCheck


class PinFiles(Protocol):
    """What verifying a launch reads of a pin (``paramdiff.pin.Pin`` has it; this package sits
    below the pin layer, so it names only what it uses)."""

    config: Config
    profile: Profile
    pin: str
    specs: dict[str, SourceSpec]

    def metadata(self) -> Metadata | None: ...

    def overlay(self) -> Overlay: ...

    def source(self, role: str) -> Source: ...

    def pinned_model(self, role: str) -> tuple[str, str, bytes, Resolver]: ...

    def derived_source(self) -> Source: ...

    def derived_model_bytes(self) -> tuple[bytes, Resolver] | None: ...


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


def resolve_layers(ctx: PinFiles, launch: Launch, derived: Source) -> list[Layer]:
    """Each file of the defaults list: a pinned frame file is its locked role, the profile's
    derived path is the derived file, any other path is that file on disk."""
    from paramdiff.parse.named_files import local_source

    target = ctx.profile.derived_path(ctx.pin)
    out = []
    for f in launch.files:
        kind, role = file_kind(ctx.specs, f, target)
        if kind == "derived":
            out.append(Layer(f.path, f.origin, "derived", derived))
            continue
        if role is not None:
            out.append(Layer(f.path, f.origin, "pinned", ctx.source(role)))
            continue
        if f.origin.startswith("frame"):
            raise ConfigError(
                f"launch {echoed(launch.text)} loads {echoed(f.path)} ({f.origin}), which profile "
                f"'{ctx.profile.name}' pin {ctx.pin} does not pin",
                f"add a role (repo ArduPilot/ardupilot, path {f.path}) to the pin in "
                "sources.yaml and run paramdiff fetch",
            )
        local = launch_file(ctx.config.root, launch, f)
        if not local.is_file():
            raise InputError(
                f"launch {echoed(launch.text)} loads {echoed(f.path)} ({f.origin}), which is "
                "neither pinned nor a file here",
                "pin it in sources.yaml, or give a path to an existing file",
            )
        out.append(Layer(f.path, f.origin, "local", local_source(local, role=f.path)))
    return out


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
    ctx: PinFiles, ref: str | None, extra: list[Path]
) -> tuple[str, str, bytes, object] | None:
    """(label, file, bytes, resolver) of the Gazebo model a JSON launch is verified against."""
    from paramdiff.parse.named_files import read_local
    from paramdiff.parse.sdf_paths import local_resolver

    if ref is None and extra:
        return extra[0].as_posix(), extra[0].as_posix(), read_local(extra[0]), local_resolver()
    if ref is None:
        # The profile's derived model first (#27): the model its own launches run.
        thrusters = ctx.profile.thrusters
        derived = [thrusters.model] if thrusters and thrusters.model else []
        targets = [*derived, *ctx.profile.target_models,
                   *(["sitl_models"] if "sitl_models" in ctx.specs else [])]  # fmt: skip
        ref = targets[0] if targets else None
    if ref is None:
        return None
    if ref in ctx.specs:
        _, file, data, resolve_include = ctx.pinned_model(ref)
        return ref, file, data, resolve_include
    thrusters = ctx.profile.thrusters
    if thrusters is not None and ref == thrusters.model:
        # The derived model as derive writes it (check holds the committed copy to it): a
        # fresh checkout's `derive` verifies its launches before the file exists.
        made = ctx.derived_model_bytes()
        if made is not None:
            return ref, ref, made[0], made[1]
    path = project_path(ctx.config.root, ref)  # a model path of sources.yaml: no link out
    return ref, ref, read_local(path), local_resolver()


def stacked(launch: Launch, layers: list[Layer]) -> Layers:
    """The launch's files stacked in load order: what it runs, last wins."""
    frame_roles = tuple(ly.source.role for ly in layers if ly.origin.startswith("frame"))
    label = launch.frame.frame if launch.frame else launch.model
    return stack([ly.source for ly in layers], label, frame_roles)


def launch_layers(ctx: PinFiles, text: str | None) -> tuple[Launch, Layers] | None:
    """The launch ``text`` (default: the profile's first declared one) and what it runs,
    over the derived file as read back; None when there is neither."""
    if text is None:
        if not ctx.profile.launches:
            return None
        text = ctx.profile.launches[0].command
    launch = parse_launch(text)
    return launch, stacked(launch, resolve_layers(ctx, launch, ctx.derived_source()))


def verify_launch(
    ctx: PinFiles,
    name: str,
    launch: Launch,
    derived: Source,
    model_ref: str | None = None,
    extra_models: list[Path] | None = None,
) -> LaunchResult:
    layers = resolve_layers(ctx, launch, derived)
    result = LaunchResult(name, launch, layers, stacked(launch, layers), resolve(launch.model))
    result.derived, result.derived_path = derived, ctx.profile.derived_path(ctx.pin)
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
    vehicle = ctx.profile.sitl_vehicle
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
    _frame_and_needs(ctx, result)
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
        _json(ctx, result, params, model_ref, extra_models or [])
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


def _frame_and_needs(ctx: PinFiles, result: LaunchResult) -> None:
    """First: the derived file not loaded, or a frame parameter of it a later file changes
    (paramdiff/simulation/frame.py); then each value that needs what the backend does not
    simulate (paramdiff/simulation/capabilities.py), and the ESC telemetry question as a note."""
    launch, params = result.launch, result.params
    target = ctx.profile.derived_path(ctx.pin)
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
    ctx: PinFiles,
    result: LaunchResult,
    params: dict[str, float],
    model_ref: str | None,
    extra: list[Path],
) -> None:
    from paramdiff.simulation.geometry import check_model

    model = _model(ctx, model_ref, extra)
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
            ctx.profile.joint_roles,
            result.launch.vehicle,
            ctx.metadata(),
        )

    checked = checked_with(params)
    fix = _model_fix(ctx, label)
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


def _model_fix(ctx: PinFiles, label: str) -> str:
    return (
        f"fix the <control> blocks of {label} (jointName, multiplier sign), add a delta in "
        f"{ctx.overlay().file}, or acknowledge the finding there (acknowledged:)"
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


def verify_declared(ctx: PinFiles, derived: Source) -> list[LaunchResult]:
    """Every launch the profile declares, acknowledgements applied."""
    out = []
    acks = ctx.overlay().acknowledged
    for d in ctx.profile.launches:
        result = verify_launch(ctx, d.name, parse_launch(d.command), derived, d.model)
        acknowledge(result, acks)
        out.append(result)
    return out


def stale_acknowledgements(ctx: PinFiles, results: list[LaunchResult]) -> list[Acknowledgement]:
    """Acknowledgements no declared launch's finding matches any more."""
    used = {id(a) for r in results for _, a in r.acknowledged}
    return [a for a in ctx.overlay().acknowledged if id(a) not in used]


def adhoc(ctx: PinFiles, text: str, models: list[Path]) -> LaunchResult:
    """A launch given on the command line, against the derived file; only acknowledgements
    of a model (not of a declared launch) apply to it."""
    result = verify_launch(ctx, ADHOC, parse_launch(text), ctx.derived_source(), None, models)
    acknowledge(result, tuple(a for a in ctx.overlay().acknowledged if a.model))
    return result
