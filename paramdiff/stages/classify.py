"""Sources as one normalized table: parsed rows + their role, metadata and category."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from ..model.categories import Category, ScriptParams, compile_globs
from ..model.metadata import Metadata

UNKNOWN = "unknown"


@dataclass
class Classifier:
    """Puts every name in exactly one category, by the ordered rules in sources.yaml."""

    categories: tuple[Category, ...]
    calibration_names: frozenset[str] = frozenset()
    script_params: tuple[ScriptParams, ...] = ()
    metadata: tuple[Metadata, ...] = ()
    _cache: dict[str, tuple[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.metadata_names = frozenset(n for m in self.metadata for n in m.params)
        # Whole names match exactly; fragments that are not names themselves (DEVID,
        # CALTEMP) match inside a name, as BlueOS applies its blacklist.
        self.fragments = tuple(n for n in self.calibration_names if n not in self.metadata_names)
        # One compiled pattern per category: ~1,400 names x ~100 globs adds up otherwise.
        self._globs = {cat: compile_globs(cat.params) for cat in self.categories if cat.params}

    def _calibration_listed(self, name: str) -> bool:
        return name in self.calibration_names or any(f in name for f in self.fragments)

    def known(self, name: str) -> bool:
        return not self.metadata or name in self.metadata_names

    def script_reason(self, name: str) -> str | None:
        for sp in self.script_params:
            if fnmatch.fnmatchcase(name, sp.params):
                return sp.reason
        return None

    def classify(self, name: str) -> tuple[str, str]:
        """(category, why) for ``name``."""
        if name in self._cache:
            return self._cache[name]
        result = self._classify(name)
        self._cache[name] = result
        return result

    def _classify(self, name: str) -> tuple[str, str]:
        for cat in self.categories:
            selectors = (
                cat.params or cat.calibration_list or cat.metadata_flags or cat.script_defined
            )
            if cat.calibration_list and self._calibration_listed(name):
                return cat.name, cat.rule
            if cat.metadata_flags and any(
                (meta := m.get(name)) is not None and any(meta.flag(f) for f in cat.metadata_flags)
                for m in self.metadata
            ):
                return cat.name, cat.rule
            if cat.script_defined:
                reason = self.script_reason(name)
                if reason:
                    return cat.name, reason
            if cat.params and self._globs[cat].match(name):
                return cat.name, cat.rule
            if not selectors:
                if not self.known(name):
                    return UNKNOWN, "not in the firmware's parameter metadata: ArduPilot ignores it"
                return cat.name, cat.rule
        if not self.known(name):
            return UNKNOWN, "not in the firmware's parameter metadata: ArduPilot ignores it"
        return "other", "matched no category rule"
