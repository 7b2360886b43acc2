"""A project checkout: sources.yaml + sources.lock + a cache, and the files of one pin."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from .cache import Cache, default_cache_dir
from .errors import ConfigError
from .fetch import FetchedRole, TransportChoice, materialize
from .formats import include_paths
from .lock import Lock, read_lock
from .metadata import Metadata, parse_pdef
from .sources import Config, Profile, SourceSpec, load_config
from .table import Classifier, Source, parse_any, parse_names

if TYPE_CHECKING:
    from .comparison import Comparison

CALIBRATION_ROLE = "calibration"
METADATA_FORMAT = "pdef"


def blueos_includes(spec: SourceSpec, path: str, data: bytes) -> list[str]:
    """Include finder for fetch: BlueOS include-format files and SDF models (``<include>
    model://NAME``) pull in others at the same commit."""
    if spec.format == "sdf":
        from .parse.sdf_include import repo_include_paths

        return repo_include_paths(path, data)
    if spec.format != "blueos":
        return []
    return include_paths(data, path)


@dataclass
class Options:
    """How to reach files: where the project is, the cache, and the transport choice."""

    root: Path = field(default_factory=Path.cwd)
    cache_dir: Path | None = None
    mirror: str | None = None
    transport: str | None = None
    git_base: str | None = None
    offline: bool = False

    @cached_property
    def cache(self) -> Cache:
        return Cache(self.cache_dir or default_cache_dir())

    @cached_property
    def _transport_choice(self) -> TransportChoice:
        # One choice per run, so a mirror's MANIFEST.json is read once, not per batch.
        return TransportChoice.from_env(
            self.cache.root, self.mirror, override=self.transport, git_base=self.git_base
        )

    def transports(self) -> TransportChoice | None:
        return None if self.offline else self._transport_choice

    @cached_property
    def config(self) -> Config:
        return load_config(self.root)


class PinContext:
    """Everything about one profile's pin: specs, locked bytes, parsed sources, metadata."""

    def __init__(self, options: Options, profile: str | None, pin: str | None) -> None:
        self.options = options
        self.config = options.config
        self.profile: Profile = self.config.profile(profile)
        self.pin, self.specs = self.profile.pin(pin)
        self._fetched: dict[str, FetchedRole] = {}
        self._sources: dict[str, Source] = {}
        self.lenient = False  # --lenient: every source's bad lines become warnings
        self._classifier: Classifier | None = None

    # -- bytes

    @cached_property
    def lock(self) -> Lock | None:
        return read_lock(self.config.root)

    def fetched(self, roles: list[str]) -> dict[str, FetchedRole]:
        missing = [r for r in roles if r not in self._fetched]
        if missing:
            self._fetched.update(
                materialize(
                    self.profile,
                    self.pin,
                    self.options.cache,
                    self.options.transports(),
                    lock=self.lock,
                    roles=missing,
                    includes=blueos_includes,
                )
            )
        return {r: self._fetched[r] for r in roles if r in self._fetched}

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
        roles = self.metadata_roles()
        for f in self.fetched(roles).values():
            spec = f.spec
            firmware = spec.firmware or self._firmware_from_path(spec.path) or self.pin
            out[firmware] = parse_pdef(f.data, spec.path, firmware)
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
        f = self.fetched([CALIBRATION_ROLE])[CALIBRATION_ROLE]
        return frozenset(parse_names(f.data, f.spec.path))

    def source(self, role: str) -> Source:
        if role in self._sources:
            return self._sources[role]
        spec = self.spec(role)
        f = self.fetched([role])[role]

        def read_include(path: str) -> bytes:
            return f.includes[path]

        parsed = parse_any(
            f.data,
            spec.path,
            spec.format,
            lenient=spec.lenient or self.lenient,
            joint_roles=self.profile.joint_roles,
            read_include=read_include,
        )
        src = Source(
            role=role,
            file=parsed,
            repo=spec.repo,
            commit=f.entry.commit,
            path=spec.path,
            sha256=f.entry.sha256,
            lenient=spec.lenient,
            declared_version=spec.firmware,
            includes=f.entry.includes,
        )
        src.metadata = self.metadata_for(spec.firmware or src.firmware)
        self._sources[role] = src
        return src

    def source_meta(self, role: str) -> Source:
        """A role that is not a parameter set (metadata, name list): identity only."""
        from .formats import ParamFile

        spec = self.spec(role)
        f = self.fetched([role])[role]
        return Source(
            role=role,
            file=ParamFile(file=spec.path, format=spec.format),
            repo=spec.repo,
            commit=f.entry.commit,
            path=spec.path,
            sha256=f.entry.sha256,
        )

    def classifier(self, extra: tuple[Metadata, ...] = ()) -> Classifier:
        """One classifier per pin (it caches every name's category); ``extra`` metadata
        (another pin's) makes a separate one."""
        if not extra and self._classifier is not None:
            return self._classifier
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
        from .comparison import compare

        sources = [self.source(r) for r in roles]
        return compare(sources, self.classifier(), self.metadata)


THREE_WAY = ("hardware", "sitl", "sitl_models")


def compare_pins(options: Options, profile: str | None, pins: list[str], role: str) -> Comparison:
    """One role of a profile across pins (``hardware@4.6`` vs ``hardware@4.7``): what moved.

    Each side keeps its own firmware's metadata; categories use every pin's metadata.
    """
    from dataclasses import replace

    from .comparison import compare

    contexts = [PinContext(options, profile, pin) for pin in pins]
    sources = [replace(c.source(role), role=f"{role}@{c.pin}") for c in contexts]
    others = tuple(m for c in contexts[:-1] for m in c.metadata_by_firmware.values())
    return compare(sources, contexts[-1].classifier(others), contexts[-1].metadata)
