"""Parameters ArduPilot renamed between firmware versions, paired into one row of a compare.

The facts (old name → new name, the firmware that renamed it, the value conversion, the upstream
source) live in ``paramdiff/data/renames.yaml``. A rename is paired only when every source that
states a version is on the matching side of it: a 4.7 file still carrying a 4.6 name is left
alone, since the firmware ignores that name and the table should say so; so is a source whose
own firmware's metadata defines both names (a vehicle that kept the old one).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from paramdiff.config.yamlfile import load_shipped
from paramdiff.errors import InputError
from paramdiff.model.metadata import LabelTables, ParamMeta
from paramdiff.model.source import Source

DATA_FILE = "paramdiff/data/renames.yaml"
RULES = ("arming_checks_to_skips",)
_REQUIRED_KEYS = {"old", "new", "since", "source"}
_ENTRY_KEYS = {*_REQUIRED_KEYS, "for", "convert"}
# Only renames.yaml's expansion (write_table, tests) fills these: compiled on first use by re.
_PLACEHOLDER = r"\{(\w+)(?:\+(\d+))?\}"
# Rover 4.6's documented ARMING_CHECK bits after ALL, for sources without metadata.
_DEFAULT_CHECK_BITS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19)


class Conversion(NamedTuple):
    """How an old value becomes the new parameter's value."""

    scale: float = 1.0
    units: str = ""
    rule: str = ""

    @property
    def identity(self) -> bool:
        return self.scale == 1.0 and not self.rule

    def apply(self, value: float, old_meta: ParamMeta | LabelTables | None = None) -> float:
        if self.rule == "arming_checks_to_skips":
            return arming_checks_to_skips(value, old_meta)
        return value * self.scale

    def describe(self) -> str:
        if self.rule:
            return self.rule.replace("_", " ")
        if self.scale != 1.0:
            return f"{self.units} (× {self.scale:g})".strip()
        return "same value"


class Rename(NamedTuple):
    """A parameter ArduPilot renamed: old and new name, firmware, conversion, source."""

    old: str
    new: str
    since: str  # firmware major.minor that uses the new name
    conversion: Conversion
    source: str


class Pairing(NamedTuple):
    """One table row that joins a renamed parameter across sources."""

    rename: Rename
    old_roles: tuple[str, ...]  # sources that set the old name
    new_roles: tuple[str, ...]  # sources that set the new name

    def name_in(self, role: str) -> str:
        return self.rename.old if role in self.old_roles else self.rename.new


def arming_checks_to_skips(check: float, old_meta: ParamMeta | LabelTables | None = None) -> float:
    """ARMING_CHECK (checks to run) as the ARMING_SKIPCHK (checks to skip) 4.7 converts it to.

    Rule from ArduPilot/ardupilot PR #31568 (AP_Arming: turn ARMING_CHECK into ARMING_SKIPCHK,
    its parameter conversion): the ALL bit (bit 0) skips nothing; no bit at all skips every
    current and future check (-1); otherwise every check the old firmware documents and the old
    value leaves out is skipped. Checked on BlueBoat120.params: 4.6's 4124 became 4.7's 1043938.
    """
    bits = int(check)
    if bits & 1:
        return 0.0
    if bits == 0:
        return -1.0
    documented = sorted(old_meta.bitmask) if old_meta and old_meta.bitmask else None
    checks = [b for b in documented or _DEFAULT_CHECK_BITS if b != 0]
    return float(sum(1 << b for b in checks if not bits >> b & 1))


def firmware_key(firmware: str | None) -> tuple[int, ...] | None:
    """``"4.7"`` -> ``(4, 7)``; None when there is no usable version."""
    if not firmware:
        return None
    try:
        return tuple(int(part) for part in firmware.split("."))
    except ValueError:
        return None


# --------------------------------------------------------------------------- the data file


def _values(spec: Any, where: str) -> list[Any]:
    if isinstance(spec, str) and ".." in spec:
        lo, hi = spec.split("..", 1)
        return list(range(int(lo), int(hi) + 1))
    if isinstance(spec, list) and spec:
        return spec
    raise InputError(
        f"{where}: a value list or an 'a..b' range is expected",
        "fix the entry",
        file=DATA_FILE,
    )


def _fill(template: str, bound: Mapping[str, Any]) -> str:
    def sub(m: re.Match[str]) -> str:
        value = bound[m.group(1)]
        return str(int(value) + int(m.group(2))) if m.group(2) else str(value)

    return re.sub(_PLACEHOLDER, sub, template)


def _conversion(spec: Any, where: str) -> Conversion:
    if spec is None:
        return Conversion()
    if not isinstance(spec, dict) or set(spec) - {"scale", "units", "rule"}:
        raise InputError(f"{where}: bad 'convert'", "use {scale, units} or {rule}", file=DATA_FILE)
    rule = str(spec.get("rule", ""))
    if rule and rule not in RULES:
        raise InputError(f"{where}: unknown rule '{rule}'", f"use one of {RULES}", file=DATA_FILE)
    return Conversion(float(spec.get("scale", 1.0)), str(spec.get("units", "")), rule)


def _expand(entry: Any, index: int) -> Iterator[Rename]:
    where = f"renames[{index}]"
    if not isinstance(entry, dict) or not _REQUIRED_KEYS <= set(entry) <= _ENTRY_KEYS:
        raise InputError(
            f"{where}: needs old, new, since and source", "fix the entry", file=DATA_FILE
        )
    conversion = _conversion(entry.get("convert"), where)
    variables = entry.get("for") or {}
    names = list(variables)
    choices = [_values(variables[n], f"{where}.for.{n}") for n in names]
    for combo in itertools.product(*choices):
        bound = dict(zip(names, combo, strict=True))
        yield Rename(
            _fill(str(entry["old"]), bound),
            _fill(str(entry["new"]), bound),
            str(entry["since"]),
            conversion,
            " ".join(str(entry["source"]).split()),
        )


def parse_renames(text: str) -> dict[str, Rename]:
    """Every rename in a renames.yaml text, keyed by old name."""
    doc = load_shipped(text, DATA_FILE)  # the shipped table uses anchors: not load_yaml
    if not isinstance(doc, dict) or not isinstance(doc.get("renames"), list):
        raise InputError("no 'renames:' list", "see the file's header", file=DATA_FILE)
    out: dict[str, Rename] = {}
    for i, entry in enumerate(doc["renames"]):
        for r in _expand(entry, i):
            out[r.old] = r
    return out


_DATA = Path(__file__).resolve().parent.parent / "data"
TABLE_FILE = "paramdiff/data/renames.json"
REGENERATE = (
    '.venv/bin/python -c "from paramdiff.comparison.renames import write_table; write_table()"'
)


@cache
def known_renames() -> dict[str, Rename]:
    """The renames shipped with paramdiff (read once per process).

    Read from renames.json, the table renames.yaml expands to, generated by ``write_table``
    and kept equal to it by a test: 0.5 ms, where the YAML took ~9 ms with its import and the
    cached form needed hashlib, the cache directory and platformdirs (~10 ms of imports).
    """
    # A plain path, not importlib.resources: that import alone costs more than the read.
    table = _decode_table((_DATA / "renames.json").read_bytes())
    if table is None:
        raise InputError(
            "the renames table is malformed", f"regenerate it: {REGENERATE}", file=TABLE_FILE
        )
    return table


def table_bytes(table: Mapping[str, Rename]) -> bytes:
    """renames.json's bytes for ``table``: a JSON list, one rename per line."""
    rows = [
        [r.old, r.new, r.since, r.conversion.scale, r.conversion.units, r.conversion.rule, r.source]
        for r in table.values()
    ]
    lines = ",\n".join(json.dumps(row, ensure_ascii=False) for row in rows)
    return f"[\n{lines}\n]\n".encode()


def _decode_table(payload: bytes) -> dict[str, Rename] | None:
    try:
        rows = json.loads(payload)
        table = {}
        for old, new, since, scale, units, rule, source in rows:
            if not all(isinstance(x, str) for x in (old, new, since, units, rule, source)):
                return None
            if type(scale) is not float or (rule and rule not in RULES):
                return None
            table[old] = Rename(old, new, since, Conversion(scale, units, rule), source)
    except (ValueError, TypeError):
        return None
    return table


def write_table() -> None:
    """Regenerate renames.json from renames.yaml (after editing renames.yaml)."""
    table = parse_renames((_DATA / "renames.yaml").read_text(encoding="utf-8"))
    (_DATA / "renames.json").write_bytes(table_bytes(table))


# --------------------------------------------------------------------------- pairing


def _on_its_side(rename: Rename, source: Source, uses_old: bool) -> bool:
    """Whether ``source`` may hold the name it holds: its firmware is on that side of the
    rename, and (when its own firmware's metadata is known) that firmware does not define the
    other name too, which would mean this vehicle never renamed it (Rover keeps RTL_SPEED)."""
    meta = source.metadata
    other = rename.new if uses_old else rename.old
    if meta is not None and meta.firmware == source.firmware and other in meta:
        return False
    version = firmware_key(source.firmware)
    if version is None:
        return True  # no version stated: the name it uses decides
    renamed = version >= (firmware_key(rename.since) or ())
    return renamed != uses_old


def _pairing(rename: Rename, sources: Sequence[Source]) -> Pairing | None:
    olds = tuple(s.role for s in sources if rename.old in s.file.params)
    news = tuple(s.role for s in sources if rename.new in s.file.params)
    if not olds or not news or set(olds) & set(news):
        return None
    for s in sources:
        if s.role in olds and not _on_its_side(rename, s, uses_old=True):
            return None
        if s.role in news and not _on_its_side(rename, s, uses_old=False):
            return None
    return Pairing(rename, olds, news)


def pair_renames(
    sources: Sequence[Source], renames: Mapping[str, Rename] | None = None
) -> dict[str, Pairing]:
    """The renamed parameters these sources set under both names, keyed by the new name."""
    table = known_renames() if renames is None else renames
    out: dict[str, Pairing] = {}
    for old in sorted({n for s in sources for n in s.file.params if n in table}):
        pairing = _pairing(table[old], sources)
        if pairing is not None:
            out[pairing.rename.new] = pairing
    return out
