"""A project: where it is (sources.yaml, sources.lock), the cache, and how to reach upstream.

``Project`` is the command line's location options (--root, --cache-dir, --mirror,
--transport, --git-base, --offline) and what is read through them. Reading happens in
methods named for it (``config()``, ``lock()``, ``cache()``, ``transports()``), each once per
run; an attribute read never touches the disk or the network. One profile's pin is a
``paramdiff.pin.Pin``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from paramdiff.config.lock import LOCK_FILE, read_lock
from paramdiff.config.roles import ROLE_RE
from paramdiff.config.sources import Config, load_config, svg_path
from paramdiff.fetch.cache import Cache, default_cache_dir
from paramdiff.fetch.engine import TransportChoice
from paramdiff.outputs import ProjectFiles, git_folders

# The fetch stack (requests, the transports) is imported where it is used: a command loads
# only what it runs, so `compare three-way` on a warm cache never imports requests.
if TYPE_CHECKING:
    from paramdiff.config.lock import Lock
    from paramdiff.fetch.cache import Cache
    from paramdiff.fetch.engine import TransportChoice
    from paramdiff.outputs import ProjectFiles

T = TypeVar("T")


@dataclass(eq=False)
class Project:
    """How to reach files (the fields: the command line's location options), and the
    project's config, lock and cache read through them."""

    root: Path = field(default_factory=Path.cwd)
    cache_dir: Path | None = None
    mirror: str | None = None
    transport: str | None = None
    git_base: str | None = None
    offline: bool = False
    progress: Callable[[str], None] | None = None  # told of each wait before a retry (stderr)
    # what was read through the options, once per run (replace() starts afresh)
    _read: dict[str, Any] = field(default_factory=dict, init=False, repr=False)
    _lock_read: tuple[tuple[int, ...] | None, Lock | None] | None = field(
        default=None, init=False, repr=False
    )
    _of_content: dict[tuple[Hashable, ...], Any] = field(
        default_factory=dict, init=False, repr=False
    )

    def __post_init__(self) -> None:
        if self.root is None:  # the command line's "not given"
            self.root = Path.cwd()

    def replace(self, **changes: Any) -> Project:
        """These options with ``changes``: nothing that was read or made through them (config,
        cache, lock, transports) is shared."""
        return dataclasses.replace(self, **changes)

    def cache(self) -> Cache:
        """The content-addressed cache (--cache-dir, else the user's cache directory)."""
        if "cache" not in self._read:
            self._read["cache"] = Cache(self.cache_dir or default_cache_dir())
        cache: Cache = self._read["cache"]
        return cache

    def transports(self) -> TransportChoice | None:
        """How to reach upstream (None with --offline); one choice per run, so a mirror's
        MANIFEST.json is read once, not per batch."""
        if self.offline:
            return None
        if "transports" not in self._read:
            self._read["transports"] = TransportChoice.from_env(
                self.cache().root,
                self.mirror,
                override=self.transport,
                git_base=self.git_base,
                progress=self.progress,
            )
        choice: TransportChoice = self._read["transports"]
        return choice

    def config(self) -> Config:
        """sources.yaml, read and checked once per run."""
        if "config" not in self._read:
            self._read["config"] = load_config(self.root)
        config: Config = self._read["config"]
        return config

    def lock(self) -> Lock | None:
        """sources.lock, parsed once per run (``check`` shares it between profiles) and again
        only when the file changed on disk (a ``fetch`` in the same process)."""

        root = self.config().root
        try:
            st = (root / LOCK_FILE).stat()
            key: tuple[int, ...] | None = (st.st_ino, st.st_size, st.st_mtime_ns)
        except OSError:
            key = None
        if key is None or self._lock_read is None or self._lock_read[0] != key:
            self._lock_read = (key, read_lock(root))
        return self._lock_read[1]

    def of_content(self, key: tuple[Hashable, ...], make: Callable[[], T]) -> T:
        """``make()``, made once per run for ``key``: for what is a pure function of bytes
        named in the key by content (the sha256 the lock verified, or the bytes themselves)
        and of the other arguments the key holds. The pins of one run share it: `check`'s two
        BlueBoat pins read the same SITL set, frame defaults, model, 4.6 metadata and overlay
        (see docs/performance.md). Nothing outlives the run, so no result is ever stale."""
        if key not in self._of_content:
            self._of_content[key] = make()
        value: T = self._of_content[key]
        return value

    def project_files(self) -> ProjectFiles:
        """What a user-named output (-o) may not overwrite: the project's inputs and outputs
        (every profile's overlay, models, derived files, reports, top views and verification
        records, per pin), its git folders and the cache (paramdiff/outputs.py)."""
        # Only a command writing -o asks: the record module is ~5 ms of every other import.
        from paramdiff.derive.record import record_path

        config = self.config()
        files = {
            "sources.yaml": "the project's sources.yaml, an input paramdiff reads",
            LOCK_FILE: f"the project's {LOCK_FILE}, an input paramdiff reads",
            f".{LOCK_FILE}.lock": f"{LOCK_FILE}'s lock file",
            # what `paramdiff init` writes beside them
            ".gitignore": "the project's .gitignore",
            ".pre-commit-config.yaml": "the project's pre-commit configuration",
            ".pre-commit-hooks.yaml": "the project's pre-commit hooks file",
        }
        lock = self.lock()  # a file: role's includes are pinned there
        for name, profile in config.profiles.items():
            if profile.overlay:
                files.setdefault(profile.overlay, f"profile {name}'s overlay, an input")
            if profile.thrusters is not None and profile.thrusters.model:
                model = profile.thrusters.model  # derive writes it beside the derived file
                files.setdefault(model, f"profile {name}'s derived model")
            for model in profile.target_models:
                if not ROLE_RE.match(model):  # a path in the repository, not a role
                    files.setdefault(model, f"profile {name}'s model {model}, an input")
            for pin, specs in profile.pins.items():
                for spec in specs.values():
                    if spec.is_local:  # a field dump: an input, pinned by its digests
                        files.setdefault(spec.path, f"profile {name}'s {spec.role} file, an input")
                        entry = lock.get(name, pin, spec.role) if lock is not None else None
                        for inc in entry.includes if entry is not None else ():
                            what = f"a file profile {name}'s {spec.role} file includes, an input"
                            files.setdefault(inc.path, what)
                derived = profile.derived_path(pin)
                if derived:
                    pinned = f" for pin {pin}" if profile.derived_is_per_pin() else ""
                    files.setdefault(derived, f"profile {name}'s derived file{pinned}")
                report = profile.report_path(pin)
                if report:
                    files.setdefault(report, f"profile {name}'s report for pin {pin}")
                    files.setdefault(svg_path(report), f"profile {name}'s top view for pin {pin}")
                record = record_path(name, pin)
                files.setdefault(record, f"profile {name}'s verification record for pin {pin}")
        folders = {
            **git_folders(config.root),
            ".github": "inside the project's .github folder (workflows)",
            str(Path(os.path.abspath(self.cache().root))): "inside paramdiff's cache directory",
        }
        return ProjectFiles(config.root, files, folders)
