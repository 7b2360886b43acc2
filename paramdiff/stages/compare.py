"""Align any number of sources on the parameter name and say how they disagree."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from ..model.metadata import Metadata
from ..model.params import Diagnostic, Fact, Param
from ..model.source import Source
from ..model.values import format_value, same_value
from .classify import Classifier

if TYPE_CHECKING:
    import pandas as pd


class Verdict(Enum):
    SAME = "same"
    DIFFERS = "differs"
    NOT_REPRESENTABLE = "not representable"  # one source, and it cannot express the name
    ONLY_IN = "only in"  # one source sets it; the others could but do not
    MISSING_IN = "missing in"  # several set it; the roles named could but do not
    SET = "set"  # the only source in the table sets it: nothing to compare with (`show FILE`)


@dataclass(frozen=True)
class Status:
    """A row's verdict and the roles it names; its text is what tables and CSV show."""

    verdict: Verdict
    roles: tuple[str, ...] = ()

    def __str__(self) -> str:
        return " ".join([self.verdict.value, ", ".join(self.roles)]).rstrip()

    @property
    def disagrees(self) -> bool:
        """The sources disagree on this row (``diff`` exits 1)."""
        return self.verdict in (Verdict.DIFFERS, Verdict.ONLY_IN, Verdict.MISSING_IN)

    def __lt__(self, other: Status) -> bool:  # tables sort statuses as their text reads
        return str(self) < str(other)


SAME = Status(Verdict.SAME)
DIFFERS = Status(Verdict.DIFFERS)
NOT_REPRESENTABLE = Status(Verdict.NOT_REPRESENTABLE)
SET = Status(Verdict.SET)
ABSENT = "—"
NR = "n/r"
FORMATS = ("text", "markdown", "csv", "json")


class Row(NamedTuple):
    """What the table says about one name, beside the sources' values."""

    status: Status
    category: str
    display_name: str


@dataclass
class Comparison:
    sources: list[Source]
    rows: dict[str, Row]  # every name any source has, sorted
    params: dict[str, dict[str, Param]]  # role -> name -> row, for provenance
    metadata: Metadata | None
    facts: list[tuple[str, Fact]] = field(default_factory=list)
    warnings: list[tuple[str, Diagnostic]] = field(default_factory=list)

    @cached_property
    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame (index: name; one float column per role, then status,
        category, display_name). Built on first use: the CLI never needs pandas."""
        import pandas as pd

        names = list(self.rows)
        columns = {
            role: pd.array(
                [p.value if (p := self.params[role].get(n)) else None for n in names],
                dtype="Float64",
            )
            for role in self.roles
        }
        return pd.DataFrame(
            {
                "name": names,
                **columns,
                "status": [str(r.status) for r in self.rows.values()],
                "category": [r.category for r in self.rows.values()],
                "display_name": [r.display_name for r in self.rows.values()],
            }
        ).set_index("name", drop=False)

    @property
    def roles(self) -> list[str]:
        return [s.role for s in self.sources]

    @cached_property
    def _by_role(self) -> dict[str, Source]:
        return {s.role: s for s in self.sources}

    def source(self, role: str) -> Source:
        return self._by_role[role]

    def cell(self, role: str, name: str) -> str:
        """A value as a person reads it: ``74 (ThrottleRight)``, ``—`` absent, ``n/r``."""
        param = self.params[role].get(name)
        src = self._by_role[role]
        if param is None:
            return ABSENT if src.file.can_represent(name) else NR
        meta = src.metadata or self.metadata
        return meta.label(name, param.value) if meta else format_value(param.value)

    def version_lines(self, names_shown: int = 12) -> list[str]:
        out = []
        for s in self.sources:
            meta = f"metadata {s.metadata.file}" if s.metadata else "no metadata"
            if s.metadata and s.firmware and s.metadata.firmware != s.firmware:
                meta += f"; none pinned for {s.firmware}"
            if s.version and s.version_origin != "header":
                meta = f"{s.version_origin}; {meta}"
            out.append(f"{s.role}: {s.version or 'no version header'} ({meta})")
        versions = {s.role: s.version for s in self.sources if s.version}
        if len(set(versions.values())) > 1:
            out.append(
                "VERSION MISMATCH: " + ", ".join(f"{role} says {v}" for role, v in versions.items())
            )
        out.extend(self.version_only_names(names_shown))
        return out

    def version_only_names(self, shown_max: int = 12) -> list[str]:
        """Names in this table that only one of the sources' firmware versions defines."""
        metas: dict[str, Metadata] = {}
        for s in self.sources:
            if s.metadata is not None:
                metas.setdefault(s.metadata.firmware, s.metadata)
        if len(metas) < 2:
            return []
        out = []
        names = list(self.rows)
        for fw, meta in metas.items():
            others = [m for f, m in metas.items() if f != fw]
            only = [n for n in names if n in meta and not any(n in o for o in others)]
            if only:
                shown = ", ".join(only[:shown_max]) + (
                    f" (+{len(only) - shown_max} more)" if len(only) > shown_max else ""
                )
                out.append(f"only firmware {fw} defines: {shown}")
        return out


def _status(values: dict[str, float | None], capable: list[str], n_sources: int) -> Status:
    present = {r: v for r, v in values.items() if v is not None}
    vals = list(present.values())
    if any(not same_value(vals[0], v) for v in vals[1:]):
        return DIFFERS
    if n_sources == 1 and present:
        return SET
    if len(present) == len(capable):
        return SAME if len(capable) > 1 else NOT_REPRESENTABLE
    if len(present) == 1:
        return Status(Verdict.ONLY_IN, (next(iter(present)),))
    return Status(Verdict.MISSING_IN, tuple(r for r in capable if r not in present))


def compare(
    sources: list[Source],
    classifier: Classifier | None = None,
    metadata: Metadata | None = None,
) -> Comparison:
    """The aligned table of ``sources`` (any number), one row per name any of them has."""
    params = {s.role: s.file.params for s in sources}
    names = sorted({n for s in sources for n in s.file.params})
    meta = metadata or next((s.metadata for s in sources if s.metadata), None)
    rows: dict[str, Row] = {}
    for name in names:
        values = {}
        capable = []
        for s in sources:
            if s.file.can_represent(name):
                capable.append(s.role)
                p = params[s.role].get(name)
                values[s.role] = p.value if p else None
        info = None
        for m in [meta, *(s.metadata for s in sources)]:
            if m is not None and (info := m.get(name)) is not None:
                break
        rows[name] = Row(
            _status(values, capable, len(sources)),
            classifier.classify(name)[0] if classifier else "",
            info.display_name if info else "",
        )
    facts = [(s.role, f) for s in sources for f in s.file.facts]
    warnings = [(s.role, w) for s in sources for w in s.file.warnings]
    return Comparison(sources, rows, params, meta, facts, warnings)


# --------------------------------------------------------------------------- rendering


def select(
    comp: Comparison,
    only_differences: bool = False,
    categories: tuple[str, ...] = (),
    params: tuple[str, ...] = (),
) -> list[str]:
    names = []
    for name, (st, cat, _) in comp.rows.items():
        if only_differences and st == SAME:
            continue
        if categories and cat not in categories:
            continue
        if params and not any(fnmatch.fnmatchcase(name, g.upper()) for g in params):
            continue
        names.append(name)
    return names
