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
from .table import Classifier, Source

if TYPE_CHECKING:
    import pandas as pd

SAME = "same"
DIFFERS = "differs"
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
            _status(values, capable),
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


def _rows(comp: Comparison, names: list[str]) -> list[list[str]]:
    return [[name, *(comp.cell(r, name) for r in comp.roles), *comp.rows[name]] for name in names]


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
    from .texttable import TEXT_CELL_MAX, table

    headers = ["name", *comp.roles, "status", "category", "display_name"]
    md = fmt == "markdown"
    if preamble:
        yield from _preamble(comp, names, title, md)
    yield from table(headers, _rows(comp, names), md, cell_max=TEXT_CELL_MAX)
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
        if (p := comp.params[r].get(name)) is not None and p.overrides
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
    # Text keeps the terminal width of the table; markdown (the report) lists twelve names.
    for line in comp.version_lines() if md else comp.version_lines(names_shown=5):
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
    writer.writerow(["name", *comp.roles, "status", "category", "display_name"])
    for name in names:
        row = [name]
        for r in comp.roles:
            p = comp.params[r].get(name)
            row.append(format_value(p.value) if p else "")
        row += list(comp.rows[name])
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
        values: dict[str, Any] = {}
        for r in comp.roles:
            p = comp.params[r].get(name)
            if p is None:
                values[r] = None if comp.source(r).file.can_represent(name) else NR
                continue
            values[r] = {
                "value": p.value,
                "text": p.text,
                "label": comp.cell(r, name),
                "file": p.file,
                "line": p.line,
                **({"note": p.note} if p.note else {}),
                **({"overrides": [f"{o} = {t}" for o, t in p.overrides]} if p.overrides else {}),
                **({"included_via": [str(o) for o in p.chain]} if p.chain else {}),
            }
        out["parameters"].append(
            {
                "name": name,
                "values": values,
                "status": comp.rows[name].status,
                "category": comp.rows[name].category,
                "display_name": comp.rows[name].display_name,
            }
        )
    yield from json.dumps(out, indent=2, sort_keys=False).splitlines()
