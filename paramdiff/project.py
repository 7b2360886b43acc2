"""A project checkout: sources.yaml + sources.lock + a cache, and the files of one pin."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config.roles import PARAM_FORMATS, ROLE_RE, SourceSpec
from .config.sources import Config, Profile, load_config
from .errors import ConfigError, DriftError, UsageError
from .model.metadata import Metadata, firmware_of
from .model.params import ParamFile
from .model.source import Source

# Everything else is imported where it is used: a command loads only the stages, renderers
# and transports it runs (the fetch stack only when something is fetched), so `compare
# three-way` on a warm cache never imports the report, the SVG or requests.
if TYPE_CHECKING:
    from .config.lock import Lock, LockEntry
    from .config.overlay import Overlay
    from .launch.verify import LaunchResult
    from .outputs import ProjectFiles
    from .parse.sdf import Channel
    from .parse.sdf_paths import Resolver
    from .render.report_inputs import ReportInputs
    from .render.sinks import Output
    from .stages.classify import Classifier
    from .stages.compare import Comparison
    from .stages.derive import Derived, Target
    from .stages.fidelity import Fidelity
    from .stages.geometry import ModelCheck
    from .stages.layers import Flag, Layers, SitlRun
    from .upstream.cache import Cache
    from .upstream.engine import FetchedRole, TransportChoice

CALIBRATION_ROLE = "calibration"
# A pulled, freshly wiped SITL of the pin's firmware: what it runs before any file is added
FIRMWARE_DEFAULTS_ROLE = "firmware_defaults"
METADATA_FORMAT = "pdef"


def blueos_includes(spec: SourceSpec, path: str, data: bytes) -> list[str]:
    """Include finder for fetch: BlueOS include-format files and SDF models (``<include>
    model://NAME``) pull in others at the same commit."""
    if spec.format == "sdf":
        from .parse.sdf_paths import repo_include_paths

        return repo_include_paths(path, data)
    if spec.format != "blueos":
        return []
    from .parse.params import include_paths

    return include_paths(data, path)


@dataclass(eq=False)  # no slots: config, cache and the transports are cached_property
class Options:
    """How to reach files: where the project is, the cache, and the transport choice."""

    root: Path = field(default_factory=Path.cwd)
    cache_dir: Path | None = None
    mirror: str | None = None
    transport: str | None = None
    git_base: str | None = None
    offline: bool = False
    progress: Callable[[str], None] | None = None  # told of each wait before a retry (stderr)
    _lock_read: tuple[tuple[int, ...] | None, Lock | None] | None = field(
        default=None, init=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.root is None:  # the command line's "not given"
            self.root = Path.cwd()

    def replace(self, **changes: Any) -> Options:
        """These options with ``changes``: nothing that was read or made through them (config,
        cache, lock, transports) is shared."""
        return dataclasses.replace(self, **changes)

    @cached_property
    def cache(self) -> Cache:
        from .upstream.cache import Cache, default_cache_dir

        return Cache(self.cache_dir or default_cache_dir())

    @cached_property
    def _transport_choice(self) -> TransportChoice:
        from .upstream.engine import TransportChoice

        # One choice per run, so a mirror's MANIFEST.json is read once, not per batch.
        return TransportChoice.from_env(
            self.cache.root,
            self.mirror,
            override=self.transport,
            git_base=self.git_base,
            progress=self.progress,
        )

    def transports(self) -> TransportChoice | None:
        return None if self.offline else self._transport_choice

    @cached_property
    def config(self) -> Config:
        return load_config(self.root, memo=self.cache)

    def project_files(self) -> ProjectFiles:
        """What a user-named output (-o) may not overwrite: the project's inputs and outputs
        (every profile's overlay, models, derived files, reports and top views, per pin),
        its git folders and the cache (paramdiff/outputs.py)."""
        from .config.lock import LOCK_FILE
        from .outputs import ProjectFiles, git_folders
        from .render.report_model import svg_path

        config = self.config
        files = {
            "sources.yaml": "the project's sources.yaml, an input paramdiff reads",
            LOCK_FILE: f"the project's {LOCK_FILE}, an input paramdiff reads",
            f".{LOCK_FILE}.lock": f"{LOCK_FILE}'s lock file",
            # what `paramdiff init` writes beside them
            ".gitignore": "the project's .gitignore",
            ".pre-commit-config.yaml": "the project's pre-commit configuration",
            ".pre-commit-hooks.yaml": "the project's pre-commit hooks file",
        }
        for name, profile in config.profiles.items():
            if profile.overlay:
                files.setdefault(profile.overlay, f"profile {name}'s overlay, an input")
            for model in profile.target_models:
                if not ROLE_RE.match(model):  # a path in the repository, not a role
                    files.setdefault(model, f"profile {name}'s model {model}, an input")
            for pin, specs in profile.pins.items():
                for spec in specs.values():
                    if spec.is_local:  # a field dump: an input, pinned by its digests
                        files.setdefault(spec.path, f"profile {name}'s {spec.role} file, an input")
                derived = profile.derived_path(pin)
                if derived:
                    pinned = f" for pin {pin}" if profile.derived_is_per_pin() else ""
                    files.setdefault(derived, f"profile {name}'s derived file{pinned}")
                report = profile.report_path(pin)
                if report:
                    files.setdefault(report, f"profile {name}'s report for pin {pin}")
                    files.setdefault(svg_path(report), f"profile {name}'s top view for pin {pin}")
        folders = {
            **git_folders(config.root),
            ".github": "inside the project's .github folder (workflows)",
            str(Path(os.path.abspath(self.cache.root))): "inside paramdiff's cache directory",
        }
        return ProjectFiles(config.root, files, folders)

    @property
    def lock(self) -> Lock | None:
        """sources.lock, parsed once per run (``check`` shares it between profiles) and again
        only when the file changed on disk (a ``fetch`` in the same process)."""
        from .config.lock import LOCK_FILE, read_lock

        try:
            st = (self.config.root / LOCK_FILE).stat()
            key: tuple[int, ...] | None = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            key = None
        if key is None or self._lock_read is None or self._lock_read[0] != key:
            self._lock_read = (key, read_lock(self.config.root, memo=self.cache))
        return self._lock_read[1]


class PinContext:
    """Everything about one profile's pin: specs, locked bytes, parsed sources, metadata."""

    def __init__(
        self, options: Options, profile: str | None, pin: str | None, lenient: bool = False
    ) -> None:
        self.options = options
        self.config = options.config
        self.profile: Profile = self.config.profile(profile)
        self.pin, self.specs = self.profile.pin(pin)
        self._fetched: dict[str, FetchedRole] = {}
        self._entries: dict[str, LockEntry] = {}  # roles verified without keeping their bytes
        self._sources: dict[str, Source] = {}
        self.lenient = lenient  # --lenient: every source's bad lines become warnings
        self._classifier: Classifier | None = None
        self._model_checks: dict[str, ModelCheck] = {}
        self._fidelities: dict[str, Fidelity] = {}
        self._stacked: dict[str, Layers] = {}  # frame -> its defaults (derive and layers share)

    # -- bytes

    @cached_property
    def lock(self) -> Lock | None:
        return self.options.lock

    def fetched(self, roles: list[str]) -> dict[str, FetchedRole]:
        missing = [r for r in roles if r not in self._fetched]
        if missing:
            from .upstream.engine import materialize

            self._fetched.update(
                materialize(
                    self.profile,
                    self.pin,
                    self.options.cache,
                    self.options.transports(),
                    lock=self.lock,
                    roles=missing,
                    includes=blueos_includes,
                    root=self.config.root,
                )
            )
        return {r: self._fetched[r] for r in roles if r in self._fetched}

    def locked_entry(self, role: str) -> LockEntry:
        """``role``'s lock entry, its bytes verified in the cache (or fetched) once per run;
        a metadata file's are hashed as read, not kept (see engine.verify_cached)."""
        if role in self._fetched:
            return self._fetched[role].entry
        if role not in self._entries:
            entry = None
            if self.spec(role).format == METADATA_FORMAT:
                from .upstream.engine import verify_cached

                entry = verify_cached(self.profile, self.pin, self.options.cache, self.lock, role)
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

    @cached_property
    def metadata_by_firmware(self) -> dict[str, Metadata]:
        out: dict[str, Metadata] = {}
        from .config.lock import require_entry
        from .upstream.parsed import load_metadata

        # One role at a time: hashing two cached files needs no thread pool (nor its import).
        for role in self.metadata_roles():
            spec = self.specs[role]
            firmware = spec.firmware or self._firmware_from_path(spec.path) or self.pin
            sha256 = require_entry(self.lock, self.profile.name, self.pin, spec).sha256

            def read(role: str = role) -> bytes:  # only when the parsed entry is missing
                return self.fetched([role])[role].data

            out[firmware] = load_metadata(self.options.cache, sha256, read, spec.path, firmware)
            self.locked_entry(role)  # the bytes verified (fetched, or hashed) before any use
        return out

    @staticmethod
    def _firmware_from_path(path: str) -> str | None:
        # ParameterRepository lays files out as <Vehicle>-<major.minor>/apm.pdef.json
        head = path.split("/", 1)[0]
        if "-" in head:
            return head.rsplit("-", 1)[1]
        return None

    @property
    def metadata(self) -> Metadata | None:
        """The pin's own metadata (the firmware the hardware runs)."""
        by = self.metadata_by_firmware
        return by.get(self.pin) or next(iter(by.values()), None)

    def metadata_for(self, firmware: str | None) -> Metadata | None:
        by = self.metadata_by_firmware
        if firmware and firmware in by:
            return by[firmware]
        return self.metadata

    @cached_property
    def calibration_names(self) -> frozenset[str]:
        if CALIBRATION_ROLE not in self.specs:
            return frozenset()
        from .parse.any import parse_names

        f = self.fetched([CALIBRATION_ROLE])[CALIBRATION_ROLE]
        return frozenset(parse_names(f.data, f.spec.path))

    def source(self, role: str) -> Source:
        if role in self._sources:
            return self._sources[role]
        from .parse.any import parse_any

        spec = self.spec(role)
        f = self.fetched([role])[role]

        def read_include(path: str) -> bytes:
            return f.includes[path]

        if spec.format == "sdf":
            parsed = self._parse_model(f)
        else:
            parsed = parse_any(
                f.data,
                spec.path,
                spec.format,
                lenient=spec.lenient or self.lenient,
                joint_roles=self.profile.joint_roles,
                read_include=read_include,
            )
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

    def _parse_model(self, f: FetchedRole) -> ParamFile:
        from .parse.sdf import parse_sdf

        return parse_sdf(f.data, f.spec.path, self.profile.joint_roles)

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
        from .stages.classify import Classifier

        made = Classifier(
            categories=self.config.categories,
            calibration_names=self.calibration_names,
            script_params=self.profile.script_params,
            metadata=(*self.metadata_by_firmware.values(), *extra),
        )
        if not extra:
            self._classifier = made
        return made

    def compare(self, roles: list[str]) -> Comparison:
        """The aligned table of these roles, each with its own firmware's metadata."""
        from .stages.compare import compare

        sources = [self.source(r) for r in roles]
        return compare(sources, self.classifier(), self.metadata)

    # -- stages, wired with this pin's values

    @cached_property
    def overlay(self) -> Overlay:
        profile = self.profile
        if not profile.overlay or not profile.derived:
            raise ConfigError(
                f"profile '{profile.name}' declares no overlay/derived path",
                "add 'overlay:' and 'derived:' to the profile in sources.yaml",
            )
        from .config.overlay import load_overlay

        return load_overlay(self.config.root, profile.overlay, memo=self.options.cache)

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
            from .stages.layers import stack

            roles = self.profile.frames[frame]
            self._stacked[frame] = stack([self.source(r) for r in roles], frame, roles)
        return self._stacked[frame]

    def derive_target(self) -> Target:
        from .stages.derive import Target

        inputs = [self.source_meta(r) for r in self.specs if r == CALIBRATION_ROLE]
        inputs += [self.source_meta(r) for r in self.metadata_roles()]
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
        base = self.overlay.base
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
            elif role in self._launch_roles:
                use = "launch defaults"
            else:
                use = "checked" if role in profile.target_models else "compared"
            parsed = spec.format in PARAM_FORMATS
            yield use, self.source(role) if parsed else self.source_meta(role)

    @cached_property
    def _launch_roles(self) -> set[str]:
        from .parse.launch import launch_roles

        return launch_roles(self.specs, [d.command for d in self.profile.launches])

    @cached_property
    def derived(self) -> Derived:
        from .stages.derive import build

        overlay = self.overlay
        derived = build(
            self.source(overlay.base),
            overlay,
            self.classifier(),
            self.metadata,
            self.frame_defaults(),
            self.derive_target(),
        )
        if self.profile.launches:
            # The header's "Load it with" line: the first declared launch check verifies.
            from .render.launch import load_line

            derived.launches_declared = True
            derived.load_with = load_line(self, derived)
        return derived

    @cached_property
    def launch_results(self) -> list[LaunchResult]:
        """Every declared launch verified against the derived file as read back."""
        if not self.profile.launches:
            return []
        from .launch.verify import verify_declared

        return verify_declared(self, self.derived_source)

    def minimal_derived(self) -> Derived:
        """The derived file without what the launch runs anyway: the pin's
        ``firmware_defaults`` role (a pulled, freshly wiped SITL), then the frame's defaults."""
        if FIRMWARE_DEFAULTS_ROLE not in self.specs:
            raise ConfigError(
                f"pin '{self.pin}' of profile '{self.profile.name}' has no "
                f"'{FIRMWARE_DEFAULTS_ROLE}' role, so --minimal does not know what runs anyway",
                "pull a freshly wiped SITL of this firmware (sim_vehicle.py -w …; paramdiff pull "
                "tcp:127.0.0.1:5760 -o field/defaults.params), commit it and add it as role "
                f"'{FIRMWARE_DEFAULTS_ROLE}: {{file: field/defaults.params}}'",
            )
        from .stages.derive import minimal
        from .stages.running import runs_anyway

        self._same_firmware(self.source(FIRMWARE_DEFAULTS_ROLE), self.source(self.overlay.base))
        defaults = self.source(FIRMWARE_DEFAULTS_ROLE).file.params.values()
        baseline = runs_anyway(defaults, self.frame_defaults())
        return minimal(self.derived, baseline, FIRMWARE_DEFAULTS_ROLE)

    @staticmethod
    def _same_firmware(defaults: Source, base: Source) -> None:
        """Defaults pulled off another firmware or vehicle would drop the wrong lines."""
        for key, of in (("Version", firmware_of), ("Vehicle", str.casefold)):
            a, b = defaults.file.header.get(key), base.file.header.get(key)
            if a and b and of(a) != of(b):
                raise ConfigError(
                    f"{FIRMWARE_DEFAULTS_ROLE} is from {key.lower()} {a}, the base "
                    f"{base.role} from {b}: its defaults are not what this firmware runs",
                    "pull a freshly wiped SITL of the base's firmware and vehicle",
                    file=defaults.path,
                )

    @cached_property
    def derived_lines(self) -> list[str]:
        """The derived file's lines (params format), rendered and read back by the loaders
        once; ``check`` and ``derived_source`` share them."""
        from .render.params import render

        return list(render(self.derived))

    @cached_property
    def derived_source(self) -> Source:
        """The derived file read back as ArduPilot reads it, with its own line numbers.

        Rendered and parsed once; validate, layers and the report all use this one.
        """
        from .parse.params import parse_params
        from .render.params import read_provenance
        from .render.sinks import join_lines

        d = self.derived
        lines = self.derived_lines
        parsed = parse_params(join_lines(lines).encode(), d.target, "params")
        # Each row also says where its value came from (the file's provenance comments).
        where = read_provenance(lines)
        parsed.params = {
            n: p._replace(note=f"from {where[n]}") if n in where else p
            for n, p in parsed.params.items()
        }
        return Source(role=d.target, file=parsed)

    @cached_property
    def sitl_run(self) -> SitlRun | None:
        frame_defaults = self.frame_defaults()
        if frame_defaults is None:
            return None
        from .stages.layers import sitl_run

        return sitl_run(
            frame_defaults,
            self.derived_source,
            self.source("hardware").file.params,
            self.classifier(),
            self.overlay.excluded_categories(),
        )

    def model_channels(self, role: str = "sitl_models") -> list[Channel]:
        from .parse.sdf import read_channels

        models = self.fetched([role])[role]
        return read_channels(models.data, models.spec.path)[0]

    def acknowledged_actuators(self, role: str) -> set[str]:
        """The ids of the pinned model's actuator findings an overlay acknowledgement accepts
        (the report marks them; check passes them)."""
        from .stages.fidelity import acknowledgement_of

        acks = self.overlay.acknowledged
        return {
            f.id
            for f in self.pinned_fidelity(role).findings
            if acknowledgement_of(acks, role, f) is not None
        }

    def pinned_model(self, role: str) -> tuple[str, str, bytes, Resolver]:
        """A pinned sdf role: label, repository path, bytes, and its locked includes."""
        from .parse.sdf_paths import repo_resolver

        f = self.fetched([role])[role]
        label = f"{role} ({f.spec.repo}:{f.spec.path})"
        return label, f.spec.path, f.data, repo_resolver(f.spec.path, f.includes)

    @cached_property
    def sitl_params(self) -> dict[str, float]:
        """What SITL runs: the frame defaults, then the derived file (last wins)."""
        from .stages.geometry import sitl_params

        return sitl_params(self.derived, self.sitl_run)

    def check_model(self, data: bytes, file: str, resolve: Resolver) -> ModelCheck:
        """One model's channels, read from its geometry, against what SITL runs."""
        from .stages.geometry import check_model

        return check_model(
            data,
            file,
            resolve,
            self.sitl_params,
            self.profile.joint_roles,
            self.profile.sitl_vehicle,
            self.metadata,
        )

    def pinned_check(self, role: str) -> ModelCheck:
        """A pinned model role checked against what SITL runs, once per pin: the report and
        `check`'s target models read the same model."""
        if role not in self._model_checks:
            _, file, data, resolve = self.pinned_model(role)
            self._model_checks[role] = self.check_model(data, file, resolve)
        return self._model_checks[role]

    def model_fidelity(
        self, data: bytes, file: str, channels: list[Channel], sha256: str
    ) -> Fidelity:
        """A model's actuators (its own bytes) against what SITL runs."""
        from .parse.sdf_thruster import read_actuation

        return self._fidelity(channels, read_actuation(data, file), sha256)

    def _fidelity(self, channels: list[Channel], actuation: Any, sha256: str) -> Fidelity:
        from .stages.fidelity import fidelity

        return fidelity(
            channels,
            actuation,
            self.sitl_params,
            self.profile.sitl_vehicle,
            sha256,
            self.profile.vehicle_noun,
        )

    def pinned_fidelity(self, role: str) -> Fidelity:
        """A pinned model's actuators against what SITL runs, once per pin (the report and
        `check` read the same model)."""
        if role not in self._fidelities:
            from .parse.sdf_thruster import read_actuation

            f = self.fetched([role])[role]
            actuation = read_actuation(f.data, f.spec.path)
            channels = self.pinned_check(role).channels
            self._fidelities[role] = self._fidelity(channels, actuation, f.entry.sha256)
        return self._fidelities[role]

    def report_inputs(self) -> ReportInputs:
        from .render.report_inputs import ReportInputs

        derived = self.derived
        model = self.pinned_check("sitl_models")
        return ReportInputs(
            self.profile,
            self.pin,
            self.compare(list(THREE_WAY)),
            derived,
            model.channels,
            model.findings,
            self.sitl_run,
            model.geometry,
            self.metadata,
            self.metadata_by_firmware,
            self.launch_results,
            self.pinned_fidelity("sitl_models"),
            self.acknowledged_actuators("sitl_models"),
        )

    # -- what the commands write, and where

    def derived_output(self, output: Path | None, fmt: str) -> Output:
        d = self.derived
        profile = self.profile
        if output is None and self.pin != profile.default_pin and not profile.derived_is_per_pin():
            # One committed derived file per profile: it belongs to the default pin.
            raise ConfigError(
                f"{d.target} is pin {profile.default_pin}'s file (the profile's default_pin)",
                f"give -o PATH (or -o -) for pin {self.pin}, or put {{pin}} in the profile's "
                "derived path in sources.yaml",
            )
        fix = (
            d.regenerate
            + (f" --format {fmt}" if fmt != "params" else "")
            + (f" -o {output}" if output and str(output) != "-" else "")
        )
        from .render.sinks import output_for

        default = d.target if fmt == "params" else None
        # -o may name the file derive writes by default: this pin's, in this format
        own = default if self.pin == profile.default_pin or profile.derived_is_per_pin() else None
        guard = self.options.project_files().without(own) if output is not None else None
        return output_for(self.config.root, output, default, fix, guard)

    def report_output(self, output: Path | None) -> Output:
        if output is not None and output.suffix.lower() == ".svg":
            # The top view is written beside the report as <stem>.svg; -o x.svg would put
            # markdown in x.svg and the picture in x.svg.svg.
            raise UsageError(
                f"-o {output} names the top view; -o names the markdown report",
                f"give -o {output.with_suffix('.md')} (the top view goes beside it as "
                f"{output.name})",
            )
        from .render.report_model import svg_path
        from .render.sinks import output_for

        fix = f"paramdiff report --profile {self.profile.name} --pin {self.pin}"
        default = self.profile.report_path(self.pin)
        own = (default, svg_path(default)) if default else ()
        guard = self.options.project_files().without(*own) if output is not None else None
        return output_for(self.config.root, output, default, fix, guard)

    def layers(self, frame: str | None, files: list[Path]) -> tuple[Layers, list[Flag]]:
        """The frame defaults with ``files`` (default: the derived file) loaded on top, and
        the frame defaults that survive unchosen."""
        if not self.profile.frames:
            raise ConfigError(
                f"profile '{self.profile.name}' pins no sim_vehicle.py frame defaults, so there "
                "are no layers to show",
                "pin the frame's files (ArduPilot's Tools/autotest/default_params/*.parm) as "
                "roles and list them under 'frames:' in sources.yaml",
            )
        defaults = self.frame_defaults(frame)
        if defaults is None:
            raise ConfigError(
                f"profile '{self.profile.name}' names no sitl_frame",
                f"pass --frame (one of: {', '.join(self.profile.frames)})",
            )
        from .parse.local import local_source
        from .stages.layers import stack, unchosen

        added = [local_source(f, role=f.as_posix()) for f in files] or [self.derived_source]
        result = stack([*defaults.layers, *added], defaults.frame, defaults.frame_roles)
        flags, _ = unchosen(
            result,
            self.source("hardware").file.params,
            self.classifier(),
            self.overlay.excluded_categories(),
        )
        return result, flags

    def validate_file(self, file: Path, lenient: bool, strict: bool) -> Iterator[str]:
        """Lines for `paramdiff validate`; raises DriftError for problems that fail it."""
        meta = self.metadata
        if meta is None:
            raise UsageError("the pin declares no metadata (format: pdef) role")
        from .parse.local import local_source
        from .stages.validate import ERROR, validate

        src = local_source(file, lenient=lenient)
        problems = validate(src.file, meta, self.classifier())
        for w in src.file.warnings:
            yield f"warning: {w}"
        fails = [strict or p.severity == ERROR for p in problems]
        failing = [p for p, fail in zip(problems, fails, strict=True) if fail]
        for p, fail in zip(problems, fails, strict=True):
            if not fail:  # (a list membership test here was quadratic in the problems)
                yield f"warning: {p}"
        if failing:
            fix = f"correct these values in {file}"
            if any(p.read_only for p in failing):
                fix += " (a read-only one cannot be set: leave it out of the file)"
            raise DriftError([str(p) for p in failing], fix)
        yield validate_summary(
            str(file), len(src.file.params), meta.file, len(src.file.warnings) + len(problems)
        )

    def history(self, role: str, pattern: str) -> list[list[str]]:
        """``pattern``'s values in ``role``'s file at every upstream commit that changed it
        (or a file it includes), oldest first."""
        spec = self.spec(role)
        if spec.format not in PARAM_FORMATS:
            raise ConfigError(
                f"role '{role}' is a {spec.format} file, not a parameter set",
                "follow a parameter role such as hardware or sitl",
            )
        if spec.is_local:  # a file of this repository: its own git log
            from .stages.history import value_history
            from .upstream.own_repo import OwnRepository

            return value_history(OwnRepository(self.config.root), spec, [], pattern)
        choice = self.options.transports()
        if choice is None:
            raise ConfigError(
                "history needs upstream commits, and --offline forbids reaching them",
                "run it without --offline (with --mirror DIR|URL where there is no network)",
            )
        entry = self.lock.get(self.profile.name, self.pin, role) if self.lock else None
        included = [i.path for i in entry.includes] if entry else []
        from .stages.history import value_history

        return value_history(choice.history_source(spec), spec, included, pattern)


THREE_WAY = ("hardware", "sitl", "sitl_models")


def validate_summary(file: str, checked: int, metadata: str, warnings: int) -> str:
    """validate's last line: "valid" only when nothing was warned about above it."""
    if not warnings:
        return f"{file}: {checked} parameters valid for {metadata}"
    return f"{file}: {checked} parameters checked against {metadata}: {warnings} warning(s) above"


def compare_pins(options: Options, profile: str | None, pins: list[str], role: str) -> Comparison:
    """One role of a profile across pins (``hardware@4.6`` vs ``hardware@4.7``): what moved.

    Each side keeps its own firmware's metadata; categories use every pin's metadata.
    """

    from .stages.compare import compare

    contexts = [PinContext(options, profile, pin) for pin in pins]
    sources = [c.source(role)._replace(role=f"{role}@{c.pin}") for c in contexts]
    others = tuple(m for c in contexts[:-1] for m in c.metadata_by_firmware.values())
    return compare(sources, contexts[-1].classifier(others), contexts[-1].metadata)


def fetch_project(
    options: Options, profile: str | None, pin: str | None, update: bool
) -> Iterator[str]:
    """`paramdiff fetch`: every target pin fetched, verified and locked; lines to print."""
    from tabulate import tabulate

    from .stages.history import update_hint
    from .upstream.fetch import fetch_targets

    config = options.config
    results = fetch_targets(
        config,
        config.fetch_targets(profile, pin),
        options.cache,
        options.transports(),
        update=update,
        includes=blueos_includes,
    )
    headers = ["role", "source", "path", "size", "status"]
    if update:
        headers.append("update")
    for result in results:
        yield f"{result.profile} {result.pin}:"
        yield tabulate(result.table(update), headers=headers, tablefmt="simple")
        if update:
            others = [p for p in config.profile(result.profile).pins if p != result.pin]
            yield from update_hint(options.cache, result, others)
    # One write for every target (or none): see upstream.fetch.fetch_targets.
    yield "sources.lock " + ("written" if any(r.lock_written for r in results) else "unchanged")
