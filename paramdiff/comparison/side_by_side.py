"""Align any number of sources on the parameter name and say how they disagree."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from paramdiff.comparison.classify import Classifier
from paramdiff.comparison.renames import Pairing, Rename, pair_renames
from paramdiff.errors import UsageError, quote
from paramdiff.model.metadata import Metadata
from paramdiff.model.params import READ_ONLY_MARK, Diagnostic, Fact, Param
from paramdiff.model.source import Source
from paramdiff.model.values import format_value, same_value

# The category of a row no classifier placed (a local file whose firmware's metadata is not
# in this project's cache: see local_meta.py), said as such rather than left blank.
UNCATEGORISED = "uncategorised"

if TYPE_CHECKING:
    import pandas as pd


class Verdict(Enum):
    SAME = "same"
    DIFFERS = "differs"
    NOT_REPRESENTABLE = "not representable"  # one source, and it cannot express the name
    ONLY_IN = "only in"  # one source sets it; the others could but do not
    MISSING_IN = "missing in"  # several set it; the roles named could but do not
    SET = "set"  # the only source in the table sets it: nothing to compare with (`show FILE`)


SHORT_STATUS_ROLES = 8


class Status:
    """A row's verdict and the roles it names; its text is what tables and CSV show. Equal
    and hashed by verdict, roles and renamed."""

    __slots__ = ("renamed", "roles", "text", "verdict")

    def __init__(
        self, verdict: Verdict, roles: tuple[str, ...] = (), renamed: bool = False
    ) -> None:
        self.verdict = verdict
        self.roles = roles
        self.renamed = renamed  # ArduPilot renamed it between the sources' firmware versions
        # Written once when short (tables read it often); a `diff` over a thousand files names
        # hundreds of roles per row, so a long text is made when asked for and not kept.
        self.text = self._text() if len(roles) <= SHORT_STATUS_ROLES else None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return (self.verdict, self.roles, self.renamed) == (
            other.verdict,
            other.roles,
            other.renamed,
        )

    def __hash__(self) -> int:
        return hash((self.verdict, self.roles, self.renamed))

    def _text(self) -> str:
        text = " ".join([self.verdict.value, ", ".join(self.roles)]).rstrip()
        if not self.renamed:
            return text
        return "renamed" if self.verdict is Verdict.SAME else f"renamed, {text}"

    def __str__(self) -> str:
        return self.text if self.text is not None else self._text()

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
RENAMED = Status(Verdict.SAME, renamed=True)  # values agree once the old one is converted
RENAMED_DIFFERS = Status(Verdict.DIFFERS, renamed=True)
ABSENT = "—"
NR = "n/r"
FORMATS = ("text", "markdown", "csv", "json")


class Row(NamedTuple):
    """What the table says about one name, beside the sources' values."""

    status: Status
    category: str
    display_name: str


@dataclass(eq=False)  # no slots: ``frame`` is a cached_property
class Comparison:
    """The aligned table of several sources: one row per name, with provenance."""

    sources: list[Source]
    rows: dict[str, Row]  # every name any source has, sorted
    params: dict[str, dict[str, Param]]  # role -> name -> row, for provenance
    metadata: Metadata | None
    facts: list[tuple[str, Fact]] = field(default_factory=list)
    warnings: list[tuple[str, Diagnostic]] = field(default_factory=list)
    renames: dict[str, Pairing] = field(default_factory=dict)  # row name (the new one) -> pair
    categories: tuple[str, ...] = (UNCATEGORISED,)  # every category a row can have

    @cached_property
    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame (index: name; one float column per role, then status,
        category, display_name). Built on first use: the CLI never needs pandas. A renamed
        parameter's row is its new name, with old values converted to the new one's units."""
        # Imported here, not at the top: pandas' import is ~400 ms on this machine (python
        # -X importtime), more than a whole `compare three-way`, and only library callers
        # asking for a DataFrame need it.
        import pandas as pd

        names = list(self.rows)
        columns = {
            role: pd.array(
                [self.value(role, n) for n in names],
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

    @cached_property
    def _meta_by_role(self) -> dict[str, Metadata | None]:
        """Each role's own metadata, else the table's."""
        return {s.role: s.metadata or self.metadata for s in self.sources}

    def source(self, role: str) -> Source:
        return self._by_role[role]

    def param(self, role: str, name: str) -> Param | None:
        """The row's parameter as ``role`` states it (under its old name for a renamed row)."""
        pairing = self.renames.get(name)
        return self.params[role].get(pairing.name_in(role) if pairing else name)

    def _meta(self, role: str) -> Metadata | None:
        return self._meta_by_role[role]

    def value(self, role: str, name: str) -> float | None:
        """The row's value for ``role``, in the units of the row's (newest) name."""
        pairing = self.renames.get(name)
        if pairing is None:  # the common case, kept cheap: ~1,400 rows x every role
            param = self.params[role].get(name)
            return param.value if param is not None else None
        param = self.params[role].get(pairing.name_in(role))
        if param is None or param.name == name:
            return param.value if param is not None else None
        meta = self._meta(role)
        return pairing.rename.conversion.apply(
            param.value, meta.bits_of(param.name) if meta else None
        )

    def shown_name(self, name: str) -> str:
        """``SR0_EXTRA1 → MAV1_EXTRA1`` for a renamed row, else the name."""
        pairing = self.renames.get(name)
        return f"{pairing.rename.old} → {name}" if pairing else name

    def renamed_from(self, name: str) -> Rename | None:
        pairing = self.renames.get(name)
        return pairing.rename if pairing else None

    def cell(self, role: str, name: str) -> str:
        """A value as a person reads it: ``74 (ThrottleRight)``, ``—`` absent, ``n/r``;
        an old value that converts reads ``20000 cm → 200 m``."""
        pairing = self.renames.get(name)
        param = self.params[role].get(pairing.name_in(role) if pairing else name)
        if param is None:
            return ABSENT if self._by_role[role].file.can_represent(name) else NR
        meta = self._meta_by_role[role]
        text = meta.label(param.name, param.value) if meta else format_value(param.value)
        if param.read_only:
            text += READ_ONLY_MARK
        if pairing is None or param.name == name or pairing.rename.conversion.identity:
            return text
        converted = pairing.rename.conversion.apply(
            param.value, meta.bits_of(param.name) if meta else None
        )
        new_meta = self._meta(pairing.new_roles[0])
        label = new_meta.label(name, converted) if new_meta else format_value(converted)
        return f"{text} → {label}"

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
        # Each firmware's share of the names, as a set (~1,400 names x every firmware)
        defined = {fw: set(names).intersection(meta.params) for fw, meta in metas.items()}
        for fw in metas:
            elsewhere = set().union(*(d for f, d in defined.items() if f != fw))
            only = [n for n in names if n in defined[fw] and n not in elsewhere]
            if only:
                shown = ", ".join(only[:shown_max]) + (
                    f" (+{len(only) - shown_max} more)" if len(only) > shown_max else ""
                )
                out.append(f"only firmware {fw} defines: {shown}")
        return out


def _verdict(
    values: list[float | None], capable: list[str], n_sources: int
) -> tuple[Verdict, tuple[str, ...]]:
    """The verdict on one row and the roles it names, from the capable sources' values."""
    vals = [v for v in values if v is not None]
    for v in vals[1:]:  # equal values (most rows) skip same_value's float32 rounding
        if v != vals[0] and not same_value(vals[0], v):
            return Verdict.DIFFERS, ()
    if n_sources == 1 and vals:
        return Verdict.SET, ()
    if len(vals) == len(capable):
        return (Verdict.SAME if len(capable) > 1 else Verdict.NOT_REPRESENTABLE), ()
    if len(vals) == 1:
        return Verdict.ONLY_IN, tuple(
            r for r, v in zip(capable, values, strict=True) if v is not None
        )
    return Verdict.MISSING_IN, tuple(r for r, v in zip(capable, values, strict=True) if v is None)


class _RowMaker:
    """Makes each row of one comparison: what every row reads is looked up once here."""

    def __init__(self, comp: Comparison, classifier: Classifier | None) -> None:
        self.comp = comp
        self.sides = [(s.role, s.file.params, s.file.representable) for s in comp.sources]
        metas = [comp.metadata, *(s.metadata for s in comp.sources)]
        self.metas = list({id(m): m for m in metas if m is not None}.values())
        self.classify = classifier.classify if classifier else None
        # A table has a handful of distinct statuses: each made once (a status of many roles,
        # as `diff` over a thousand files makes, is not kept).
        self.statuses: dict[tuple[str, tuple[str, ...], bool], Status] = {}

    def status(self, verdict: Verdict, roles: tuple[str, ...], renamed: bool) -> Status:
        if len(roles) > SHORT_STATUS_ROLES:
            return Status(verdict, roles, renamed)
        key = (verdict._value_, roles, renamed)  # an Enum's hash (and .value) is a Python call
        made = self.statuses.get(key)
        if made is None:
            made = self.statuses[key] = Status(verdict, roles, renamed)
        return made

    def row(self, name: str) -> Row:
        renamed = name in self.comp.renames
        values: list[float | None] = []
        capable = []
        for role, params, representable in self.sides:
            if representable is None or name in representable:
                capable.append(role)
                if renamed:
                    values.append(self.comp.value(role, name))
                else:
                    param = params.get(name)
                    values.append(param.value if param is not None else None)
        verdict, roles = _verdict(values, capable, len(self.sides))
        shown = None
        for meta in self.metas:
            if (shown := meta.display_name(name)) is not None:
                break
        return Row(
            self.status(verdict, roles, renamed),
            self.classify(name)[0] if self.classify else UNCATEGORISED,
            shown or "",
        )


def compare(
    sources: list[Source],
    classifier: Classifier | None = None,
    metadata: Metadata | None = None,
    renames: dict[str, Rename] | None = None,
) -> Comparison:
    """The aligned table of ``sources`` (any number), one row per name any of them has.

    A parameter ArduPilot renamed between the sources' firmware versions (``renames``, by
    default paramdiff/data/renames.yaml) is one row under its new name, old values converted.
    """
    params = {s.role: s.file.params for s in sources}
    meta = metadata or next((s.metadata for s in sources if s.metadata), None)
    facts = [(s.role, f) for s in sources for f in s.file.facts]
    warnings = [(s.role, w) for s in sources for w in s.file.warnings]
    pairs = pair_renames(sources, renames)
    categories = classifier.names if classifier else (UNCATEGORISED,)
    comp = Comparison(sources, {}, params, meta, facts, warnings, pairs, categories)
    old_names = {p.rename.old for p in pairs.values()}
    rows = _RowMaker(comp, classifier)
    for name in sorted(set().union(*(s.file.params for s in sources)) - old_names):
        comp.rows[name] = rows.row(name)
    return comp


def check_categories(comp: Comparison, categories: tuple[str, ...]) -> None:
    """Refuse a category no row of ``comp`` can be in, naming those it can."""
    unknown = [c for c in categories if c not in comp.categories]
    if not unknown:
        return
    if comp.categories == (UNCATEGORISED,):
        raise UsageError(
            f"--category {quote(unknown[0])}: these rows are {UNCATEGORISED} (a local file is "
            "categorised only with --project-metadata, by a project here whose cache holds its "
            "firmware's metadata)",
            "add --project-metadata, or select rows with --param GLOB instead",
        )
    raise UsageError(
        f"unknown category '{quote(unknown[0])}'", f"use one of: {', '.join(comp.categories)}"
    )


# --------------------------------------------------------------------------- rendering


class TableOptions(NamedTuple):
    """Which rows of a comparison to show (``select``), and in which format."""

    only_differences: bool = False
    categories: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    fmt: str = "text"


EVERY_ROW = TableOptions()  # every row, as text


def select(
    comp: Comparison,
    only_differences: bool = False,
    categories: tuple[str, ...] = (),
    params: tuple[str, ...] = (),
) -> list[str]:
    """The names of the rows to show. A category the table cannot have is a usage error
    listing those it can (a typo must not read as "0 parameters shown")."""
    check_categories(comp, categories)
    names = []
    for name, (st, cat, _) in comp.rows.items():
        if only_differences and st.verdict is Verdict.SAME:  # renamed rows that agree too
            continue
        if categories and cat not in categories:
            continue
        pairing = comp.renames.get(name)
        both = (name, pairing.rename.old) if pairing else (name,)
        if params and not any(fnmatch.fnmatchcase(n, g.upper()) for g in params for n in both):
            continue
        names.append(name)
    return names
