"""Overlays: deliberate differences between the shipped set and the SITL set, each with a reason.

An overlay says which role the derived file starts from (``base``), which
parameters it carries (``select``), how the body is grouped (``sections``) and the
``deltas`` — each written against the upstream value it replaces (``was``), so a
delta that upstream has moved under is detected as stale instead of applied blindly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from paramdiff.config.validators import check_keys, globs, mapping, sequence, text, version
from paramdiff.config.yamlfile import YamlDoc, load_yaml
from paramdiff.digests import sha256_of
from paramdiff.errors import ConfigError, StaleOverlayError
from paramdiff.files import TEXT_LIMIT, project_path, read_regular
from paramdiff.model.categories import GlobSet
from paramdiff.model.metadata import Metadata
from paramdiff.model.params import Param
from paramdiff.model.values import check_name, format_value, parse_number, same_value


class Delta(NamedTuple):
    """One deliberate change the overlay makes to the base, with its reason and line."""

    param: str
    value: float
    was: float | None  # None: the base does not set it; the delta adds it
    reason: str
    ref: str | None
    line: int


@dataclass(frozen=True)
class Rule:
    """An exclusion or inclusion: a category or name globs, with the reason. Equal and hashed
    by its four fields (derive keys what each rule left out by the rule)."""

    reason: str
    category: str | None = None
    params: tuple[str, ...] = ()
    line: int = 0

    def matches(self, name: str, category: str) -> bool:
        if self.category is not None and self.category == category:
            return True
        return self.params != () and self._pattern.match(name)

    @cached_property
    def _pattern(self) -> GlobSet:
        """The globs as one GlobSet (fnmatchcase semantics), made once per rule."""
        return GlobSet(self.params)

    @property
    def label(self) -> str:
        return f"category {self.category}" if self.category else ", ".join(self.params)


class Acknowledgement(NamedTuple):
    """An overlay entry that accepts one finding of a named launch or model, with a reason.

    It matches the finding by its text and, for a finding about a Gazebo model, the model's
    sha256: like a delta's ``was``, it goes stale when the finding changes (or the model's bytes
    do), and check then fails until it is re-reviewed."""

    finding: str
    reason: str
    line: int
    launch: str | None = None  # a declared launch's name
    model: str | None = None  # a model role (e.g. sitl_models) or path
    sha256: str | None = None  # the model's bytes the finding was read from


class Section(NamedTuple):
    """A named group of parameters in the derived file."""

    name: str
    params: tuple[str, ...]


@dataclass(frozen=True)  # no slots: the lookups below are cached_property
class Overlay:
    """An overlay file: the base role, what it leaves out or keeps, its sections and deltas."""

    file: str
    sha256: str
    base: str
    exclude: tuple[Rule, ...]
    include: tuple[Rule, ...]
    sections: tuple[Section, ...]
    deltas: tuple[Delta, ...]
    acknowledged: tuple[Acknowledgement, ...] = ()

    def excluded_categories(self) -> frozenset[str]:
        """Categories left out as a whole (SITL's own values are the right ones there)."""
        return frozenset(r.category for r in self.exclude if r.category)

    def delta(self, name: str) -> Delta | None:
        return self._deltas_by_name.get(name)

    @cached_property
    def _deltas_by_name(self) -> dict[str, Delta]:
        out: dict[str, Delta] = {}
        for d in self.deltas:
            out.setdefault(d.param, d)  # the first, as a scan in file order finds it
        return out

    def excluded_by(self, name: str, category: str) -> Rule | None:
        """The rule that leaves ``name`` out, or None when the derived file carries it."""
        (include_categories, include_globs), (exclude_categories, exclude_globs) = self._any_rule
        if category in include_categories or include_globs.match(name):
            return None
        if category not in exclude_categories and not exclude_globs.match(name):
            return None
        return next((r for r in self.exclude if r.matches(name, category)), None)

    @cached_property
    def _any_rule(self) -> tuple[tuple[frozenset[str], GlobSet], ...]:
        """Whether any include / any exclude rule matches, as one category set and one GlobSet
        each: derive asks for every name of the base set (rule by rule, 1.0 of 2.7 ms)."""
        return tuple(
            (
                frozenset(r.category for r in rules if r.category is not None),
                GlobSet(tuple(g for r in rules for g in r.params)),
            )
            for rules in (self.include, self.exclude)
        )

    def section_of(self, name: str) -> str:
        # GlobSet.match inline: a call per section per name was half the time (0.6 ms of
        # BlueBoat's derive)
        for section, names, prefixes, rest in self._section_globs:
            if name in names or name.startswith(prefixes) or (rest and rest.match(name)):
                return section
        return "other"

    @cached_property
    def _section_globs(
        self,
    ) -> list[tuple[str, frozenset[str], tuple[str, ...], re.Pattern[str] | None]]:
        """Each section's name and GlobSet parts (sections are mostly PREFIX_*, so few globs
        are compiled: ~1 ms a run across the three profiles)."""
        return [
            (s.name, g.names, g.prefixes, g.rest)
            for s in self.sections
            for g in (GlobSet(s.params),)
        ]


def _number(doc: YamlDoc, path: tuple[Any, ...], raw: Any, what: str) -> float:
    value, problem = parse_number(str(raw)) if not isinstance(raw, bool) else (None, "a boolean")
    if value is None:
        raise doc.error(path, f"{what}: {problem}", "write a number")
    return value


# The longest reason an overlay may give (the shipped overlays' longest is 327): a reason is
# a line or two a reviewer reads, and it is copied into the derived file and the report, which
# `check` reads back under files.TEXT_LIMIT. A 1 MB reason was written by derive and refused
# by check; now the overlay is refused where it is read, for every command alike.
MAX_REASON = 1000


def _reason(doc: YamlDoc, path: tuple[Any, ...], raw: Any, what: str) -> str:
    """A reason's text, white space collapsed ("" when absent), at most MAX_REASON long."""
    reason = " ".join((text(doc, path, raw) if raw is not None else "").split())
    if len(reason) > MAX_REASON:
        raise doc.error(
            path,
            f"{what} has a reason of {len(reason)} characters, over paramdiff's limit of "
            f"{MAX_REASON}",
            "shorten it to a line or two; link the details with ref:",
        )
    return reason


def _rules(doc: YamlDoc, key: str, raw: Any) -> tuple[Rule, ...]:
    rules = []
    for i, item in enumerate(sequence(doc, ("select", key), raw)):
        path = ("select", key, i)
        check_keys(doc, path, item, {"reason"}, {"category", "params"})
        reason = _reason(doc, (*path, "reason"), item["reason"], f"select.{key}[{i}]")
        if not reason:
            raise doc.error(path, f"select.{key}[{i}] has no reason", "say why in one line")
        if ("category" in item) == ("params" in item):
            raise doc.error(
                path,
                f"select.{key}[{i}] needs one of category or params",
                "name a category, or a list of parameter globs",
            )
        rules.append(
            Rule(
                reason=reason,
                category=text(doc, (*path, "category"), item["category"])
                if "category" in item
                else None,
                params=globs(doc, (*path, "params"), item["params"]) if "params" in item else (),
                line=doc.line(path),
            )
        )
    return tuple(rules)


def _deltas(doc: YamlDoc, raw: Any) -> list[Delta]:
    deltas = []
    seen: dict[str, int] = {}
    for i, d in enumerate(sequence(doc, ("deltas",), raw)):
        path = ("deltas", i)
        check_keys(doc, path, d, {"param", "value", "was", "reason"}, {"ref"})
        name = text(doc, (*path, "param"), d["param"])
        bad = check_name(name)
        if bad:
            raise doc.error((*path, "param"), bad[0], bad[1])
        if name in seen:
            raise doc.error(
                path,
                f"{name} has two deltas (first on line {seen[name]})",
                "keep one delta per parameter",
            )
        seen[name] = doc.line(path)
        reason = _reason(doc, (*path, "reason"), d["reason"], f"delta {name}")
        if not reason:
            raise doc.error(
                (*path, "reason"),
                f"delta {name} has no reason",
                "say why the SITL value differs, so a reviewer can disagree",
            )
        deltas.append(
            Delta(
                param=name,
                value=_number(doc, (*path, "value"), d["value"], f"delta {name} value"),
                was=None
                if d["was"] is None
                else _number(doc, (*path, "was"), d["was"], f"delta {name} was"),
                reason=reason,
                ref=text(doc, (*path, "ref"), d["ref"]) if d.get("ref") else None,
                line=doc.line(path),
            )
        )
    return deltas


def parse_overlay(data: bytes, file: str) -> Overlay:
    doc = load_yaml(data, file)
    raw = check_keys(
        doc, (), doc.data, {"version", "base", "deltas"}, {"select", "sections", "acknowledged"}
    )
    version(doc, raw["version"], 1, "use version: 1")
    select = mapping(doc, ("select",), raw.get("select"))
    check_keys(doc, ("select",), select, set(), {"exclude", "include"})
    sections = []
    for i, s in enumerate(sequence(doc, ("sections",), raw.get("sections"))):
        path = ("sections", i)
        check_keys(doc, path, s, {"name", "params"}, set())
        params = globs(doc, (*path, "params"), s["params"])
        sections.append(Section(text(doc, (*path, "name"), s["name"]), params))
    deltas = _deltas(doc, raw["deltas"])
    overlay = Overlay(
        file=file,
        sha256=sha256_of(data),
        base=text(doc, ("base",), raw["base"]),
        exclude=_rules(doc, "exclude", select.get("exclude")),
        include=_rules(doc, "include", select.get("include")),
        sections=tuple(sections),
        deltas=tuple(deltas),
        acknowledged=_acknowledged(doc, raw.get("acknowledged")),
    )
    return overlay


SHA256_RE = re.compile(r"^[0-9a-f]{64}$")


def _acknowledged(doc: YamlDoc, raw: Any) -> tuple[Acknowledgement, ...]:
    out = []
    for i, a in enumerate(sequence(doc, ("acknowledged",), raw)):
        path = ("acknowledged", i)
        check_keys(doc, path, a, {"finding", "reason"}, {"launch", "model", "sha256"})
        if ("launch" in a) == ("model" in a):
            raise doc.error(
                path,
                "an acknowledgement names exactly one of 'launch' or 'model'",
                "write launch: NAME (a declared launch) or model: ROLE (e.g. sitl_models)",
            )
        reason = " ".join(text(doc, (*path, "reason"), a["reason"]).split())
        sha = text(doc, (*path, "sha256"), a["sha256"]) if "sha256" in a else None
        if sha is not None and not SHA256_RE.match(sha):
            raise doc.error(
                (*path, "sha256"),
                f"sha256 {sha!r} is not 64 lower-case hex digits",
                "copy the model's sha256 from sources.lock or the report",
            )
        out.append(
            Acknowledgement(
                finding=" ".join(text(doc, (*path, "finding"), a["finding"]).split()),
                reason=reason,
                line=doc.line(path),
                launch=text(doc, (*path, "launch"), a["launch"]) if "launch" in a else None,
                model=text(doc, (*path, "model"), a["model"]) if "model" in a else None,
                sha256=sha,
            )
        )
    return tuple(out)


def load_overlay(root: Path, rel: str) -> Overlay:
    return parse_overlay(read_overlay(root, rel), rel)


def read_overlay(root: Path, rel: str) -> bytes:
    """The overlay file's bytes (a regular file of the project, of bounded size)."""
    try:
        return read_regular(project_path(root, rel), limit=TEXT_LIMIT, label=rel)
    except FileNotFoundError:
        raise ConfigError(
            f"overlay {rel} does not exist", "create it or fix 'overlay:' in sources.yaml"
        ) from None


def validate_deltas(
    overlay: Overlay,
    base_params: dict[str, Param],
    metadata: Metadata | None,
    commit: str,
    classify: Any,
) -> None:
    """Every delta names a real parameter, a valid value, and the value upstream has now."""
    for d in overlay.deltas:
        file, line = overlay.file, d.line
        if metadata is not None:
            # From the parsed metadata's ranges and label tables (Metadata.problems): the
            # name's entry is not decoded, so no check reads the 1.5 MB of entries for this.
            problems = metadata.problems(d.param, d.value)
            if problems is None:
                raise ConfigError(
                    f"delta {d.param}: no such parameter in {metadata.file} "
                    f"(firmware {metadata.firmware})",
                    "check the name; ArduPilot would silently ignore it",
                    file=file,
                    line=line,
                )
            if problems:
                raise ConfigError(
                    f"delta {d.param}: {'; '.join(problems)}",
                    "choose a value the firmware accepts",
                    file=file,
                    line=line,
                )
        upstream = base_params.get(d.param)
        if d.was is None and upstream is not None:
            raise StaleOverlayError(
                f"delta {d.param} says upstream does not set it (was: null), but "
                f"{_at(overlay.base, commit)} sets {upstream.text} ({upstream.origin})",
                f"review the delta against the new upstream value, then set was: {upstream.text}",
                file=file,
                line=line,
            )
        if d.was is not None and (upstream is None or not same_value(upstream.value, d.was)):
            now = f"{upstream.text} ({upstream.origin})" if upstream else "nothing (not set)"
            raise StaleOverlayError(
                f"delta {d.param} is stale: written against {format_value(d.was)}, but "
                f"{_at(overlay.base, commit)} now has {now}",
                f"review the delta against the new upstream value, then update was: "
                f"{upstream.text if upstream else 'null'} in {overlay.file}",
                file=file,
                line=line,
            )
        category = classify(d.param)
        rule = overlay.excluded_by(d.param, category)
        if rule is not None:
            raise ConfigError(
                f"delta {d.param} targets a parameter the overlay excludes ({rule.label}: "
                f"{rule.reason})",
                "remove the delta, or add the parameter to select.include with a reason",
                file=file,
                line=line,
            )


def _at(base: str, commit: str) -> str:
    """The base role where the overlay read it: at its upstream commit, or (a file of this
    repository, which has none) as pinned."""
    return f"{base} at {commit[:12]}" if commit else f"{base} (this repository's file)"
