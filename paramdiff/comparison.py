"""Align any number of sources on the parameter name and say how they disagree."""

from __future__ import annotations

import fnmatch
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from .formats import Diagnostic, Fact, Param, format_value, same_value
from .metadata import Metadata
from .stages.renames import Pairing, Rename, pair_renames
from .table import Classifier, Source

if TYPE_CHECKING:
    import pandas as pd

SAME = "same"
DIFFERS = "differs"
RENAMED = "renamed"  # ArduPilot renamed it between the sources' firmware; values agree
RENAMED_DIFFERS = "renamed, differs"
NOT_REPRESENTABLE = "not representable"
ONLY_IN = "only in "
MISSING_IN = "missing in "
ABSENT = "—"
NR = "n/r"
FORMATS = ("text", "markdown", "csv", "json")


class Row(NamedTuple):
    """What the table says about one name, beside the sources' values."""

    status: str
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
    renames: dict[str, Pairing] = field(default_factory=dict)  # row name (the new one) -> pair

    @cached_property
    def frame(self) -> pd.DataFrame:
        """The table as a DataFrame (index: name; one float column per role, then status,
        category, display_name). Built on first use: the CLI never needs pandas. A renamed
        parameter's row is its new name, with old values converted to the new one's units."""
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
                "status": [r.status for r in self.rows.values()],
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

    def param(self, role: str, name: str) -> Param | None:
        """The row's parameter as ``role`` states it (under its old name for a renamed row)."""
        pairing = self.renames.get(name)
        return self.params[role].get(pairing.name_in(role) if pairing else name)

    def _meta(self, role: str) -> Metadata | None:
        return self._by_role[role].metadata or self.metadata

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
        return pairing.rename.conversion.apply(param.value, meta.get(param.name) if meta else None)

    def shown_name(self, name: str) -> str:
        """``SR0_EXTRA1 → MAV1_EXTRA1`` for a renamed row, else the name."""
        pairing = self.renames.get(name)
        return f"{pairing.rename.old} → {name}" if pairing else name

    def cell(self, role: str, name: str) -> str:
        """A value as a person reads it: ``74 (ThrottleRight)``, ``—`` absent, ``n/r``;
        an old value that converts reads ``20000 cm → 200 m``."""
        param = self.param(role, name)
        src = self._by_role[role]
        if param is None:
            return ABSENT if src.file.can_represent(name) else NR
        meta = self._meta(role)
        text = meta.label(param.name, param.value) if meta else format_value(param.value)
        pairing = self.renames.get(name)
        if pairing is None or param.name == name or pairing.rename.conversion.identity:
            return text
        converted = pairing.rename.conversion.apply(
            param.value, meta.get(param.name) if meta else None
        )
        new_meta = self._meta(pairing.new_roles[0])
        label = new_meta.label(name, converted) if new_meta else format_value(converted)
        return f"{text} → {label}"

    def version_lines(self) -> list[str]:
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
        out.extend(self.version_only_names())
        return out

    def version_only_names(self) -> list[str]:
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
                shown = ", ".join(only[:12]) + (
                    f" (+{len(only) - 12} more)" if len(only) > 12 else ""
                )
                out.append(f"only firmware {fw} defines: {shown}")
        return out


def _status(values: dict[str, float | None], capable: list[str]) -> str:
    present = {r: v for r, v in values.items() if v is not None}
    vals = list(present.values())
    if any(not same_value(vals[0], v) for v in vals[1:]):
        return DIFFERS
    if len(present) == len(capable):
        return SAME if len(capable) > 1 else NOT_REPRESENTABLE
    if len(present) == 1:
        return ONLY_IN + next(iter(present))
    return MISSING_IN + ", ".join(r for r in capable if r not in present)


def _renamed_status(status: str) -> str:
    if status == SAME:
        return RENAMED
    return RENAMED_DIFFERS if status == DIFFERS else f"{RENAMED}, {status}"


def _row(comp: Comparison, name: str, classifier: Classifier | None) -> Row:
    values = {}
    capable = []
    for s in comp.sources:
        if s.file.can_represent(name):
            capable.append(s.role)
            values[s.role] = comp.value(s.role, name)
    status = _status(values, capable)
    info = None
    for m in [comp.metadata, *(s.metadata for s in comp.sources)]:
        if m is not None and (info := m.get(name)) is not None:
            break
    return Row(
        _renamed_status(status) if name in comp.renames else status,
        classifier.classify(name)[0] if classifier else "",
        info.display_name if info else "",
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
    comp = Comparison(sources, {}, params, meta, facts, warnings, pairs)
    old_names = {p.rename.old for p in pairs.values()}
    for name in sorted({n for s in sources for n in s.file.params} - old_names):
        comp.rows[name] = _row(comp, name, classifier)
    return comp


# --------------------------------------------------------------------------- rendering


def select(
    comp: Comparison,
    only_differences: bool = False,
    categories: tuple[str, ...] = (),
    params: tuple[str, ...] = (),
) -> list[str]:
    names = []
    for name, (st, cat, _) in comp.rows.items():
        if only_differences and st in (SAME, RENAMED):
            continue
        if categories and cat not in categories:
            continue
        pairing = comp.renames.get(name)
        both = (name, pairing.rename.old) if pairing else (name,)
        if params and not any(fnmatch.fnmatchcase(n, g.upper()) for g in params for n in both):
            continue
        names.append(name)
    return names


def _rows(comp: Comparison, names: list[str]) -> list[list[str]]:
    return [
        [comp.shown_name(name), *(comp.cell(r, name) for r in comp.roles), *comp.rows[name]]
        for name in names
    ]


def render(
    comp: Comparison,
    fmt: str = "text",
    names: list[str] | None = None,
    title: str | None = None,
    preamble: bool = True,
) -> Iterator[str]:
    """Lines of the comparison in ``fmt`` (text, markdown, csv, json).

    ``preamble=False`` leaves out the title, version lines and counts (the report has its own).
    """
    names = list(comp.rows) if names is None else names
    if fmt == "json":
        yield from _render_json(comp, names)
        return
    if fmt == "csv":
        yield from _render_csv(comp, names)
        return
    from .texttable import table

    headers = ["name", *comp.roles, "status", "category", "display_name"]
    md = fmt == "markdown"
    if preamble:
        yield from _preamble(comp, names, title, md)
    yield from table(headers, _rows(comp, names), md)
    if comp.facts:
        yield ""
        yield "### Not representable as parameters" if md else "Not representable as parameters:"
        yield ""
        facts = [[role, f.subject, f.key, f.value, f"{f.file}:{f.line}"] for role, f in comp.facts]
        yield from table(["source", "subject", "key", "value", "where"], facts, md)
    overridden = [
        [r, name, f"{p.text} at {p.origin}", "; ".join(f"{t} at {o}" for o, t in p.overrides)]
        for r in comp.roles
        for name in names
        if (p := comp.param(r, name)) is not None and p.overrides
    ]
    if overridden:
        yield ""
        title = "Set again by a later included file (the later setting wins)"
        yield f"### {title}" if md else f"{title}:"
        yield ""
        yield from table(["source", "name", "wins", "replaced"], overridden, md)
    if comp.warnings:
        yield ""
        yield "### Warnings" if md else "Warnings:"
        yield ""
        for role, w in comp.warnings:
            yield f"- {role}: {w}" if md else f"  {role}: {w}"


def _preamble(comp: Comparison, names: list[str], title: str | None, md: bool) -> Iterator[str]:
    if title:
        yield f"## {title}" if md else title
        yield ""
    for line in comp.version_lines():
        yield f"- {line}" if md else line
    yield ""
    counts = Counter(comp.rows[n].status for n in names)
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    yield f"{len(names)} parameters shown: {summary or 'none'}"
    yield ""


def _render_csv(comp: Comparison, names: list[str]) -> Iterator[str]:
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["name", *comp.roles, "status", "category", "display_name", "renamed_from"])
    for name in names:
        row = [name]
        for r in comp.roles:
            p = comp.param(r, name)
            row.append(format_value(p.value) if p else "")  # as the source states it
        pairing = comp.renames.get(name)
        row += [*comp.rows[name], pairing.rename.old if pairing else ""]
        writer.writerow(row)
    yield from buf.getvalue().splitlines()


def _render_json(comp: Comparison, names: list[str]) -> Iterator[str]:
    out: dict[str, Any] = {
        "sources": [
            {
                "role": s.role,
                "file": s.file.file,
                "format": s.file.format,
                "repo": s.repo,
                "commit": s.commit,
                "sha256": s.sha256,
                "version": s.version,
                "metadata": s.metadata.file if s.metadata else None,
            }
            for s in comp.sources
        ],
        "versions": comp.version_lines(),
        "parameters": [],
        "facts": [
            {
                "source": r,
                "subject": f.subject,
                "key": f.key,
                "value": f.value,
                "file": f.file,
                "line": f.line,
            }
            for r, f in comp.facts
        ],
        "warnings": [
            {"source": r, "file": w.file, "line": w.line, "message": w.message}
            for r, w in comp.warnings
        ],
    }
    for name in names:
        values = {r: _value_json(comp, r, name) for r in comp.roles}
        pairing = comp.renames.get(name)
        out["parameters"].append(
            {
                "name": name,
                **({"renamed_from": _rename_json(pairing.rename)} if pairing else {}),
                "values": values,
                "status": comp.rows[name].status,
                "category": comp.rows[name].category,
                "display_name": comp.rows[name].display_name,
            }
        )
    yield from json.dumps(out, indent=2, sort_keys=False).splitlines()


def _value_json(comp: Comparison, role: str, name: str) -> dict[str, Any] | str | None:
    p = comp.param(role, name)
    if p is None:
        return None if comp.source(role).file.can_represent(name) else NR
    return {
        "name": p.name,
        "value": p.value,
        **({"converted": comp.value(role, name)} if p.name != name else {}),
        "text": p.text,
        "label": comp.cell(role, name),
        "file": p.file,
        "line": p.line,
        **({"note": p.note} if p.note else {}),
        **({"overrides": [f"{o} = {t}" for o, t in p.overrides]} if p.overrides else {}),
        **({"included_via": [str(o) for o in p.chain]} if p.chain else {}),
    }


def _rename_json(rename: Rename) -> dict[str, Any]:
    return {
        "name": rename.old,
        "since": rename.since,
        "conversion": rename.conversion.describe(),
        "source": rename.source,
    }
