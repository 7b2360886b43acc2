"""Sources as one normalized table: parsed rows + their role, metadata and category."""

from __future__ import annotations

import re

from paramdiff.model.categories import Category, GlobSet, ScriptParams
from paramdiff.model.metadata import Metadata

UNKNOWN = "unknown"
OTHER = "other"


def _selects(cat: Category) -> bool:
    """Whether ``cat`` has a rule of its own (else it takes every name no earlier one took)."""
    return bool(cat.params or cat.calibration_list or cat.metadata_flags or cat.script_defined)


class Classifier:
    """Puts every name in exactly one category, by the ordered rules in sources.yaml."""

    def __init__(
        self,
        categories: tuple[Category, ...],
        calibration_names: frozenset[str] = frozenset(),
        script_params: tuple[ScriptParams, ...] = (),
        metadata: tuple[Metadata, ...] = (),
    ) -> None:
        self.categories = categories
        self.calibration_names = calibration_names
        self.script_params = script_params
        self.metadata = metadata
        self._cache: dict[str, tuple[str, str]] = {}
        # Whole names match exactly; fragments that are not names themselves (DEVID,
        # CALTEMP) match inside a name, as BlueOS applies its blacklist.
        self.fragments = tuple(n for n in self.calibration_names if not self._in_metadata(n))
        # One pattern for the fragments, one GlobSet per category: ~1,400 names x ~100 globs
        # and ~14 fragments add up otherwise.
        self._fragment = (
            re.compile("|".join(map(re.escape, self.fragments))) if self.fragments else None
        )
        # (category, whether it has a list, flag or script rule, its globs, whether it takes
        # every name left) in order; a Category's hash (all its fields) is never taken, and
        # its three other rules are read once here, not per name (a table: 2.2 -> 2.0 ms)
        self._rules = [
            (
                c,
                bool(c.calibration_list or c.metadata_flags or c.script_defined),
                GlobSet(c.params).match if c.params else None,
                not _selects(c),
            )
            for c in self.categories
        ]
        self._scripts = [(GlobSet((sp.params,)), sp.reason) for sp in self.script_params]
        self._flagged: dict[int, frozenset[str]] = {}  # category's position -> flagged names

    def _in_metadata(self, name: str) -> bool:
        # A loop over the mappings themselves: any() over a generator cost 3.5x as much (0.51
        # vs 0.15 ms a BlueBoat table), and a set of every name more to make than it saves.
        for m in self.metadata:  # noqa: SIM110 (see above)
            if name in m.params:
                return True
        return False

    def _calibration_listed(self, name: str) -> bool:
        return name in self.calibration_names or (
            self._fragment is not None and self._fragment.search(name) is not None
        )

    @property
    def names(self) -> tuple[str, ...]:
        """Every category a name can be put in, in sources.yaml's order: its categories, then
        "unknown" (a name the metadata lacks) and "other" (no rule took it) where they can
        happen."""
        extra = [UNKNOWN] if self.metadata else []
        if not any(rest for *_, rest in self._rules):
            extra.append(OTHER)
        return (*(c.name for c in self.categories), *extra)

    def known(self, name: str) -> bool:
        return not self.metadata or self._in_metadata(name)

    def script_reason(self, name: str) -> str | None:
        for glob, reason in self._scripts:
            if glob.match(name):
                return reason
        return None

    def _flagged_in(self, i: int, cat: Category) -> frozenset[str]:
        """The names any metadata flags with one of ``cat``'s flags (made on first use)."""
        if i not in self._flagged:
            sets = [m.flagged(f) for m in self.metadata for f in cat.metadata_flags]
            self._flagged[i] = frozenset().union(*sets)
        return self._flagged[i]

    def classify(self, name: str) -> tuple[str, str]:
        """(category, why) for ``name``."""
        if name in self._cache:
            return self._cache[name]
        result = self._classify(name)
        self._cache[name] = result
        return result

    def _classify(self, name: str) -> tuple[str, str]:
        for i, (cat, special, globs_match, rest) in enumerate(self._rules):
            if special:
                if cat.calibration_list and self._calibration_listed(name):
                    return cat.name, cat.rule
                if cat.metadata_flags and name in self._flagged_in(i, cat):
                    return cat.name, cat.rule
                if cat.script_defined:
                    reason = self.script_reason(name)
                    if reason:
                        return cat.name, reason
            if globs_match is not None and globs_match(name):
                return cat.name, cat.rule
            if rest:
                if not self.known(name):
                    return UNKNOWN, "not in the firmware's parameter metadata: ArduPilot ignores it"
                return cat.name, cat.rule
        if not self.known(name):
            return UNKNOWN, "not in the firmware's parameter metadata: ArduPilot ignores it"
        return OTHER, "matched no category rule"
