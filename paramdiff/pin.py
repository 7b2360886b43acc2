"""One profile's pin: its specs, locked bytes, parsed sources, metadata and derived file.

Loading is explicit: each method says what it reads (``source(role)``, ``fetched(roles)``,
``derived()``, ``metadata()`` …) and memoises it for the run; an attribute (``profile``,
``pin``, ``specs``, ``config``) is a value already read. The jobs over a pin (fetch, derive,
report, layers, validate, history) are in ``paramdiff/jobs/``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

from paramdiff.comparison.classify import Classifier
from paramdiff.comparison.side_by_side import compare
from paramdiff.config.lock import require_entry
from paramdiff.config.roles import PARAM_FORMATS, SourceSpec
from paramdiff.config.sources import Profile
from paramdiff.errors import ConfigError
from paramdiff.fetch.engine import locked_bytes, materialize, verify_cached
from paramdiff.fetch.includes import pinned_includes
from paramdiff.fetch.parsed import load_metadata
from paramdiff.model.metadata import Metadata, firmware_of
from paramdiff.model.params import ParamFile
from paramdiff.model.source import Source
from paramdiff.parse.any import parse_any, parse_names
from paramdiff.parse.launch import launch_roles
from paramdiff.parse.param_text import parse_params
from paramdiff.parse.sdf import parse_sdf, read_channels
from paramdiff.parse.sdf_paths import repo_resolver
from paramdiff.project import Project
from paramdiff.render.sinks import join_lines

# The derive stage (overlay, frame layers, derived file, launches, model checks) is imported by
# the methods that run it: `compare three-way` and `fetch` use none of it, and it is ~20 ms of
# their imports (python -X importtime: simulation.launch_check 17 ms with render.launch_text,
# derive.derived 11 ms with overlay.file, 2026-12-02).
# Names the annotations use, not the code (and some would import a cycle).
if TYPE_CHECKING:
    from paramdiff.comparison.classify import Classifier
    from paramdiff.comparison.side_by_side import Comparison
    from paramdiff.comparison.sitl_layers import Layers, SitlRun
    from paramdiff.config.lock import Lock, LockEntry
    from paramdiff.derive.derived import Derived, Target
    from paramdiff.derive.derived_model import DerivedModel
    from paramdiff.fetch.engine import FetchedRole
    from paramdiff.overlay.file import Overlay
    from paramdiff.parse.sdf import Channel
    from paramdiff.parse.sdf_paths import Resolver
    from paramdiff.simulation.geometry import ModelCheck
    from paramdiff.simulation.launch_check import LaunchInputs, LaunchResult
    from paramdiff.simulation.thrust_curve import ThrustSummary

CALIBRATION_ROLE = "calibration"
# A pulled, freshly wiped SITL of the pin's firmware: what it runs before any file is added
FIRMWARE_DEFAULTS_ROLE = "firmware_defaults"
METADATA_FORMAT = "pdef"
DERIVED_MODEL_ROLE = "sitl_models"  # the pinned model the derived model is made from (#27)

T = TypeVar("T")


def once(method: Callable[[Pin], T]) -> Callable[[Pin], T]:
    """A method without arguments whose result is kept for the pin's life (the run)."""
    name = method.__name__

    @functools.wraps(method)
    def kept(pin: Pin) -> T:
        return pin.kept(name, functools.partial(method, pin))

    return kept


class Pin:
    """Everything about one profile's pin: specs, locked bytes, parsed sources, metadata."""

    def __init__(
        self, project: Project, profile: str | None, pin: str | None, lenient: bool = False
    ) -> None:
        self.project = project
        self.config = project.config()  # read here: a pin of no sources.yaml is no pin
        self.profile: Profile = self.config.profile(profile)
        self.pin, self.specs = self.profile.pin(pin)
        self._fetched: dict[str, FetchedRole] = {}
        self._entries: dict[str, LockEntry] = {}  # roles verified without keeping their bytes
        self._sources: dict[str, Source] = {}
        self.lenient = lenient  # --lenient: every source's bad lines become warnings
        self._classifier: Classifier | None = None
        self._model_checks: dict[str, ModelCheck] = {}
        self._stacked: dict[str, Layers] = {}  # frame -> its defaults (derive and layers share)
        self._memo: dict[str, Any] = {}  # what @once methods and kept() read, by name

    # -- bytes

    @once
    def lock(self) -> Lock | None:
        """sources.lock as this pin first read it (the project's, parsed once per run)."""
        return self.project.lock()

    def fetched(self, roles: list[str]) -> dict[str, FetchedRole]:
        """These roles' bytes, verified against the lock: from the cache, else fetched (through
        the project's transports; refused offline). Once per role per pin."""
        missing = [r for r in roles if r not in self._fetched]
        if missing:
            self._fetched.update(
                materialize(
                    self.profile,
                    self.pin,
                    self.project.cache(),
                    self.project.transports(),
                    lock=self.lock(),
                    roles=missing,
                    includes=pinned_includes,
                    root=self.config.root,
                )
            )
        return {r: self._fetched[r] for r in roles if r in self._fetched}

    def verified_roles(self) -> set[str]:
        """The roles whose locked bytes this pin has verified in this run (read, or hashed)."""
        return set(self._fetched) | set(self._entries)

    def locked_entry(self, role: str) -> LockEntry:
        """``role``'s lock entry, its bytes verified in the cache (or fetched) once per run;
        a metadata file's are hashed as read, not kept (see engine.verify_cached)."""
        if role in self._fetched:
            return self._fetched[role].entry
        if role not in self._entries:
            entry = None
            if self.spec(role).format == METADATA_FORMAT:
                entry = verify_cached(
                    self.profile, self.pin, self.project.cache(), self.lock(), role
                )
            self._entries[role] = entry or self.fetched([role])[role].entry
        return self._entries[role]

    def spec(self, role: str) -> SourceSpec:
        if role not in self.specs:
            raise ConfigError(
                f"pin '{self.pin}' of profile '{self.profile.name}' has no role '{role}'",
                f"add it to sources.yaml or use one of: {', '.join(self.specs)}",
            )
        return self.specs[role]

    # -- parsed

    def metadata_roles(self) -> list[str]:
        return [r for r, s in self.specs.items() if s.format == METADATA_FORMAT]

    @once
    def metadata_by_firmware(self) -> dict[str, Metadata]:
        out: dict[str, Metadata] = {}

        # One role at a time: hashing two cached files needs no thread pool (nor its import).
        for role in self.metadata_roles():
            spec = self.specs[role]
            firmware = spec.firmware or self._firmware_from_path(spec.path) or self.pin
            sha256 = require_entry(self.lock(), self.profile.name, self.pin, spec).sha256

            # read only when the parsed entry is missing
            read = functools.partial(
                locked_bytes,
                self.profile,
                self.pin,
                self.project.cache(),
                self.project.transports(),
                self.lock(),
                role,
            )
            out[firmware] = self.project.of_content(
                ("metadata", sha256, spec.path, firmware),
                functools.partial(
                    load_metadata, self.project.cache(), sha256, read, spec.path, firmware
                ),
            )
            self.locked_entry(role)  # the bytes verified (fetched, or hashed) before any use
        return out

    @staticmethod
    def _firmware_from_path(path: str) -> str | None:
        # ParameterRepository lays files out as <Vehicle>-<major.minor>/apm.pdef.json
        head = path.split("/", 1)[0]
        if "-" in head:
            return head.rsplit("-", 1)[1]
        return None

    @once
    def metadata(self) -> Metadata | None:
        """The pin's own metadata (the firmware the hardware runs)."""
        by = self.metadata_by_firmware()
        return by.get(self.pin) or next(iter(by.values()), None)

    def metadata_for(self, firmware: str | None) -> Metadata | None:
        by = self.metadata_by_firmware()
        if firmware and firmware in by:
            return by[firmware]
        return self.metadata()

    @once
    def calibration_names(self) -> frozenset[str]:
        if CALIBRATION_ROLE not in self.specs:
            return frozenset()

        f = self.fetched([CALIBRATION_ROLE])[CALIBRATION_ROLE]
        return frozenset(parse_names(f.data, f.spec.path))

    def source(self, role: str) -> Source:
        if role in self._sources:
            return self._sources[role]

        spec = self.spec(role)
        f = self.fetched([role])[role]

        def read_include(path: str) -> bytes:
            return f.includes[path]

        lenient = spec.lenient or self.lenient
        joint_roles = self.profile.joint_roles
        if spec.format == "sdf":
            parse = functools.partial(parse_sdf, f.data, spec.path, joint_roles)
        else:
            parse = functools.partial(
                parse_any,
                f.data,
                spec.path,
                spec.format,
                lenient=lenient,
                joint_roles=joint_roles,
                read_include=read_include,
            )
        # The same locked bytes (and includes) read the same way: parsed once per run, not
        # once per pin; a parsed file is never changed after its parse (derived_source
        # parses its own).
        key = (f.entry.sha256, f.entry.includes, spec.path, spec.format, lenient)
        parsed = self.project.of_content(("source", *key, *sorted(joint_roles.items())), parse)
        firmware = spec.firmware or firmware_of(parsed.header.get("Version"))
        src = Source(
            role=role,
            file=parsed,
            metadata=self.metadata_for(firmware),
            repo=spec.repo,
            commit=f.entry.commit,
            path=spec.path,
            sha256=f.entry.sha256,
            lenient=spec.lenient,
            declared_version=spec.firmware,
            includes=f.entry.includes,
        )
        self._sources[role] = src
        return src

    def source_meta(self, role: str) -> Source:
        """A role that is not a parameter set (metadata, name list): identity only."""

        spec = self.spec(role)
        entry = self.locked_entry(role)
        return Source(
            role=role,
            file=ParamFile(file=spec.path, format=spec.format),
            repo=spec.repo,
            commit=entry.commit,
            path=spec.path,
            sha256=entry.sha256,
        )

    def classifier(self, extra: tuple[Metadata, ...] = ()) -> Classifier:
        """One classifier per pin (it caches every name's category); ``extra`` metadata
        (another pin's) makes a separate one."""
        if not extra and self._classifier is not None:
            return self._classifier

        made = Classifier(
            categories=self.config.categories,
            calibration_names=self.calibration_names(),
            script_params=self.profile.script_params,
            metadata=(*self.metadata_by_firmware().values(), *extra),
        )
        if not extra:
            self._classifier = made
        return made

    def compare(self, roles: list[str]) -> Comparison:
        """The aligned table of these roles, each with its own firmware's metadata."""

        sources = [self.source(r) for r in roles]
        return compare(sources, self.classifier(), self.metadata())

    # -- the pipeline's functions, wired with this pin's values

    @once
    def overlay(self) -> Overlay:
        profile = self.profile
        if not profile.overlay or not profile.derived:
            raise ConfigError(
                f"profile '{profile.name}' declares no overlay/derived path",
                "add 'overlay:' and 'derived:' to the profile in sources.yaml",
            )

        from paramdiff.overlay.file import parse_overlay, read_overlay

        # both BlueBoat pins' overlay: its bytes read for each, parsed once per run
        data = read_overlay(self.config.root, profile.overlay)
        return self.project.of_content(
            ("overlay", profile.overlay, data),
            functools.partial(parse_overlay, data, profile.overlay),
        )

    def frame_defaults(self, frame: str | None = None) -> Layers | None:
        """The files sim_vehicle.py loads before the derived file for ``frame`` (default: the
        profile's sitl_frame), stacked; None when the profile names no SITL frame."""
        frame = frame or self.profile.sitl_frame
        if frame is None:
            return None
        if frame not in self.profile.frames:
            raise ConfigError(
                f"profile '{self.profile.name}' has no frame '{frame}'",
                f"use one of: {', '.join(self.profile.frames) or '(none declared)'}, or declare "
                "frames in sources.yaml",
            )
        if frame not in self._stacked:
            roles = self.profile.frames[frame]
            from paramdiff.comparison.sitl_layers import stack

            self._stacked[frame] = stack([self.source(r) for r in roles], frame, roles)
        return self._stacked[frame]

    def derive_target(self) -> Target:

        inputs = [self.source_meta(r) for r in self.specs if r == CALIBRATION_ROLE]
        inputs += [self.source_meta(r) for r in self.metadata_roles()]
        from paramdiff.derive.derived import Target

        return Target(
            profile=self.profile.name,
            pin=self.pin,
            path=self.profile.derived_path(self.pin) or "",
            inputs=tuple(inputs),
            locked=tuple(self._locked_inputs()),
            vehicle=self.profile.sitl_vehicle,
            frame=self.profile.sitl_frame,
        )

    def _locked_inputs(self) -> Iterator[tuple[str, Source]]:
        """(use, source) for every role but the overlay's base: what the derived file was
        compared or checked against, the frame defaults, the metadata, the calibration list."""
        profile = self.profile
        base = self.overlay().base
        for role, spec in self.specs.items():
            frames = [f for f, roles in profile.frames.items() if role in roles]
            if role == base:
                continue
            if spec.format == METADATA_FORMAT:
                use = "metadata"
            elif role == CALIBRATION_ROLE:
                use = "categories"
            elif role == FIRMWARE_DEFAULTS_ROLE:
                use = "firmware defaults"
            elif frames:
                use = f"frame defaults, {' and '.join(frames)}"
            elif role in self._launch_roles():
                use = "launch defaults"
            else:
                use = "checked" if role in profile.target_models else "compared"
            parsed = spec.format in PARAM_FORMATS
            yield use, self.source(role) if parsed else self.source_meta(role)

    @once
    def _launch_roles(self) -> set[str]:

        return launch_roles(self.specs, [d.command for d in self.profile.launches])

    @once
    def _built(self) -> Derived:
        """The derived file's values and provenance, before its header's launch line."""

        overlay = self.overlay()
        from paramdiff.derive.derived import build

        return build(
            self.source(overlay.base),
            overlay,
            self.classifier(),
            self.metadata(),
            self.frame_defaults(),
            self.derive_target(),
        )

    @once
    def derived(self) -> Derived:
        built = self._built()
        if not self.profile.launches:
            return built
        # The header's "Load it with" line: the first declared launch check verifies.
        from paramdiff.render.launch_text import load_line, load_model

        results = self.launch_results()
        return replace(
            built,
            launches_declared=True,
            load_with=load_line(results),
            load_model=load_model(results),
        )

    @once
    def launch_results(self) -> list[LaunchResult]:
        """Every declared launch verified against the derived file's values as every loader
        reads them back (render.derived_file.values_source; the header, whose launch line these
        results choose, changes no value, so the file need not be rendered first)."""
        if not self.profile.launches:
            return []

        from paramdiff.render.derived_file import values_source
        from paramdiff.simulation.launch_check import verify_declared

        return verify_declared(self._launch_inputs(values_source(self._built())))

    def launch_inputs(self, texts: Sequence[str] = (), models_given: bool = False) -> LaunchInputs:
        """What verifying the declared launches and ``texts`` (a command line's) reads, over
        the derived file as read back (``models_given``: the command line names the model)."""
        return self._launch_inputs(self.derived_source(), texts, models_given)

    def layers_inputs(self, texts: Sequence[str] = ()) -> LaunchInputs:
        """What the defaults lists of the declared launches and ``texts`` read (their layers:
        `verify` compares a running vehicle with them), without any model."""
        return self._launch_inputs(self.derived_source(), texts, with_models=False)

    def _launch_inputs(
        self,
        derived: Source,
        texts: Sequence[str] = (),
        models_given: bool = False,
        with_models: bool = True,
    ) -> LaunchInputs:
        from paramdiff.parse.launch import parse_launch
        from paramdiff.simulation.launch_check import (
            LaunchInputs,
            PinnedModel,
            declared_launches,
            needs,
        )

        profile = self.profile
        declared = declared_launches(profile)
        launches = [(d.launch, d.model) for d in declared]
        launches += [(parse_launch(text), None) for text in texts]
        roles, refs = needs(
            profile, self.specs, profile.derived_path(self.pin), launches, models_given
        )
        models = {}
        for ref in sorted(refs) if with_models else ():
            if ref in self.specs:
                _, file, data, resolve = self.pinned_model(ref)
                models[ref] = PinnedModel(file, data, resolve)
            elif profile.thrusters is not None and ref == profile.thrusters.model:
                made = self.derived_model_bytes()
                if made is not None:
                    models[ref] = PinnedModel(ref, *made)
        return LaunchInputs(
            root=self.config.root,
            profile=profile,
            pin=self.pin,
            specs=self.specs,
            derived=derived,
            metadata=self.metadata(),
            overlay=self.overlay(),
            declared=declared,
            sources={role: self.source(role) for role in sorted(roles)},
            models=models,
        )

    @once
    def derived_lines(self) -> list[str]:
        """The derived file's lines (params format), rendered and read back by the loaders
        once; ``check`` and ``derived_source`` share them."""

        from paramdiff.render.derived_file import render

        return list(render(self.derived()))

    @once
    def derived_source(self) -> Source:
        """The derived file read back as ArduPilot reads it, with its own line numbers.

        Rendered and parsed once; validate, layers and the report all use this one.
        """

        d = self.derived()
        lines = self.derived_lines()
        parsed = parse_params(join_lines(lines).encode(), d.target, "params")
        # Each row also says where its value came from (the file's provenance comments).
        from paramdiff.render.derived_file import read_provenance

        where = read_provenance(lines)
        parsed.params = {
            n: p._replace(note=f"from {where[n]}") if n in where else p
            for n, p in parsed.params.items()
        }
        return Source(role=d.target, file=parsed)

    @once
    def sitl_run(self) -> SitlRun | None:
        frame_defaults = self.frame_defaults()
        if frame_defaults is None:
            return None

        from paramdiff.comparison.sitl_layers import sitl_run

        return sitl_run(
            frame_defaults,
            self.derived_source(),
            self.source("hardware").file.params,
            self.classifier(),
            self.overlay().excluded_categories(),
        )

    def model_channels(self, role: str = "sitl_models") -> list[Channel]:

        models = self.fetched([role])[role]
        return read_channels(models.data, models.spec.path)[0]

    def pinned_model(self, role: str) -> tuple[str, str, bytes, Resolver]:
        """A pinned sdf role: label, repository path, bytes, and its locked includes (one
        resolver per role, so what is read through it is read once: geometry.read_model)."""

        def made() -> tuple[str, str, bytes, Resolver]:
            f = self.fetched([role])[role]
            label = f"{role} ({f.spec.repo}:{f.spec.path})"
            resolver = repo_resolver(f.spec.path, f.includes)
            return label, f.spec.path, f.data, resolver

        def shared() -> tuple[str, str, bytes, Resolver]:
            # One resolver for the same locked model in every pin of the run, so geometry's
            # read_model (keyed by it) reads the BlueBoat's model once, not once per pin.
            entry = self.fetched([role])[role].entry
            key = ("pinned_model", role, self.spec(role).repo, entry.sha256, entry.includes)
            return self.project.of_content((*key, self.spec(role).path), made)

        return self.kept(f"pinned_model {role}", shared)

    @once
    def sitl_params(self) -> dict[str, float]:
        """What SITL runs: the frame defaults, then the derived file (last wins)."""

        from paramdiff.simulation.geometry import sitl_params

        return sitl_params(self.derived().params(), self.sitl_run())

    def check_model(self, data: bytes, file: str, resolve: Resolver) -> ModelCheck:
        """One model's channels, read from its geometry, against what SITL runs."""

        from paramdiff.simulation.geometry import check_model

        return check_model(
            data,
            file,
            resolve,
            self.sitl_params(),
            self.profile.joint_roles,
            self.profile.sitl_vehicle,
            self.metadata(),
        )

    def kept(self, key: str, make: Callable[[], T]) -> T:
        """``make()``, made once per pin under ``key``: a job's memo of what it read for this
        pin (jobs/fidelity.py keeps each model's actuator fidelity here)."""
        if key not in self._memo:
            self._memo[key] = make()
        value: T = self._memo[key]
        return value

    def pinned_check(self, role: str) -> ModelCheck:
        """A pinned model role checked against what SITL runs, once per pin: the report and
        `check`'s target models read the same model."""
        if role not in self._model_checks:
            _, file, data, resolve = self.pinned_model(role)
            self._model_checks[role] = self.check_model(data, file, resolve)
        return self._model_checks[role]

    # The model side (#27): the thruster data at the profile's voltage, and the derived model.
    def thrust_summary(self) -> ThrustSummary | None:
        """The profile's thruster data (``thrusters:``) at its voltage, or None without it."""
        thrusters = self.profile.thrusters
        if thrusters is None:
            return None

        from paramdiff.fetch.thrust_sheets import thrust_curve
        from paramdiff.simulation.thrust_curve import summarize

        def made() -> ThrustSummary:
            f = self.fetched([thrusters.role])[thrusters.role]
            cache, sha256 = self.project.cache(), f.entry.sha256  # a workbook parsed once
            return summarize(thrust_curve(cache, sha256, f.data, f.spec.path, thrusters.voltage))

        return self.kept("thrust_summary", made)

    def derived_model(self) -> DerivedModel | None:
        """The pinned model (role sitl_models) rewritten from the derived parameters and the
        thruster data, when the profile names a derived model path."""
        thrusters = self.profile.thrusters
        summary = self.thrust_summary()
        if thrusters is None or thrusters.model is None or summary is None:
            return None

        from paramdiff.derive.derived_model import derive_model

        def made() -> DerivedModel:
            label, file, data, resolve = self.pinned_model(DERIVED_MODEL_ROLE)
            # _built: the derived file's values (derived() verifies the launches, which run
            # this model).
            return derive_model(data, file, resolve, self._built().params(), summary, label)

        return self.kept("derived_model", made)

    def derived_model_bytes(self) -> tuple[bytes, Resolver] | None:
        """The derived model's bytes and the pinned model's include resolver (its launches)."""
        model = self.derived_model()
        if model is None:
            return None
        return model.data, self.pinned_model(DERIVED_MODEL_ROLE)[3]
